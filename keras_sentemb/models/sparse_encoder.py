"""SparseEncoder: learned sparse vectors (SPLADE), one weight a vocabulary entry, as `scipy.sparse` rows."""

from __future__ import annotations

import os

import keras
import numpy as np
import scipy.sparse
import tensorflow as tf

from keras_sentemb.data.prompts import document_prompt, query_prompt, resolve_prompt
from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.families.masked_lm_head import head_settings, load_masked_lm_head, masked_lm_head_layer
from keras_sentemb.families.registry import family_for_model_type, freeze_unused_layers
from keras_sentemb.families.token_layouts import FlatTokens, PaddedTokens
from keras_sentemb.layers.splade_pooling import SpladePooling, splade_weights, splade_weights_of_flat_tokens
from keras_sentemb.models.embedding_model import EmbeddingModel, check_batch_size
from keras_sentemb.models.family_inference import FamilyInference
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.models.special_token_packing import SpecialTokenPacking
from keras_sentemb.pretrained.hugging_face_backbones import open_hugging_face_checkpoint
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.pretrained.sparse_encoder_folder import StaticRoute, read_sparse_encoder_folder
from keras_sentemb.pretrained.tokenizer_json import load_tokenizer, tokenizer_vocabulary
from keras_sentemb.pretrained.transformer_layer_states import sentence_inputs_and_layer_states
from keras_sentemb.utils.graph_function import graph_function
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.sparse_rows import SparseRows, decoded_rows, keep_largest
from keras_sentemb.utils.types import Texts

BACKENDS = (None, "tensorflow", "openvino")
# OpenVINO runs a batch's logits [tokens × vocabulary] at once: 512 tokens of a 30,522-entry vocabulary are 62 MB.
OPENVINO_MAX_BATCH_TOKENS = 512


class StaticSparseEncoder:
    """The query side of inference-free SPLADE (sentence-transformers' `SparseStaticEmbedding`): no transformer,

        w(text)_t = weight[t] if token t occurs in the text, else 0

    over the tokenizer's content ids (no special tokens, at most `max_length` of them). A query costs one
    tokenisation and a lookup.

    Args:
        tokenizer: the in-graph tokenizer of the route's folder (its `content_id_rows` are the ids).
        weight: float32 [vocabulary], ≥ 0.
    """

    def __init__(self, tokenizer, weight):
        self.tokenizer = tokenizer
        self.weight = np.asarray(weight, dtype=np.float32)

    def encode_rows(self, utf8_texts, max_active_dims=None):
        """float32 CSR [texts, vocabulary]."""
        rows = self.tokenizer.content_id_rows(utf8_texts) if utf8_texts else []
        indptr, indices = [0], []
        for row in rows:
            ids = np.unique(np.asarray(row, dtype=np.int64))
            if ids.size and ids[-1] >= self.weight.shape[0]:
                raise ValueError(f"token id {int(ids[-1])} is outside the {self.weight.shape[0]} static weights")
            indices.append(ids)
            indptr.append(indptr[-1] + ids.size)
        ids = np.concatenate(indices) if indices else np.zeros(0, np.int64)
        vectors = scipy.sparse.csr_matrix(
            (self.weight[ids], ids, np.asarray(indptr)), shape=(len(rows), self.weight.shape[0]), dtype=np.float32
        )
        vectors.eliminate_zeros()
        if max_active_dims is not None:
            vectors = scipy.sparse.csr_matrix(keep_largest(vectors.toarray(), max_active_dims))
        return vectors


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SparseEncoder(FamilyInference, SpecialTokenPacking, EmbeddingModel, keras.Model):
    """Maps token ids to SPLADE's lexical weights, one a vocabulary entry (Formal et al. 2021, 2022):

        w_j = max_i log(1 + relu(logits_ij)),   logits = MLM-head(backbone(tokens))

    (or the sum over tokens i; `layers.SpladePooling`), the masked-LM head tied to the backbone's token
    embeddings (`families.masked_lm_head`). Most weights are 0: `encode` returns `scipy.sparse.csr_matrix`
    float32 [texts, vocabulary], and scores are dot products. An inference-free model (a sentence-transformers
    Router) encodes queries with `query_encoder` (a `StaticSparseEncoder`: tokenizer and one weight a token, no
    transformer) and documents with this model.

    The inputs are those of `SentenceEncoder` (`token_ids`, `padding_mask`); the output float32 [batch,
    vocabulary]. `from_pretrained` builds it from a sentence-transformers SparseEncoder folder of any family
    with a masked-LM head (BERT, DistilBERT, RoBERTa / XLM-R, MPNet, ModernBERT).

    Args:
        backbone: the family's backbone (its `token_embedding` is the head's decoder).
        head: the family's `MaskedLanguageModelHead` record fields ({"activation", "norm_epsilon", "dense_bias",
            "norm_bias", "decoder_bias"}).
        tokenizer: the in-graph tokenizer, or None.
        pooling / activation: SpladePooling's ("max" | "sum", "relu" | "log1p_relu").
        vocabulary: the token of each dimension (`decode`), or None.
        prompts / default_prompt_name: as `SentenceEncoder`'s.
        max_active_dims: keep at most this many weights a text (the largest), or None.
        static_query: an inference-free model's query side, {"tokenizer", "weight"} (the `StaticSparseEncoder`'s
            tokenizer and weights [vocabulary]), or None: queries are encoded by this model.

    Example:
    (Not run as a doctest: it builds a model from a folder; tests/models/test_sparse_encoder.py runs the same calls.)
        encoder = SparseEncoder.from_pretrained("tests/fixtures/sparse_folders/bert_splade_max")
        vectors = encoder.encode_document(["A cat sits on the mat."])   # CSR [1, vocabulary]
        encoder.decode(vectors, top_k=3)                                 # [[("cat", 2.1), …]]
    """

    def __init__(
        self,
        backbone,
        head: dict,
        tokenizer=None,
        pooling: str = "max",
        activation: str = "relu",
        vocabulary=None,
        prompts: dict | None = None,
        default_prompt_name: str | None = None,
        max_active_dims: int | None = None,
        static_query: dict | None = None,
        **kwargs,
    ):
        inputs, states = sentence_inputs_and_layer_states(backbone)
        states = states[-1]
        head = dict(head)
        head_layer = masked_lm_head_layer(backbone, **head)
        weights = SpladePooling(head_layer, pooling=pooling, activation=activation, name="splade_pooling")(
            states, padding_mask=inputs["padding_mask"]
        )
        super().__init__(inputs=inputs, outputs=weights, **kwargs)
        self.backbone = backbone
        freeze_unused_layers(backbone)  # BERT's pooler: SPLADE reads every token's state, never the pooled one
        self.head = head
        self.tokenizer = tokenizer
        self.pooling = pooling
        self.activation = activation
        self.vocabulary = list(vocabulary) if vocabulary is not None else None
        self.prompts = dict(prompts or {})
        if default_prompt_name is not None and default_prompt_name not in self.prompts:
            raise ValueError(f"default_prompt_name {default_prompt_name!r} is not among the prompts")
        self.default_prompt_name = default_prompt_name
        self.max_active_dims = _max_active_dims(max_active_dims)
        # The inference-free query side (a StaticSparseEncoder): its weights in the config (`static_query`), its
        # tokenizer tracked as `query_tokenizer` (its vocabulary saved as the tokenizer's assets).
        object.__setattr__(self, "query_encoder", None)
        if static_query is not None:
            tokenizer_config = static_query["tokenizer"]
            query_tokenizer = (
                keras.saving.deserialize_keras_object(tokenizer_config)
                if isinstance(tokenizer_config, dict)
                else tokenizer_config
            )
            self._set_query_encoder(
                StaticSparseEncoder(query_tokenizer, np.asarray(static_query["weight"], np.float32))
            )
        self.forget_traced_functions()

    openvino_max_batch_tokens = OPENVINO_MAX_BATCH_TOKENS

    def openvino_graph_fn(self):
        """`embed_fn()`'s math for OpenVINO to convert: the backbone through its family's inference math
        (`families.registry.family_computing`, the padded layout), the masked-LM head and `splade_weights` over the
        whole batch (the runtime's `max_batch_tokens` bounds the logits it holds); `embed_fn()` for a backbone no
        family computes."""
        family = self.inference_family()
        if family is None:
            return self.embed_fn()
        if getattr(self, "_openvino_graph_function", None) is None:
            pooling = self.get_layer("splade_pooling")
            spec = tf.TensorSpec([None, None], tf.int32)

            def embed(token_ids, padding_mask):
                states = family.states(self.backbone, PaddedTokens(token_ids, padding_mask))[-1]
                return splade_weights(pooling.head(states), padding_mask, pooling.pooling, pooling.activation)

            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_openvino_graph_function", graph_function(embed, input_signature=[spec, spec]))
        return self._openvino_graph_function

    def embed_unpadded(self, sequences, projections=None):
        """This model's weights float32 [N, vocabulary] for `sequences`, a `tf.RaggedTensor` [N, (ℓ)] of token ids
        with their special tokens: the backbone runs on the real tokens only (its family's inference math on
        `token_layouts.FlatTokens`, best sorted longest first) and the masked-LM head a chunk of tokens at a time
        (`splade_weights_of_flat_tokens`): neither padding nor [tokens, vocabulary] of the whole batch. Equal to
        `self(tokenizer.pack(…))` to float32 round-off. For graphs (the document side's SavedModel); needs
        `supports_unpadded()`. `projections`: `unpadded_projections()` kept as variables by the caller, or None."""
        family = self._require_family()
        tokens = FlatTokens(sequences)
        states = family.states(self.backbone, tokens, projections=projections or None)[-1]
        pooling = self.get_layer("splade_pooling")
        return splade_weights_of_flat_tokens(
            pooling.head,
            states,
            tf.cast(sequences.value_rowids(), tf.int32),
            tf.cast(sequences.nrows(), tf.int32),
            self.embedding_dim,
            pooling.pooling,
            pooling.activation,
        )

    @property
    def embedding_dim(self):
        """The vocabulary's size: the vectors' width."""
        return self.backbone.token_embedding.input_dim

    @classmethod
    def from_pretrained(
        cls, name_or_path: str | os.PathLike, dtype: str | None = None, max_length: int | None = None
    ) -> SparseEncoder:
        """A `SparseEncoder` of a sentence-transformers SparseEncoder folder (`pretrained.sparse_encoder_folder`):
        SPLADE (a masked-LM Transformer and SpladePooling) or inference-free SPLADE (a Router whose query route is
        SparseStaticEmbedding, set as `query_encoder`). Nothing is downloaded; anything else is a ValueError
        naming it."""
        # A Router folder keeps its transformer in a subfolder: a folder is read as it is, a name resolved.
        folder = name_or_path if os.path.isdir(name_or_path) else resolve_pretrained_dir(name_or_path)
        spec = read_sparse_encoder_folder(folder)
        route = spec.document
        with open_hugging_face_checkpoint(route.transformer_folder, dtype) as (backbone, tensors, config):
            family = family_for_model_type(config["model_type"])
            if family.masked_lm_head is None:
                raise ValueError(
                    f"{route.transformer_folder}: a {config['model_type']} masked-LM head is not supported (families "
                    "with one: BERT, DistilBERT, RoBERTa / XLM-R, MPNet, ModernBERT)"
                )
            record = family.masked_lm_head(config)
            limit = min(max_length or route.max_length or backbone.max_sequence_length, backbone.max_sequence_length)
            tokenizer = load_tokenizer(route.transformer_folder, limit, lowercase=route.do_lower_case)
            vocabulary = tokenizer_vocabulary(route.transformer_folder)
            if len(vocabulary) > backbone.token_embedding.input_dim:
                raise ValueError(
                    f"{route.transformer_folder}: the tokenizer has ids up to {len(vocabulary) - 1}, the masked-LM "
                    f"head {backbone.token_embedding.input_dim} vocabulary entries (config.json vocab_size)"
                )
            encoder = cls(
                backbone=backbone,
                head=head_settings(record),
                tokenizer=tokenizer,
                pooling=route.pooling,
                activation=route.activation,
                vocabulary=vocabulary,
                prompts=spec.prompts,
                default_prompt_name=spec.default_prompt_name,
                max_active_dims=spec.max_active_dims,
                name="sparse_encoder_" + "".join(c if c.isalnum() else "_" for c in os.path.basename(spec.root)),
            )
            load_masked_lm_head(encoder.get_layer("splade_pooling").head, record, tensors)
        if isinstance(spec.query, StaticRoute):
            encoder.set_static_query_encoder(spec.query)
        elif spec.query is not None and spec.query.transformer_folder != route.transformer_folder:
            raise ValueError(f"{spec.root}: a Router with two different SPLADE transformers is not supported")
        return encoder

    @classmethod
    def from_sentence_encoder(
        cls,
        encoder,
        pooling: str = "max",
        activation: str = "relu",
        head_activation: str = "gelu",
        norm_epsilon: float = 1e-12,
        initial_decoder_bias: float = 0.0,
    ) -> SparseEncoder:
        """A SPLADE model to train from a dense `SentenceEncoder` (or a preset / folder `from_pretrained` takes) whose
        checkpoint has no masked-LM head (all-MiniLM-L6-v2): the same backbone and tokenizer (shared, not copied),
        and a new head — the decoder tied to the backbone's word embeddings (logits = norm(act(h·W + b))·Eᵀ + β),
        the transform W initialised to the identity, b to 0, the norm to (1, 0) and every β to `initial_decoder_bias`.
        What is new is that head's transform, norm and β: nothing a sentence embedding was trained with, so the model
        needs training (`SpladeLoss`) before its vectors mean anything. With β = 0 about half of a token's logits are > 0
        (all-MiniLM-L6-v2: an untrained document is active on every entry of the vocabulary); a negative β is a
        threshold a logit must pass, so training starts sparse (all-MiniLM-L6-v2's logits have a standard deviation
        of ~1.1: β = −5 leaves ~900 of 30,522 active on a 256-token NFCorpus document, ~30 on a query)."""
        if isinstance(encoder, (str, os.PathLike)):
            encoder = SentenceEncoder.from_pretrained(encoder)
        backbone = encoder.backbone
        head = {
            "activation": head_activation,
            "norm_epsilon": norm_epsilon,
            "dense_bias": True,
            "norm_bias": True,
            "decoder_bias": True,
        }
        model = cls(
            backbone=backbone,
            head=head,
            tokenizer=encoder.tokenizer,
            pooling=pooling,
            activation=activation,
            vocabulary=getattr(encoder.tokenizer, "vocabulary", None),
            prompts=getattr(encoder, "prompts", None),
            name="sparse_" + encoder.name,
        )
        transform = model.get_layer("splade_pooling").head.dense
        transform.kernel.assign(keras.ops.eye(transform.kernel.shape[0], dtype=transform.kernel.dtype))
        bias = model.get_layer("splade_pooling").head.bias
        bias.assign(keras.ops.full(bias.shape, initial_decoder_bias, dtype=bias.dtype))
        return model

    def set_static_query_encoder(self, route):
        """Encodes queries with the `StaticRoute` `route` (inference-free SPLADE) from now on."""
        if route.weight.shape[0] != self.embedding_dim:
            raise ValueError(
                f"{route.folder}: {route.weight.shape[0]} static weights, the document side's vocabulary is "
                f"{self.embedding_dim}"
            )
        limit = route.max_length or self._require_tokenizer().max_length
        tokenizer = load_tokenizer(route.folder, limit)
        # sentence-transformers truncates a query to `limit` tokens without special tokens.
        tokenizer = load_tokenizer(route.folder, limit + tokenizer.special_token_count)
        self._set_query_encoder(StaticSparseEncoder(tokenizer, route.weight))

    def _set_query_encoder(self, query_encoder):
        if query_encoder.weight.shape != (self.embedding_dim,):
            raise ValueError(
                f"{query_encoder.weight.shape} static weights, the document side's vocabulary is {self.embedding_dim}"
            )
        object.__setattr__(self, "query_encoder", query_encoder)
        # Tracked by Keras, so that a .keras file saves its vocabulary (a tokenizer's assets) and loads them into it.
        self.query_tokenizer = query_encoder.tokenizer

    def get_config(self):
        return {
            **super().get_config(),
            "backbone": serialize_nested(self.backbone),
            "head": self.head,
            "tokenizer": serialize_nested(self.tokenizer),
            "pooling": self.pooling,
            "activation": self.activation,
            "vocabulary": self.vocabulary,
            "prompts": self.prompts,
            "default_prompt_name": self.default_prompt_name,
            "max_active_dims": self.max_active_dims,
            "static_query": None
            if self.query_encoder is None
            else {
                "tokenizer": serialize_nested(self.query_encoder.tokenizer),
                "weight": self.query_encoder.weight.tolist(),
            },
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("backbone", "tokenizer")))

    # ------------------------------------------------------------------ inference
    def encode(
        self,
        texts: Texts,
        batch_size: int = 32,
        progress: bool | None = None,
        *,
        prompt_name: str | None = None,
        prompt: str | None = None,
        max_active_dims: int | None = None,
        backend: str | None = None,
        precision: str = "float32",
        calibration_texts: Texts | None = None,
    ) -> scipy.sparse.csr_matrix:
        """SPLADE vectors of raw texts: float32 CSR [texts, vocabulary] in input order (a single `str`: [1,
        vocabulary]). Smart batching as `SentenceEncoder.encode`; each batch is made sparse at once (`SparseRows`).

        Args:
            texts: a list/tuple/1-D array of `str` or UTF-8 `bytes`, or one `str`.
            batch_size: texts a forward pass.
            progress: a progress bar; None shows one from 2048 texts on.
            prompt_name / prompt: as `SentenceEncoder.encode` (None: the default prompt, if any).
            max_active_dims: keep the largest this many weights a text (None: the model's own, else all).
            backend / precision / calibration_texts: as `SentenceEncoder.encode`: "tensorflow" (float32, the Keras
                model's graph; the default at float32) or "openvino" (float32, "bfloat16" or "int8": the family's
                math fused, at most `OPENVINO_MAX_BATCH_TOKENS` tokens a call).

        Raises:
            TypeError / ValueError: as `SentenceEncoder.encode`; an unknown backend or a `max_active_dims` that is
                not a positive int.
        """
        prompt = resolve_prompt(self.prompts, self.default_prompt_name, prompt_name, prompt)
        runtime = self._runtime(backend, precision, calibration_texts)
        return self._encode_splade(texts, prompt, batch_size, progress, max_active_dims, runtime)

    def encode_query(self, texts: Texts, prompt_name=None, prompt=None, **kwargs) -> scipy.sparse.csr_matrix:
        """`encode` for search queries: the "query" prompt when none is given; an inference-free model's
        `query_encoder` (no transformer) when it has one."""
        if self.query_encoder is None:
            if prompt_name is None and prompt is None:
                prompt = query_prompt(self.prompts)
            return self.encode(texts, prompt_name=prompt_name, prompt=prompt, **kwargs)
        max_active_dims = _max_active_dims(kwargs.pop("max_active_dims", None)) or self.max_active_dims
        check_batch_size(kwargs.pop("batch_size", 32))
        kwargs.pop("progress", None)
        backend = kwargs.pop("backend", None)
        kwargs.pop("precision", None), kwargs.pop("calibration_texts", None)  # no transformer to run at them
        if kwargs:
            raise TypeError(f"encode_query got unexpected keyword arguments {sorted(kwargs)}")
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r}: a SparseEncoder runs on {', '.join(map(str, BACKENDS[1:]))}")
        if prompt_name is None and prompt is None:
            prompt = query_prompt(self.prompts)
        else:
            prompt = resolve_prompt(self.prompts, None, prompt_name, prompt)
        utf8_texts, _ = validate_texts(texts)
        if prompt:
            utf8_texts = [prompt.encode("utf-8") + text for text in utf8_texts]
        return self.query_encoder.encode_rows(utf8_texts, max_active_dims)

    def encode_document(self, texts: Texts, prompt_name=None, prompt=None, **kwargs) -> scipy.sparse.csr_matrix:
        """`encode` for documents: the first of the "document", "passage", "corpus" prompts the model has when
        none is given."""
        if prompt_name is None and prompt is None:
            prompt = document_prompt(self.prompts)
        return self.encode(texts, prompt_name=prompt_name, prompt=prompt, **kwargs)

    def _runtime(self, backend, precision, calibration_texts):
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r}: a SparseEncoder runs on {', '.join(map(str, BACKENDS[1:]))}")
        return self.inference_runtime(backend, precision, calibration_texts)

    def _encode_splade(self, texts, prompt, batch_size, progress, max_active_dims, runtime):
        utf8_texts, _ = validate_texts(texts)
        check_batch_size(batch_size)
        max_active_dims = _max_active_dims(max_active_dims) or self.max_active_dims
        self._require_tokenizer()
        if prompt:
            utf8_texts = [prompt.encode("utf-8") + text for text in utf8_texts]
        rows = self.tokenize_to_rows(utf8_texts) if utf8_texts else []
        sink = SparseRows(len(rows), self.embedding_dim, max_active_dims)
        return self.predict_rows(rows, batch_size, progress, runtime=runtime, sink=sink)

    def decode(self, vectors, top_k: int | None = None):
        """The (token, weight) pairs of sparse vectors, largest first (at most `top_k` a row): a list for one row,
        a list of lists for a matrix of several."""
        if self.vocabulary is None:
            raise ValueError(f"{self.name} has no vocabulary to decode with")
        single = not scipy.sparse.issparse(vectors) and np.ndim(vectors) == 1
        matrix = scipy.sparse.csr_matrix(np.atleast_2d(vectors) if single else vectors, dtype=np.float32)
        rows = decoded_rows(matrix, self.vocabulary, top_k)
        return rows[0] if single else rows

    @staticmethod
    def similarity(queries, documents) -> np.ndarray:
        """Dot products [queries, documents] (float32) of two sets of sparse vectors."""
        scores = scipy.sparse.csr_matrix(queries) @ scipy.sparse.csr_matrix(documents).T
        return np.asarray(scores.toarray(), dtype=np.float32)


def _max_active_dims(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"max_active_dims must be a positive int, got {value!r}")
    return int(value)
