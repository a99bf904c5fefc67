"""Retrieval: float semantic search (binary codes and BinaryIndex come with hashing)."""

from keras_sentemb.retrieval.semantic_search import semantic_search

__all__ = ["semantic_search"]
