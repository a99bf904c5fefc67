"""StaticEncoder: one vector per word piece, weighted and mean-pooled (the static-embedding tier)."""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb.layers.siamese_pooler import SiamesePooler
from keras_sentemb.models.embedding_model import EmbeddingModel
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.models.special_token_packing import SpecialTokenPacking
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.types import Texts


@keras.saving.register_keras_serializable(package="keras_sentemb")
class StaticEncoder(SpecialTokenPacking, EmbeddingModel, PipelineTraining, keras.Model):
    """A static sentence encoder: a table of token vectors, per-token weights, a mean and a projection.

    For the word pieces x_1 … x_n of a text (its tokenizer's content ids: no [CLS]/[SEP]),

        u = P · (Σ_t w_{x_t} E_{x_t}) / max(n, 1)

    with E the token table [V, dim], w the per-token weights [V] (`token_weights=True`; else w = 1)
    and P the projection [dim, projection_dim] (`projection_dim`; else the identity). There is no
    attention and no context: a text costs n table rows, so this tier runs at tokenizer speed (the
    Model2Vec / sentence-transformers `StaticEmbedding` idea, Tulkens & van Dongen 2024). An empty
    text is the zero vector.

    `keras_sentemb.training.distill_static_encoder` initialises E and w from a teacher's vectors
    of single tokens (the Model2Vec recipe: PCA, SIF weights) and trains them on sentences the
    teacher embeds. The inputs are those of a `SentenceEncoder` with the same tokenizer (`{"token_ids",
    "padding_mask"}`, `[CLS] ids [SEP]` packed; the pooler leaves the special tokens out), so the
    same tf.data pipelines train it; `encode`, the raw-string SavedModel (`export_saved_model`, which
    pools the ragged ids of a request in one step), `HashedEncoder` and the zoo take it like any
    encoder.

    Args:
        tokenizer: a `SentenceTokenizer` (the teacher's word pieces).
        dim: width of the token table.
        token_weights: learn a weight per token (initialised to 1, or to the `weights` given).
        projection_dim: when set, a linear map (no bias) to this many features (the teacher's
            width, for distillation).
        table, weights: optional initial values, float [V, dim] and [V].
        vocabulary_size: V (default: the tokenizer's).

    Inputs `{"token_ids", "padding_mask"}` int32 [batch, T]; output float32 [batch,
    projection_dim or dim].

    Example:
    >>> from keras_sentemb.tokenizers import SentenceTokenizer
    >>> tokenizer = SentenceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "cat"])
    >>> table = np.arange(21, dtype="float32").reshape(7, 3)  # token i: [3i, 3i + 1, 3i + 2]
    >>> model = StaticEncoder(tokenizer, dim=3, table=table, token_weights=False)
    >>> model.encode(["a cat", ""], normalize=False).tolist()  # ("a" 5 + "cat" 6) / 2, the empty text
    [[16.5, 17.5, 18.5], [0.0, 0.0, 0.0]]
    """

    def __init__(
        self,
        tokenizer,
        dim: int = 256,
        token_weights: bool = True,
        projection_dim: int | None = None,
        table=None,
        weights=None,
        vocabulary_size: int | None = None,
        **kwargs,
    ):
        # Given when loading: the tokenizer's vocabulary arrives with its assets, after construction.
        vocabulary_size = tokenizer.vocabulary_size() if vocabulary_size is None else vocabulary_size
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise ValueError(f"dim must be a positive int, got {dim!r}")
        if projection_dim is not None and (
            isinstance(projection_dim, bool) or not isinstance(projection_dim, int) or projection_dim < 1
        ):
            raise ValueError(f"projection_dim must be a positive int or None, got {projection_dim!r}")
        if table is not None:
            table = np.asarray(table, dtype=np.float32)
            if table.shape != (vocabulary_size, dim):
                raise ValueError(f"table must have shape {(vocabulary_size, dim)}, got {table.shape}")
        if weights is not None:
            if not token_weights:
                raise ValueError("weights were given but token_weights=False")
            weights = np.asarray(weights, dtype=np.float32)
            if weights.shape != (vocabulary_size,):
                raise ValueError(f"weights must have shape {(vocabulary_size,)}, got {weights.shape}")
        token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
        token_table = keras.layers.Embedding(
            vocabulary_size, dim, embeddings_initializer="uniform", dtype="float32", name="token_table"
        )
        states = token_table(token_ids)
        weight_table = None
        if token_weights:
            weight_table = keras.layers.Embedding(
                vocabulary_size, 1, embeddings_initializer="ones", dtype="float32", name="token_weights"
            )
            states = keras.layers.Multiply(name="weighted_tokens")([states, weight_table(token_ids)])
        pooler = SiamesePooler("mean", exclude_special_tokens=True, dtype="float32", name="pooler")
        embedding = pooler(states, padding_mask=padding_mask)
        projection = None
        if projection_dim is not None:
            projection = keras.layers.Dense(projection_dim, use_bias=False, dtype="float32", name="projection")
            embedding = projection(embedding)
        super().__init__(inputs={"token_ids": token_ids, "padding_mask": padding_mask}, outputs=embedding, **kwargs)
        self.tokenizer = tokenizer
        self.dim = dim
        self.vocabulary_size = vocabulary_size
        self.token_weights = token_weights
        self.projection_dim = projection_dim
        self.token_table = token_table
        self.weight_table = weight_table
        self.projection = projection
        # Initial values are assigned, not passed as initializers: those would be saved in the config.
        if table is not None:
            token_table.embeddings.assign(table)
        if weights is not None:
            weight_table.embeddings.assign(weights[:, None])
        self.forget_traced_functions()

    def embed_content_ids(self, content_ids):
        """This model's output [N, d] for `content_ids`, a `tf.RaggedTensor` [N, (ids)] of the
        tokenizer's content ids (`tokenizer.content_ids(texts)`): one fused gather-and-mean per request
        (`tf.sparse.segment_mean`; with token weights a gather, a product and a sum), no padding, no
        sorting. The SavedModel's serving function runs a whole request this way."""
        ids = tf.cast(content_ids.flat_values, tf.int32)
        rows = content_ids.value_rowids()
        count = content_ids.nrows()
        table = self.token_table.embeddings
        if self.weight_table is None:
            embedding = tf.sparse.segment_mean(table, ids, rows, num_segments=count)
        else:
            vectors = tf.gather(table, ids) * tf.gather(self.weight_table.embeddings, ids)
            sums = tf.math.unsorted_segment_sum(vectors, rows, count)
            embedding = sums / tf.cast(tf.maximum(content_ids.row_lengths(), 1), tf.float32)[:, None]
        return embedding if self.projection is None else self.projection(embedding)

    def folded(self) -> StaticEncoder:
        """The same encoder as one table: E''_i = w_i E_i P, no weights, no projection, so u = mean_t
        E''_{x_t} is unchanged (to float round-off) and a request is one fused gather-and-mean. The raw-string
        SavedModel is written from it (a table of the output's width: 47 MB float32 for 30,522 × 384)."""
        folded = self.with_weights_folded()
        if folded.projection is None:
            return folded
        table = folded.token_table.embeddings.numpy() @ folded.projection.kernel.numpy()
        return StaticEncoder(
            self.tokenizer,
            dim=table.shape[1],
            token_weights=False,
            table=table,
            vocabulary_size=self.vocabulary_size,
            name=self.name,
        )

    def with_weights_folded(self) -> StaticEncoder:
        """The same encoder without separate token weights: E'_i = w_i E_i, so u is unchanged (to float
        round-off) and a request needs one fused gather-and-mean (`embed_content_ids`); `folded` starts here."""
        if self.weight_table is None:
            return self
        table = self.token_table.embeddings.numpy() * self.weight_table.embeddings.numpy()
        folded = StaticEncoder(
            self.tokenizer,
            dim=self.dim,
            token_weights=False,
            projection_dim=self.projection_dim,
            table=table,
            vocabulary_size=self.vocabulary_size,
            name=self.name,
        )
        if self.projection is not None:
            folded.projection.kernel.assign(self.projection.kernel)
        return folded

    def get_config(self):
        return {
            **super().get_config(),
            "tokenizer": serialize_nested(self.tokenizer),
            "dim": self.dim,
            "token_weights": self.token_weights,
            "projection_dim": self.projection_dim,
            "vocabulary_size": self.vocabulary_size,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("tokenizer",)))

    # ------------------------------------------------------------------ inference
    def encode(
        self,
        texts: Texts,
        batch_size: int = 1024,
        normalize: bool = True,
        progress: bool | None = None,
        *,
        truncate_dim: int | None = None,
    ) -> np.ndarray:
        """Embeds raw texts; returns float32 NumPy [N, d] in input order (a single `str`: [d]).

        Texts are tokenised on the host, batched by length and pooled; texts longer than the
        tokenizer's `max_length` word pieces ([CLS]/[SEP] counted) are truncated; an empty text is
        the zero vector (also after `normalize`). `truncate_dim` keeps the first this many features
        before normalising (Matryoshka truncation).

        Raises:
            TypeError / ValueError: a non-text element or invalid UTF-8 bytes (its index), or a
                `batch_size` that is not a positive int.
        """
        return self.encode_texts(texts, batch_size, normalize, progress, truncate_dim=truncate_dim)
