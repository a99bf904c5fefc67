"""Long documents: how `encode` cuts them into windows of word pieces (`Chunking`), the windows
themselves (`token_windows`, with sentence ends), and the chunk vectors with their documents and
character spans (`ChunkedEmbeddings`), pooled to one vector a document or kept as many."""

from keras_sentemb.chunking.chunked_embeddings import CHUNK_POOLINGS, ChunkedEmbeddings
from keras_sentemb.chunking.chunking import Chunking
from keras_sentemb.chunking.token_windows import context_windows, sentence_end_tokens, token_windows

__all__ = [
    "CHUNK_POOLINGS",
    "ChunkedEmbeddings",
    "Chunking",
    "context_windows",
    "sentence_end_tokens",
    "token_windows",
]
