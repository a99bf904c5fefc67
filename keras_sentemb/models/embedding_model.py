"""EmbeddingModel: the one batched, length-bucketed inference loop of the package.

Every model that turns raw texts into numbers (the sentence encoders `SentenceEncoder`,
`InferLite`, `BiLSTMSRA`, and the pair scorer `CrossEncoder`) runs its inputs through
`EmbeddingModel.predict_rows`: rows of token ids are sorted by packed length, cut into
batches of `batch_size`, each batch is padded to the smallest bucket of the ladder
(`keras_sentemb.data.length_buckets`) that holds its longest row, run through one traced
function, and the outputs are put back in input order, with a progress bar on long work.
"""

import threading
import warnings

import tensorflow as tf

from keras_sentemb.data.length_buckets import length_buckets, plan_batches
from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.models.weight_change_hooks import ForgetsTracedFunctions
from keras_sentemb.runtime import OpenVINORuntime, resolve_runtime
from keras_sentemb.runtime.batched_rows import (  # noqa: F401  (PROGRESS_THRESHOLD: re-exported)
    PROGRESS_THRESHOLD,
    BatchedRows,
    check_batch_size,
    finished_vectors,
)
from keras_sentemb.runtime.litert_runtime import LiteRTRuntime
from keras_sentemb.runtime.openvino_runtime import (
    INT8_MAX_TOKENS,
    STATIC_MODELS_MAX_WEIGHT_BYTES,
    Int8WithFloat32Fallback,
    check_calibration,
    check_cpu_runs,
    converted_model,
    cpu_has_int8_dot_products,
    warm_up_lengths,
    weight_bytes,
)
from keras_sentemb.utils.argument_checks import truncate_dim_or_none
from keras_sentemb.utils.graph_function import graph_function

# One OpenVINO runtime is built at a time: eight threads making the first int8 call on a fresh
# encoder once calibrated it eight times (66 s instead of 9 s); the others now wait and reuse it.
_RUNTIME_BUILD_LOCK = threading.Lock()


def int8_calibration_extras(utf8_texts, joined=8, repeated=8, repeats=INT8_MAX_TOKENS - 2):
    """Texts added to int8 calibration: every `joined` given texts joined into one (long inputs),
    and the first word of `repeated` texts repeated `repeats` times (a run of one word, whose
    activations no sentence reaches). UTF-8 bytes in, UTF-8 bytes out.

    >>> int8_calibration_extras([b"a cat", b"the dog", b"rain"], joined=2, repeated=1, repeats=3)
    [b'a cat the dog', b'rain', b'a a a']
    """
    long_texts = [b" ".join(utf8_texts[i : i + joined]) for i in range(0, len(utf8_texts), joined)]
    words = [text.split()[0] for text in utf8_texts if text.split()][:repeated]
    return long_texts + [b" ".join([word] * repeats) for word in words]


REDUCED_FLOATS = ("bfloat16", "float16")  # compute dtypes OpenVINO cannot convert from a Keras graph


class EmbeddingModel(ForgetsTracedFunctions, BatchedRows):
    """Base (placed before `keras.Model` in the bases) of the models that map token inputs to
    one output row per text or pair.

    It is a mixin rather than a `keras.Model` subclass because Keras turns a subclass that is
    built functionally (`super().__init__(inputs=..., outputs=...)`) into a `Functional`
    model by rewriting its bases; a mixin keeps that working for functional and subclassed
    models alike.

    The protocol a subclass implements (each raises `NotImplementedError` here):

    - `self.tokenizer`: its tokenizer (`content_id_rows`, `max_length`), or None;
    - `packed_length(row)`: how many tokens a row of the tokenizer takes once packed;
    - `pack_batch(rows, length)`: NumPy int32 model inputs for `rows`, padded to `length`;
    - `model_inputs(*arrays)`: the dict the model is called with, from those arrays.

    What it provides: `embedding_dim`, `length_buckets`, `embed_fn` (the traced function),
    `inference_runtime` (that function on TensorFlow or OpenVINO, at a precision),
    `encode_texts` (what `encode` does) and `predict_rows` (the loop itself).
    """

    tokenizer_hint = "a tokenizer"
    input_names = ("token_ids", "padding_mask")

    # ------------------------------------------------------------------ protocol
    def packed_length(self, row):
        """The tokens `row` (content ids from the tokenizer) takes once packed."""
        raise NotImplementedError(f"{type(self).__name__} must implement packed_length(row)")

    def pack_batch(self, rows, length):
        """NumPy int32 arrays (one per `input_names`) [len(rows), length] for `rows`."""
        raise NotImplementedError(f"{type(self).__name__} must implement pack_batch(rows, length)")

    # ------------------------------------------------------------------ provided
    @property
    def embedding_dim(self):
        """The number of features of one output row."""
        return int(self.output.shape[-1])

    # The tokens an OpenVINO call may take (None: the runtime's own budget, `MAX_BATCH_TOKENS`).
    openvino_max_batch_tokens = None

    def _require_tokenizer(self):
        if self.tokenizer is None:
            raise ValueError(
                f"{self.name} has no tokenizer: pass tokenizer={self.tokenizer_hint} to encode or export raw strings."
            )
        return self.tokenizer

    @property
    def length_buckets(self):
        """The padded lengths `encode` uses (see `keras_sentemb.data.length_buckets`)."""
        return length_buckets(self._require_tokenizer().max_length)

    def forget_traced_functions(self):
        """Drops the traced `embed_fn` and the compiled runtimes built from it; called after a
        change of structure (LoRA adapters) or of weights (`fit`, `load_weights`). Call it
        yourself after changing weights another way (a custom training loop) before encoding
        with `backend="openvino"`, which holds a snapshot of the weights."""
        object.__setattr__(self, "_embed_function", None)
        object.__setattr__(self, "_openvino_graph_function", None)
        object.__setattr__(self, "_pool_and_head_function", None)
        object.__setattr__(self, "_head_model", None)
        object.__setattr__(self, "_token_states_function", None)
        object.__setattr__(self, "_runtimes", {})
        object.__setattr__(self, "_openvino_model", None)  # the conversion every precision's runtime compiled

    def embed_fn(self):
        """The `tf.function` (*int32 inputs of `input_names`) → float32 outputs that the loop
        calls. Its input signature is [None, None] per input, so it is traced exactly once,
        whatever the batch sizes and bucket lengths (see `experimental_get_tracing_count()`).
        """
        if getattr(self, "_embed_function", None) is None:
            names = self.input_names
            spec = tf.TensorSpec([None, None], tf.int32)

            def embed(*arrays):
                return tf.cast(self(dict(zip(names, arrays)), training=False), tf.float32)

            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_embed_function", graph_function(embed, input_signature=[spec] * len(names)))
        return self._embed_function

    def openvino_graph_fn(self):
        """The `tf.function` that `backend="openvino"` converts: by default `embed_fn()`; a
        model whose Keras graph OpenVINO cannot fuse well returns the same math in ops it
        does fuse (`SentenceEncoder`: its family's inference math, `keras_sentemb.families`).
        Same inputs and outputs as `embed_fn()`."""
        return self.embed_fn()

    def inference_runtime(self, backend=None, precision="float32", calibration_texts=None):
        """The callable `predict_rows` runs: NumPy int32 inputs → NumPy float32 outputs.

        `backend="tensorflow"` is `embed_fn()`; `backend="openvino"` is an `OpenVINORuntime`
        converted from `openvino_graph_fn()` (the same math) at `precision`, `backend="litert"` a
        `LiteRTRuntime` converted from it (float32 or dynamic-range int8, no calibration), each built
        once and cached (per backend and precision) until `forget_traced_functions`. int8 is calibrated
        on `calibration_texts` and the empty text (each packed alone, as `encode` pads it),
        needed the first time only (other precisions take none: the CLI refuses `--calibration` there).
        OpenVINO converts float32 models only: a model with a reduced-precision dtype policy
        (`dtype="mixed_bfloat16"`) is refused there, with `precision="bfloat16"` named instead.
        See `keras_sentemb.runtime.resolve_runtime` for the defaults and errors.
        """
        backend, precision = resolve_runtime(backend, precision)
        if backend == "tensorflow":
            embed = self.embed_fn()
            return lambda *arrays: embed(*arrays).numpy()
        runtimes = self._runtime_cache()
        key = (backend, precision)
        if key in runtimes:
            # its dtype policies were checked when it was built, not again on every (single-text) call
            return runtimes[key]
        if backend in ("openvino", "litert"):
            reduced = sorted(
                {layer.dtype_policy.name for layer in self._flatten_layers() if layer.compute_dtype in REDUCED_FLOATS}
            )
            if reduced:
                bfloat16 = " and pass precision='bfloat16' for OpenVINO's bfloat16" if backend == "openvino" else ""
                raise ValueError(
                    f"backend={backend!r} converts a float32 model; this one computes in {', '.join(reduced)} "
                    f"(its dtype policy): load it at float32{bfloat16}"
                )
        with _RUNTIME_BUILD_LOCK:
            if key not in runtimes:  # another thread may have built it meanwhile
                if backend == "litert":
                    runtimes[key] = LiteRTRuntime(self.openvino_graph_fn().get_concrete_function(), precision)
                else:
                    runtimes[key] = self._build_openvino_runtime(precision, calibration_texts)
            return runtimes[key]

    def _runtime_cache(self):
        """The runtimes built so far, by (backend, precision); emptied by `forget_traced_functions`."""
        runtimes = getattr(self, "_runtimes", None)
        if runtimes is None:
            runtimes = {}
            object.__setattr__(self, "_runtimes", runtimes)
        return runtimes

    def _build_openvino_runtime(self, precision, calibration_texts):
        """An `OpenVINORuntime` at `precision` (int8: calibrated, warmed up, behind its float32 fallback)."""
        check_cpu_runs(precision)  # a refusal before the model is traced and converted
        calibration = None
        if precision == "int8" and calibration_texts is not None:
            utf8_texts, single = validate_texts(calibration_texts)
            if single or not utf8_texts:
                raise ValueError("calibration_texts must be a non-empty list of texts, not one text")
            # The empty text ([CLS] [SEP]) is always calibrated on: its activations are far
            # from any sentence's, and its int8 vector drifts most without it; so are texts as
            # long as int8 runs (the given ones joined) and runs of one repeated word.
            rows = self.tokenize_to_rows([b"", *utf8_texts, *int8_calibration_extras(utf8_texts)])
            lengths = [self.packed_length(row) for row in rows]
            calibration = [
                self.pack_batch([rows[i] for i in batch.indices], batch.length)
                for batch in plan_batches(lengths, 1, self.length_buckets)
            ]

        def float32():  # the fallback, built on first use
            return self.inference_runtime("openvino", "float32")

        if precision == "int8" and not cpu_has_int8_dot_products():
            check_calibration(calibration)
            warnings.warn(
                "precision='int8' runs at float32 on this CPU: it has no int8 dot products (AVX-512 "
                "VNNI, AVX-VNNI or AMX), without which OpenVINO's int8 is slower than float32 and "
                "further from it; the int8 model is calibrated when something asks for it (export_openvino "
                "writes it) (backend='litert' runs int8 here: XNNPACK's int8 kernels need no VNNI)",
                stacklevel=4,
            )
            return Int8WithFloat32Fallback(
                lambda: self._converted_openvino_runtime(precision, calibration),
                float32,
                everywhere=True,
                deferred=True,
            )
        runtime = self._converted_openvino_runtime(precision, calibration)
        return Int8WithFloat32Fallback(runtime, float32) if precision == "int8" else runtime

    def _converted_openvino_runtime(self, precision, calibration):
        """`openvino_graph_fn()` converted (int8: and quantised on `calibration`), warmed up at reduced precision.

        A model of at most `STATIC_MODELS_MAX_WEIGHT_BYTES` of weights keeps its conversion for its other
        precisions (1-2 s of each build of a small model); a larger one converts again rather than hold a
        second copy of its weights beside an int8 runtime (the conversion is a small part of its build)."""
        function = self.openvino_graph_fn().get_concrete_function()
        converted = getattr(self, "_openvino_model", None)
        if converted is None:
            converted = converted_model(function)
            if weight_bytes(converted) <= STATIC_MODELS_MAX_WEIGHT_BYTES:
                object.__setattr__(self, "_openvino_model", converted)
        runtime = OpenVINORuntime(
            function, precision, calibration, max_length=self.length_buckets[-1], converted=converted
        )
        if self.openvino_max_batch_tokens is not None:  # a model whose outputs are wide (SparseEncoder's)
            runtime.max_batch_tokens = self.openvino_max_batch_tokens
        if precision != "float32":
            runtime.warm_up(warm_up_lengths(self.length_buckets))
        return runtime

    def tokenize_to_rows(self, utf8_texts):
        """Content-id rows (NumPy int32, truncated) for a list of UTF-8 byte strings."""
        return self._require_tokenizer().content_id_rows(utf8_texts)

    def encode_texts(
        self,
        texts,
        batch_size,
        normalize,
        progress,
        backend=None,
        precision="float32",
        calibration_texts=None,
        truncate_dim=None,
    ):
        """`encode`'s work: validate, tokenise, `predict_rows` on the runtime of
        `inference_runtime(backend, precision, calibration_texts)`, keep the first `truncate_dim`
        features (Matryoshka truncation; None keeps all), and L2-normalise with `normalize`
        (after truncating, as sentence-transformers does). A single `str` gives one vector [d];
        `[]` gives shape (0, d).

        Raises:
            TypeError / ValueError: a non-text element or invalid UTF-8 bytes (its index),
                or a `batch_size` that is not a positive int.
        """
        utf8_texts, single = validate_texts(texts)
        check_batch_size(batch_size)
        truncate_dim = truncate_dim_or_none(truncate_dim, self.embedding_dim)
        self._require_tokenizer()
        runtime = self.inference_runtime(backend, precision, calibration_texts)
        rows = self.tokenize_to_rows(utf8_texts) if utf8_texts else []
        embeddings = self.predict_rows(rows, batch_size, progress, runtime=runtime)
        embeddings = finished_vectors(embeddings, truncate_dim, normalize)
        return embeddings[0] if single else embeddings
