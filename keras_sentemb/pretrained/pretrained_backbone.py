"""A keras-hub BERT backbone and its `SentenceTokenizer` from a preset name or folder."""

import os

import keras_hub

from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir, sentence_settings
from keras_sentemb.tokenizers.sentence_tokenizer import SentenceTokenizer


def load_backbone_and_tokenizer(name_or_path="minilm-l6", dtype=None, max_length=None):
    """`(backbone, tokenizer, settings)` for a preset (e.g. "minilm-l6") or an HF-format folder.

    The weights come from an installed package (see `PRETRAINED_SOURCES`); nothing is
    downloaded. The tokenizer follows the folder's sentence-transformers settings
    (lower-casing, accents, token limit), and `settings` is `sentence_settings(folder)`.
    `max_length` lowers the token limit; it never exceeds the backbone's positions.

    Example:
    (Skipped as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    >>> backbone, tokenizer, settings = load_backbone_and_tokenizer("minilm-l6")  # doctest: +SKIP
    >>> backbone.hidden_dim, tokenizer.max_length, settings["pooling"]           # doctest: +SKIP
    (384, 256, 'mean')
    """
    folder = resolve_pretrained_dir(name_or_path)
    settings = sentence_settings(folder)
    backbone = keras_hub.models.BertBackbone.from_preset(folder, dtype=dtype)
    limit = min(max_length or settings["max_length"], backbone.max_sequence_length)
    tokenizer = SentenceTokenizer(
        vocabulary=os.path.join(folder, "vocab.txt"),
        lowercase=settings["lowercase"],
        strip_accents=settings["strip_accents"],
        max_length=limit,
    )
    return backbone, tokenizer, settings
