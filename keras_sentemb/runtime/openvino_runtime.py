"""OpenVINORuntime: a model's traced TensorFlow function, compiled by OpenVINO for the CPU.

OpenVINO converts the model's `openvino_graph_fn()` (`encode`'s `tf.function`, or the same
math in ops it fuses better; `ov.convert_model` reads TensorFlow concrete functions) into its
own graph, fuses it (attention, layer norm, GELU) and runs it on oneDNN kernels that use the
CPU's AVX-512 VNNI / BF16 and AMX units. Precisions:

- "float32": every op in float32 (OpenVINO's `INFERENCE_PRECISION_HINT` = f32); the same
  vectors as TensorFlow to ~1e-6.
- "bfloat16": matrix products in bfloat16 with float32 accumulation (hint bf16): roughly
  the rounding of bf16 inputs, |Δ| ≈ 1e-3 on unit vectors, STS unchanged to 0.01. Only on a
  CPU whose OpenVINO capabilities list BF16 (AVX-512 BF16 or AMX); elsewhere a ValueError.
- "int8": NNCF static post-training quantisation (`nncf.quantize`, transformer preset with
  SmoothQuant): int8 weights and activations for the matrix products, scales calibrated on
  the `calibration` inputs; the other ops run at the CPU's default (bf16 where available).

OpenVINO is optional: `pip install "./keras-sentemb[openvino]"` (openvino, and nncf for int8).

Example (not run as a doctest: it converts a real model, seconds):

    runtime = OpenVINORuntime(encoder.openvino_graph_fn().get_concrete_function(), "bfloat16")
    vectors = runtime(token_ids, padding_mask)  # NumPy float32 [batch, d]
"""

import threading

import numpy as np

from keras_sentemb.data.length_buckets import length_buckets
from keras_sentemb.runtime.runtime_choice import check_precision

_INSTALL = 'pip install "./keras-sentemb[openvino]"'

# Single texts run on models compiled for a fixed shape [1, L], L the first of these that
# holds the text: OpenVINO's dynamic-shape model re-prepares its kernels whenever the shape
# changes (about 2.5 ms on 2 cores, more than the model itself for a short sentence), and a
# server's single requests change length every call. The static models are compiled with the
# runtime (~0.25 s and ~40 MB each on 2 cores), so no request pays for a compile.
STATIC_LENGTHS = (16, 32, 48, 64)
# The most tokens (texts × padded length) one call of a dynamic-shape model takes; `encode` splits a
# longer batch (its vectors do not change: the same padded length at any batch size). OpenVINO keeps
# each layer's attention scores of a dynamic-shape call: Qwen3-Embedding-0.6B on 8 texts of 512 tokens
# took 5 GB more than on 8 sentences, and 32 such texts ran a 24 GB machine out of memory.
MAX_BATCH_TOKENS = 4096
# Each static model holds its own copy of the weights: they are compiled only for models of at most
# this many bytes of weights (all-mpnet-base-v2: 0.44 GB at float32). Qwen3-Embedding-0.6B's four
# copies (2.4 GB each) ran a 24 GB machine out of memory, and at its size a request's time is its
# arithmetic, not the shape preparation the static models save.
STATIC_MODELS_MAX_WEIGHT_BYTES = 512 * 2**20


def _import_openvino():
    try:
        import openvino
    except ImportError as error:
        raise ImportError(f"backend='openvino' needs OpenVINO, which is not installed: {_INSTALL}") from error
    return openvino


def openvino_cpu_capabilities():
    """OpenVINO's CPU capabilities (e.g. ['BF16', 'FP32', 'INT8', ...]) and its default
    inference precision on this machine, as `(capabilities, default_precision)`."""
    openvino = _import_openvino()
    core = openvino.Core()
    return (
        list(core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")),
        str(core.get_property("CPU", "INFERENCE_PRECISION_HINT")),
    )


def check_cpu_runs(precision):
    """OpenVINO's CPU capabilities, after a ValueError if this CPU cannot run `precision`
    (bfloat16 needs BF16 among them: AVX-512 BF16 or AMX). Called before a model is traced and
    converted, so that a refusal costs a capability query, not a conversion (a tiny model's
    was 5-13 s on 2 cores)."""
    check_precision(precision)
    capabilities = openvino_cpu_capabilities()[0]
    if precision == "bfloat16" and "BF16" not in capabilities:
        raise ValueError(
            f"precision='bfloat16' needs a CPU with bfloat16 support (AVX-512 BF16 or AMX); "
            f"OpenVINO reports {capabilities}. Use precision='float32' or 'int8'."
        )
    return capabilities


def check_calibration(calibration):
    """ValueError unless `calibration` (int8's calibration inputs) holds at least one input."""
    if not calibration:
        raise ValueError(
            "precision='int8' needs calibration inputs: pass calibration_texts= (a few hundred "
            "sentences like the ones you will encode) on the first int8 call."
        )


def weight_bytes(model):
    """The bytes of an OpenVINO model's constants (its weights, as converted or quantised)."""
    return sum(op.get_byte_size() for op in model.get_ordered_ops() if op.get_type_name() == "Constant")


def declared_outputs_only(openvino, model, concrete_function):
    """`model` (converted from `concrete_function`) with only the function's own outputs.

    OpenVINO's TensorFlow frontend also makes an output of every tensor of the graph that nothing
    consumes (a block's states that the pooler does not read, shapes Keras computes in passing), and
    keeps them in the given order: the model's first output need not be the function's, and the
    compiled model computes and returns them all. Outputs are matched by tensor name; where one is not
    found, the model is returned as converted."""
    kept = []
    for tensor in concrete_function.outputs:
        matches = [output for output in model.outputs if tensor.name in output.get_names()]
        if not matches:
            return model
        kept.append(matches[0])
    if len(kept) == len(model.outputs):
        return model
    return openvino.Model(kept, model.get_parameters(), model.get_friendly_name())


def converted_model(concrete_function):
    """`concrete_function` converted to an OpenVINO model (`ov.convert_model`) with its declared outputs
    only: what every precision's runtime compiles (int8 a quantised copy of it)."""
    openvino = _import_openvino()
    return declared_outputs_only(openvino, openvino.convert_model(concrete_function), concrete_function)


class OpenVINORuntime:
    """Calls like the traced function it was built from, on NumPy arrays: returns float32
    NumPy [batch, d].

    Args:
        concrete_function: a TensorFlow concrete function of int32 [None, None] inputs and
            one float32 [None, d] output (`EmbeddingModel.openvino_graph_fn().get_concrete_function()`).
        precision: "float32", "bfloat16" or "int8" (see the module docstring).
        calibration: for "int8", a list of input tuples (NumPy arrays, one text each) to
            calibrate the activation scales on; ignored otherwise.
        max_length: the longest input the model takes (its tokenizer's `max_length`): no
            static shape beyond it is compiled.
        converted: `converted_model(concrete_function)` where the caller already has it (the
            runtimes of one model at several precisions share one conversion); read, never changed.

    It holds a snapshot of the weights at conversion: after training further, build a new
    one (`EmbeddingModel` drops its runtimes on `fit`, `load_weights` and LoRA changes).
    Calls are serialised by a lock (one OpenVINO infer request per compiled shape), so a
    runtime is safe to share between threads.

    Batches run on one dynamic-shape model; at float32, single texts up to
    `static_lengths[-1]` tokens run on static [1, L] models (`padded_length` tells the caller to
    pad them to L; the padding is masked, so the output is the same), for models of at most
    `STATIC_MODELS_MAX_WEIGHT_BYTES` of weights (larger ones: none). At bfloat16 and int8 every
    text runs on the dynamic model padded to its own bucket (`padding_buckets`), so that its
    vector is the same alone or in any batch.
    """

    def __init__(self, concrete_function, precision, calibration=None, max_length=None, converted=None):
        openvino = _import_openvino()
        capabilities = check_cpu_runs(precision)
        if precision == "int8":
            check_calibration(calibration)
        model = converted_model(concrete_function) if converted is None else converted
        if precision == "int8":
            model = _quantize_int8(model.clone(), calibration)  # the float model stays as it was, for others
        self._compile(openvino, model, precision, max_length, capabilities)

    @classmethod
    def load(cls, xml_path, precision, max_length=None):
        """The runtime of a model written by `save` (an OpenVINO IR: `.xml` + `.bin`), run at
        `precision` (an int8 model is already quantised: give "int8"); at a reduced precision warmed up
        at the single-text lengths of `max_length`'s bucket ladder, as a runtime built from a model is."""
        openvino = _import_openvino()
        runtime = cls.__new__(cls)
        runtime._compile(openvino, openvino.Core().read_model(xml_path), precision, max_length)
        if precision != "float32" and max_length:
            runtime.warm_up(warm_up_lengths(length_buckets(max_length)))
        return runtime

    def save(self, xml_path):
        """Writes the converted (for int8: quantised) model as an OpenVINO IR, `xml_path` and
        the `.bin` beside it, weights uncompressed (the precision is chosen at load)."""
        _import_openvino().save_model(self._model, xml_path, compress_to_fp16=False)

    def _compile(self, openvino, model, precision, max_length, capabilities=None):
        """Compiles `model` at `precision`; `capabilities`: `check_cpu_runs(precision)`'s answer, when the
        caller has it (else it is asked here)."""
        capabilities = check_cpu_runs(precision) if capabilities is None else capabilities
        core = openvino.Core()
        config = {"PERFORMANCE_HINT": "LATENCY"}
        if precision == "float32":
            config["INFERENCE_PRECISION_HINT"] = "f32"
        elif precision == "bfloat16":
            config["INFERENCE_PRECISION_HINT"] = "bf16"
        self.precision = precision
        self.capabilities = capabilities
        self._openvino = openvino
        self._core, self._model, self._config = core, model, config
        self.compiled = core.compile_model(model, "CPU", config)
        self.inference_precision = self.compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
        self._requests = {None: self.compiled.create_infer_request()}
        # the static shapes the model can take, compiled now, not on a server's first short request;
        # none at reduced precision, where they would give other vectors than batches (padding_buckets)
        small = weight_bytes(model) <= STATIC_MODELS_MAX_WEIGHT_BYTES
        self.static_lengths = tuple(
            n for n in STATIC_LENGTHS if precision == "float32" and small and (max_length is None or n <= max_length)
        )
        for length in self.static_lengths:
            self._request_for((1, length))
        self._lock = threading.Lock()

    max_batch_tokens = MAX_BATCH_TOKENS

    def padding_buckets(self, ladder):
        """At bfloat16 and int8, the lengths every text is padded to, alone or in any batch: the
        bucket `ladder` itself, each text to its own rung (`plan_batches(one_length_per_batch=True)`);
        () at float32 (batches padded to their longest text, single texts to a static length).

        A reduced-precision vector moves with the shape it is computed at: all-MiniLM-L6-v2 at
        bfloat16 on 64 STS-B sentences, max |Δ| 1.0e-3 between a static [1, L] model and the
        dynamic one at the same L, 6.5e-4 between a text's own length and a batch's 64 — and 0
        between batches of any size at the same padded length on the dynamic model. So at reduced
        precision every text runs on the dynamic model at its own rung: its vector does not depend
        on what it is batched with."""
        return () if self.precision == "float32" else tuple(ladder)

    def padded_length(self, batch_size, length):
        """The length to pad a batch of `batch_size` texts of (bucket) `length` to: the static
        length for a single text that fits one, else `length` itself."""
        if batch_size == 1:
            for static in self.static_lengths:
                if length <= static:
                    return static
        return length

    def warm_up(self, lengths):
        """Runs one text of each of `lengths` tokens through the model once (at bfloat16 and int8,
        where single texts run on the dynamic model at their own rung). OpenVINO prepares a
        dynamic model's kernels for each new shape on its first call (all-MiniLM-L6-v2 int8, AMD
        EPYC 2 cores: `encode` of one STS-B sentence took 4.8 ms at a length's first call, 1.7 ms
        after, medians); warmed when the runtime is built, a server's first request of each length
        does not pay for it."""
        for length in lengths:
            self(*[np.ones((1, length), np.int32) for _ in self.compiled.inputs])

    def _request_for(self, shape):
        key = shape[1] if shape[0] == 1 and shape[1] in getattr(self, "static_lengths", ()) else None
        if key not in self._requests:
            model = self._model.clone()
            model.reshape({port: [1, key] for port in model.inputs})
            self._requests[key] = self._core.compile_model(model, "CPU", self._config).create_infer_request()
        return self._requests[key]

    def __call__(self, *arrays):
        arrays = [np.ascontiguousarray(a, np.int32) for a in arrays]
        with self._lock:
            request = self._request_for(arrays[0].shape)
            # Tensors set directly over the NumPy memory: `infer(inputs)` inspects its inputs
            # in Python first, which costs a twentieth of a short sentence's whole model.
            for port, array in enumerate(arrays):
                request.set_input_tensor(port, self._openvino.Tensor(array, shared_memory=True))
            request.infer()
            return np.array(request.get_output_tensor(0).data, dtype=np.float32)

    def __repr__(self):
        return f"OpenVINORuntime(precision={self.precision!r}, compute={self.inference_precision})"


# int8's static activation scales clip what long texts and runs of one repeated word produce
# (all-MiniLM-L6-v2 calibrated on 256 STS-B sentences: cosine to float32 0.93-0.96 on natural
# texts of 200-256 tokens, 0.73-0.91 on a word repeated 120-300 times, 0.86-0.97 on 40-126
# repetitions, against >= 0.99 on sentences). Such batches run at float32 (Int8WithFloat32Fallback).
INT8_MAX_TOKENS = 128


def warm_up_lengths(ladder):
    """The single-text shapes a reduced-precision runtime runs once when built (`OpenVINORuntime.warm_up`): the
    rungs of `ladder` up to int8's limit, where one request's time is mostly not arithmetic.

    >>> warm_up_lengths((8, 64, 128, 256))
    [8, 64, 128]
    """
    return [length for length in ladder if length <= INT8_MAX_TOKENS]


REPEATED_TOKEN_SHARE = 0.25  # natural text: the commonest word piece is well under this share
REPEATED_TOKEN_MIN = 16


def repeated_token_rows(token_ids, padding_mask):
    """Per row, whether one token makes up at least REPEATED_TOKEN_SHARE of its tokens, at least
    REPEATED_TOKEN_MIN times: a run of one repeated word, which int8 cannot represent.

    >>> ids = np.array([[101, 7, 7, 7, 102], [101, 7, 8, 9, 102]])
    >>> repeated_token_rows(np.repeat(ids, 8, axis=1), np.ones((2, 40))).tolist()
    [True, False]
    """
    mask = np.asarray(padding_mask).astype(bool)
    positions = np.arange(mask.shape[1])
    ids = np.where(mask, np.asarray(token_ids, np.int64), -1 - positions)  # padding: all distinct
    ordered = np.sort(ids, axis=1)
    same = ordered[:, 1:] == ordered[:, :-1]
    count = np.cumsum(same, axis=1)
    run = count - np.maximum.accumulate(np.where(same, 0, count), axis=1)  # length of each run of equals
    longest = run.max(axis=1, initial=0) + 1
    return longest >= np.maximum(REPEATED_TOKEN_MIN, REPEATED_TOKEN_SHARE * mask.sum(axis=1))


def cpu_has_int8_dot_products(cpuinfo="/proc/cpuinfo"):
    """Whether the CPU multiplies int8 in hardware (AVX-512 VNNI, AVX-VNNI or AMX), which
    OpenVINO's int8 kernels need to beat float32: on an AVX2-only CPU they emulate it, slower
    than float32 (279 vs 442 sentences/s, all-MiniLM-L6-v2, AMD EPYC) and further from it
    (cosine 0.81 on some STS-B sentences). True where /proc/cpuinfo cannot be read."""
    try:
        with open(cpuinfo, encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), None)
    except OSError:
        return True
    return flags is None or bool({"avx512_vnni", "avx_vnni", "amx_int8"} & set(flags))


class Int8WithFloat32Fallback:
    """The int8 runtime where int8 keeps the vectors, `fallback()` (float32, built on first use)
    for a batch padded past `max_tokens` or holding a run of one repeated word
    (`repeated_token_rows`), and for every batch when `everywhere` (a CPU without int8 dot
    products, `cpu_has_int8_dot_products`). The int8 model stays what `save` writes. Same call
    and `padded_length` as `OpenVINORuntime`.

    `int8` is the int8 runtime, or with `deferred=True` a function that builds it: where every
    batch runs at float32 anyway, the calibration and quantisation (NNCF: 17 s for
    all-MiniLM-L6-v2 on 2 cores, ~6 s for a tiny model) wait until something asks for the int8
    model itself (`save`, `compiled`, `int8`), and are done once."""

    def __init__(self, int8, fallback, max_tokens=INT8_MAX_TOKENS, everywhere=False, deferred=False):
        self._fallback, self.max_tokens, self.everywhere = fallback, max_tokens, everywhere
        self._int8, self._build_int8 = (None, int8) if deferred else (int8, None)
        self._build_lock = threading.Lock()
        self.precision = "int8"

    @property
    def int8(self):
        """The int8 runtime (built now if it was deferred)."""
        if self._int8 is None:
            with self._build_lock:
                if self._int8 is None:
                    self._int8 = self._build_int8()
        return self._int8

    def _running(self):
        """The runtime that runs a short batch: the float32 fallback where every batch runs at float32."""
        return self._fallback() if self.everywhere else self.int8

    @property
    def inference_precision(self):
        """OpenVINO's compute precision of what runs: the float32 fallback's where it runs every batch."""
        return self._running().inference_precision

    @property
    def max_batch_tokens(self):
        return self._running().max_batch_tokens

    def padded_length(self, batch_size, length):
        return self._running().padded_length(batch_size, length)

    def padding_buckets(self, ladder):
        """The int8 runtime's (each text at its own rung); where every batch runs at float32
        (`everywhere`), the float32 runtime's: batches at their bucket, single texts on its static
        shapes (all-MiniLM-L6-v2, AVX2-only AMD EPYC: batch-1 p50 4.06 ms at the rungs against
        3.33 ms at float32, the same vectors)."""
        return self._running().padding_buckets(ladder)

    def __call__(self, *arrays):
        if self.everywhere or arrays[0].shape[1] > self.max_tokens or repeated_token_rows(*arrays[:2]).any():
            return self._fallback()(*arrays)
        return self.int8(*arrays)

    def __getattr__(self, name):  # compiled, static_lengths, save, ...: the int8 runtime's
        if name.startswith("_"):  # never reached for the attributes __init__ sets
            raise AttributeError(name)
        return getattr(self.int8, name)

    def __repr__(self):
        where = (
            "every batch (no int8 dot products on this CPU)"
            if self.everywhere
            else (f"past {self.max_tokens} tokens or repeated words")
        )
        int8 = repr(self._int8) if self._int8 is not None else "int8 model calibrated when first asked for"
        return f"Int8WithFloat32Fallback({int8}, float32 for {where})"


def _quantize_int8(model, calibration):
    try:
        import nncf
    except ImportError as error:
        raise ImportError(f"precision='int8' needs NNCF, which is not installed: {_INSTALL}") from error
    return nncf.quantize(
        model,
        nncf.Dataset([list(inputs) for inputs in calibration]),
        model_type=nncf.ModelType.TRANSFORMER,
        subset_size=len(calibration),
    )
