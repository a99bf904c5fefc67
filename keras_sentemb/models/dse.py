"""DSE: a siamese student that approximates a cross-encoder from two sentence embeddings."""

from __future__ import annotations

import os
from collections.abc import Sequence

import keras
import numpy as np
import tensorflow as tf
from keras import ops
from scipy.special import log_softmax

from keras_sentemb.data.pipelines import PAIR_KEYS
from keras_sentemb.layers.pair_feature_head import PairFeatureHead
from keras_sentemb.losses.distillation_loss import DistillationLoss
from keras_sentemb.losses.matryoshka_loss import matryoshka_dims as matryoshka_ladder
from keras_sentemb.losses.matryoshka_loss import matryoshka_weights as checked_matryoshka_weights
from keras_sentemb.models.column_embedding import embed_columns, embed_pairs_once
from keras_sentemb.models.cross_encoder import validate_pair_lists
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.types import Texts

# f(u, v) = W·[u, v, u∘v, |u−v|] + b (the order of DSE's paper).
DSE_FEATURES = ("u", "v", "product", "abs_diff")
# DSE's ψ: mean over the tokens of each of the last four layers, [CLS] (and [SEP]) left out.
DSE_LAYERS = (-4, -3, -2, -1)
# The ψ of `DSE.from_pretrained`: "paper" is DSE's (above, width 4d); "checkpoint" is the sentence
# embedding the checkpoint was trained to give, the mean of the last layer over every token, as
# sentence-transformers pools all-MiniLM-L6-v2 (width d).
PSI_CHOICES = ("paper", "checkpoint")
# Default block size of `score_matrix`: the pairs whose [pairs, 4d] float32 intermediate
# fits in 1 GiB (174,762 pairs at 4d = 1,536), so one query against a 100k catalog is one
# memory-bound pass.
BLOCK_BYTES = 1 << 30


def default_chunk(width):
    """Pairs per block whose float32 [pairs, width] intermediate fits in `BLOCK_BYTES`."""
    return max(1, BLOCK_BYTES // (4 * int(width)))


def plan_blocks(rows, cols, chunk):
    """(block rows, block cols) so that one block holds at most `chunk` pairs.

    >>> plan_blocks(1000, 1000, 16384), plan_blocks(1, 100000, 16384)
    ((16, 1000), (1, 16384))
    """
    if not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int (pairs per block), got {chunk!r}")
    if cols <= chunk:
        return max(1, min(rows, chunk // max(cols, 1))), cols
    return 1, chunk


_BLOCK_FUNCTIONS = {}


# Catalog rows per tile of the one-query path: relu(u − v) of a tile stays in the CPU cache.
QUERY_TILE_ROWS = 512


def _one_query_scores(u, v, linear_weights, hinge_weights, cols):
    """v·a + 2·relu(u − v)·w for every row of v [cols, d], traced inside XLA.

    The catalog is walked in tiles of `QUERY_TILE_ROWS` rows (an XLA while loop), so the
    hinge operand relu(u − v) never exists for the whole catalog: one pass over memory.
    """

    def tile_scores(tile):
        return tf.linalg.matvec(tile, linear_weights) + 2.0 * tf.linalg.matvec(tf.nn.relu(u - tile), hinge_weights)

    tiles = cols // QUERY_TILE_ROWS
    parts = []
    if tiles:
        width = tf.shape(v)[1]
        per_tile = tf.map_fn(
            lambda i: tile_scores(tf.slice(v, [i * QUERY_TILE_ROWS, 0], [QUERY_TILE_ROWS, width])),
            tf.range(tiles),
            fn_output_signature=tf.float32,
        )
        parts.append(tf.reshape(per_tile, [-1]))
    if cols > tiles * QUERY_TILE_ROWS:
        parts.append(tile_scores(v[tiles * QUERY_TILE_ROWS :]))
    return tf.concat(parts, axis=0)


def pair_scores_block(U, V, row_start, col_start, rows, cols, weights, unit=False):
    """f for the pairs U[row_start:+rows] × V[col_start:+cols]: float32 [rows, cols, n].

    `unit=True` (a `DSE(unit_features=True)` head) scales each row of the block to unit
    length first, inside the compiled block, so no normalised copy of the catalog is made.

    With W = [W_u; W_v; W_×; W_d] (each [d, n]) and |x| = x + 2·relu(−x), per output o:
        f_o(u, v) = u·(W_u − W_d)_o + b_o + v·(W_v + W_d)_o + (u ∘ W_×,o)·v + 2·relu(u − v)·W_d,o
    i.e. two matrix products and one hinge term per block, compiled by XLA once per block
    shape. The row slices of U and V are views (TF shares the buffer of an aligned
    leading-dimension slice), so the catalog is never copied.
    """
    key = (rows, cols, unit)
    if key not in _BLOCK_FUNCTIONS:

        @tf.function(jit_compile=True)
        def block(u, v, w_u, w_v, w_x, w_d, b):
            if unit:
                u, v = tf.math.l2_normalize(u, axis=-1), tf.math.l2_normalize(v, axis=-1)
            outputs = []
            for o in range(w_u.shape[1]):
                if rows == 1:  # one query: matrix-vector products, tile by tile
                    scores = _one_query_scores(u[0], v, w_v[:, o] + w_d[:, o] + u[0] * w_x[:, o], w_d[:, o], cols)[
                        None, :
                    ]
                else:
                    linear = (
                        tf.matmul(u * w_x[:, o], v, transpose_b=True)
                        + tf.linalg.matvec(v, w_v[:, o] + w_d[:, o])[None, :]
                    )
                    hinge = tf.einsum("rcd,d->rc", tf.nn.relu(u[:, None, :] - v[None, :, :]), w_d[:, o])
                    scores = linear + 2.0 * hinge
                row_terms = tf.linalg.matvec(u, w_u[:, o] - w_d[:, o]) + b[o]
                outputs.append(scores + row_terms[:, None])
            return tf.stack(outputs, axis=-1)

        _BLOCK_FUNCTIONS[key] = block
    u = U if (row_start, rows) == (0, U.shape[0]) else U[row_start : row_start + rows]
    v = V if (col_start, cols) == (0, V.shape[0]) else V[col_start : col_start + cols]
    return _BLOCK_FUNCTIONS[key](u, v, *weights)


def cosine_start_kernel(width, units):
    """The head kernel [4·width, units] with f(û, v̂) = Σ_i û_i·v̂_i = cos(u, v): ones on the
    u∘v block (DSE_FEATURES' third), zeros elsewhere.

    >>> cosine_start_kernel(2, 1)[:, 0].tolist()
    [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    """
    kernel = np.zeros((len(DSE_FEATURES) * width, units), np.float32)
    start = DSE_FEATURES.index("product") * width
    kernel[start : start + width] = 1.0
    return kernel


def _as_embeddings(array, width, what):
    """A float32 [N, width] `tf.Tensor` (no copy when `array` already is a float32 one;
    other float tensors, e.g. a bfloat16 catalog, are cast)."""
    if not isinstance(array, tf.Tensor):
        array = np.asarray(array, dtype=np.float32)
    if len(array.shape) != 2 or array.shape[1] != width:
        raise ValueError(f"{what} must be float [N, {width}], got shape {tuple(array.shape)}")
    if isinstance(array, tf.Tensor) and not array.dtype.is_floating:
        raise TypeError(f"{what} must be a float tensor, got {array.dtype.name}")
    return tf.cast(array, tf.float32) if isinstance(array, tf.Tensor) else tf.convert_to_tensor(array)


def _score_term_weight(name, weight, num_labels):
    """`weight` as a float: ≥ 0, and > 0 only for one-score regression (the terms that need a score y)."""
    value = float(weight)
    if value < 0.0 or (value and num_labels != 1):
        raise ValueError(
            f"{name} must be ≥ 0, and > 0 only for one-score regression (num_labels=1); "
            f"got {weight!r} with num_labels={num_labels}"
        )
    return value


@keras.saving.register_keras_serializable(package="keras_sentemb")
class DSE(PipelineTraining, keras.Model):
    """Distilled Sentence Embedding (Barkan et al. 2020): a cross-encoder's accuracy at
    the cost of one embedding per sentence.

    Student ψ (one `SentenceEncoder` shared by both sentences): each of BERT's last four
    layers is mean-pooled over the tokens, [CLS] and [SEP] excluded, and the four means
    are concatenated: u = ψ(a), v = ψ(b) ∈ R^{4d}. (`from_pretrained(psi="checkpoint")`
    keeps the checkpoint's own embedding instead, the mean of the last layer, in R^d: the
    one a bi-encoder checkpoint such as all-MiniLM-L6-v2 was trained to give.) The pair
    score is linear in the pair features:
        f(u, v) = W·[u, v, u∘v, |u − v|] + b        (`PairFeatureHead`, n logits)
    trained with `DistillationLoss`: α·‖f(u, v) − T(a, b)‖² + (1 − α)·ℓ(f(u, v), y), T the
    teacher's logits (`CrossEncoder`), ℓ squared error (regression) or cross-entropy
    (classes). W starts at zero (f = b, no random function of the features to unlearn).
    `freeze_encoder=True` keeps ψ fixed and trains only W, b (the paper's
    frozen-ψ variant).

    `unit_features=True` gives the head unit vectors, f(û, v̂) with û = u/‖u‖, and starts it
    at the cosine: W_× = 1, the other blocks and b zero, so f = Σ_i û_i·v̂_i = cos(u, v) before
    training, and training learns the teacher's corrections to the cosine instead of a
    pair score from nothing (the linear head on raw ψ cannot express the cosine at all:
    ‖u‖ and ‖v‖ vary by sentence). `embed` still gives the raw ψ; `score`, `score_matrix`
    and `rank` normalise inside the head.

    `cosine_weight=β` > 0 (regression) adds SBERT's cosine objective β·(cos(u, v) − y)² to
    the loss, so that ψ's embeddings also serve cosine search (`encode`), not only the head:
    in training the output then carries cos(u, v) as a last column (inference outputs
    stay the n logits). Without it the head is free to use ψ in ways cosine does not see.
    `matryoshka_dims=(m_1, …, m_k)` makes that term Matryoshka (`losses.MatryoshkaLoss`'s
    rule): the output carries cos(u[:m], v[:m]) for every m, the loss is
    Σ_m β·w_m·(cos_m − y)² (`matryoshka_weights` w, default 1 each), and
    `encode(..., truncate_dim=m)` gives embeddings that keep their cosine quality at m.
    `ranking_weight=γ` > 0 (regression) adds CoSENT's ranking term on the head's scores and on
    the cosine(s) over each batch (`DistillationLoss`): the order of the pairs' targets, which
    is what STS's Spearman reads, not only their values.

    Inference splits the work: `embed` each sentence once (the expensive part), then
    `score` aligned pairs, `score_matrix` all pairs of two sets in bounded memory, or
    `rank` a catalog of precomputed embeddings for each query.

    Args:
        encoder: the student ψ (`SentenceEncoder`, unnormalised; see `from_pretrained`).
        num_labels: logits per pair (1 = regression).
        alpha: the teacher weight α of the default loss.
        freeze_encoder: train the head only.
        cosine_weight: β, the weight of the cosine term of the default loss (0 = none).
        matryoshka_dims: prefix widths of ψ whose cosines the cosine term trains (None: the
            whole of ψ only); needs `cosine_weight` > 0.
        matryoshka_weights: one weight a prefix width (default 1 each).
        unit_features: the head reads unit vectors and starts at the cosine (above).
        ranking_weight: γ, the weight of the default loss's ranking terms (0 = none).

    Inputs: `{"sentence1": {...}, "sentence2": {...}}` token batches of
    `examples_dataset`; labels `[y, T_1 … T_n]` per pair. Output: logits [batch, n].

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        dse = DSE.from_pretrained("minilm-l6", alpha=0.5)
        targets = np.column_stack([scores / 5, teacher_logits])
        dse.compile(keras.optimizers.AdamW(2e-5))
        dse.fit(examples_dataset(train, dse.tokenizer, labels=targets), epochs=4)
        catalog = tf.constant(dse.embed(sentences))
        indices, scores = dse.rank(["a query"], catalog, k=10)
    """

    def __init__(
        self,
        encoder,
        num_labels: int = 1,
        alpha: float = 0.5,
        freeze_encoder: bool = False,
        cosine_weight: float = 0.0,
        matryoshka_dims: Sequence[int] | None = None,
        matryoshka_weights: Sequence[float] | None = None,
        unit_features: bool = False,
        ranking_weight: float = 0.0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not isinstance(encoder, SentenceEncoder):
            raise TypeError(f"encoder must be a SentenceEncoder, got {type(encoder).__name__}")
        if encoder.normalize:
            raise ValueError("DSE needs unnormalised embeddings: build the encoder with normalize=False")
        if not isinstance(num_labels, int) or num_labels < 1:
            raise ValueError(f"num_labels must be a positive int, got {num_labels!r}")
        self.encoder = encoder
        self.num_labels = num_labels
        self.alpha = float(alpha)
        self.freeze_encoder = bool(freeze_encoder)
        self.cosine_weight = _score_term_weight("cosine_weight", cosine_weight, num_labels)
        self.ranking_weight = _score_term_weight("ranking_weight", ranking_weight, num_labels)
        self.matryoshka_dims = None if matryoshka_dims is None else matryoshka_ladder(matryoshka_dims)
        self.matryoshka_weights = None
        if self.matryoshka_dims is not None:
            if not self.cosine_weight:
                raise ValueError("matryoshka_dims trains the cosine term on each prefix: give cosine_weight > 0")
            if self.matryoshka_dims[-1] > encoder.embedding_dim:
                raise ValueError(
                    f"matryoshka_dims {list(self.matryoshka_dims)} go past ψ's width {encoder.embedding_dim}"
                )
            self.matryoshka_weights = checked_matryoshka_weights(
                matryoshka_weights, self.matryoshka_dims, "matryoshka_weights"
            )
        elif matryoshka_weights is not None:
            raise ValueError("matryoshka_weights needs matryoshka_dims")
        if self.freeze_encoder:
            encoder.trainable = False
        self.unit_features = bool(unit_features)
        self.head = PairFeatureHead(num_labels, features=DSE_FEATURES, output_initializer="zeros", name="similarity")
        dummy = {"token_ids": ops.ones((1, 3), "int32"), "padding_mask": ops.ones((1, 3), "int32")}
        self({key: dummy for key in PAIR_KEYS})
        if self.unit_features:  # f starts as cos(u, v); a loaded model's weights replace this
            self.head.output_layer.kernel.assign(cosine_start_kernel(encoder.embedding_dim, num_labels))

    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str | os.PathLike = "minilm-l6",
        num_labels: int = 1,
        alpha: float = 0.5,
        freeze_encoder: bool = False,
        cosine_weight: float = 0.0,
        dtype: str | None = None,
        max_length: int | None = None,
        unit_features: bool = False,
        psi: str = "paper",
        ranking_weight: float = 0.0,
    ) -> DSE:
        """A DSE student on pretrained BERT weights. `psi="paper"`: ψ = the mean of each of the
        last 4 layers, [CLS] and [SEP] out, concatenated (DSE's); `psi="checkpoint"`: ψ = the
        mean of the last layer over every token, the embedding a bi-encoder checkpoint
        (all-MiniLM-L6-v2) was trained to give, so its cosine starts where that model's does."""
        if psi not in PSI_CHOICES:
            raise ValueError(f"psi must be one of {PSI_CHOICES}, got {psi!r}")
        backbone, tokenizer, _ = load_backbone_and_tokenizer(name_or_path, dtype=dtype, max_length=max_length)
        paper = psi == "paper"
        encoder = SentenceEncoder(
            backbone,
            tokenizer,
            pooling="mean",
            layer_indices=DSE_LAYERS if paper else (-1,),
            exclude_special_tokens=paper,
            normalize=False,
            name="dse_student",
        )
        return cls(
            encoder,
            num_labels=num_labels,
            alpha=alpha,
            freeze_encoder=freeze_encoder,
            cosine_weight=cosine_weight,
            unit_features=unit_features,
            ranking_weight=ranking_weight,
            name="dse",
        )

    @property
    def tokenizer(self):
        """The student's `SentenceTokenizer`."""
        return self.encoder.tokenizer

    @property
    def psi(self):
        """ "paper" (DSE's mean of the last 4 layers, [CLS] and [SEP] out) or "checkpoint" (the
        last layer's mean over every token): the `psi` that `from_pretrained` was given; None for
        an encoder built otherwise."""
        choice = (tuple(self.encoder.layer_indices), bool(self.encoder.exclude_special_tokens))
        return {(DSE_LAYERS, True): "paper", ((-1,), False): "checkpoint"}.get(choice)

    @property
    def objective(self):
        """ "regression" for one logit, else "classification"."""
        return "regression" if self.num_labels == 1 else "classification"

    def call(self, inputs, training=False):
        encoder_training = training and not self.freeze_encoder
        u, v = embed_columns(self.encoder, inputs, PAIR_KEYS, training=encoder_training)
        logits = self.head(self._head_inputs(u, v), training=training)
        if training and self.cosine_weight:
            u, v = ops.cast(u, "float32"), ops.cast(v, "float32")
            widths = self.matryoshka_dims or (None,)
            cosines = [
                ops.sum(ops.normalize(u[:, :m]) * ops.normalize(v[:, :m]), axis=-1, keepdims=True) for m in widths
            ]
            return ops.concatenate([ops.cast(logits, "float32"), *cosines], axis=-1)
        return logits

    def _head_inputs(self, u, v):
        """[u, v] as the head reads them: unit length with `unit_features`."""
        return [ops.normalize(u), ops.normalize(v)] if self.unit_features else [u, v]

    def compile(self, optimizer="adamw", loss=None, **kwargs):
        """`keras.Model.compile`; the default loss is `DistillationLoss(alpha, objective)`."""
        if loss is None:
            cosine_weight = self.cosine_weight
            if self.matryoshka_weights is not None:
                cosine_weight = [self.cosine_weight * w for w in self.matryoshka_weights]
            loss = DistillationLoss(
                alpha=self.alpha,
                objective=self.objective,
                cosine_weight=cosine_weight,
                ranking_weight=self.ranking_weight,
            )
        super().compile(optimizer=optimizer, loss=loss, **kwargs)

    def get_config(self):
        return {
            **super().get_config(),
            "encoder": serialize_nested(self.encoder),
            "num_labels": self.num_labels,
            "alpha": self.alpha,
            "freeze_encoder": self.freeze_encoder,
            "cosine_weight": self.cosine_weight,
            "matryoshka_dims": None if self.matryoshka_dims is None else list(self.matryoshka_dims),
            "matryoshka_weights": None if self.matryoshka_weights is None else list(self.matryoshka_weights),
            "unit_features": self.unit_features,
            "ranking_weight": self.ranking_weight,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("encoder",)))

    # ------------------------------------------------------------------ inference
    @property
    def embedding_dim(self):
        """The width of ψ's output: 4·d for DSE's ψ, d for the checkpoint's."""
        return self.encoder.embedding_dim

    def embed(self, texts: Texts, batch_size: int = 64, progress: bool | None = None) -> np.ndarray:
        """ψ of each text: float32 NumPy [N, 4d] (unnormalised, as f expects)."""
        return self.encoder.encode(texts, batch_size=batch_size, normalize=False, progress=progress)

    def encode(
        self,
        texts: Texts,
        batch_size: int = 64,
        normalize: bool = True,
        progress: bool | None = None,
        *,
        truncate_dim: int | None = None,
    ) -> np.ndarray:
        """ψ of each text as sentence embeddings (unit length by default, for cosine use;
        `embed` gives the unnormalised ψ the head expects).

        Which to search with: cosine of these vectors is what a vector index (FAISS,
        `BinaryIndex` after hashing) can search at scale, and it is only as good as the training
        made it: train with `cosine_weight` > 0 to keep it good (without it the zoo's DSE fell
        to 79.5 on STS-B test, below the untuned model's 82.0). The head (`score`,
        `score_matrix`, `rank`, `predict_pairs`) scores every catalog entry; use it where it
        measures better on your dev set, e.g. to re-rank the top cosine hits. For the zoo's
        `dse-minilm-l6-stsb` the cosine is ahead (version 6: STS-B dev 89.88 against the head's
        89.84), and its trained head is that cosine re-weighted by under 1 % per dimension
        (`examples/dse_head_anatomy.py`), so search and score with `encode`. `truncate_dim` keeps
        the first features of ψ (then normalises), as `SentenceEncoder.encode`."""
        return self.encoder.encode(
            texts, batch_size=batch_size, normalize=normalize, progress=progress, truncate_dim=truncate_dim
        )

    def enable_lora(self, rank: int, target_layer_names: Sequence[str] | None = None) -> None:
        """Trains LoRA adapters of ψ's backbone and the head only (see
        `SentenceEncoder.enable_lora`): the student is stored as a small delta."""
        self.encoder.enable_lora(rank, target_layer_names=target_layer_names)

    def head_weights(self):
        """(W_u, W_v, W_×, W_d, b) as float32 tensors, each W [d', n], b [n]."""
        kernel = tf.convert_to_tensor(self.head.output_layer.kernel, tf.float32)
        bias = tf.convert_to_tensor(self.head.output_layer.bias, tf.float32)
        w_u, w_v, w_x, w_d = tf.split(kernel, 4, axis=0)
        return w_u, w_v, w_x, w_d, bias

    def score(self, u, v) -> np.ndarray:
        """f(u_i, v_i) for aligned rows of u, v [N, 4d]: [N] (1 logit) or [N, n] logits."""
        u = _as_embeddings(u, self.embedding_dim, "u")
        v = _as_embeddings(v, self.embedding_dim, "v")
        if u.shape[0] != v.shape[0]:
            raise ValueError(f"u has {u.shape[0]} rows but v has {v.shape[0]}")
        logits = (
            self.head(self._head_inputs(u, v)).numpy().astype(np.float32)
            if u.shape[0]
            else np.zeros((0, self.num_labels), np.float32)
        )
        return logits[:, 0] if self.num_labels == 1 else logits

    def score_matrix(self, U, V, chunk: int | None = None) -> np.ndarray:
        """f(U_i, V_j) for all pairs: [len(U), len(V)] (or [·, ·, n] for n logits).

        The pairs are scored in blocks of at most `chunk` pairs (`plan_blocks`), so the
        largest intermediate is one block's [rows, cols, 4d] float32; the default `chunk`
        keeps it under 1 GiB (`default_chunk`). U and V are read in place (pass
        `tf.Tensor`s to avoid a conversion copy of NumPy inputs).
        """
        U = _as_embeddings(U, self.embedding_dim, "U")
        V = _as_embeddings(V, self.embedding_dim, "V")
        chunk = default_chunk(self.embedding_dim) if chunk is None else chunk
        n_rows, n_cols = int(U.shape[0]), int(V.shape[0])
        rows, cols = plan_blocks(n_rows, n_cols, chunk)
        out = np.empty((n_rows, n_cols, self.num_labels), np.float32)
        weights = self.head_weights()
        for r0 in range(0, n_rows, rows):
            for c0 in range(0, n_cols, cols):
                r, c = min(rows, n_rows - r0), min(cols, n_cols - c0)
                out[r0 : r0 + r, c0 : c0 + c] = pair_scores_block(U, V, r0, c0, r, c, weights, self.unit_features)
        return out[..., 0] if self.num_labels == 1 else out

    def predict_pairs(
        self,
        first: Sequence[str | bytes],
        second: Sequence[str | bytes],
        batch_size: int = 64,
        progress: bool | None = None,
    ) -> np.ndarray:
        """f for aligned text pairs, embedding each distinct sentence once ([N] or [N, n])."""
        first, second = validate_pair_lists(first, second)
        return self.score(
            *embed_pairs_once(lambda texts: self.embed(texts, batch_size=batch_size, progress=progress), first, second)
        )

    def rank(
        self,
        query_texts: Sequence[str | bytes],
        catalog_embeddings: np.ndarray,
        k: int = 10,
        class_index: int = -1,
        chunk: int | None = None,
    ):
        """The `k` catalog entries that score highest with each query, best first.

        Args:
            query_texts: a text or a list of texts.
            catalog_embeddings: ψ of the catalog, [N, 4d] (`embed`), a NumPy array or,
                to skip a copy per call, a `tf.Tensor`.
            k: results per query; clamped to N (a catalog of 3 gives 3 results).
            class_index: for classifiers, rank by log softmax(f)[class_index] (default:
                the last class, e.g. "paraphrase"); ignored for 1 logit.
            chunk: pairs per scoring block (see `score_matrix`).

        Returns: `(indices, scores)`, int64 and float32 [Q, min(k, N)], by descending score.
        Raises: ValueError for an empty catalog or k < 1.
        """
        catalog = _as_embeddings(catalog_embeddings, self.embedding_dim, "catalog_embeddings")
        if catalog.shape[0] == 0:
            raise ValueError("rank needs a non-empty catalog")
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive int, got {k!r}")
        k = min(int(k), int(catalog.shape[0]))
        queries = self.embed([query_texts] if isinstance(query_texts, (str, bytes)) else query_texts)
        scores = self.score_matrix(queries, catalog, chunk=chunk)
        if self.num_labels > 1:
            scores = log_softmax(scores, axis=-1)[..., class_index]
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        top_scores = np.take_along_axis(scores, top, axis=1)
        order = np.lexsort((top, -top_scores), axis=1)
        return np.take_along_axis(top, order, axis=1).astype(np.int64), np.take_along_axis(top_scores, order, axis=1)
