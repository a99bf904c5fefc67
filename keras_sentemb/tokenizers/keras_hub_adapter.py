"""The two private methods of keras-hub's `Tokenizer` our tokenizers (its subclasses) rely on, read here
and nowhere else, so that a keras-hub release that renames one breaks this file alone
(tests/test_architecture.py checks it).

- `_add_special_token(token, name)`: how a keras-hub tokenizer declares `cls_token`, `pad_token`, … (and
  their `*_id` attributes) for its preprocessors;
- `_maybe_initialized_tf()`: keras-hub 0.32 builds a tokenizer's TensorFlow lookup tables on first use,
  through the hooks `_set_vocabulary_tf` (WordPiece) and `_set_vocabulary_and_merges_tf` (BPE) that
  `SentenceTokenizer` and `ByteLevelBpeTokenizer` override to build theirs. keras-hub 0.31 builds its
  tables in `set_vocabulary` and calls neither hook: with 0.31.1 our WordPiece tokenizers have no tables
  (tried 2026-11-29), which is why setup.cfg pins keras-hub 0.32.

>>> import keras_hub
>>> tokenizer = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=["[PAD]", "[UNK]", "a"])
>>> declare_special_token(tokenizer, "[PAD]", "pad_token")
>>> tokenizer.pad_token_id
0
>>> prepare_tf_tables(tokenizer)
"""


def declare_special_token(tokenizer, token, name):
    """`tokenizer.<name> = token` and `tokenizer.<name>_id`, as keras-hub's own tokenizers declare theirs."""
    tokenizer._add_special_token(token, name)


def prepare_tf_tables(tokenizer):
    """Build `tokenizer`'s TensorFlow lookup tables unless they are built (keras-hub builds them lazily)."""
    tokenizer._maybe_initialized_tf()
