"""Word-vector tables built with a sentence encoder: the "minilm" type of `WORD_VECTOR_TYPES`
(each word embedded alone by all-MiniLM-L6-v2, PCA-projected) and `build_word_vectors`, which
aligns it with GloVe on one vocabulary (see `keras_sentemb.pretrained.word_vectors`).

It lives with the models because it runs one: the MiniLM `SentenceEncoder`.

Example:
(Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    vectors = build_word_vectors(top_n=100_000, cache_dir="benchmarks/.cache")
    vectors.tables["glove"].shape, vectors.tables["minilm"].shape
    # -> ((100002, 50), (100002, 128))
"""

import numpy as np

from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.pretrained.word_vectors import (
    WORD_VECTOR_TYPES,
    WordVectors,
    load_glove,
    with_reserved_rows,
)
from keras_sentemb.utils.array_cache import (
    cache_folders,
    cached_array,
    fingerprint,
    fingerprint_texts,
    fingerprint_weights,
    load_cached_array,
    save_cached_rows,
)
from keras_sentemb.utils.row_quantization import dequantize_rows, quantize_rows
from keras_sentemb.utils.unit_vectors import unit_rows


def minilm_word_table(words, encoder, dims=128, batch_size=512, progress=True):
    """Per word, the unit MiniLM sentence vector of the word alone, PCA-projected to `dims`
    and unit-normalised again: float32 [len(words), dims]."""
    full = encoder.encode(list(words), batch_size=batch_size, progress=progress)
    if not 1 <= dims <= full.shape[1]:
        raise ValueError(f"dims must be in [1, {full.shape[1]}], got {dims}")
    centred = full - full.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    return unit_rows(centred @ components[:dims].T).astype(np.float32)


def build_word_vectors(
    top_n=100_000, types=WORD_VECTOR_TYPES, minilm_dims=128, cache_dir=None, progress=True, minilm_encoding=None
):
    """The vocabulary (first `top_n` GloVe words) and the tables of `types` (see module doc).

    The "minilm" table costs one MiniLM pass over the vocabulary (about 70 s for 100k
    words on 2 CPU cores); with `cache_dir` (a folder, or folders searched in order) it is
    computed once and reloaded after (`keras_sentemb.utils.array_cache`, keyed by the words,
    `minilm_dims` and the weights). `minilm_encoding` ("int8-rows", "int6-rows" or "int4-rows") makes it that
    table quantised per row (`keras_sentemb.utils.row_quantization`), a cache entry of its own keyed
    by the float table's key and the encoding. The zoo ships the 100k, 128-d, int6-rows entry.
    """
    unknown = [name for name in types if name not in WORD_VECTOR_TYPES]
    if unknown or not types:
        raise ValueError(f"types must be a non-empty subset of {WORD_VECTOR_TYPES}, got {types}")
    words, glove = load_glove(top_n)
    tables = {}
    for name in types:
        if name == "glove":
            tables[name] = with_reserved_rows(glove)
        else:
            table = _cached_minilm_table(words, minilm_dims, cache_dir, progress, minilm_encoding)
            tables[name] = with_reserved_rows(table)
    return WordVectors(vocabulary=words, tables=tables)


# The "minilm" table is defined by the MiniLM computation it was first built with, keras-hub's BERT
# with the tanh-approximated GELU: the zoo's word models were trained on it and load to their
# recorded outputs only with it (`from_pretrained` computes the exact GELU since, ~3e-4 apart).
MINILM_TABLE_HIDDEN_ACT = "gelu_pytorch_tanh"


def _cached_minilm_table(words, dims, cache_dir, progress, encoding=None):
    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    encoder.backbone.use_hidden_act(MINILM_TABLE_HIDDEN_ACT)

    def compute():
        return minilm_word_table(words, encoder, dims=dims, progress=progress)

    if cache_dir is None:
        table = compute()
        return table if encoding is None else dequantize_rows(*quantize_rows(table, encoding), encoding, dims)
    name, key = _minilm_table_name_and_key(words, dims, encoder)
    if encoding is not None:
        encoded_name, encoded_key = encoded_table_name_and_key(name, key, encoding)
        table = load_cached_array(cache_dir, encoded_name, encoded_key)
        if table is not None:
            return table
    table = cached_array(cache_dir, name, key, compute).astype(np.float32, copy=False)
    if encoding is None:
        return table
    save_cached_rows(cache_folders(cache_dir)[0], encoded_name, encoded_key, table, encoding)
    return load_cached_array(cache_dir, encoded_name, encoded_key)


def _minilm_table_name_and_key(words, dims, encoder):
    key = fingerprint("minilm-word-vectors", dims, fingerprint_texts(words), fingerprint_weights(encoder))
    return f"minilm-word-vectors-{dims}d", key


def encoded_table_name_and_key(name, key, encoding):
    """The cache name and key of the float table (name, key) quantised per row with `encoding`."""
    return f"{name}-{encoding}", fingerprint(key, encoding)


def minilm_table_entry(top_n, dims, cache_dir, progress=True):
    """(name, key, table) of the "minilm" table of the first `top_n` GloVe words: the cache
    entry `build_word_vectors(top_n, minilm_dims=dims, cache_dir=...)` reads (computed into
    `cache_dir` when absent). The zoo ships it (zoo/recipes/shipped_word_vectors.py)."""
    words, _ = load_glove(top_n)
    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    encoder.backbone.use_hidden_act(MINILM_TABLE_HIDDEN_ACT)
    name, key = _minilm_table_name_and_key(words, dims, encoder)
    table = cached_array(cache_dir, name, key, lambda: minilm_word_table(words, encoder, dims=dims, progress=progress))
    return name, key, table
