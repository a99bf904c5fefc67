"""SBERT: siamese / triplet training of a SentenceEncoder with `compile` and `fit`."""

from __future__ import annotations

import keras
from keras import ops

from keras_sentemb import losses as losses_lib
from keras_sentemb.data.pipelines import PAIR_KEYS, TRIPLET_KEYS
from keras_sentemb.layers.pair_feature_head import PairFeatureHead
from keras_sentemb.models.bilstm_sra import BiLSTMSRA
from keras_sentemb.models.column_embedding import embed_columns
from keras_sentemb.models.inferlite import InferLite
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.models.sparse_encoder import SparseEncoder
from keras_sentemb.models.static_encoder import StaticEncoder
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested

# Models mapping {"token_ids", "padding_mask"} to one vector per text.
SENTENCE_ENCODERS = (SentenceEncoder, InferLite, BiLSTMSRA, StaticEncoder, SparseEncoder)

# objective: (input keys, default loss name)
OBJECTIVES = {
    "regression": (PAIR_KEYS, "cosine_similarity"),
    "cosent": (PAIR_KEYS, "cosent"),
    "classification": (PAIR_KEYS, "softmax_pair"),
    "triplet": (TRIPLET_KEYS, "triplet"),
    "mnrl": (None, "multiple_negatives_ranking"),
}


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SBERT(PipelineTraining, keras.Model):
    """Trains one shared sentence encoder on pairs or triplets (Reimers & Gurevych 2019).

    The encoder is a `SentenceEncoder` (transformer), a word-level `InferLite` / `BiLSTMSRA` or a
    `StaticEncoder`: anything mapping `{"token_ids", "padding_mask"}` to one vector per text.

    The inputs are the batches of `keras_sentemb.data.examples_dataset`: a dict of
    `{"token_ids", "padding_mask"}` per column. All columns go through the *same*
    encoder in one forward pass (they are padded to a common length and concatenated),
    then:
    - "regression", "cosent": output [batch, 2, d] = (u, v) stacked; default losses
      `CosineSimilarityLoss` (scores in [0, 5]) and `CoSENTLoss`;
    - "classification": logits = PairFeatureHead(num_classes)([u, v]), loss
      `SoftmaxPairLoss`; `head=` puts another head in its place (InferLite's NLI MLP:
      `InferLite.nli_head()`; BiLSTM-SRA's pair MLP over [H, H̃, |H−H̃|, H∘H̃]);
    - "triplet": [batch, 3, d] = (anchor, positive, negative), loss `TripletLoss`;
    - "mnrl": pairs or triplets stacked, loss `MultipleNegativesRankingLoss`.

    `compile(optimizer)` picks the objective's default loss; pass `loss=` to choose
    another. `one_pass=False` runs the encoder once per column, each at its own padded length
    (retrieval: short queries beside long documents), instead of once over all columns padded
    to the longest. After training, `sbert.encoder` is an ordinary encoder (`encode`, `export`,
    `save`).

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        encoder = SentenceEncoder.from_pretrained("minilm-l6")
        sbert = SBERT(encoder, objective="regression")
        sbert.compile(optimizer=keras.optimizers.AdamW(2e-5))
        sbert.fit(examples_dataset(train_pairs, encoder.tokenizer), epochs=4)
    """

    def __init__(
        self,
        encoder,
        objective: str = "regression",
        num_classes: int = 3,
        head_features=("u", "v", "abs_diff"),
        head=None,
        one_pass=True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {objective!r}; expected one of {sorted(OBJECTIVES)}")
        if not isinstance(encoder, SENTENCE_ENCODERS):
            raise TypeError(
                f"encoder must be a SentenceEncoder, InferLite, BiLSTMSRA, StaticEncoder or SparseEncoder, got "
                f"{type(encoder).__name__}"
            )
        if head is not None and objective != "classification":
            raise ValueError(f"a head is only used by objective='classification', not {objective!r}")
        self.encoder = encoder
        self.objective = objective
        self.num_classes = num_classes
        self.head_features = tuple(head_features)
        if objective == "classification" and head is None:
            head = PairFeatureHead(num_classes, features=self.head_features, name="pair_head")
        self.head = head
        self.one_pass = bool(one_pass)
        # Build now (a one-row dummy batch), so that checkpoints and BackupAndRestore can
        # load weights before the first real batch.
        keys = OBJECTIVES[objective][0] or PAIR_KEYS
        dummy = {"token_ids": ops.ones((1, 3), "int32"), "padding_mask": ops.ones((1, 3), "int32")}
        self({key: dummy for key in keys})

    def input_keys(self, inputs):
        """The columns this objective reads from a batch, in order."""
        keys = OBJECTIVES[self.objective][0]
        if keys is None:  # mnrl: pairs or triplets
            keys = TRIPLET_KEYS if "anchor" in inputs else PAIR_KEYS
            keys = [k for k in keys if k in inputs]
        missing = [k for k in keys if k not in inputs]
        if missing:
            raise ValueError(
                f"SBERT(objective={self.objective!r}) needs input columns {list(keys)}, the batch has {sorted(inputs)}"
            )
        return list(keys)

    def embed_columns(self, inputs, keys, training=False):
        """One [batch, d] tensor per key: one encoder pass over all columns padded to the longest
        (`one_pass=True`), or one pass a column, each at its own length (`one_pass=False`: short
        queries beside long documents are not padded to the documents' length)."""
        if not self.one_pass:
            return [self.encoder(inputs[key], training=training) for key in keys]
        return embed_columns(self.encoder, inputs, keys, training=training)

    def call(self, inputs, training=False):
        columns = self.embed_columns(inputs, self.input_keys(inputs), training=training)
        if self.head is not None:
            return self.head([columns[0], columns[1]], training=training)
        return ops.stack(columns, axis=1)

    def compile(self, optimizer="adamw", loss=None, **kwargs):
        if loss is None:
            loss = losses_lib.get(OBJECTIVES[self.objective][1])
        elif isinstance(loss, str):
            loss = losses_lib.get(loss)
        super().compile(optimizer=optimizer, loss=loss, **kwargs)

    def get_config(self):
        return {
            **super().get_config(),
            "encoder": serialize_nested(self.encoder),
            "objective": self.objective,
            "num_classes": self.num_classes,
            "head_features": list(self.head_features),
            "head": serialize_nested(self.head),
            "one_pass": self.one_pass,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("encoder", "head")))
