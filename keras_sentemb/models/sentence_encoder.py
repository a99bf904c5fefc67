"""SentenceEncoder: a keras-hub transformer backbone + SiamesePooler → sentence vectors."""

from __future__ import annotations

import os
from collections.abc import Sequence

import keras
import keras_hub
import numpy as np
import tensorflow as tf

from keras_sentemb.chunking.chunked_embeddings import ChunkedEmbeddings
from keras_sentemb.chunking.chunking import Chunking
from keras_sentemb.data.prompts import document_prompt, query_prompt, resolve_prompt
from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.families.registry import freeze_unused_layers, lora_layer_names
from keras_sentemb.families.token_layouts import FlatTokens, OneText, PaddedTokens, to_padded
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.layers.dense_modules import apply_dense_modules
from keras_sentemb.layers.leading_features import LeadingFeatures
from keras_sentemb.layers.siamese_pooler import SiamesePooler
from keras_sentemb.models.chunked_encoding import encode_chunked
from keras_sentemb.models.embedding_model import EmbeddingModel, check_batch_size
from keras_sentemb.models.family_inference import FamilyInference
from keras_sentemb.models.special_token_packing import SpecialTokenPacking
from keras_sentemb.pretrained.checkpoint_tensors import CheckpointTensors
from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from keras_sentemb.pretrained.transformer_layer_states import sentence_inputs_and_layer_states, transformer_layer_states
from keras_sentemb.runtime.batched_rows import finished_vectors
from keras_sentemb.tokenizers.sentence_tokenizer import SentenceTokenizer
from keras_sentemb.utils.argument_checks import truncate_dim_or_none
from keras_sentemb.utils.graph_function import graph_function
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.types import Texts


def _model_name(name_or_path):
    """ "minilm-l6" → "sentence_encoder_minilm_l6"; a folder path → its last component."""
    stem = os.path.basename(os.path.normpath(os.fspath(name_or_path)))
    return "sentence_encoder_" + "".join(c if c.isalnum() else "_" for c in stem)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SentenceEncoder(FamilyInference, SpecialTokenPacking, EmbeddingModel, keras.Model):
    """Maps token ids to one sentence embedding per row (SBERT's siamese tower).

    u = SiamesePooler(mode)(backbone(token_ids, padding_mask)), then the Dense layers of
    `dense_layers` (uᵢ₊₁ = act(uᵢ·W + b), sentence-transformers' Dense modules), u / ‖u‖₂ when
    `normalize=True`, and the first `truncate_dim` features when given (Matryoshka truncation).
    The inputs are a dict of int32 [batch, T] tensors `token_ids` (`[CLS] … [SEP] [PAD]…`, or the
    model's own `cls … sep`) and `padding_mask` (1 for real tokens); segment ids are all zero.
    Padding never changes an embedding.

    The backbone is any keras-hub style encoder whose blocks are named `transformer_layer_<i>`:
    BERT, DistilBERT, MPNet, RoBERTa, XLM-RoBERTa (`keras_sentemb.backbones`). `from_pretrained`
    builds the whole sentence-transformers pipeline of a folder (see `keras_sentemb.pretrained`).

    The attached `tokenizer` (`SentenceTokenizer` for WordPiece models, `ByteLevelBpeTokenizer` for
    RoBERTa, `UnigramTokenizer` for XLM-RoBERTa) turns raw strings into those inputs:
    in `encode()` (smart batching, NumPy out), in `tf.data` pipelines, and inside the
    SavedModel written by `keras_sentemb.export.export_saved_model` (strings in,
    embeddings out).

    Args:
        backbone: a keras-hub encoder backbone (`keras_hub.models.BertBackbone`).
        tokenizer: the tokenizer for `encode`/`export` (`SentenceTokenizer`, …), or None.
        pooling: a `SiamesePooler` mode: "mean" (default), "max", "cls", "mean_sqrt_len".
        layer_indices: which transformer layers to pool and concatenate ((-1,) = last).
        exclude_special_tokens: leave [CLS]/[SEP] out of mean/max pooling.
        normalize: L2-normalise the output inside the model.
        dense_layers: sentence-transformers Dense modules after pooling, dicts with `units`,
            `activation` (a Keras name), `use_bias` and `use_residual`.
        truncate_dim: keep the first this many features of the output (None: all).
        prompts: named prompts, {name: text prepended to every input} (`encode(prompt_name=…)`).
        default_prompt_name: the prompt `encode` uses when given none.

    Paper: Reimers & Gurevych 2019, Sentence-BERT.

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        encoder = SentenceEncoder.from_pretrained("minilm-l6")
        encoder.encode(["A man is eating food."]).shape
        # -> (1, 384)
    """

    def __init__(
        self,
        backbone,
        tokenizer=None,
        pooling: str = "mean",
        layer_indices: Sequence[int] = (-1,),
        exclude_special_tokens: bool = False,
        normalize: bool = False,
        dense_layers: Sequence[dict] = (),
        truncate_dim: int | None = None,
        prompts: dict | None = None,
        default_prompt_name: str | None = None,
        **kwargs,
    ):
        inputs, layer_states = sentence_inputs_and_layer_states(backbone)
        pooler = SiamesePooler(
            mode=pooling,
            layer_indices=layer_indices,
            exclude_special_tokens=exclude_special_tokens,
            dtype="float32",
            name="pooler",
        )
        embedding = pooler(layer_states, padding_mask=inputs["padding_mask"])
        dense_layers = [dict(layer) for layer in dense_layers]
        embedding = apply_dense_modules(embedding, dense_layers, name="dense")
        if normalize:
            embedding = keras.layers.UnitNormalization(axis=-1, dtype="float32", name="l2_normalize")(embedding)
        truncate_dim = truncate_dim_or_none(truncate_dim, embedding.shape[-1])
        if truncate_dim is not None:
            embedding = LeadingFeatures(truncate_dim, dtype="float32", name="truncate")(embedding)
        prompts = dict(prompts or {})
        if default_prompt_name is not None and default_prompt_name not in prompts:
            raise ValueError(f"default_prompt_name {default_prompt_name!r} is not among the prompts {sorted(prompts)}")
        super().__init__(
            inputs=inputs,
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
        self.dense_layers = dense_layers
        self.truncate_dim = truncate_dim
        self.prompts = prompts
        self.default_prompt_name = default_prompt_name
        self.forget_traced_functions()

    def freeze_unused_pooler(self):
        """Freezes the backbone's layers a sentence embedding never reads (`families.registry.freeze_unused_layers`:
        BERT's pooler tanh(W·h_CLS)), so that training neither updates them nor warns that they have no gradient."""
        freeze_unused_layers(self.backbone)

    def openvino_graph_fn(self):
        """`embed_fn()`'s math for OpenVINO to convert: over a backbone whose family's inference math computes
        it (`families.registry.family_computing`: every family, float32, unquantised), the block outputs of
        that math in a padded batch (norms and attention in the op shapes OpenVINO fuses, see
        docs/serving_speed.md) fed to this model's own pooler, Dense, normalisation and truncation layers;
        over any other backbone, `embed_fn()` itself."""
        embed = self.inference_graph()
        if embed is None:
            return self.embed_fn()
        if getattr(self, "_openvino_graph_function", None) is None:
            spec = tf.TensorSpec([None, None], tf.int32)
            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_openvino_graph_function", graph_function(embed, input_signature=[spec, spec]))
        return self._openvino_graph_function

    def inference_graph(self, token_table=None, max_positions=None):
        """(token_ids, padding_mask) → this model's output through its family's inference math
        (`inference_family()`): the math of `openvino_graph_fn()` as a plain function for other converters
        (LiteRT), with the token table replaced (`token_table`: a tensor, or quantised rows with
        `gather(ids)`) and the position table cut to `max_positions` rows where the family has one; None
        when no family computes the backbone. With last-token pooling over a family that can (Qwen3), the
        last block computes only each row's last real token."""
        family = self.inference_family()
        if family is None:
            return None
        last_token_only = family.last_token_states is not None and self.pools_only_the_last_token()
        pool_and_head = self._pool_and_head()

        def embed(token_ids, padding_mask):
            tokens = PaddedTokens(token_ids, padding_mask)
            if last_token_only:  # the last state holds each row's last real token alone
                states = family.last_token_states(self.backbone, tokens, token_table, max_positions)
                return pool_and_head(states, tf.ones_like(padding_mask[:, :1]))
            return pool_and_head(family.states(self.backbone, tokens, token_table, max_positions), padding_mask)

        return embed

    def pools_only_the_last_token(self):
        """Whether this model's output reads the last block at each row's last real token and nothing
        else: last-token pooling of the last layer alone, special tokens kept."""
        pooler = self.get_layer("pooler")
        last = len(self.backbone.transformer_layers) - 1
        return (
            tuple(pooler.modes) == ("last_token",)
            and not pooler.exclude_special_tokens
            and all(index in (-1, last) for index in pooler.layer_indices)
        )

    def _pool_and_head(self):
        """(layer states, padding mask) → this model's output: its own pooler and what follows it
        (Dense, residuals, normalisation, truncation), cut out of its graph once and shared by the
        OpenVINO and unpadded graphs."""
        if getattr(self, "_pool_and_head_function", None) is None:
            pooler = self.get_layer("pooler")
            head = self.head_fn()

            def pool_and_head(layer_states, padding_mask):
                return head(pooler(layer_states, padding_mask=padding_mask))

            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_pool_and_head_function", pool_and_head)
        return self._pool_and_head_function

    def head_fn(self):
        """pooled [N, p] → this model's output [N, d]: what follows the pooler (Dense, residuals,
        normalisation, truncation), cut out of its graph; the identity when nothing follows."""
        pooler = self.get_layer("pooler")
        if self.output is pooler.output:
            return lambda pooled: pooled
        if getattr(self, "_head_model", None) is None:
            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_head_model", keras.Model(pooler.output, self.output, name="head"))
        return self._head_model

    def token_states_fn(self):
        """A `tf.function` (token_ids, padding_mask) int32 [N, T] → float32 [N, T, p]: each token's
        states of the layers the pooler reads, concatenated as the pooler concatenates them (what
        late chunking averages per chunk before `head_fn`). Needs a single pooling mode."""
        pooler = self.get_layer("pooler")
        if not isinstance(pooler.mode, str) or pooler.mode == "last_token":
            raise ValueError(
                f"late chunking mean-pools token states; pooling {pooler.mode!r} has no per-token counterpart"
            )
        if getattr(self, "_token_states_function", None) is None:
            layer_states = transformer_layer_states(self.backbone)
            backbone_inputs = list(self.backbone.input) if isinstance(self.backbone.input, dict) else []
            spec = tf.TensorSpec([None, None], tf.int32)

            @graph_function(input_signature=[spec, spec])
            def token_states(token_ids, padding_mask):
                available = {
                    "token_ids": token_ids,
                    "segment_ids": tf.zeros_like(token_ids),
                    "padding_mask": padding_mask,
                }
                states = layer_states({name: available[name] for name in backbone_inputs})
                return tf.concat([tf.cast(states[i], tf.float32) for i in pooler.layer_indices], axis=-1)

            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_token_states_function", token_states)
        return self._token_states_function

    def embed_unpadded(self, sequences, projections=None):
        """This model's output [N, d] for `sequences`, a `tf.RaggedTensor` [N, (ℓ)] of token ids
        with their special tokens (`tokenizer.add_special_tokens(tokenizer.content_ids(texts))`),
        best sorted longest first: the backbone runs without padding (its family's inference math on
        `token_layouts.FlatTokens`), and the layers the pooler reads are laid out as a padded batch for it,
        so the vectors equal `self(tokenizer.pack(…))` to float32 round-off. For graphs (the SavedModel's
        serving function); needs `supports_unpadded()`. `projections`: `unpadded_projections()`, kept as
        variables by the caller, or None."""
        states = self._family_states(FlatTokens(sequences), projections)
        lengths = sequences.row_lengths()
        layer_states = self._pooled_layer_states(states, lambda flat: to_padded(flat, lengths))
        padding_mask = tf.sequence_mask(lengths, tf.shape(layer_states[0])[1], dtype=tf.int32)
        return self._pool_and_head()(layer_states, padding_mask)

    def embed_one_unpadded(self, token_ids, projections=None):
        """`embed_unpadded` of a single text, `token_ids` int [ℓ] with its special tokens: this
        model's output [1, d], without ragged bookkeeping (`token_layouts.OneText`). The serving graph's
        path for requests of one text; equal to `embed_unpadded` of that text."""
        states = self._family_states(OneText(token_ids), projections)
        layer_states = self._pooled_layer_states(states, lambda flat: flat[tf.newaxis])
        padding_mask = tf.ones([1, tf.size(token_ids)], tf.int32)
        return self._pool_and_head()(layer_states, padding_mask)

    def _family_states(self, tokens, projections):
        family = self._require_family()
        return family.states(self.backbone, tokens, projections=projections or None)

    def _pooled_layer_states(self, states, lay_out):
        """Every block's states for the pooler, from flat ones [Σℓ, hidden]: those it reads laid out as a
        batch by `lay_out` ([Σℓ, hidden] → [N, T, hidden]), once each. The pooler picks its layers by
        index: the ones it does not read stand in as any used one."""
        used = sorted({index % len(states) for index in self.get_layer("pooler").layer_indices})
        laid_out = {index: lay_out(states[index]) for index in used}
        return [laid_out.get(index, laid_out[used[0]]) for index in range(len(states))]

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str | os.PathLike = "minilm-l6",
        dtype: str | None = None,
        max_length: int | None = None,
        normalize: bool | None = None,
        truncate_dim: int | None = None,
    ) -> SentenceEncoder:
        """Builds an encoder from a preset name ("minilm-l6", "mpnet-base") or a Hugging Face /
        sentence-transformers folder.

        The weights come from installed packages (see `PRETRAINED_SOURCES`) or the folder; nothing
        is downloaded. The folder's `modules.json` decides the rest, as in sentence-transformers:
        the transformer (BERT, DistilBERT, MPNet, RoBERTa or XLM-RoBERTa;
        `keras_sentemb.pretrained.hugging_face_backbones`),
        its tokenizer (tokenizer.json, in-graph), Pooling (every mode and combination), Dense
        modules, Normalize, the token limit, `prompts` / `default_prompt_name` and `truncate_dim`.
        Unsupported modules or architectures raise `ValueError` naming them.
        `dtype="mixed_bfloat16"` computes in bfloat16 (faster on CPUs with AVX512-BF16/AMX; see
        benchmarks/) while the pooled vector stays float32. `truncate_dim` overrides the folder's.
        """
        backbone, tokenizer, spec = load_backbone_and_tokenizer(name_or_path, dtype=dtype, max_length=max_length)
        if not spec.include_prompt:
            raise ValueError(
                f"{spec.root}: Pooling with include_prompt=false (prompt tokens left out of the pooling) is not supported"
            )
        dense_layers = [
            {"units": d.out_features, "activation": d.activation, "use_bias": d.bias, "use_residual": d.use_residual}
            for d in spec.dense
        ]
        encoder = cls(
            backbone=backbone,
            tokenizer=tokenizer,
            pooling=spec.pooler_modes[0] if len(spec.pooler_modes) == 1 else spec.pooler_modes,
            normalize=spec.normalize if normalize is None else normalize,
            dense_layers=dense_layers,
            truncate_dim=truncate_dim if truncate_dim is not None else spec.truncate_dim,
            prompts=spec.prompts,
            default_prompt_name=spec.default_prompt_name,
            name=_model_name(name_or_path),
        )
        for index, module in enumerate(spec.dense):
            with CheckpointTensors(module.folder) as tensors:
                tensors.assign_linear(encoder.get_layer(f"dense_{index}"), "linear")
                if module.use_residual and module.in_features != module.out_features:
                    tensors.assign_linear(encoder.get_layer(f"dense_{index}_residual_projection"), "residual")
        return encoder

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

        The backbone computes what keras-hub's does: its BERT uses the tanh-approximated GELU,
        where Hugging Face's config says the exact one (`from_pretrained` computes that: the
        vectors differ by ~3e-4). The tokenizer is BERT's reference WordPiece (`SentenceTokenizer`)
        on the embedder's vocabulary, with the embedder's `lowercase` and `strip_accents` unless given. One
        difference stays: keras-hub lower-cases with Unicode case folding (NFKC_Casefold: "ß"
        becomes "ss"), the reference with `lower` ("ß" stays); the vectors are equal on every
        text where the two agree. For all-MiniLM-L6-v2 the reference also strips accents, which
        keras-hub's converter leaves off: pass `strip_accents=True` for sentence-transformers'
        vectors, or use `from_pretrained`.

        Supported: BERT-family embedders (a `BertBackbone` and a WordPiece `BertTokenizer`, e.g.
        `BertTextEmbedder`); others raise ValueError naming what they have.

        Example:
        (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
            embedder = keras_hub.models.TextEmbedder.from_preset(folder)
            SentenceEncoder.from_text_embedder(embedder).encode(["A cat."]).shape
            # -> (1, 384)
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
            "pooling": self.pooling if isinstance(self.pooling, str) else list(self.pooling),
            "layer_indices": list(self.layer_indices),
            "exclude_special_tokens": self.exclude_special_tokens,
            "normalize": self.normalize,
            "dense_layers": self.dense_layers,
            "truncate_dim": self.truncate_dim,
            "prompts": self.prompts,
            "default_prompt_name": self.default_prompt_name,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("backbone", "tokenizer")))

    # ------------------------------------------------------------------ inference
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
        prompt_name: str | None = None,
        prompt: str | None = None,
        truncate_dim: int | None = None,
        chunking: Chunking | None = None,
    ) -> np.ndarray | ChunkedEmbeddings:
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
            backend: "tensorflow" (float32 only: the graph `export` writes), "openvino"
                (the same graph compiled by OpenVINO: `pip install "./keras-sentemb[openvino]"`)
                or "litert" (converted to LiteRT, float32 or dynamic-range int8: no calibration,
                vectors independent of the batch; `pip install "./keras-sentemb[litert]"`);
                None picks TensorFlow for float32 and OpenVINO otherwise. See
                `keras_sentemb.runtime` and docs/serving_speed.md for what each costs.
            calibration_texts: for precision="int8" on OpenVINO, the first time only: a few
                hundred sentences like yours, to calibrate the activation scales on.
            prompt_name: a key of `prompts`: its text is prepended to every input (as
                sentence-transformers does; e.g. "query: "). None uses `default_prompt_name`.
            prompt: a prompt text to prepend instead (wins over `prompt_name`).
            truncate_dim: keep the first this many features (then normalise): the vector of a
                Matryoshka-trained model (`losses.MatryoshkaLoss`) at a smaller size. None keeps the
                model's width (its own `truncate_dim`, if it was built with one).
            chunking: a `keras_sentemb.chunking.Chunking`: long texts are cut into windows of word
                pieces and encoded whole (naive or late chunking, see `models.chunked_encoding`);
                the result is one vector a text pooled from its chunks ([N, d]), or, with
                `Chunking(pooling=None)`, a `ChunkedEmbeddings` (chunk vectors, their text's index
                and character spans).

        Without `chunking`, texts longer than the tokenizer's `max_length` word pieces (special
        tokens included) are truncated: their tail is ignored. An empty or whitespace-only text
        gives the vector of `[CLS] [SEP]`, "the empty sentence", which is the same for
        all such texts. `encode([])` returns shape (0, d).

        Raises:
            TypeError: an element is not str/bytes (names its index and type).
            ValueError: an element is bytes that are not UTF-8 (names its index); an unknown
                `precision`/`backend`, a reduced precision on backend="tensorflow", or int8
                without calibration texts.
            ImportError: backend="openvino" without OpenVINO installed, or backend="litert" without
                the LiteRT interpreter (says what to install).
        """
        prompt = self.resolve_prompt(prompt_name, prompt)
        options = (batch_size, normalize, progress, backend, precision, calibration_texts, truncate_dim)
        if chunking is not None:
            return self._encode_chunked(texts, prompt, chunking, *options)
        if not prompt:
            return self.encode_texts(texts, *options)
        utf8_texts, single = validate_texts(texts)
        prefix = prompt.encode("utf-8")
        embeddings = self.encode_texts([prefix + text for text in utf8_texts], *options)
        return embeddings[0] if single else embeddings

    def _encode_chunked(
        self,
        texts,
        prompt,
        chunking,
        batch_size,
        normalize,
        progress,
        backend,
        precision,
        calibration_texts,
        truncate_dim,
    ):
        chunking = Chunking.of(chunking)
        utf8_texts, single = validate_texts(texts)
        check_batch_size(batch_size)
        truncate_dim = truncate_dim_or_none(truncate_dim, self.embedding_dim)
        self._require_tokenizer()
        if chunking.late and (precision != "float32" or backend not in (None, "tensorflow")):
            raise ValueError(
                "late chunking reads token states of the float32 TensorFlow model: "
                f"precision={precision!r}, backend={backend!r} are not available with it"
            )
        runtime = None if chunking.late else self.inference_runtime(backend, precision, calibration_texts)
        documents = [text.decode("utf-8") for text in utf8_texts]
        chunks = encode_chunked(self, documents, prompt, chunking, batch_size, progress, runtime)
        chunks.vectors = finished_vectors(chunks.vectors, truncate_dim, normalize)
        if chunking.pooling is None:
            return chunks
        pooled = chunks.pooled(chunking.pooling, normalize=normalize)
        return pooled[0] if single else pooled

    def resolve_prompt(self, prompt_name: str | None = None, prompt: str | None = None) -> str | None:
        """The prompt text `encode` prepends: `prompt`, else `prompts[prompt_name]`, else the
        default prompt's, else None. ValueError for a name that is not among `prompts`."""
        return resolve_prompt(self.prompts, self.default_prompt_name, prompt_name, prompt)

    def encode_query(
        self, texts: Texts, prompt_name: str | None = None, prompt: str | None = None, **kwargs
    ) -> np.ndarray:
        """`encode` for search queries: the "query" prompt when none is given (no prompt, not the
        default one, when the model has no "query" prompt), as sentence-transformers' `encode_query`."""
        if prompt_name is None and prompt is None:
            prompt = query_prompt(self.prompts)
        return self.encode(texts, prompt_name=prompt_name, prompt=prompt, **kwargs)

    def encode_document(
        self, texts: Texts, prompt_name: str | None = None, prompt: str | None = None, **kwargs
    ) -> np.ndarray:
        """`encode` for documents: the first of the "document", "passage", "corpus" prompts the model
        has, when none is given (else no prompt), as sentence-transformers' `encode_document`."""
        if prompt_name is None and prompt is None:
            prompt = document_prompt(self.prompts)
        return self.encode(texts, prompt_name=prompt_name, prompt=prompt, **kwargs)

    # ------------------------------------------------------------------ LoRA
    def enable_lora(self, rank: int, target_layer_names: Sequence[str] | str | None = None) -> None:
        """Freezes the backbone and adds rank-`rank` LoRA adapters (keras-hub `Backbone.enable_lora`):
        W' = W + B·A with A, B of rank r trained, W frozen. `target_layer_names`: "attention" (None: the query
        and value projections; ModernBERT's fused "qkv"), "all" (every dense layer of a block), each as the
        backbone's family names them (`families.registry.lora_layer_names`), or layer names. Save only the
        adapters with `save_lora_weights`.
        """
        enable_backbone_lora(self.backbone, rank, lora_layer_names(self.backbone, target_layer_names))
        self.forget_traced_functions()

    def save_lora_weights(self, filepath: str | os.PathLike) -> None:
        """Writes the LoRA adapters (a `.lora.h5` file, small) of `enable_lora`."""
        self.backbone.save_lora_weights(filepath)

    def load_lora_weights(self, filepath: str | os.PathLike) -> None:
        """Adds the adapters saved by `save_lora_weights` to the (pinned) base weights."""
        self.backbone.load_lora_weights(filepath)
        self.forget_traced_functions()
