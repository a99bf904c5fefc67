"""Tokenizers: raw strings to token ids, in-graph (TF Text / tf.strings), so the same code runs
in tf.data pipelines, in `encode` and inside exported SavedModels; and their host side (Hugging Face
`tokenizers`: `host_wordpiece`, `host_tokenizer_rows`), which imports no TensorFlow. The in-graph
classes below are imported (TensorFlow started) when first used."""

from keras_sentemb.utils.lazy_names import lazy_names

__all__ = ["ByteLevelBpeTokenizer", "SentenceTokenizer", "UnigramTokenizer", "WordTokenizer"]
_lazy = lazy_names(
    __name__,
    {
        "ByteLevelBpeTokenizer": "keras_sentemb.tokenizers.byte_level_bpe_tokenizer",
        "SentenceTokenizer": "keras_sentemb.tokenizers.sentence_tokenizer",
        "UnigramTokenizer": "keras_sentemb.tokenizers.unigram_tokenizer",
        "WordTokenizer": "keras_sentemb.tokenizers.word_tokenizer",
    },
)


def __getattr__(name):
    if name in __all__:
        import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly)
    return _lazy(name)
