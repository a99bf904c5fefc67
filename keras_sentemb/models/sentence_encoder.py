"""SentenceEncoder: a keras-hub transformer backbone + SiamesePooler → sentence vectors."""

from __future__ import annotations

import os
from collections.abc import Sequence

import keras
import keras_hub
import numpy as np
import tensorflow as tf

from keras_sentemb.data.length_buckets import pack_rows
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.layers.siamese_pooler import SiamesePooler
from keras_sentemb.models.embedding_model import EmbeddingModel
from keras_sentemb.pretrained.bert_inference_graph import bert_layer_states, supports_bert_layer_states
from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from keras_sentemb.tokenizers.sentence_tokenizer import SentenceTokenizer
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.types import Texts


def _model_name(name_or_path):
    """ "minilm-l6" → "sentence_encoder_minilm_l6"; a folder path → its last component."""
    stem = os.path.basename(os.path.normpath(os.fspath(name_or_path)))
    return "sentence_encoder_" + "".join(c if c.isalnum() else "_" for c in stem)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SentenceEncoder(EmbeddingModel, keras.Model):
    """Maps token ids to one sentence embedding per row (SBERT's siamese tower).

    u = SiamesePooler(mode)(BERT(token_ids, padding_mask)), then u / ‖u‖₂ when
    `normalize=True`. The inputs are a dict of int32 [batch, T] tensors `token_ids`
    (`[CLS] … [SEP] [PAD]…`) and `padding_mask` (1 for real tokens); segment ids are all
    zero. The output is float32 [batch, d·len(layer_indices)]. Padding never changes
    an embedding.

    The attached `tokenizer` (a `SentenceTokenizer`) turns raw strings into those inputs:
    in `encode()` (smart batching, NumPy out), in `tf.data` pipelines, and inside the
    SavedModel written by `keras_sentemb.export.export_saved_model` (strings in,
    embeddings out).

    Args:
        backbone: a keras-hub encoder backbone (`keras_hub.models.BertBackbone`).
        tokenizer: the `SentenceTokenizer` for `encode`/`export`, or None.
        pooling: a `SiamesePooler` mode: "mean" (default), "max", "cls", "mean_sqrt_len".
        layer_indices: which transformer layers to pool and concatenate ((-1,) = last).
        exclude_special_tokens: leave [CLS]/[SEP] out of mean/max pooling.
        normalize: L2-normalise the output inside the model.

    Paper: Reimers & Gurevych 2019, Sentence-BERT.

    Example:
    (Skipped as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
    >>> encoder = SentenceEncoder.from_pretrained("minilm-l6")   # doctest: +SKIP
    >>> encoder.encode(["A man is eating food."]).shape           # doctest: +SKIP
    (1, 384)
    """

    def __init__(
        self,
        backbone,
        tokenizer=None,
        pooling: str = "mean",
        layer_indices: Sequence[int] = (-1,),
        exclude_special_tokens: bool = False,
        normalize: bool = False,
        **kwargs,
    ):
        token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
        layer_states = transformer_layer_states(backbone)(
            {
                "token_ids": token_ids,
                "segment_ids": keras.ops.zeros_like(token_ids),
                "padding_mask": padding_mask,
            }
        )
        pooler = SiamesePooler(
            mode=pooling,
            layer_indices=layer_indices,
            exclude_special_tokens=exclude_special_tokens,
            dtype="float32",
            name="pooler",
        )
        embedding = pooler(layer_states, padding_mask=padding_mask)
        if normalize:
            embedding = keras.layers.UnitNormalization(axis=-1, dtype="float32", name="l2_normalize")(embedding)
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask},
            outputs=embedding,
            **kwargs,
        )
        self.backbone = backbone
        self.freeze_unused_pooler()
        self.tokenizer = tokenizer
        self.pooling = pooling
        self.layer_indices = tuple(layer_indices)
        self.exclude_special_tokens = exclude_special_tokens
        self.normalize = normalize
        self.forget_traced_functions()

    def freeze_unused_pooler(self):
        # BERT's pooler (tanh(W·h_CLS)) is not part of a sentence embedding: freeze it so
        # that training neither updates it nor warns that it has no gradient.
        for layer in self.backbone.layers:
            if layer.name == "pooled_dense":
                layer.trainable = False

    def openvino_graph_fn(self):
        """`embed_fn()`'s math for OpenVINO to convert: over a float32 BERT backbone, the
        block outputs of `bert_layer_states` (layer norm and attention in the op shapes
        OpenVINO fuses, see docs/serving_speed.md) fed to this model's own pooler and
        normalisation layers; over any other backbone, `embed_fn()` itself."""
        if not supports_bert_layer_states(self.backbone):
            return self.embed_fn()
        if getattr(self, "_openvino_graph_function", None) is None:
            pooler = self.get_layer("pooler")
            normalize = self.get_layer("l2_normalize") if self.normalize else None

            def embed(token_ids, padding_mask):
                embedding = pooler(bert_layer_states(self.backbone, token_ids, padding_mask), padding_mask=padding_mask)
                return normalize(embedding) if normalize is not None else embedding

            spec = tf.TensorSpec([None, None], tf.int32)
            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_openvino_graph_function", tf.function(embed, input_signature=[spec, spec]))
        return self._openvino_graph_function

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str | os.PathLike = "minilm-l6",
        dtype: str | None = None,
        max_length: int | None = None,
        normalize: bool | None = None,
    ) -> SentenceEncoder:
        """Builds an encoder from a preset name (e.g. "minilm-l6") or an HF-format folder.

        The weights come from an installed package (see `PRETRAINED_SOURCES`); nothing is
        downloaded. Pooling, lower-casing, the token limit and normalisation follow the
        folder's sentence-transformers files. `dtype="mixed_bfloat16"` computes in
        bfloat16 (faster on CPUs with AVX512-BF16/AMX; see benchmarks/) while the pooled
        vector stays float32.
        """
        backbone, tokenizer, settings = load_backbone_and_tokenizer(name_or_path, dtype=dtype, max_length=max_length)
        return cls(
            backbone=backbone,
            tokenizer=tokenizer,
            pooling=settings["pooling"],
            normalize=settings["normalize"] if normalize is None else normalize,
            name=_model_name(name_or_path),
        )

    @classmethod
    def from_text_embedder(
        cls,
        embedder: keras_hub.models.TextEmbedder | str | os.PathLike,
        max_length: int | None = None,
        lowercase: bool | None = None,
        strip_accents: bool | None = None,
    ) -> SentenceEncoder:
        """A `SentenceEncoder` on the backbone (the same weights, not a copy) of a keras-hub
        `TextEmbedder`, or of the one `keras_hub.models.TextEmbedder.from_preset(preset)` loads
        (a preset name or a preset / Hugging Face folder).

        What it adds to the embedder: smart batching (keras-hub's preprocessor pads every
        batch to its `sequence_length`, 256 for MiniLM), `encode(precision=, backend=)`,
        `export_saved_model` / `export_openvino`, `HashedEncoder` and everything else that
        takes a `SentenceEncoder`. Pooling (mean / cls / max) and normalisation follow the
        embedder; the token limit follows its preprocessor's `sequence_length` unless
        `max_length` is lower.

        The tokenizer is BERT's reference WordPiece (`SentenceTokenizer`) on the embedder's
        vocabulary, with the embedder's `lowercase` and `strip_accents` unless given. One
        difference stays: keras-hub lower-cases with Unicode case folding (NFKC_Casefold: "ß"
        becomes "ss"), the reference with `lower` ("ß" stays); the vectors are equal on every
        text where the two agree. For all-MiniLM-L6-v2 the reference also strips accents, which
        keras-hub's converter leaves off: pass `strip_accents=True` for sentence-transformers'
        vectors, or use `from_pretrained`.

        Supported: BERT-family embedders (a `BertBackbone` and a WordPiece `BertTokenizer`, e.g.
        `BertTextEmbedder`); others raise ValueError naming what they have.

        Example:
        (Skipped as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        >>> embedder = keras_hub.models.TextEmbedder.from_preset(folder)        # doctest: +SKIP
        >>> SentenceEncoder.from_text_embedder(embedder).encode(["A cat."]).shape  # doctest: +SKIP
        (1, 384)
        """
        if isinstance(embedder, (str, os.PathLike)):
            embedder = keras_hub.models.TextEmbedder.from_preset(os.fspath(embedder))
        if not isinstance(embedder, keras_hub.models.TextEmbedder):
            raise TypeError(f"expected a keras_hub.models.TextEmbedder or a preset, got {type(embedder).__name__}")
        backbone = embedder.backbone
        preprocessor = embedder.preprocessor
        tokenizer = getattr(preprocessor, "tokenizer", None)
        if not isinstance(backbone, keras_hub.models.BertBackbone) or not isinstance(
            tokenizer, keras_hub.models.BertTokenizer
        ):
            raise ValueError(
                "from_text_embedder supports BERT-family embedders (a BertBackbone with a WordPiece "
                f"BertTokenizer); {type(embedder).__name__} has a {type(backbone).__name__} and a "
                f"{type(tokenizer).__name__}"
            )
        limit = min(max_length or preprocessor.sequence_length, backbone.max_sequence_length)
        sentence_tokenizer = SentenceTokenizer(
            vocabulary=list(tokenizer.vocabulary),
            lowercase=tokenizer.lowercase if lowercase is None else lowercase,
            strip_accents=tokenizer.strip_accents if strip_accents is None else strip_accents,
            max_length=limit,
        )
        return cls(
            backbone=backbone,
            tokenizer=sentence_tokenizer,
            pooling=getattr(embedder, "pooling_mode", "mean"),
            normalize=bool(getattr(embedder, "normalize", True)),
            name=_model_name(embedder.name),
        )

    def get_config(self):
        return {
            **super().get_config(),
            "backbone": serialize_nested(self.backbone),
            "tokenizer": serialize_nested(self.tokenizer),
            "pooling": self.pooling,
            "layer_indices": list(self.layer_indices),
            "exclude_special_tokens": self.exclude_special_tokens,
            "normalize": self.normalize,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("backbone", "tokenizer")))

    # ------------------------------------------------------------------ inference
    tokenizer_hint = "SentenceTokenizer(...)"

    def packed_length(self, row):
        """`[CLS] row [SEP]`: the row and two special tokens."""
        return len(row) + 2

    def pack_batch(self, rows, length):
        tokenizer = self.tokenizer
        return pack_rows(rows, length, tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id)

    def encode(
        self,
        texts: Texts,
        batch_size: int = 64,
        normalize: bool = True,
        progress: bool | None = None,
        *,
        precision: str = "float32",
        backend: str | None = None,
        calibration_texts: Texts | None = None,
    ) -> np.ndarray:
        """Embeds raw texts; returns float32 NumPy [N, d] in input order.

        Smart batching: texts are tokenised, sorted by length, grouped into batches of
        `batch_size` and each batch is padded to the smallest bucket length that holds
        it (`length_buckets`), then the rows are put back in input order.

        Args:
            texts: a list/tuple/1-D array of `str` or UTF-8 `bytes`; a single `str`
                returns one vector [d] (as sentence-transformers does).
            batch_size: texts per forward pass.
            normalize: L2-normalise each vector (cosine similarity = dot product).
            progress: show a progress bar; None shows one from 2048 texts on.
            precision: "float32" (the default: the vectors of the reference model),
                "bfloat16" or "int8": the arithmetic of the matrix products.
            backend: "tensorflow" (float32 only: the graph `export` writes) or "openvino"
                (the same graph compiled by OpenVINO: `pip install "keras-sentemb[openvino]"`);
                None picks TensorFlow for float32 and OpenVINO otherwise. See
                `keras_sentemb.runtime` and docs/serving_speed.md for what each costs.
            calibration_texts: for precision="int8", the first time only: a few hundred
                sentences like yours, to calibrate the activation scales on.

        Texts longer than the tokenizer's `max_length` word pieces (special tokens
        included) are truncated: their tail is ignored. An empty or whitespace-only text
        gives the vector of `[CLS] [SEP]`, "the empty sentence", which is the same for
        all such texts. `encode([])` returns shape (0, d).

        Raises:
            TypeError: an element is not str/bytes (names its index and type).
            ValueError: an element is bytes that are not UTF-8 (names its index); an unknown
                `precision`/`backend`, a reduced precision on backend="tensorflow", or int8
                without calibration texts.
            ImportError: backend="openvino" without OpenVINO installed (says what to install).
        """
        return self.encode_texts(texts, batch_size, normalize, progress, backend, precision, calibration_texts)

    # ------------------------------------------------------------------ LoRA
    def enable_lora(self, rank: int, target_layer_names: Sequence[str] | None = None) -> None:
        """Freezes the backbone and adds rank-`rank` LoRA adapters to its attention query
        and value projections (keras-hub `Backbone.enable_lora`): W' = W + B·A with A, B
        of rank r trained, W frozen. Save only the adapters with `save_lora_weights`.
        """
        enable_backbone_lora(self.backbone, rank, target_layer_names)
        self.forget_traced_functions()

    def save_lora_weights(self, filepath: str | os.PathLike) -> None:
        """Writes the LoRA adapters (a `.lora.h5` file, small) of `enable_lora`."""
        self.backbone.save_lora_weights(filepath)

    def load_lora_weights(self, filepath: str | os.PathLike) -> None:
        """Adds the adapters saved by `save_lora_weights` to the (pinned) base weights."""
        self.backbone.load_lora_weights(filepath)
        self.forget_traced_functions()
