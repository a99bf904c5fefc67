"""Embed each distinct sentence once across all the tasks of an evaluation run."""

import numpy as np

from keras_sentemb.evaluation.pair_similarity import pair_similarity


class EmbeddingMemo:
    """Unit embeddings (and, for a `HashedEncoder`, packed codes) of texts, computed once
    per distinct text: STS-B test sentences reused by another task are not re-encoded.

    `hashed` is True when the model has a `hash_embeddings` method (a `HashedEncoder`).

    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        memo = EmbeddingMemo(encoder, batch_size=64)
        memo.embed(["a", "b", "a"]).shape
        # -> (3, 384)
    """

    def __init__(self, encoder, batch_size=64, progress=None):
        if not hasattr(encoder, "encode"):
            raise TypeError(f"the model must have an encode(texts) method, got {type(encoder).__name__}")
        self.encoder = encoder
        self.batch_size = batch_size
        self.progress = progress
        self.hashed = hasattr(encoder, "hash_embeddings")
        # the prefix ladder of a nested code (`SemanticHashing.nested_bits`), else ()
        self.nested_bits = tuple(getattr(getattr(encoder, "hashing", None), "nested_bits", None) or ())
        self._rows = {}
        self._vectors = []

    def embed(self, texts):
        """Unit-length float32 embeddings [len(texts), d], one row per text."""
        texts = list(texts)
        new = [t for t in dict.fromkeys(texts) if t not in self._rows]
        if new:
            vectors = np.asarray(
                self.encoder.encode(new, batch_size=self.batch_size, normalize=True, progress=self.progress),
                dtype=np.float32,
            )
            start = sum(len(block) for block in self._vectors)
            self._vectors.append(vectors)
            self._rows.update({text: start + i for i, text in enumerate(new)})
            self._vectors = [np.concatenate(self._vectors)] if len(self._vectors) > 1 else self._vectors
        if not texts:
            return np.zeros((0, self.encoder.embedding_dim), np.float32)
        return self._vectors[0][[self._rows[t] for t in texts]]

    def codes(self, texts):
        """Packed uint8 codes [len(texts), bits/8] of a hashed model."""
        if not self.hashed:
            raise TypeError(f"{type(self.encoder).__name__} has no binary codes (not a HashedEncoder)")
        return self.encoder.hash_embeddings(self.embed(texts), packed=True)

    def pair_similarity(self, name, first, second):
        """The registered similarity `name` of each aligned text pair: over the unit
        embeddings, or over the codes for "hamming"."""
        represent = self.codes if name == "hamming" else self.embed
        return pair_similarity(name, represent(first), represent(second))
