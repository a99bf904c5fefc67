"""Tokenizers: raw strings to token ids, in-graph (TF Text / tf.strings), so the same code runs
in tf.data pipelines, in `encode` and inside exported SavedModels."""

from keras_sentemb.tokenizers.byte_level_bpe_tokenizer import ByteLevelBpeTokenizer
from keras_sentemb.tokenizers.sentence_tokenizer import SentenceTokenizer
from keras_sentemb.tokenizers.unigram_tokenizer import UnigramTokenizer
from keras_sentemb.tokenizers.word_tokenizer import WordTokenizer

__all__ = ["ByteLevelBpeTokenizer", "SentenceTokenizer", "UnigramTokenizer", "WordTokenizer"]
