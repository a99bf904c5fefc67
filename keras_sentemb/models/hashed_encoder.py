"""HashedEncoder: a sentence encoder with a learned binary code on top."""

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.models.nested_config import deserialize_nested, serialize_nested


@keras.saving.register_keras_serializable(package="keras_sentemb")
class HashedEncoder(keras.Model):
    """`SentenceEncoder` → unit vector u → `SemanticHashing` → binary code of `bits` bits.

    `call(token inputs)` returns the relaxed codes σ(LN(W u + b)/τ) (train jointly with a
    task head on them); `encode(texts)` the float embeddings; `hash(texts)` the hard
    codes, packed uint8 [N, bits/8] by default; `export(...)` a SavedModel with
    `serving_default`, `hash` and, given a code table, `search` signatures.

    `HashedEncoder.distill(encoder, embeddings, bits)` trains the head on a frozen
    encoder so that Hamming similarity keeps the encoder's cosine similarity
    (`CodeSimilarityLoss`, τ decayed by `TemperatureSchedule`).

    Example:
    >>> encoder = SentenceEncoder.from_pretrained("minilm-l6")            # doctest: +SKIP
    >>> corpus = encoder.encode(sentences)                                 # doctest: +SKIP
    >>> hashed = HashedEncoder.distill(encoder, corpus, bits=256)          # doctest: +SKIP
    >>> hashed.hash(["A man plays a guitar."]).shape                       # doctest: +SKIP
    (1, 32)
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
        unit = tf.math.l2_normalize(tf.cast(self.encoder(inputs, training=training), tf.float32),
                                    axis=-1, epsilon=1e-12)
        return self.hashing(unit)

    def encode(self, texts, **kwargs):
        """Float embeddings, as `SentenceEncoder.encode`."""
        return self.encoder.encode(texts, **kwargs)

    def hash_embeddings(self, embeddings, packed=True, batch_size=65536):
        """Hard codes of precomputed embeddings [N, d] (normalised here): uint8 [N, bits/8]
        packed, or 0/1 [N, bits]."""
        embeddings = np.asarray(embeddings, np.float32)
        if embeddings.ndim != 2 or embeddings.shape[1] != self.encoder.embedding_dim:
            raise ValueError(f"embeddings must be [N, {self.encoder.embedding_dim}], got "
                             f"{embeddings.shape}")
        if self._hash_function is None:
            spec = tf.TensorSpec([None, embeddings.shape[1]], tf.float32)
            self._hash_function = {
                flag: tf.function(lambda x, flag=flag: self.hashing.binarize(
                    tf.math.l2_normalize(x, axis=-1, epsilon=1e-12), packed=flag),
                    input_signature=[spec]) for flag in (True, False)}
        width = self.bits // 8 if packed else self.bits
        codes = np.zeros((len(embeddings), width), np.uint8)
        for start in range(0, len(embeddings), batch_size):
            codes[start:start + batch_size] = self._hash_function[bool(packed)](
                embeddings[start:start + batch_size]).numpy()
        return codes

    def hash(self, texts, packed=True, batch_size=64, progress=None):
        """Hard codes of raw texts: packed uint8 [N, bits/8] (or 0/1 [N, bits])."""
        embeddings = self.encoder.encode(texts, batch_size=batch_size, progress=progress)
        single = embeddings.ndim == 1
        codes = self.hash_embeddings(np.atleast_2d(embeddings), packed=packed)
        return codes[0] if single else codes

    def export(self, filepath, version=1, overwrite=False, code_table=None, code_ids=None):
        """A TF Serving SavedModel: `serving_default` (embeddings), `hash` (packed codes),
        and `search` (top-k ids/distances over `code_table`) when a table is given."""
        from keras_sentemb.export.serving_export import export_for_serving

        return export_for_serving(self.encoder, filepath, version=version, overwrite=overwrite,
                                  hashing=self.hashing, code_table=code_table, code_ids=code_ids)

    def get_config(self):
        return {
            "name": self.name,
            "trainable": self.trainable,
            "encoder": serialize_nested(self.encoder),
            "hashing": serialize_nested(self.hashing),
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("encoder", "hashing")))

    @classmethod
    def distill(cls, encoder, embeddings, bits, epochs=5, batch_size=2048, learning_rate=1e-4,
                initial_temperature=1.0, final_temperature=0.3, rank_weight=1.0,
                rank_temperature=0.02, init="itq", itq_iterations=3, straight_through=True,
                neighbours_per_anchor=3, neighbour_pool=100, pairs=None, pair_weight=0.1,
                pair_batch_size=256, seed=0, verbose="auto", shuffle=True):
        """Trains a `SemanticHashing(bits)` head on a frozen encoder's embeddings [N, d].

        1. `init="itq"`: the projection starts from iterative quantization
           (`itq_projection` with `itq_iterations` rounds: PCA to `bits` dimensions and a
           random rotation, then rounds that lower the quantization error; a centred
           random projection above d bits); `init="random"` keeps Glorot's.
        2. Adam minimises `CodeSimilarityLoss` (±1 code similarities vs cosine
           similarities, plus the neighbour-distribution KL term, over all pairs of each
           batch) while τ decays exponentially from `initial_temperature` to
           `final_temperature` (`TemperatureSchedule`). With `straight_through` (default)
           the loss sees the hard codes and the gradient flows through σ(·/τ).
        3. Batches are neighbour batches (`training.neighbour_batches`): batch_size /
           (1 + n) anchors, each with n = `neighbours_per_anchor` of its
           `neighbour_pool` nearest neighbours by cosine, so the rank term learns the
           top-10 / top-100 boundary a search must get right; n = 0 (or a batch smaller
           than 1 + n) gives plain batches, reshuffled each epoch unless `shuffle=False`.
        4. Joint training with a pair task: `pairs=(embeddings1, embeddings2, scores)`
           (e.g. STS-B train through the same encoder) adds `pair_weight` × CoSENT of the
           pairs' ±1 code similarities against their scores, `pair_batch_size` pairs a
           step (`training.code_distillation`).

        The defaults were chosen with `benchmarks/hashing_recall.py --select` (1,000
        validation queries out of the shared-data corpus and STS-B dev, apart from the
        benchmark's test queries and STS-B test) at 256 bits: ITQ with 3 rounds keeps more
        of STS than 50, neighbour batches raise recall@10 after re-ranking the Hamming
        top-100 by about 0.005 at equal STS, and the STS-B pair task (`pair_weight` 0.1)
        adds about 0.15 STS-B dev points but costs about 0.006 of that recall, so it is
        off unless `pairs` are given. The encoder is not changed. Returns a
        `HashedEncoder` whose training history is in `.history`.

        Under `tf.distribute` (call it inside `strategy.scope()`) the losses compare each
        replica's rows with the global batch, so it trains as on one device.
        """
        from keras_sentemb.training.code_distillation import distill_code

        embeddings = np.asarray(embeddings, np.float32)
        if embeddings.ndim != 2 or embeddings.shape[1] != encoder.embedding_dim:
            raise ValueError(f"embeddings must be [N, {encoder.embedding_dim}], got {embeddings.shape}")
        hashing, history = distill_code(
            embeddings, bits, epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
            initial_temperature=initial_temperature, final_temperature=final_temperature,
            rank_weight=rank_weight, rank_temperature=rank_temperature, init=init,
            itq_iterations=itq_iterations, straight_through=straight_through,
            neighbours_per_anchor=neighbours_per_anchor, neighbour_pool=neighbour_pool, pairs=pairs,
            pair_weight=pair_weight, pair_batch_size=pair_batch_size, seed=seed, verbose=verbose,
            shuffle=shuffle)
        hashed = cls(encoder, hashing, name=f"{encoder.name}_hashed_{bits}")
        hashed.history = history
        return hashed
