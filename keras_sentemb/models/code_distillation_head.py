"""CodeDistillationHead: a `SemanticHashing` layer as a trainable model on precomputed embeddings."""

import keras

from keras_sentemb.models.pipeline_training import PipelineTraining


class CodeDistillationHead(PipelineTraining, keras.Model):
    """The `SemanticHashing` head as `distill_code` trains it (with this package's `fit`:
    NaN guard, tf.distribute). Unit embeddings [B, d] in, relaxed codes [B, bits] out;
    given `{"sentences": [B, d], "pairs": [P, 2, d]}` it returns
    `{"codes": [B, bits], "pair_codes": [P, 2, bits]}`, the pair codes as ±1 (2h − 1)."""

    def __init__(self, hashing, **kwargs):
        super().__init__(**kwargs)
        self.hashing = hashing

    def call(self, inputs):
        if not isinstance(inputs, dict):
            return self.hashing(inputs)
        return {"codes": self.hashing(inputs["sentences"]), "pair_codes": 2.0 * self.hashing(inputs["pairs"]) - 1.0}
