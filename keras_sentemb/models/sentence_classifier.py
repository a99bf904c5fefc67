"""SentenceClassifier: a sentence encoder + an MLP, fine-tuned on labelled single sentences."""

import keras

from keras_sentemb import losses as losses_lib
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SentenceClassifier(PipelineTraining, keras.Model):
    """logits = W_o h_L + b_o, h_l = ReLU(W_l h_{l−1} + b_l), h_0 = encoder(sentence).

    BiLSTM-SRA's single-sentence fine-tuning (any word-level encoder works: `BiLSTMSRA`,
    `InferLite`). The batches are those of `examples_dataset(LabeledSentences, tokenizer)`:
    `{"sentence": {"token_ids", "padding_mask"}}`; the encoder is trained with the head
    unless `encoder.trainable = False` (feature transfer).

    `compile(optimizer)` uses softmax cross-entropy on the logits; `compile(optimizer,
    distillation_alpha=a)` adds knowledge distillation: the `DistillationLoss`
    a·‖S − T‖² + (1 − a)·CE(S, y), with `[label, teacher logit_1 … logit_n]` rows as the
    dataset's labels (`examples_dataset(..., labels=...)`).

    Args:
        encoder: a word-level sentence encoder (`BiLSTMSRA`, `InferLite`).
        num_classes: output logits.
        hidden_units: sizes of the hidden ReLU layers.
        dropout: dropout before each Dense layer.

    Example:
    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        classifier = SentenceClassifier(bilstm_sra, num_classes=2)
        classifier.compile(keras.optimizers.Adam(1e-3))
        classifier.fit(examples_dataset(sst2_train, bilstm_sra.tokenizer))
        classifier.predict_texts(["a gorgeous film"]).argmax(-1)
    """

    def __init__(self, encoder, num_classes=2, hidden_units=(256,), dropout=0.1, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(num_classes, int) or num_classes < 2:
            raise ValueError(f"num_classes must be an int >= 2, got {num_classes!r}")
        self.encoder = encoder
        self.num_classes = num_classes
        self.hidden_units = tuple(int(n) for n in hidden_units)
        self.dropout = float(dropout)
        self.hidden = [
            keras.layers.Dense(n, activation="relu", name=f"hidden_{i}") for i, n in enumerate(self.hidden_units)
        ]
        self.dropouts = [keras.layers.Dropout(self.dropout) for _ in range(len(self.hidden) + 1)]
        self.logits = keras.layers.Dense(num_classes, name="logits")
        self(
            {
                "sentence": {
                    "token_ids": keras.ops.ones((1, 2), "int32"),
                    "padding_mask": keras.ops.ones((1, 2), "int32"),
                }
            }
        )

    def call(self, inputs, training=False):
        return self.head(self.encoder(inputs["sentence"], training=training), training=training)

    def head(self, states, training=False):
        """The MLP on sentence vectors [batch, d]: logits [batch, num_classes]."""
        for dense, dropout in zip(self.hidden, self.dropouts):
            states = dense(dropout(states, training=training))
        return self.logits(self.dropouts[-1](states, training=training))

    def compile(self, optimizer="adam", loss=None, distillation_alpha=None, **kwargs):
        if loss is None:
            loss = (
                keras.losses.SparseCategoricalCrossentropy(from_logits=True)
                if distillation_alpha is None
                else losses_lib.DistillationLoss(alpha=distillation_alpha, objective="classification")
            )
        elif isinstance(loss, str):
            loss = losses_lib.get(loss)
        super().compile(optimizer=optimizer, loss=loss, **kwargs)

    def predict_texts(self, texts, batch_size=256):
        """Logits float32 NumPy [N, num_classes] for raw texts (input order): the encoder's
        smart-batched `encode` (unnormalised, as in training), then the MLP."""
        vectors = self.encoder.encode(texts, batch_size=batch_size, normalize=False, progress=False)
        return keras.ops.convert_to_numpy(self.head(vectors))

    def get_config(self):
        return {
            **super().get_config(),
            "encoder": serialize_nested(self.encoder),
            "num_classes": self.num_classes,
            "hidden_units": list(self.hidden_units),
            "dropout": self.dropout,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("encoder",)))
