"""The one private method of keras-hub's `Tokenizer` our tokenizers (its subclasses) rely on, read here and
nowhere else, so that a keras-hub release that renames it breaks this file alone (tests/test_architecture.py
checks it).

- `_add_special_token(token, name)`: how a keras-hub tokenizer declares `cls_token`, `pad_token`, … (and
  their `*_id` attributes) for its preprocessors; keras-hub 0.31 and 0.32 both have it.

Our tokenizers build their TensorFlow tables themselves (`SentenceTokenizer._word_piece_models`,
`ByteLevelBpeTokenizer._bpe_tables`): keras-hub 0.31 builds its own in `set_vocabulary`, 0.32 lazily through
private hooks, and neither way is ours to override.

>>> import keras_hub
>>> tokenizer = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=["[PAD]", "[UNK]", "a"])
>>> declare_special_token(tokenizer, "[PAD]", "pad_token")
>>> tokenizer.pad_token_id
0
"""


def declare_special_token(tokenizer, token, name):
    """`tokenizer.<name> = token` and `tokenizer.<name>_id`, as keras-hub's own tokenizers declare theirs."""
    tokenizer._add_special_token(token, name)
