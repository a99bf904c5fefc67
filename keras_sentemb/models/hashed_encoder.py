"""HashedEncoder: a sentence encoder with a learned binary code on top."""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.utils.argument_checks import code_prefix_bits, finite_rows
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.types import Texts


@keras.saving.register_keras_serializable(package="keras_sentemb")
class HashedEncoder(keras.Model):
    """`SentenceEncoder` → unit vector u → `SemanticHashing` → binary code of `bits` bits.

    `call(token inputs)` returns the relaxed codes σ(LN(W u + b)/τ) (train jointly with a
    task head on them); `encode(texts)` the float embeddings; `hash(texts)` the hard
    codes, packed uint8 [N, bits/8] by default. `keras_sentemb.export.export_saved_model`
    writes a SavedModel with `serving_default`, `hash` and, given a code table, `search`
    signatures.

    `keras_sentemb.training.distill_hashed_encoder(encoder, embeddings, bits)` trains the
    head on a frozen encoder so that Hamming similarity keeps the encoder's cosine similarity
    (`CodeSimilarityLoss`, τ decayed by `TemperatureSchedule`).

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        encoder = SentenceEncoder.from_pretrained("minilm-l6")
        corpus = encoder.encode(sentences)
        hashed = distill_hashed_encoder(encoder, corpus, bits=256)
        hashed.hash(["A man plays a guitar."]).shape
        # -> (1, 32)
    """

    def __init__(self, encoder, hashing, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(hashing, SemanticHashing):
            raise TypeError(f"hashing must be a SemanticHashing layer, got {type(hashing).__name__}")
        self.encoder = encoder
        self.hashing = hashing
        if not hashing.built:
            hashing.build((None, encoder.embedding_dim))
        self._hash_function = None
        self.built = True  # both parts are built: there is nothing left to create

    @property
    def bits(self):
        return self.hashing.bits

    @property
    def embedding_dim(self):
        """Width of the float embeddings (`encode`), before hashing."""
        return self.encoder.embedding_dim

    @property
    def tokenizer(self):
        return self.encoder.tokenizer

    def call(self, inputs, training=False):
        unit = tf.math.l2_normalize(
            tf.cast(self.encoder(inputs, training=training), tf.float32), axis=-1, epsilon=1e-12
        )
        return self.hashing(unit)

    def encode(self, texts: Texts, **kwargs) -> np.ndarray:
        """Float embeddings, as `SentenceEncoder.encode`."""
        return self.encoder.encode(texts, **kwargs)

    def hash_embeddings(
        self, embeddings, packed: bool = True, batch_size: int = 65536, bits: int | None = None
    ) -> np.ndarray:
        """Hard codes of precomputed embeddings [N, d] (normalised here): uint8 [N, bits/8]
        packed, or 0/1 [N, bits]. `bits` keeps the first this many bits (the prefix of a
        nested code: `SemanticHashing.nested_bits`); None keeps the whole code."""
        bits = self.bits if bits is None else code_prefix_bits(bits, self.bits)
        embeddings = np.asarray(embeddings, np.float32)
        if embeddings.ndim != 2 or embeddings.shape[1] != self.encoder.embedding_dim:
            raise ValueError(f"embeddings must be [N, {self.encoder.embedding_dim}], got {embeddings.shape}")
        finite_rows(embeddings, "embeddings")
        if self._hash_function is None:
            spec = tf.TensorSpec([None, embeddings.shape[1]], tf.float32)
            self._hash_function = {
                flag: tf.function(
                    lambda x, flag=flag: self.hashing.binarize(
                        tf.math.l2_normalize(x, axis=-1, epsilon=1e-12), packed=flag
                    ),
                    input_signature=[spec],
                )
                for flag in (True, False)
            }
        width = bits // 8 if packed else bits
        codes = np.zeros((len(embeddings), width), np.uint8)
        for start in range(0, len(embeddings), batch_size):
            codes[start : start + batch_size] = self._hash_function[bool(packed)](
                embeddings[start : start + batch_size]
            ).numpy()[:, :width]
        return codes

    def hash(
        self,
        texts: Texts,
        packed: bool = True,
        batch_size: int = 64,
        progress: bool | None = None,
        bits: int | None = None,
    ) -> np.ndarray:
        """Hard codes of raw texts: packed uint8 [N, bits/8] (or 0/1 [N, bits]); `bits` keeps
        the first this many bits of each code (a nested code's prefix)."""
        embeddings = self.encoder.encode(texts, batch_size=batch_size, progress=progress)
        single = embeddings.ndim == 1
        codes = self.hash_embeddings(np.atleast_2d(embeddings), packed=packed, bits=bits)
        return codes[0] if single else codes

    def get_config(self):
        return {
            **super().get_config(),
            "encoder": serialize_nested(self.encoder),
            "hashing": serialize_nested(self.hashing),
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("encoder", "hashing")))
