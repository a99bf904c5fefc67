"""Retrieval: float semantic search, binary codes, the Hamming BinaryIndex (whole codes, nested
prefixes, the cascade), int8 vectors to rescore its hits with, BM25 (LexicalIndex), learned sparse vectors
(SparseIndex: exact, or Seismic's approximate index) and the fusion of ranked runs (reciprocal-rank, convex)."""

from keras_sentemb.retrieval.binary_codes import (
    hamming_distances,
    hamming_similarity,
    pack_bits,
    sign_threshold_codes,
    unpack_bits,
)
from keras_sentemb.retrieval.binary_index import BinaryIndex, faiss_available
from keras_sentemb.retrieval.int8_vectors import Int8Vectors
from keras_sentemb.retrieval.lexical_index import Bm25, LexicalIndex, texts_sha256
from keras_sentemb.retrieval.run_fusion import ConvexFusion, ReciprocalRankFusion
from keras_sentemb.retrieval.semantic_search import semantic_search
from keras_sentemb.retrieval.sparse_index import SparseIndex
from keras_sentemb.retrieval.tf_hamming_search import codes_to_words, tf_hamming_top_k

__all__ = [
    "BinaryIndex",
    "Bm25",
    "ConvexFusion",
    "Int8Vectors",
    "LexicalIndex",
    "ReciprocalRankFusion",
    "SparseIndex",
    "codes_to_words",
    "faiss_available",
    "hamming_distances",
    "hamming_similarity",
    "pack_bits",
    "semantic_search",
    "sign_threshold_codes",
    "texts_sha256",
    "tf_hamming_top_k",
    "unpack_bits",
]
