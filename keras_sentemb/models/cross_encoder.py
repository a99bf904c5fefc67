"""CrossEncoder: a transformer (any family's backbone) reads both texts of a pair at once and scores the pair."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

import keras
import numpy as np

from keras_sentemb.data.length_buckets import pack_sequence_rows
from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.registry import lora_layer_names
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.layers.siamese_pooler import SiamesePooler
from keras_sentemb.models.embedding_model import EmbeddingModel, check_batch_size
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.pretrained.reranker_folder import reranker_architecture, reranker_parts
from keras_sentemb.tokenizers.chat_pair_template import ChatPairTemplate
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested

INPUT_KEYS = ("token_ids", "segment_ids", "padding_mask")
POOLINGS = ("pooler", "cls", "mean", "first", "last")
SCORE_ACTIVATIONS = ("linear", "sigmoid")
PREDICTION_HEAD_KEYS = {"activation", "use_bias", "norm_epsilon", "norm_bias"}


def validate_pair_lists(first, second):
    """Both lists as UTF-8 bytes, checked (see `validate_texts`) and of equal length."""
    first, _ = validate_texts(first)
    second, _ = validate_texts(second)
    if len(first) != len(second):
        raise ValueError(f"pair lists differ in length: {len(first)} first sentences, {len(second)} second sentences")
    return first, second


class UntrainedHeadWarning(UserWarning):
    """Scores asked of a cross-encoder whose head has not been trained yet."""


@keras.saving.register_keras_serializable(package="keras_sentemb")
class CrossEncoder(EmbeddingModel, PipelineTraining, keras.Model):
    """Scores a sentence pair by reading it as ONE sequence (cross attention between a and b).

    BERT: x = `[CLS] a [SEP] b [SEP]` with segment ids 0 for `[CLS] a [SEP]` and 1 for `b [SEP]`;
    h = BERT(x); logits = W · dropout(tanh(W_p h_[CLS] + b_p)) + b, i.e. BERT's sequence
    classification head on the [CLS] state (the pooler `tanh(W_p ·)` comes with the
    pretrained weights).
    MPNet: x = `<s> a </s></s> b </s>` (no segment ids); h = MPNet(x);
    logits = W · dropout(tanh(W_d · dropout(h_<s>) + b_d)) + b (`pooling="cls"`, the default
    for MPNet: Hugging Face's `MPNetForSequenceClassification` head, W_d new, as MPNet
    checkpoints ship no pooler).
    Either backbone with `pooling="mean"`: logits = W · dropout(mean_t h_t) + b over the
    real tokens of the pair, the pooling a sentence-embedding checkpoint (all-MiniLM-L6-v2)
    was trained with. Any family's backbone (RoBERTa / XLM-R, ModernBERT, DistilBERT, Qwen3 …) reads
    pairs the same way: `pooling="first"` (h_0) or `"mean"`, optionally through ModernBERT's
    `prediction_head` (norm(act(W_d · pooled))), and `"last"` (the last real token's state: a causal
    LM, whose `logits` layer without bias holds the LM head's "yes" row minus its "no" row). A
    sentence-transformers reranker folder of any of these loads whole (`from_pretrained`,
    `pretrained.reranker_folder`), a causal one with its chat template (`pair_template`). `num_labels=1` is a regressor (one score per pair),
    `num_labels=n` a classifier (n logits). `compile()` defaults to mean squared error
    (regression) or sparse softmax cross-entropy on the logits (classes). The model's output
    is always the logits (what `fit` trains); `predict_pairs` returns
    `score_activation(logits)`: "linear" (the logits, for MSE on scores) or "sigmoid" (for a
    regressor trained with binary cross-entropy on scores in [0, 1], sentence-transformers'
    default, so that every consumer of the scores, silver labels and distillation included,
    sees the label scale).

    This is the teacher T of DSE (Barkan et al. 2020) and SBERT's "cross-encoder" upper
    bound (Reimers & Gurevych 2019, Table 2: BERT-base 84.30 on STS-B). Accurate, but a
    score costs one transformer pass per pair: ranking a catalog of N sentences costs N
    passes (see `DSE` for the fast student).

    Args:
        backbone: a transformer backbone of named inputs (a keras-hub `BertBackbone`, an `MPNetBackbone`,
            any family's of `keras_sentemb.families`).
        tokenizer: the `SentenceTokenizer` used by `predict_pairs` and pipelines (MPNet's packs
            pairs with two separators, `pair_separators=2`).
        num_labels: logits per pair (1 = regression).
        dropout: dropout rate before the output layer while training.
        pooling: "pooler" (BERT's), "cls" (a dense/tanh head on the first token), "first" (the first
            token's state), "mean" or "last" (the last real token's); None picks "pooler" where the
            backbone has one (BERT), else "cls".
        score_activation: "linear" or "sigmoid", applied by `predict_pairs` (see above).
        prediction_head: {"activation", "use_bias", "norm_epsilon", "norm_bias"}: ModernBERT's dense →
            activation → LayerNorm after pooling "first" or "mean"; None for none.
        logits_bias: whether the output layer has a bias (a causal LM's head has none).
        pair_template: a `ChatPairTemplate` (or its config) packing each pair through a chat template
            instead of the tokenizer's pair template (causal-LM rerankers).

    Inputs: `input_names` int32 [batch, T]: `{"token_ids", "segment_ids", "padding_mask"}`
    (BERT) or `{"token_ids", "padding_mask"}` (MPNet)
    (`keras_sentemb.data.pipelines.cross_pairs_dataset(..., input_names=model.input_names)`
    builds them).
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
        self,
        backbone,
        tokenizer=None,
        num_labels: int = 1,
        dropout: float = 0.1,
        pooling: str | None = None,
        score_activation: str = "linear",
        prediction_head: dict | None = None,
        logits_bias: bool = True,
        pair_template=None,
        **kwargs,
    ):
        if not isinstance(num_labels, int) or isinstance(num_labels, bool) or num_labels < 1:
            raise ValueError(f"num_labels must be a positive int, got {num_labels!r}")
        if score_activation not in SCORE_ACTIVATIONS:
            raise ValueError(f"score_activation must be one of {SCORE_ACTIVATIONS}, got {score_activation!r}")
        if not isinstance(getattr(backbone, "input", None), dict):
            raise ValueError(
                "CrossEncoder reads a pair as one sequence of a transformer backbone of named inputs (token_ids, "
                f"padding_mask[, segment_ids]): BERT, RoBERTa, MPNet, ModernBERT, Qwen3 …; got {type(backbone).__name__}"
            )
        has_pooler = isinstance(backbone.output, dict) and "pooled_output" in backbone.output
        pooling = pooling or ("pooler" if has_pooler else "cls")
        if pooling not in POOLINGS or (pooling == "pooler" and not has_pooler):
            choices = POOLINGS if has_pooler else tuple(p for p in POOLINGS if p != "pooler")
            raise ValueError(f"pooling must be one of {choices} for {type(backbone).__name__}, got {pooling!r}")
        if prediction_head is not None:
            prediction_head = dict(prediction_head)
            unknown = set(prediction_head) - PREDICTION_HEAD_KEYS
            if unknown or pooling not in ("first", "mean"):
                raise ValueError(
                    f"prediction_head takes {sorted(PREDICTION_HEAD_KEYS)} after pooling 'first' or 'mean'; got "
                    f"{sorted(prediction_head)} after {pooling!r}"
                )
            hidden_activation(prediction_head.get("activation", "gelu"))  # refused here when unknown
        if isinstance(pair_template, dict):
            pair_template = ChatPairTemplate.from_config(pair_template)
        input_names = tuple(name for name in INPUT_KEYS if name in backbone.input)
        inputs = {key: keras.Input(shape=(None,), dtype="int32", name=key) for key in input_names}
        outputs = backbone(inputs)
        sequence = outputs["sequence_output"] if isinstance(outputs, dict) else outputs
        if pooling == "pooler":
            pooled = outputs["pooled_output"]
        elif pooling == "cls":  # MPNetClassificationHead / RobertaClassificationHead: dropout, dense, tanh
            pooled = keras.layers.Dropout(dropout, name="cls_dropout")(sequence[:, 0, :])
            pooled = keras.layers.Dense(backbone.hidden_dim, activation="tanh", name="cls_dense")(pooled)
        elif pooling == "first":
            pooled = sequence[:, 0, :]
        else:  # the masked mean of the joint sequence, or its last real token's state (a causal LM's)
            mode = "mean" if pooling == "mean" else "last_token"
            pooled = SiamesePooler(mode, name=f"{mode}_pooler")(sequence, padding_mask=inputs["padding_mask"])
        if prediction_head is not None:  # ModernBertPredictionHead: norm(act(dense(pooled)))
            pooled = keras.layers.Dense(
                backbone.hidden_dim,
                activation=hidden_activation(prediction_head.get("activation", "gelu")),
                use_bias=bool(prediction_head.get("use_bias", False)),
                name="head_dense",
            )(pooled)
            pooled = keras.layers.LayerNormalization(
                epsilon=float(prediction_head.get("norm_epsilon", 1e-5)),
                center=bool(prediction_head.get("norm_bias", False)),
                name="head_norm",
            )(pooled)
        pooled = keras.layers.Dropout(dropout, name="head_dropout")(pooled)
        logits = keras.layers.Dense(num_labels, use_bias=bool(logits_bias), dtype="float32", name="logits")(pooled)
        super().__init__(inputs=inputs, outputs=logits, **kwargs)
        self.backbone = backbone
        self.tokenizer = tokenizer
        self.input_names = input_names
        self.num_labels = num_labels
        self.dropout = float(dropout)
        self.pooling = pooling
        self.score_activation = score_activation
        self.prediction_head = prediction_head
        self.logits_bias = bool(logits_bias)
        self.pair_template = pair_template
        self.head_is_new = False  # from_pretrained of an encoder folder: scores are noise until `fit`
        self.forget_traced_functions()

    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str | os.PathLike = "minilm-l6",
        num_labels: int | None = None,
        dropout: float = 0.1,
        dtype: str | None = None,
        max_length: int | None = None,
        pooling: str | None = None,
        score_activation: str | None = None,
        prediction_head: dict | None = None,
    ) -> CrossEncoder:
        """A cross-encoder from a preset ("minilm-l6", "mpnet-base") or a folder.

        - A reranker folder (a sentence-transformers `CrossEncoder`'s: config.json names a
          `…ForSequenceClassification` of BERT, RoBERTa / XLM-R, MPNet or ModernBERT, or a `…ForCausalLM` with a
          LogitScore module, Qwen3-Reranker's shape) loads whole, as sentence-transformers' `CrossEncoder(folder)`
          scores: its head, labels, activation, token limit and pair packing (`pretrained.reranker_folder`);
          `num_labels`, `pooling`, `score_activation` and `prediction_head` must then be left unset.
        - Any other encoder folder or preset gets a new head on its backbone (`num_labels` default 1,
          `score_activation` default "linear"): the start of fine-tuning.
        """
        folder = resolve_pretrained_dir(name_or_path)
        if reranker_architecture(folder) is not None:
            given = {
                "num_labels": num_labels,
                "pooling": pooling,
                "score_activation": score_activation,
                "prediction_head": prediction_head,
            }
            overridden = sorted(key for key, value in given.items() if value is not None)
            if overridden:
                raise ValueError(f"{folder} is a reranker with its own head: leave {', '.join(overridden)} unset")
            with reranker_parts(folder, dtype=dtype, max_length=max_length) as (backbone, tokenizer, arguments, fill):
                model = cls(backbone, tokenizer, dropout=dropout, name="cross_encoder", **arguments)
                fill(model)
            return model
        backbone, tokenizer, _ = load_backbone_and_tokenizer(folder, dtype=dtype, max_length=max_length)
        model = cls(
            backbone,
            tokenizer,
            num_labels=1 if num_labels is None else num_labels,
            dropout=dropout,
            pooling=pooling,
            score_activation=score_activation or "linear",
            prediction_head=prediction_head,
            name="cross_encoder",
        )
        model.head_is_new = True
        return model

    def get_config(self):
        return {
            **super().get_config(),
            "backbone": serialize_nested(self.backbone),
            "tokenizer": serialize_nested(self.tokenizer),
            "num_labels": self.num_labels,
            "dropout": self.dropout,
            "pooling": self.pooling,
            "score_activation": self.score_activation,
            "prediction_head": self.prediction_head,
            "logits_bias": self.logits_bias,
            "pair_template": None if self.pair_template is None else self.pair_template.get_config(),
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

    def fit(self, *args, **kwargs):
        """`keras.Model.fit`; afterwards the head counts as trained (`head_is_new` False)."""
        history = super().fit(*args, **kwargs)
        self.head_is_new = False
        return history

    def enable_lora(self, rank: int, target_layer_names: Sequence[str] | str | None = None) -> None:
        """Trains rank-`rank` LoRA adapters of the backbone's query/value projections ("attention", None), of
        every dense layer of a block ("all"), or of the layers named, and the new head only (the pretrained
        weights, BERT's pooler included, stay frozen), so the fine-tuned model is stored as a small delta on
        the pinned base (see `SentenceEncoder.enable_lora`)."""
        enable_backbone_lora(self.backbone, rank, lora_layer_names(self.backbone, target_layer_names))
        self.forget_traced_functions()

    # ------------------------------------------------------------------ inference
    tokenizer_hint = "SentenceTokenizer(...)"

    def packed_length(self, row):
        """A pair row `(ids, segments)` is packed already: its length."""
        return len(row[0])

    def pack_batch(self, rows, length):
        token_ids, segment_ids, padding_mask = pack_sequence_rows(
            [ids for ids, _ in rows], [segments for _, segments in rows], length, self.tokenizer.pad_token_id
        )
        arrays = {"token_ids": token_ids, "segment_ids": segment_ids, "padding_mask": padding_mask}
        return tuple(arrays[name] for name in self.input_names)

    def pair_rows(self, first, second):
        """Packed id rows and segment rows (NumPy int32) for aligned lists of UTF-8 bytes."""
        if self.pair_template is not None:
            return self.pair_template.pair_id_rows(self._require_tokenizer(), first, second)
        return self._require_tokenizer().pair_id_rows(first, second)

    def pair_ids(self, texts_a, texts_b):
        """In-graph (`tf.function`, tf.data, the SavedModel): (ids, segment ids) `tf.RaggedTensor`s of aligned
        pairs of 1-D string tensors, packed by the tokenizer's pair template (`SequencePacking.pair_ids`) or,
        for a causal-LM reranker, by its chat template (`ChatPairTemplate.pair_ids`)."""
        if self.pair_template is not None:
            return self.pair_template.pair_ids(self._require_tokenizer(), texts_a, texts_b)
        return self._require_tokenizer().pair_ids(texts_a, texts_b)

    def predict_pairs(
        self,
        first: Sequence[str | bytes],
        second: Sequence[str | bytes],
        batch_size: int = 64,
        progress: bool | None = None,
    ) -> np.ndarray:
        """Scores (`score_activation` of the logits) for aligned pairs (first[i], second[i]), in
        input order, with smart batching.

        Pairs are packed (see `SentenceTokenizer.pair_ids`), sorted by length, batched by
        `batch_size` and padded to the smallest bucket length that holds each batch.

        Returns: float32 [N] when `num_labels == 1` (the score), else [N, num_labels].
        Raises: ValueError when the lists differ in length; TypeError/ValueError for
        elements that are not text (see `validate_texts`).
        """
        first, second = validate_pair_lists(first, second)
        check_batch_size(batch_size)
        if self.head_is_new:
            warnings.warn(
                f"{self.name}: its scoring head is new (CrossEncoder.from_pretrained of an encoder folder, not a "
                "reranker's): its scores are noise until the model is fine-tuned with fit",
                UntrainedHeadWarning,
                stacklevel=2,
            )
        rows = list(zip(*self.pair_rows(first, second))) if first else []
        logits = self.predict_rows(rows, batch_size, progress, unit="pair", desc="cross-encode")
        scores = np.asarray(self.scores_from_logits(logits), dtype=np.float32)
        return scores[:, 0] if self.num_labels == 1 else scores

    def rerank(
        self,
        query: str,
        documents: Sequence[str],
        top_k: int | None = None,
        return_documents: bool = False,
        batch_size: int = 64,
        progress: bool | None = None,
    ) -> list[dict]:
        """The `documents` ordered by their score with `query`, best first, as sentence-transformers'
        `CrossEncoder.rank` returns them: `[{"corpus_id": i, "score": s, "text": documents[i]?}, …]`
        (ties: the lower `corpus_id` first; "text" with `return_documents`), the best `top_k` (all
        when None). `rank` is the same method under sentence-transformers' name.

        Raises: ValueError for a model of several labels (a reranker scores a pair with one number),
        an empty or non-text `query`, or `top_k` < 1; TypeError/ValueError for documents that are not
        text (`validate_texts`).

        (Not run as a doctest: it loads pretrained weights; tests/models/test_cross_encoder_rerank.py
        runs the same calls.)
            reranker.rerank("does tea lower blood pressure", passages, top_k=3, return_documents=True)
            # -> [{"corpus_id": 4, "score": 0.93, "text": "Green tea and blood pressure."}, …]
        """
        if self.num_labels != 1:
            raise ValueError(f"rerank needs a model of one label (a score a pair), this one has {self.num_labels}")
        if not isinstance(query, (str, bytes)) or not query.strip():
            raise ValueError(f"rerank needs a non-empty query string, got {query!r:.40}")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
            raise ValueError(f"top_k must be a positive int or None, got {top_k!r}")
        documents = list(documents) if not isinstance(documents, (str, bytes)) else [documents]
        scores = self.predict_pairs([query] * len(documents), documents, batch_size=batch_size, progress=progress)
        order = np.lexsort((np.arange(len(scores)), -scores))[:top_k]
        return [
            {"corpus_id": int(i), "score": float(scores[i]), **({"text": documents[i]} if return_documents else {})}
            for i in order
        ]

    rank = rerank

    def scores_from_logits(self, logits):
        """`score_activation` of the logits (NumPy or tensors, eager or in a graph): what
        `predict_pairs` and the exported SavedModel return."""
        return keras.ops.sigmoid(logits) if self.score_activation == "sigmoid" else logits
