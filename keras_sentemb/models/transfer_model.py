"""Transfer settings of the direct-network-transfer paper: UE, FT, NT and DNT, with or without
a frozen word-embedding matrix."""

import keras
import numpy as np
from keras import ops

from keras_sentemb import losses as losses_lib
from keras_sentemb.data.pipelines import PAIR_KEYS
from keras_sentemb.layers.pair_feature_head import PairFeatureHead
from keras_sentemb.losses.similarity_distribution_loss import score_classes
from keras_sentemb.models.column_embedding import embed_columns, embed_pairs_once
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.unit_vectors import unit_rows

SETTINGS = ("ue", "ft", "nt", "dnt")


def word_embedding_variables(encoder):
    """The word-embedding matrix ("wem") of an encoder: BERT's token embedding table, or the
    tables of a word-level encoder (`InferLite`, `BiLSTMSRA`)."""
    if hasattr(encoder, "backbone"):
        return list(encoder.backbone.token_embedding.weights)
    if hasattr(encoder, "word_embeddings"):
        return list(encoder.word_embeddings.weights)
    raise TypeError(f"{type(encoder).__name__} has no word-embedding matrix this module knows")


def set_word_embeddings_trainable(encoder, trainable):
    """Makes the word-embedding matrix of `encoder` trainable or frozen, in place; the rest
    of the encoder keeps its own state. Returns the variables it changed."""
    if hasattr(encoder, "word_embeddings"):
        encoder.word_embeddings.trainable = bool(trainable)
    else:
        encoder.backbone.token_embedding.trainable = bool(trainable)
    return word_embedding_variables(encoder)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class TransferModel(PipelineTraining, keras.Model):
    """One switch for the four ways to use a sentence encoder on a scored-pair task
    (Zhang, Wilson & Mihalcea 2018, Table 3):

    | setting | what trains | score of a pair |
    |---|---|---|
    | "ue"  | nothing (unsupervised evaluation) | cos(u, v) |
    | "ft"  | the classifier; the encoder is frozen (feature transfer) | ŷ = rᵀp̂ |
    | "nt"  | encoder and classifier (network transfer) | ŷ = rᵀp̂ |
    | "dnt" | the encoder, so that cos(u, v) fits the normalised score (direct network transfer) | cos(u, v) |

    The FT/NT classifier: h× = u∘v, h+ = |u − v|, h_s = σ(W× h× + W+ h+ + b),
    p̂ = softmax(W_p h_s + b_p) over the integer scores r = (low … high), ŷ = rᵀp̂; the
    loss is `SimilarityDistributionLoss` ("kl": KL to the sparse target distribution of the
    score; "mse": (ŷ − y)²). DNT uses `CosineSimilarityLoss` with the score mapped from
    `score_range` to `target_range` ([0, 1] or [−1, 1]). `freeze_word_embeddings=True`
    keeps the word-embedding matrix fixed in NT and DNT (in FT everything is frozen).

    The batches are those of `examples_dataset(ScoredPairs, encoder.tokenizer)`.
    `predict_scores(sentences1, sentences2)` scores pairs the way the setting does.

    Example:
    (Not run as a doctest: it needs a trained model or data from the surrounding text.)
        model = TransferModel(encoder, "nt", freeze_word_embeddings=True, objective="kl")
        model.compile(keras.optimizers.Adam(1e-3))
        model.fit(examples_dataset(train, encoder.tokenizer), epochs=2)
        model.predict_scores(test.sentences1, test.sentences2)
    """

    def __init__(
        self,
        encoder,
        setting,
        freeze_word_embeddings=False,
        objective="kl",
        score_range=(0.0, 5.0),
        target_range=(0.0, 1.0),
        hidden_units=50,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if setting not in SETTINGS:
            raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
        self.encoder = encoder
        self.setting = setting
        self.freeze_word_embeddings = bool(freeze_word_embeddings)
        self.objective = objective
        self.score_range = tuple(float(x) for x in score_range)
        self.target_range = tuple(float(x) for x in target_range)
        self.hidden_units = int(hidden_units)
        self.classes = score_classes(self.score_range)
        self.set_encoder_trainable(setting in ("nt", "dnt"))
        self.head = None
        if setting in ("ft", "nt"):
            self.head = PairFeatureHead(
                int(self.classes.shape[0]),
                ("product", "abs_diff"),
                hidden_units=(self.hidden_units,),
                hidden_activation="sigmoid",
                name="similarity_head",
            )
        # Build now (one dummy pair), so that weights exist before the first batch.
        dummy = {"token_ids": ops.ones((1, 3), "int32"), "padding_mask": ops.ones((1, 3), "int32")}
        self({key: dummy for key in PAIR_KEYS})

    def set_encoder_trainable(self, trainable):
        """Freezes the encoder, or makes it trainable with the word-embedding matrix as
        `freeze_word_embeddings` says (BERT's unused pooler stays frozen). NT from a
        pretrained transformer trains the new classifier alone first (`False`, a high
        learning rate), then everything (`True`, a low one); re-`compile` in between."""
        self.encoder.trainable = bool(trainable)
        if trainable:
            set_word_embeddings_trainable(self.encoder, not self.freeze_word_embeddings)
            if hasattr(self.encoder, "freeze_unused_pooler"):
                self.encoder.freeze_unused_pooler()

    def call(self, inputs, training=False):
        u, v = embed_columns(self.encoder, inputs, PAIR_KEYS, training=training)
        if self.head is None:
            return ops.stack([u, v], axis=1)
        return ops.softmax(self.head([u, v], training=training), axis=-1)

    def compile(self, optimizer="adam", loss=None, **kwargs):
        if self.setting == "ue":
            raise ValueError("setting 'ue' trains nothing: score pairs with predict_scores")
        if loss is None:
            loss = (
                losses_lib.CosineSimilarityLoss(self.score_range, self.target_range)
                if self.setting == "dnt"
                else losses_lib.SimilarityDistributionLoss(self.objective, self.score_range)
            )
        super().compile(optimizer=optimizer, loss=loss, **kwargs)

    def predict_scores(self, sentences1, sentences2, batch_size=64):
        """Scores of aligned pairs, NumPy [N]: ŷ = rᵀp̂ for FT/NT, cosine for UE/DNT."""
        u, v = embed_pairs_once(
            lambda texts: self.encoder.encode(texts, batch_size=batch_size, normalize=False, progress=False),
            sentences1,
            sentences2,
        )
        if self.head is None:
            return np.sum(unit_rows(u) * unit_rows(v), axis=1)
        probabilities = ops.softmax(self.head([u, v]), axis=-1)
        return ops.convert_to_numpy(ops.sum(probabilities * self.classes[None, :], axis=-1))

    def get_config(self):
        return {
            **super().get_config(),
            "encoder": serialize_nested(self.encoder),
            "setting": self.setting,
            "freeze_word_embeddings": self.freeze_word_embeddings,
            "objective": self.objective,
            "score_range": list(self.score_range),
            "target_range": list(self.target_range),
            "hidden_units": self.hidden_units,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("encoder",)))
