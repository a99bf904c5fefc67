"""MultiVectorEncoder: late interaction (ColBERT) — one unit vector a token, scored by MaxSim."""

from __future__ import annotations

import contextlib
import os
import string

import keras
import numpy as np
import tensorflow as tf
from tqdm.auto import tqdm

from keras_sentemb.chunking.chunking import Chunking
from keras_sentemb.data.length_buckets import length_buckets, plan_batches
from keras_sentemb.data.prompts import document_prompt, query_prompt, resolve_prompt
from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.families.token_layouts import FlatTokens, PaddedTokens
from keras_sentemb.layers.dense_modules import apply_dense_modules
from keras_sentemb.models.chunked_encoding import prompted_pieces, window_rows
from keras_sentemb.models.family_inference import FamilyInference
from keras_sentemb.models.weight_change_hooks import ForgetsTracedFunctions
from keras_sentemb.pretrained.checkpoint_tensors import CheckpointTensors
from keras_sentemb.pretrained.hugging_face_backbones import load_hugging_face_backbone
from keras_sentemb.pretrained.multi_vector_folder import read_multi_vector_folder
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.pretrained.tokenizer_json import load_tokenizer, tokenizer_vocabulary
from keras_sentemb.pretrained.transformer_layer_states import sentence_inputs_and_layer_states
from keras_sentemb.runtime import OpenVINORuntime, resolve_runtime
from keras_sentemb.runtime.batched_rows import PROGRESS_THRESHOLD, check_batch_size
from keras_sentemb.runtime.openvino_runtime import check_cpu_runs
from keras_sentemb.utils.graph_function import graph_function
from keras_sentemb.utils.maxsim import maxsim
from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested
from keras_sentemb.utils.types import Texts

TASKS = (None, "query", "document")
SIMILARITIES = ("maxsim", "meanmaxsim")


@keras.saving.register_keras_serializable(package="keras_sentemb")
class MultiVectorEncoder(ForgetsTracedFunctions, FamilyInference, keras.Model):
    """Maps token ids to one vector a token (ColBERT, Khattab & Zaharia 2020; sentence-transformers'
    `MultiVectorEncoder`, PyLate):

        e_t = normalize(Dense*(h_t)),   h = backbone(tokens)

    A query is its marker prompt ("[Q] "), its tokens and — with `query_expansion` — filler tokens ([MASK]) up to
    the expansion length, which the encoder attends to only with `attend` and which are scored either way; a
    document is its marker prompt and tokens, less the skip-list's (punctuation, for ColBERT). Scores are
    MaxSim (`maxsim`): Σ over the query's vectors of the best dot product with any of the document's.

    The Keras model maps `token_ids` and `padding_mask` (the attention mask: 0 where the encoder does not look)
    int32 [batch, tokens] to float32 [batch, tokens, dim]; `encode_query` / `encode_document` pack the texts
    (`pack_texts`), run it and keep each text's scored rows: a list of float32 [tokens, dim] arrays.

    Args:
        backbone: a family's backbone.
        tokenizer: the in-graph tokenizer (its `max_length` at least each side's limit), or None.
        dense_layers: sentence-transformers' Dense modules on the token states (`apply_dense_modules`).
        normalize: unit-length token vectors (sentence-transformers' token-level Normalize).
        query_expansion: {"strategy": "fixed" | "min", "attend": bool, "token_id": int, "length": int} or None.
        query_length / document_length: each side's token limit (None: the tokenizer's).
        scoring_mask: whether the model has sentence-transformers' MultiVectorMask (without it, filler tokens
            the encoder does not attend to are not scored and nothing is skipped).
        skiplist_ids / skiplist_tasks: token ids never scored on these sides ("document": any text not encoded
            as a query).
        keep_only_token_ids: on the document side, score only these ids (None: all).
        prompts / default_prompt_name: as `SentenceEncoder`'s ({"query": "[Q] ", "document": "[D] "}).
        similarity_fn_name: "maxsim" or "meanmaxsim".

    Example:
    (Not run as a doctest: it builds a model from a folder; tests/models/test_multi_vector_encoder.py runs the same.)
        encoder = MultiVectorEncoder.from_pretrained("tests/fixtures/multi_vector_folders/bert_colbert")
        queries = encoder.encode_query(["a cat on a mat"])        # [float32 [16, 24]]
        documents = encoder.encode_document(["The cat sat.", "Rain."])
        encoder.similarity(queries, documents)                      # float32 [1, 2]
    """

    def __init__(
        self,
        backbone,
        tokenizer=None,
        dense_layers=(),
        normalize: bool = True,
        query_expansion: dict | None = None,
        query_length: int | None = None,
        document_length: int | None = None,
        scoring_mask: bool = True,
        skiplist_ids=(),
        skiplist_tasks=("document",),
        keep_only_token_ids=None,
        prompts: dict | None = None,
        default_prompt_name: str | None = None,
        similarity_fn_name: str = "maxsim",
        **kwargs,
    ):
        inputs, states = sentence_inputs_and_layer_states(backbone)
        dense_layers = [dict(layer) for layer in dense_layers]
        head = token_head(backbone.hidden_dim, dense_layers, normalize)
        super().__init__(inputs=inputs, outputs=head(states[-1]), **kwargs)
        self.backbone = backbone
        self.tokenizer = tokenizer
        self.dense_layers = dense_layers
        self.normalize = bool(normalize)
        self.query_expansion = _expansion(query_expansion)
        self.query_length = _limit(query_length, "query_length")
        self.document_length = _limit(document_length, "document_length")
        if self.query_expansion and self.query_length and self.query_length < self.query_expansion["length"]:
            raise ValueError(
                f"query_length {self.query_length} is below the query expansion's length {self.query_expansion['length']}"
            )
        self.scoring_mask = bool(scoring_mask)
        self.skiplist_ids = sorted({int(i) for i in skiplist_ids})
        self.skiplist_tasks = [skiplist_tasks] if isinstance(skiplist_tasks, str) else list(skiplist_tasks)
        self.keep_only_token_ids = (
            None if keep_only_token_ids is None else sorted({int(i) for i in keep_only_token_ids})
        )
        self.prompts = dict(prompts or {})
        if default_prompt_name is not None and default_prompt_name not in self.prompts:
            raise ValueError(f"default_prompt_name {default_prompt_name!r} is not among the prompts")
        self.default_prompt_name = default_prompt_name
        if similarity_fn_name not in SIMILARITIES:
            raise ValueError(
                f"similarity_fn_name {similarity_fn_name!r}: a multi-vector model scores by maxsim or meanmaxsim"
            )
        self.similarity_fn_name = similarity_fn_name
        self.forget_traced_functions()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_pretrained(
        cls, name_or_path: str | os.PathLike, dtype: str | None = None, max_length: int | None = None
    ) -> MultiVectorEncoder:
        """A `MultiVectorEncoder` of a sentence-transformers MultiVectorEncoder folder or a PyLate ColBERT folder
        (`pretrained.multi_vector_folder`), of any family. Nothing is downloaded; a folder that is not one, a Dense
        that does not fit the backbone, or a marker / filler token missing from the vocabulary is a ValueError
        naming it. `max_length` lowers every side's token limit."""
        folder = name_or_path if os.path.isdir(name_or_path) else resolve_pretrained_dir(name_or_path)
        spec = read_multi_vector_folder(folder)
        backbone = load_hugging_face_backbone(spec.transformer_folder, dtype=dtype)
        positions = backbone.max_sequence_length
        model_limit = min(spec.max_length or positions, positions)
        vocabulary = tokenizer_vocabulary(spec.transformer_folder)
        ids = {token: index for index, token in enumerate(vocabulary) if token is not None}
        # A PyLate marker is a token of the vocabulary: the prefix itself (PyLate adds "[Q] ", its space included, to
        # the tokenizer) or its first word ("[unused0]" of BERT's vocabulary, which sentence-transformers registers as
        # special so that the tokenizer keeps it whole, `_register_prefix_tokens`: so is it here).
        to_register, missing = [], []
        for prefix in spec.marker_tokens:
            word = prefix.split(None, 1)[0] if prefix.strip() else prefix
            if prefix not in ids and word in ids:
                to_register.append(word)
            elif prefix not in ids:
                missing.append(word)
        if missing:
            raise ValueError(
                f"{spec.root}: the markers {missing} are not tokens of the vocabulary ({spec.transformer_folder})"
            )

        def capped(length):
            limit = min(length or model_limit, positions)
            return min(limit, max_length) if max_length else limit

        expansion_length = capped(spec.query_expansion.length) if spec.query_expansion is not None else 0
        query_length = capped(spec.query_length) if spec.query_length or max_length else None
        document_length = capped(spec.document_length) if spec.document_length or max_length else None
        limit = max(capped(None), query_length or 0, document_length or 0, expansion_length)
        tokenizer = load_tokenizer(
            spec.transformer_folder, limit, lowercase=spec.do_lower_case, special_tokens=to_register
        )
        expansion = None
        if spec.query_expansion is not None:
            token = spec.query_expansion.token or getattr(tokenizer, "mask_token", None)
            if token not in ids:
                raise ValueError(
                    f"{spec.root}: the query expansion token {token!r} is not a token of the vocabulary "
                    f"({spec.transformer_folder})"
                )
            if tokenizer.padding_side != "right":
                raise ValueError(
                    f"{spec.root}: query expansion with a tokenizer that pads on the left is not supported"
                )
            expansion = {
                "strategy": spec.query_expansion.strategy,
                "attend": spec.query_expansion.attend,
                "token_id": ids[token],
                "length": expansion_length,
            }
        width = backbone.hidden_dim
        dense_layers = []
        for module in spec.dense:
            if module.in_features != width:
                raise ValueError(
                    f"{module.folder}: the Dense module takes in_features={module.in_features}; the features before "
                    f"it are {width} wide (the backbone's hidden size, or the previous Dense's out_features)"
                )
            dense_layers.append(
                {
                    "units": module.out_features,
                    "activation": module.activation,
                    "use_bias": module.bias,
                    "use_residual": module.use_residual,
                }
            )
            width = module.out_features
        encoder = cls(
            backbone=backbone,
            tokenizer=tokenizer,
            dense_layers=dense_layers,
            normalize=spec.normalize,
            query_expansion=expansion,
            query_length=query_length if expansion is None or expansion["strategy"] == "min" else None,
            document_length=document_length,
            scoring_mask=spec.scoring_mask,
            skiplist_ids=[ids[word] for word in spec.skiplist_words if word in ids],
            skiplist_tasks=spec.skiplist_tasks,
            keep_only_token_ids=spec.keep_only_token_ids,
            prompts=spec.prompts,
            default_prompt_name=spec.default_prompt_name,
            similarity_fn_name=spec.similarity_fn_name,
            name="multi_vector_encoder_" + "".join(c if c.isalnum() else "_" for c in os.path.basename(spec.root)),
        )
        for index, module in enumerate(spec.dense):
            with CheckpointTensors(module.folder) as tensors:
                tensors.assign_linear(encoder.get_layer("token_head").get_layer(f"projection_{index}"), "linear")
                if module.use_residual and module.in_features != module.out_features:
                    tensors.assign_linear(
                        encoder.get_layer("token_head").get_layer(f"projection_{index}_residual_projection"), "residual"
                    )
        return encoder

    @classmethod
    def from_sentence_encoder(
        cls,
        encoder,
        dim: int = 128,
        query_length: int = 32,
        document_length: int | None = None,
        attend_to_expansion: bool = False,
        skiplist_words=tuple(string.punctuation),
        seed: int = 0,
    ) -> MultiVectorEncoder:
        """A ColBERT model to train from a dense `SentenceEncoder` (or a preset / folder `from_pretrained` takes):
        its backbone and tokenizer (shared, not copied), a new bias-free projection to `dim` on every token state
        (drawn as torch's `nn.Linear` draws it: U(±1/√hidden), from `seed`), unit-length token vectors, queries filled
        with the mask token to `query_length` (attended with `attend_to_expansion`: classic ColBERT does not),
        documents cut at `document_length` (None: the tokenizer's limit) with `skiplist_words` left out of the
        scoring — sentence-transformers' MultiVectorEncoder of a bare model with those settings. No markers (a
        prompt each side can be given as `prompts` after). The projection is new: train it (`MultiVectorTraining`)."""
        if not hasattr(encoder, "backbone"):
            from keras_sentemb.models.sentence_encoder import SentenceEncoder

            encoder = SentenceEncoder.from_pretrained(encoder)
        tokenizer = encoder.tokenizer
        vocabulary = list(getattr(tokenizer, "vocabulary", None) or [])
        ids = {token: index for index, token in enumerate(vocabulary)}
        mask = getattr(tokenizer, "mask_token", None)
        if mask not in ids:
            raise ValueError(f"{encoder.name}'s tokenizer has no mask token to expand queries with")
        model = cls(
            backbone=encoder.backbone,
            tokenizer=tokenizer,
            dense_layers=[{"units": dim, "activation": "linear", "use_bias": False}],
            normalize=True,
            query_expansion={
                "strategy": "fixed",
                "attend": attend_to_expansion,
                "token_id": ids[mask],
                "length": query_length,
            },
            document_length=document_length,
            skiplist_ids=[ids[word] for word in skiplist_words if word in ids],
            name="colbert_" + encoder.name,
        )
        projection = model.get_layer("token_head").get_layer("projection_0")
        bound = 1.0 / np.sqrt(projection.kernel.shape[0])
        rng = np.random.default_rng(seed)
        projection.kernel.assign(rng.uniform(-bound, bound, projection.kernel.shape).astype(np.float32))
        return model

    def get_config(self):
        return {
            **super().get_config(),
            "backbone": serialize_nested(self.backbone),
            "tokenizer": serialize_nested(self.tokenizer),
            "dense_layers": self.dense_layers,
            "normalize": self.normalize,
            "query_expansion": self.query_expansion,
            "query_length": self.query_length,
            "document_length": self.document_length,
            "scoring_mask": self.scoring_mask,
            "skiplist_ids": self.skiplist_ids,
            "skiplist_tasks": self.skiplist_tasks,
            "keep_only_token_ids": self.keep_only_token_ids,
            "prompts": self.prompts,
            "default_prompt_name": self.default_prompt_name,
            "similarity_fn_name": self.similarity_fn_name,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**deserialize_nested(config, ("backbone", "tokenizer")))

    # ------------------------------------------------------------------ packing
    @property
    def embedding_dim(self):
        """The width of one token vector."""
        return int(self.output.shape[-1])

    def token_limit(self, task):
        """The most tokens (special tokens included) a text of `task` keeps."""
        tokenizer = self._require_tokenizer()
        if task == "query" and self.query_expansion and self.query_expansion["strategy"] == "fixed":
            return self.query_expansion["length"]
        length = self.query_length if task == "query" else self.document_length if task == "document" else None
        return min(length or tokenizer.max_length, tokenizer.max_length)

    def pack_content(self, content_ids, task):
        """What the encoder and the scoring see for content ids (a `tf.RaggedTensor` [N, (ids)], no special tokens)
        of texts of `task` (None, "query", "document"), in TensorFlow ops (`encode` and the SavedModel run this one
        definition): `(token_ids int32, attention int32, scored bool)`, each [N, T] — `start ids end` cut at the
        side's limit, right-padded; with query expansion, the fillers up to its length (attended with `attend`);
        `scored`: the real tokens and the fillers, less the skip-list's ids on its sides, and on the document
        side only `keep_only_token_ids` when set (see the class docstring)."""
        tokenizer = self._require_tokenizer()
        special = len(tokenizer.start_ids) + len(tokenizer.end_ids)
        content_limit = self.token_limit(task) - special
        if content_limit < 0:
            raise ValueError(
                f"a {task or 'text'} limit of {self.token_limit(task)} tokens leaves no room for the special tokens"
            )
        packed = tokenizer.add_special_tokens(tf.cast(content_ids[:, :content_limit], tf.int32))
        lengths = tf.cast(packed.row_lengths(), tf.int32)
        expansion = self.query_expansion if task == "query" else None
        width = tf.reduce_max(tf.concat([lengths, [expansion["length"] if expansion else 0]], axis=0))
        token_ids = packed.to_tensor(
            default_value=tokenizer.pad_token_id, shape=tf.stack([packed.nrows(), tf.cast(width, tf.int64)])
        )
        positions = tf.range(width)[tf.newaxis, :]
        real = positions < lengths[:, tf.newaxis]
        attention, scored = real, real
        if expansion is not None:
            filler = ~real & (positions < expansion["length"])
            token_ids = tf.where(filler, expansion["token_id"], token_ids)
            if expansion["attend"]:
                attention = real | filler
            if self.scoring_mask or expansion["attend"]:
                scored = real | filler
        if self.scoring_mask and self.skiplist_ids and (task or "document") in self.skiplist_tasks:
            scored &= ~tf.reduce_any(token_ids[..., tf.newaxis] == tf.constant(self.skiplist_ids, tf.int32), axis=-1)
        if task != "query" and self.keep_only_token_ids is not None:
            scored &= tf.reduce_any(
                token_ids[..., tf.newaxis] == tf.constant(self.keep_only_token_ids, tf.int32), axis=-1
            )
        return token_ids, tf.cast(attention, tf.int32), scored

    def packed_length(self, row, task):
        """The tokens the content ids `row` take once packed for `task` (fillers included)."""
        length = (
            min(len(row), self.token_limit(task) - self.tokenizer.special_token_count)
            + self.tokenizer.special_token_count
        )
        expansion = self.query_expansion if task == "query" else None
        return max(length, expansion["length"]) if expansion else length

    def pack_texts(self, utf8_texts, task):
        """`pack_content` of UTF-8 texts, one `(token ids, attention, scored)` NumPy triple a text (its own length)."""
        rows = self._require_tokenizer().content_id_rows(utf8_texts) if utf8_texts else []
        if not rows:
            return []
        token_ids, attention, scored = (t.numpy() for t in self.pack_content(_ragged(rows), task))
        return [
            (token_ids[i, :n], attention[i, :n], scored[i, :n])
            for i, n in enumerate(self.packed_length(row, task) for row in rows)
        ]

    def _require_tokenizer(self):
        if self.tokenizer is None:
            raise ValueError(f"{self.name} has no tokenizer: pass tokenizer= to encode raw strings")
        return self.tokenizer

    # ------------------------------------------------------------------ inference
    def embed_fn(self):
        """The traced function (token_ids, padding_mask) int32 [batch, tokens] → float32 [batch, tokens, dim]."""
        if getattr(self, "_embed_function", None) is None:
            spec = tf.TensorSpec([None, None], tf.int32)

            def embed(token_ids, padding_mask):
                return tf.cast(self({"token_ids": token_ids, "padding_mask": padding_mask}, training=False), tf.float32)

            object.__setattr__(self, "_embed_function", graph_function(embed, input_signature=[spec, spec]))
        return self._embed_function

    def embed_unpadded(self, sequences, projections=None):
        """Token vectors float32 [Σℓ, dim] of `sequences`, a `tf.RaggedTensor` [N, (ℓ)] of token ids with their
        special tokens, every token attended (documents; queries without unattended fillers): the backbone on the
        real tokens only (its family's inference math on `token_layouts.FlatTokens`), then `token_head`. Equal to
        the padded model's rows to float32 round-off; needs `supports_unpadded()`. `projections`:
        `unpadded_projections()` kept as variables by the caller, or None."""
        family = self._require_family()
        states = family.states(self.backbone, FlatTokens(sequences), projections=projections or None)[-1]
        return tf.cast(self.get_layer("token_head")(states[tf.newaxis], training=False)[0], tf.float32)

    def openvino_graph_fn(self):
        """`embed_fn()`'s math for OpenVINO to convert: the backbone through its family's inference math
        (`families.registry.family_computing`, the padded layout: a position the attention mask leaves out is
        still computed, as a query's unattended fillers need), then `token_head`; `embed_fn()` for a backbone no
        family computes."""
        family = self.inference_family()
        if family is None:
            return self.embed_fn()
        if getattr(self, "_openvino_graph_function", None) is None:
            spec = tf.TensorSpec([None, None], tf.int32)
            head = self.get_layer("token_head")

            def embed(token_ids, padding_mask):
                states = family.states(self.backbone, PaddedTokens(token_ids, padding_mask))[-1]
                return tf.cast(head(states, training=False), tf.float32)

            object.__setattr__(self, "_openvino_graph_function", graph_function(embed, input_signature=[spec, spec]))
        return self._openvino_graph_function

    def inference_runtime(self, backend=None, precision="float32"):
        """The callable (token_ids, attention) NumPy int32 [batch, tokens] → float32 [batch, tokens, dim] that
        `encode` runs: "tensorflow" (float32, `embed_fn()`) or "openvino" at "float32" or "bfloat16" (the family's
        math fused, `openvino_graph_fn()`; bfloat16 needs a CPU with BF16: AVX-512 BF16 or AMX), built once each.
        int8 needs calibration this model does not take yet: refused."""
        backend, precision = resolve_runtime(backend, precision)
        if backend == "tensorflow":
            embed = self.embed_fn()
            return lambda token_ids, attention: embed(token_ids, attention).numpy()
        if backend != "openvino" or precision == "int8":
            raise ValueError(
                f"a MultiVectorEncoder runs on backend 'tensorflow' or 'openvino' at float32 or bfloat16, "
                f"not backend={backend!r} at {precision!r}"
            )
        runtimes = getattr(self, "_runtimes", None)
        if runtimes is None:
            runtimes = {}
            object.__setattr__(self, "_runtimes", runtimes)
        if precision not in runtimes:
            check_cpu_runs(precision)
            function = self.openvino_graph_fn().get_concrete_function()
            runtimes[precision] = OpenVINORuntime(function, precision, max_length=self._require_tokenizer().max_length)
        return runtimes[precision]

    def forget_traced_functions(self):
        """Drops the traced functions and the runtimes built from them (after a change of weights: `fit`,
        `load_weights`)."""
        object.__setattr__(self, "_embed_function", None)
        object.__setattr__(self, "_openvino_graph_function", None)
        object.__setattr__(self, "_runtimes", {})

    def encode(
        self,
        texts: Texts,
        batch_size: int = 32,
        progress: bool | None = None,
        *,
        task: str | None = None,
        prompt_name: str | None = None,
        prompt: str | None = None,
        backend: str | None = None,
        precision: str = "float32",
        chunking: Chunking | None = None,
    ) -> list[np.ndarray]:
        """Token vectors of raw texts: a list (input order) of float32 [scored tokens, dim] arrays; one `str` gives
        one array. `task` "query" / "document" sets that side's limit, filler and skip-list (`encode_query` /
        `encode_document` also set its marker prompt); None encodes as sentence-transformers' `encode` without a
        task (the model's limit, document-side skipping). Batches are sorted by length and padded to the
        smallest bucket that holds them. `backend` / `precision`: `inference_runtime`'s (TensorFlow float32 by
        default; OpenVINO float32 or bfloat16).

        `chunking` (documents; a `keras_sentemb.chunking.Chunking` of naive windows) keeps a document longer than
        the side's limit whole: its word pieces are cut into windows (`size`, `overlap`, `sentences`), each
        window encoded as a document of its own (the prompt in front), and the document's vectors are its windows'
        vectors in order, so MaxSim reads every part of it:

            score(q, d) = Σ_i max_{w ∈ windows(d)} max_{j ∈ w} q_i · d_j

        A document that fits in one window gets exactly its vectors without chunking. `pooling` (one vector
        from a document's chunks) and `late` chunking are for single-vector models and must stay at their
        defaults.

        Raises:
            TypeError / ValueError: texts that are not strings (index named), a `batch_size` that is not a positive
                int, an unknown task or prompt name, chunking of queries or with `pooling` / `late` set.
        """
        if task not in TASKS:
            raise ValueError(f"task {task!r} is not one of None, 'query', 'document'")
        batch_size = check_batch_size(batch_size)
        chunking = self._check_chunking(chunking, task)
        utf8_texts, single = validate_texts(texts)
        prompt = resolve_prompt(self.prompts, self.default_prompt_name, prompt_name, prompt)
        runtime = self.inference_runtime(backend, precision)
        if chunking is not None:
            vectors = self._encode_windows(utf8_texts, prompt, chunking, task, batch_size, progress, runtime)
            return vectors[0] if single else vectors
        if prompt:
            utf8_texts = [prompt.encode("utf-8") + text for text in utf8_texts]
        rows = self._require_tokenizer().content_id_rows(utf8_texts) if utf8_texts else []
        vectors = self._run(rows, task, batch_size, progress, runtime)
        return vectors[0] if single else vectors

    @staticmethod
    def _check_chunking(chunking, task):
        if chunking is None:
            return None
        chunking = Chunking.of(chunking)
        if task == "query":
            raise ValueError("queries are not chunked: a query keeps the side's limit (and its fillers)")
        if chunking.late or chunking.pooling != Chunking.pooling:
            raise ValueError(
                "a multi-vector document keeps its windows' token vectors (joined, in order): Chunking's pooling and "
                f"late chunking are for single-vector models, got pooling={chunking.pooling!r}, late={chunking.late}"
            )
        return chunking

    def _encode_windows(self, utf8_texts, prompt, chunking, task, batch_size, progress, runtime):
        """Each text's token vectors, its naive chunking windows' vectors joined in order (see `encode`)."""
        tokenizer = self._require_tokenizer()
        texts = [text.decode("utf-8") for text in utf8_texts]
        pieces = prompted_pieces(tokenizer, texts, prompt)
        limit = self.token_limit(task) - tokenizer.special_token_count
        rows, document, *_ = window_rows(texts, pieces, chunking, limit)
        windows = self._run(rows, task, batch_size, progress, runtime)
        joined = [[] for _ in texts]
        for index, vectors in zip(document, windows):
            joined[index].append(vectors)
        return [np.concatenate(parts, axis=0) for parts in joined]

    def encode_query(self, texts: Texts, prompt_name=None, prompt=None, **kwargs) -> list[np.ndarray]:
        """`encode` of search queries: the "query" prompt (the query marker) unless one is given."""
        if prompt_name is None and prompt is None:
            prompt = query_prompt(self.prompts)
        return self.encode(texts, task="query", prompt_name=prompt_name, prompt=prompt, **kwargs)

    def encode_document(self, texts: Texts, prompt_name=None, prompt=None, **kwargs) -> list[np.ndarray]:
        """`encode` of documents: the "document" prompt (the document marker) unless one is given."""
        if prompt_name is None and prompt is None:
            prompt = document_prompt(self.prompts)
        return self.encode(texts, task="document", prompt_name=prompt_name, prompt=prompt, **kwargs)

    def _run(self, rows, task, batch_size, progress, runtime):
        """Each content-id row's scored token vectors, batches of similar length (longest first)."""
        results = [None] * len(rows)
        if not rows:
            return results
        lengths = [self.packed_length(row, task) for row in rows]
        show = progress if progress is not None else len(rows) >= PROGRESS_THRESHOLD
        with tqdm(total=len(rows), unit="text", desc="encode") if show else contextlib.nullcontext() as bar:
            for batch in plan_batches(lengths, batch_size, length_buckets(max(lengths))):
                token_ids, attention, scored = self.pack_content(_ragged([rows[i] for i in batch.indices]), task)
                vectors = np.asarray(runtime(token_ids.numpy(), attention.numpy()))
                scored = scored.numpy()
                for slot, index in enumerate(batch.indices):
                    kept = np.ascontiguousarray(vectors[slot][scored[slot]], np.float32)
                    if not np.isfinite(kept).all():
                        raise ValueError(
                            f"{self.name}: the model's token vectors hold NaN or infinity for input #{index}; its "
                            "weights or config are broken, so nothing is returned"
                        )
                    results[index] = kept
                if bar is not None:
                    bar.update(len(batch.indices))
        return results

    def similarity(self, queries, documents) -> np.ndarray:
        """Scores float32 [queries, documents] by this model's `similarity_fn_name` (`maxsim`; MeanMaxSim divides
        by the query's vectors)."""
        single_query = isinstance(queries, np.ndarray) and queries.ndim == 2
        single_document = isinstance(documents, np.ndarray) and documents.ndim == 2
        return maxsim(
            [queries] if single_query else list(queries),
            [documents] if single_document else list(documents),
            length_normalize=self.similarity_fn_name == "meanmaxsim",
        )


def token_head(hidden_dim, dense_layers, normalize):
    """The Keras model [batch, tokens, hidden] → float32 [batch, tokens, dim] after the backbone: sentence-transformers'
    Dense modules on each token state (`apply_dense_modules`, layers `projection_i`), then unit length with
    `normalize`. One model, so the padded graph and the unpadded one (`embed_unpadded`) share its layers."""
    states = keras.Input(shape=(None, hidden_dim), name="token_states")
    vectors = apply_dense_modules(states, dense_layers, name="projection")
    if normalize:
        vectors = keras.layers.UnitNormalization(axis=-1, dtype="float32", name="l2_normalize")(vectors)
    else:
        vectors = keras.layers.Activation("linear", dtype="float32", name="token_vectors")(vectors)
    return keras.Model(states, vectors, name="token_head")


def _ragged(rows):
    """NumPy id rows as a `tf.RaggedTensor` [N, (ids)] int32."""
    lengths = [len(row) for row in rows]
    flat = np.concatenate([np.asarray(row, np.int32) for row in rows]) if sum(lengths) else np.zeros(0, np.int32)
    return tf.RaggedTensor.from_row_lengths(flat, np.asarray(lengths, np.int64))


def _limit(value, name):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int or None, got {value!r}")
    return int(value)


def _token_id(value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"query_expansion token_id must be an int ≥ 0, got {value!r}")
    return int(value)


def _expansion(value):
    if value is None:
        return None
    keys = {"strategy", "attend", "token_id", "length"}
    if not isinstance(value, dict) or set(value) != keys:
        raise ValueError(f"query_expansion must be a dict with keys {sorted(keys)}, got {value!r}")
    if value["strategy"] not in ("fixed", "min") or not isinstance(value["attend"], bool):
        raise ValueError(f"query_expansion: strategy 'fixed' or 'min' and attend a bool, got {value!r}")
    return {
        "strategy": value["strategy"],
        "attend": value["attend"],
        "token_id": _token_id(value["token_id"]),
        "length": _limit(value["length"], "query_expansion length"),
    }
