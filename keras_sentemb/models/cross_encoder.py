"""CrossEncoder: BERT reads both sentences of a pair at once and scores the pair."""

from __future__ import annotations

import os
from collections.abc import Sequence

import keras
import keras_hub
import numpy as np

from keras_sentemb.data.length_buckets import pack_sequence_rows
from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.layers.siamese_pooler import SiamesePooler
from keras_sentemb.models.embedding_model import EmbeddingModel, check_batch_size
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested

INPUT_KEYS = ("token_ids", "segment_ids", "padding_mask")
POOLINGS = ("pooler", "mean")


def validate_pair_lists(first, second):
    """Both lists as UTF-8 bytes, checked (see `validate_texts`) and of equal length."""
    first, _ = validate_texts(first)
    second, _ = validate_texts(second)
    if len(first) != len(second):
        raise ValueError(f"pair lists differ in length: {len(first)} first sentences, {len(second)} second sentences")
    return first, second


@keras.saving.register_keras_serializable(package="keras_sentemb")
class CrossEncoder(EmbeddingModel, PipelineTraining, keras.Model):
    """Scores a sentence pair by reading it as ONE sequence (cross attention between a and b).

    x = `[CLS] a [SEP] b [SEP]` with segment ids 0 for `[CLS] a [SEP]` and 1 for `b [SEP]`;
    h = BERT(x); logits = W · dropout(tanh(W_p h_[CLS] + b_p)) + b, i.e. BERT's sequence
    classification head on the [CLS] state (the pooler `tanh(W_p ·)` comes with the
    pretrained weights); with `pooling="mean"`, logits = W · dropout(mean_t h_t) + b over the
    real tokens of the pair, the pooling a sentence-embedding checkpoint (all-MiniLM-L6-v2)
    was trained with. `num_labels=1` is a regressor (one score per pair),
    `num_labels=n` a classifier (n logits). `compile()` defaults to mean squared error
    (regression) or sparse softmax cross-entropy on the logits (classes).

    This is the teacher T of DSE (Barkan et al. 2020) and SBERT's "cross-encoder" upper
    bound (Reimers & Gurevych 2019, Table 2: BERT-base 84.30 on STS-B). Accurate, but a
    score costs one transformer pass per pair: ranking a catalog of N sentences costs N
    passes (see `DSE` for the fast student).

    Args:
        backbone: a keras-hub `BertBackbone`.
        tokenizer: the `SentenceTokenizer` used by `predict_pairs` and pipelines.
        num_labels: logits per pair (1 = regression).
        dropout: dropout rate before the output layer while training.

    Inputs: `{"token_ids", "segment_ids", "padding_mask"}` int32 [batch, T]
    (`keras_sentemb.data.pipelines.cross_pairs_dataset` builds them).
    Output: float32 logits [batch, num_labels].

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        ce = CrossEncoder.from_pretrained("minilm-l6", num_labels=1)
        ce.compile(keras.optimizers.AdamW(2e-5))
        ce.fit(cross_pairs_dataset(train, ce.tokenizer, labels=scores / 5), epochs=4)
        ce.predict_pairs(["A man eats."], ["Someone is eating."])
        # -> array([0.83], dtype=float32)
    """

    def __init__(
        self, backbone, tokenizer=None, num_labels: int = 1, dropout: float = 0.1, pooling: str = "pooler", **kwargs
    ):
        if not isinstance(num_labels, int) or num_labels < 1:
            raise ValueError(f"num_labels must be a positive int, got {num_labels!r}")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        if not isinstance(backbone, keras_hub.models.BertBackbone):
            raise ValueError(
                "CrossEncoder reads a pair as [CLS] a [SEP] b [SEP] with segment ids, which needs a BERT "
                f"backbone (keras_hub.models.BertBackbone); got {type(backbone).__name__}"
            )
        inputs = {key: keras.Input(shape=(None,), dtype="int32", name=key) for key in INPUT_KEYS}
        outputs = backbone(inputs)
        if pooling == "pooler":
            pooled = outputs["pooled_output"]
        else:  # the masked mean of the joint sequence, as a sentence-embedding checkpoint was trained to pool
            pooled = SiamesePooler("mean", name="mean_pooler")(
                outputs["sequence_output"], padding_mask=inputs["padding_mask"]
            )
        pooled = keras.layers.Dropout(dropout, name="head_dropout")(pooled)
        logits = keras.layers.Dense(num_labels, dtype="float32", name="logits")(pooled)
        super().__init__(inputs=inputs, outputs=logits, **kwargs)
        self.backbone = backbone
        self.tokenizer = tokenizer
        self.num_labels = num_labels
        self.dropout = float(dropout)
        self.pooling = pooling
        self.forget_traced_functions()

    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str | os.PathLike = "minilm-l6",
        num_labels: int = 1,
        dropout: float = 0.1,
        dtype: str | None = None,
        max_length: int | None = None,
        pooling: str = "pooler",
    ) -> CrossEncoder:
        """A cross-encoder on pretrained BERT weights (e.g. "minilm-l6"); the head is new."""
        backbone, tokenizer, _ = load_backbone_and_tokenizer(name_or_path, dtype=dtype, max_length=max_length)
        return cls(backbone, tokenizer, num_labels=num_labels, dropout=dropout, pooling=pooling, name="cross_encoder")

    def get_config(self):
        return {
            **super().get_config(),
            "backbone": serialize_nested(self.backbone),
            "tokenizer": serialize_nested(self.tokenizer),
            "num_labels": self.num_labels,
            "dropout": self.dropout,
            **({"pooling": self.pooling} if self.pooling != "pooler" else {}),
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("backbone", "tokenizer")))

    # ------------------------------------------------------------------ training
    def compile(self, optimizer="adamw", loss=None, **kwargs):
        """`keras.Model.compile`; the default loss is MSE (1 label) or softmax cross-entropy."""
        if loss is None:
            loss = (
                keras.losses.MeanSquaredError()
                if self.num_labels == 1
                else keras.losses.SparseCategoricalCrossentropy(from_logits=True)
            )
        super().compile(optimizer=optimizer, loss=loss, **kwargs)

    def enable_lora(self, rank: int, target_layer_names: Sequence[str] | None = None) -> None:
        """Trains rank-`rank` LoRA adapters of the backbone's query/value projections and
        the new head only (the pretrained BERT weights, pooler included, stay frozen), so
        the fine-tuned model is stored as a small delta on the pinned base."""
        enable_backbone_lora(self.backbone, rank, target_layer_names)
        self.forget_traced_functions()

    # ------------------------------------------------------------------ inference
    tokenizer_hint = "SentenceTokenizer(...)"
    input_names = INPUT_KEYS

    def packed_length(self, row):
        """A pair row `(ids, segments)` is packed already: its length."""
        return len(row[0])

    def pack_batch(self, rows, length):
        return pack_sequence_rows(
            [ids for ids, _ in rows], [segments for _, segments in rows], length, self.tokenizer.pad_token_id
        )

    def pair_rows(self, first, second):
        """Packed id rows and segment rows (NumPy int32) for aligned lists of UTF-8 bytes."""
        return self._require_tokenizer().pair_id_rows(first, second)

    def predict_pairs(
        self,
        first: Sequence[str | bytes],
        second: Sequence[str | bytes],
        batch_size: int = 64,
        progress: bool | None = None,
    ) -> np.ndarray:
        """Logits for aligned pairs (first[i], second[i]), in input order, with smart batching.

        Pairs are packed (see `SentenceTokenizer.pair_ids`), sorted by length, batched by
        `batch_size` and padded to the smallest bucket length that holds each batch.

        Returns: float32 [N] when `num_labels == 1` (the score), else [N, num_labels].
        Raises: ValueError when the lists differ in length; TypeError/ValueError for
        elements that are not text (see `validate_texts`).
        """
        first, second = validate_pair_lists(first, second)
        check_batch_size(batch_size)
        rows = list(zip(*self.pair_rows(first, second))) if first else []
        logits = self.predict_rows(rows, batch_size, progress, unit="pair", desc="cross-encode")
        return logits[:, 0] if self.num_labels == 1 else logits
