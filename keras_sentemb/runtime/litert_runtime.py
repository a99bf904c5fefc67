"""LiteRT at run time. `LiteRTEncoder` runs a `.tflite` file written by `export_litert` with the LiteRT
interpreter (`ai-edge-litert`) and TF Text's LiteRT kernels, as an app would (the file runs without
TensorFlow: docs/on_device.md; this package itself imports it). `LiteRTRuntime` is `encode(backend="litert")`:
a model's traced function converted in memory and run on the host's token ids."""

from __future__ import annotations

import os
import threading

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
from tensorflow_text.core.pybinds import tflite_registrar

from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.runtime.litert_ids_runtime import LITERT_MAX_BATCH_TOKENS
from keras_sentemb.runtime.litert_metadata import read_litert_metadata

INSTALL_HINT = 'pip install "./keras-sentemb[litert]" (ai-edge-litert)'


def tf_text_kernel_registrars():
    """TF Text's LiteRT kernel registrars for the ops a file with the tokenizer inside holds
    (`AddFastBertNormalize`, `AddFastWordpieceTokenize`, `AddRaggedTensorToTensor`).

    This package imports TensorFlow anyway, so they come from `tensorflow_text`'s own module (loading
    its shared library a second time under another name crashes the process at exit). An app without
    TensorFlow's Python package loads the same library by path: docs/on_device.md shows how."""
    return [
        tflite_registrar.AddFastBertNormalize,
        tflite_registrar.AddFastWordpieceTokenize,
        tflite_registrar.AddRaggedTensorToTensor,
    ]


class LiteRTEncoder:
    """A `.tflite` sentence encoder from `export_litert`, run by the LiteRT interpreter.

    `encode(texts)` → float32 [N, d] unit vectors (NumPy), `encode_with_codes(texts)` → (vectors, packed
    uint8 codes) for a hashed encoder; `metadata` is the file's card. With the tokenizer outside,
    `encode_ids(token_ids, padding_mask)`.

    Args:
        path: the `.tflite` file.
        threads: interpreter threads (None: LiteRT's default).

    Example:
    (Not run as a doctest: it needs an exported file; tests/export/test_litert_export.py runs the same calls.)
        encoder = LiteRTEncoder("minilm-int8.tflite")
        encoder.encode(["A man is eating food."]).shape
        # -> (1, 384)
    """

    def __init__(self, path: str | os.PathLike, threads: int | None = None):
        try:
            from ai_edge_litert import interpreter as litert
        except ImportError as error:
            raise ImportError(f"LiteRTEncoder needs the LiteRT interpreter: {INSTALL_HINT}") from error
        self.path = os.fspath(path)
        self.metadata = read_litert_metadata(self.path)
        registrars = tf_text_kernel_registrars() if self.metadata["tokenizer"]["place"] == "inside" else []
        self.interpreter = litert.InterpreterWithCustomOps(
            model_path=self.path, custom_op_registerers=registrars, num_threads=threads
        )
        self.runner = self.interpreter.get_signature_runner(self.metadata["signature"])

    @property
    def embedding_dim(self) -> int:
        return int(self.metadata["embedding_dim"])

    def encode_with_codes(self, texts):
        """(vectors float32 [N, d], codes uint8 [N, bits/8] or None) for a list of strings or bytes; for one
        string (as `SentenceEncoder.encode`), (vector [d], code [bits/8] or None). Bytes that are not
        UTF-8 are read as the file reads them (a space, its card's `differences_from_tokenizer_json`).

        Raises:
            TypeError / ValueError: as `SentenceEncoder.encode`: a container or an element that is not
                text (`[5]`, `[None]`), named by its index; a string that cannot be UTF-8.
        """
        if self.metadata["tokenizer"]["place"] != "inside":
            raise ValueError(f"{self.path} takes token ids (tokenizer outside): call encode_ids")
        texts, single = validate_texts(texts, check_utf8=False)  # the file reads invalid UTF-8 as a space
        if not texts:
            return np.zeros((0, self.embedding_dim), np.float32), None
        outputs = self.runner(texts=np.array(texts, dtype=object))
        vectors, codes = outputs["embedding"], outputs.get("codes")
        if single:
            return vectors[0], None if codes is None else codes[0]
        return vectors, codes

    def encode(self, texts) -> np.ndarray:
        """float32 [N, d] unit vectors of `texts` (str or UTF-8 bytes); [d] for one string."""
        return self.encode_with_codes(texts)[0]

    def encode_ids(self, token_ids, padding_mask) -> np.ndarray:
        """float32 [N, d] for packed ids (`cls ids sep pad…`), a file with the tokenizer outside."""
        outputs = self.runner(
            token_ids=np.asarray(token_ids, dtype=np.int32), padding_mask=np.asarray(padding_mask, dtype=np.int32)
        )
        return outputs["embedding"]


def litert_flat_buffer(concrete_function, precision):
    """`concrete_function` (int32 [None, None] inputs → one float32 [None, d] output) converted to a LiteRT
    flat buffer of builtin ops: "float32" as it is, "int8" dynamic-range (int8 weights per channel, each
    matrix product's activations quantised per token row when it runs: no calibration)."""
    if precision not in ("float32", "int8"):
        raise ValueError(f"LiteRT runs precision 'float32' or 'int8', got {precision!r}")
    # Frozen first: given Keras 3 variables, the converter keeps them as resource variables without values.
    converter = tf.lite.TFLiteConverter.from_concrete_functions([convert_variables_to_constants_v2(concrete_function)])
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if precision == "int8":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    return converter.convert()


class LiteRTRuntime:
    """`encode(backend="litert")`: a model's traced function converted to LiteRT and run by its interpreter
    (XNNPACK kernels: AVX2, AVX-512 and VNNI int8 dot products where the CPU has them). Calls like the
    function it was built from, on NumPy int32 arrays; returns float32 NumPy [batch, d].

    - "float32": the function's vectors to float32 round-off (~1e-7).
    - "int8": dynamic-range quantisation: int8 weights per output channel; each matrix product quantises its
      input activations when it runs, one scale per token row. Nothing to calibrate, and nothing clips a
      long text's activations: the int8 model takes every text. Every scale belongs to one token of one
      text, so a text's vector is the same alone and in any batch (all-MiniLM-L6-v2, 64 STS-B sentences,
      AVX2: max |Δ| 0.0) — at one padded length. `padding_buckets` pads each text to its own rung, and it
      must: a padded length of 32 or more takes other kernels, whose float32 round-off (~1e-7) can flip
      an activation's int8 rounding in the next matrix product (benchmarks/vector_independence.py,
      MiniLM, AVX2: padded by 1-3 positions under 32, max |Δ| 0.0; from under 32 to 32-33, 9.4e-3; from
      32 or more to 64, 3.0e-3; at float32 all ≤ 1.4e-7).

    Its batch-1 path is the interpreter's own: no per-shape compilation (OpenVINO's dynamic models prepare
    kernels per shape), a resize of the input tensors when the shape changes. Calls are serialised by a
    lock (one interpreter). It holds a snapshot of the weights: `EmbeddingModel` drops it on `fit`,
    `load_weights` and LoRA changes.

    Example (not run as a doctest: it converts a real model, seconds):

        runtime = LiteRTRuntime(encoder.openvino_graph_fn().get_concrete_function(), "int8")
        vectors = runtime(token_ids, padding_mask)  # NumPy float32 [batch, d]
    """

    max_batch_tokens = LITERT_MAX_BATCH_TOKENS

    def __init__(self, concrete_function, precision, threads=None):
        try:
            from ai_edge_litert import interpreter as litert
        except ImportError as error:
            raise ImportError(f"backend='litert' needs the LiteRT interpreter: {INSTALL_HINT}") from error
        self.precision = precision
        self.inference_precision = "int8 (dynamic range)" if precision == "int8" else "f32"
        self.flat_buffer = litert_flat_buffer(concrete_function, precision)
        if threads is None:
            threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        self.interpreter = litert.Interpreter(model_content=self.flat_buffer, num_threads=threads)
        details = self.interpreter.get_input_details()
        # the function's inputs in its order (by name, e.g. token_ids and padding_mask; else as converted)
        names = [spec.name for spec in concrete_function.structured_input_signature[0]]
        by_name = {detail["name"]: detail["index"] for detail in details}
        self._inputs = (
            [by_name[name] for name in names] if set(names) <= set(by_name) else [d["index"] for d in details]
        )
        outputs = self.interpreter.get_output_details()
        expected = len(names)
        if len(self._inputs) != expected or len(outputs) != 1:
            raise ValueError(
                f"the converted model has {len(self._inputs)} inputs and {len(outputs)} outputs; "
                f"expected {expected} and 1"
            )
        self._output = outputs[0]["index"]
        self._shape = None
        self._lock = threading.Lock()

    def padding_buckets(self, ladder):
        """At int8, each text padded to its own rung of `ladder` whatever it is batched with; () at float32
        (batches padded to their longest text's rung), as `OpenVINORuntime.padding_buckets`."""
        return () if self.precision == "float32" else tuple(ladder)

    def __call__(self, *arrays):
        arrays = [np.ascontiguousarray(a, np.int32) for a in arrays]
        with self._lock:
            if arrays[0].shape != self._shape:
                for index, array in zip(self._inputs, arrays):
                    self.interpreter.resize_tensor_input(index, array.shape, strict=False)
                self.interpreter.allocate_tensors()
                self._shape = arrays[0].shape
            for index, array in zip(self._inputs, arrays):
                self.interpreter.set_tensor(index, array)
            self.interpreter.invoke()
            return np.array(self.interpreter.get_tensor(self._output), dtype=np.float32)

    def __repr__(self):
        return f"LiteRTRuntime(precision={self.precision!r})"
