"""Small deterministic stand-ins for encoders, so the task logic is tested without TF."""

import zlib

import numpy as np


class CharacterTrigramEncoder:
    """Bag of hashed character trigrams in `dim` buckets: similar strings, similar vectors.
    Counts the texts it is asked to encode."""

    def __init__(self, dim=32):
        self.embedding_dim = dim
        self.encoded = []

    def encode(self, texts, batch_size=64, normalize=True, progress=None):
        self.encoded.extend(texts)
        vectors = np.zeros((len(texts), self.embedding_dim), np.float32)
        for row, text in enumerate(texts):
            padded = f"  {text.lower()} "
            for i in range(len(padded) - 2):
                bucket = zlib.crc32(padded[i : i + 3].encode()) % self.embedding_dim
                vectors[row, bucket] += 1.0 if bucket % 3 else -1.0
        if normalize:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors


class ConstantEncoder(CharacterTrigramEncoder):
    """The same vector for every text: every similarity is equal."""

    def encode(self, texts, batch_size=64, normalize=True, progress=None):
        vectors = np.ones((len(texts), self.embedding_dim), np.float32)
        return vectors / np.sqrt(self.embedding_dim) if normalize else vectors


class SignHashedEncoder(CharacterTrigramEncoder):
    """A hashed model whose code is the sign of each embedding component (`bits` = dim)."""

    @property
    def bits(self):
        return self.embedding_dim

    def hash_embeddings(self, embeddings, packed=True, bits=None):
        code = (np.asarray(embeddings) > 0).astype(np.uint8)[:, : bits or self.bits]
        return np.packbits(code, axis=1) if packed else code


class TrigramPairScorer(CharacterTrigramEncoder):
    """A reranker: the cosine of the two texts' trigram vectors, one score a pair; `labels` > 1 gives
    that many columns (what a reranker must not)."""

    def __init__(self, dim=32, labels=1):
        super().__init__(dim)
        self.labels = labels

    def predict_pairs(self, first, second, batch_size=64, progress=None):
        scores = np.sum(self.encode(list(first)) * self.encode(list(second)), axis=1)
        return scores if self.labels == 1 else np.repeat(scores[:, None], self.labels, axis=1)
