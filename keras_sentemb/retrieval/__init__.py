"""Retrieval: float semantic search, binary codes and the Hamming BinaryIndex."""

from keras_sentemb.retrieval.binary_codes import (
    hamming_distances,
    hamming_similarity,
    pack_bits,
    sign_threshold_codes,
    unpack_bits,
)
from keras_sentemb.retrieval.binary_index import BinaryIndex, faiss_available
from keras_sentemb.retrieval.semantic_search import semantic_search
from keras_sentemb.retrieval.tf_hamming_search import codes_to_words, tf_hamming_top_k

__all__ = [
    "BinaryIndex",
    "codes_to_words",
    "faiss_available",
    "hamming_distances",
    "hamming_similarity",
    "pack_bits",
    "semantic_search",
    "sign_threshold_codes",
    "tf_hamming_top_k",
    "unpack_bits",
]
