"""The family × runtime matrix: each family's tiny sentence-transformers folder run by each runtime, against
the Keras model (`encode` on TensorFlow, float32). `cell(family, runtime, work)` → (max |Δ| of the unit
vectors, min cosine, what ran) or raises `RuntimeRefused` with the runtime's own reason (bfloat16 on a CPU
without it, say). tests/families/test_runtime_matrix.py asserts the bars; benchmarks/family_runtime_matrix.py
prints the matrix."""

import os

import numpy as np
import tensorflow as tf

from keras_sentemb.models import SentenceEncoder
from keras_sentemb.tokenizers.sentence_tokenizer import SentenceTokenizer
from tests.families.test_family_math import FOLDERS, TEXTS

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
RUNTIMES = ("openvino float32", "openvino bfloat16", "openvino int8", "unpadded SavedModel", "LiteRT float32")
MATRIX_TEXTS = TEXTS + ["a longer text of many words, to be padded against the short ones above, and then some"]
# float32 runtimes: the Keras vectors to float32 round-off; reduced precisions: the direction kept. int8's bar is
# a wrong-graph check, not a quality bar: static int8 (weights and activations, calibrated on these few texts) keeps
# the tiny random decoders least, Qwen3 at cosine 0.942 and Gemma3 0.948 on an AVX-512 VNNI EPYC (the encoder
# families >= 0.9986); at real sizes Qwen3-Embedding-0.6B keeps 0.9935 (docs/pretrained_models.md)
BARS = {"float32": ("max_abs", 1e-5), "bfloat16": ("min_cosine", 0.99), "int8": ("min_cosine", 0.9)}


class RuntimeRefused(Exception):
    """A runtime that cannot serve a family (or this CPU), with its reason."""


def encoder_of(family):
    return SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", FOLDERS[family]))


def _unit(vectors):
    vectors = np.asarray(vectors, np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def runtime_vectors(encoder, runtime, work, saved_model=None):
    """(vectors of MATRIX_TEXTS by `runtime`, what ran); `saved_model`: the encoder's raw-string
    SavedModel folder where one is already exported (else it is exported under `work`)."""
    if runtime.startswith("openvino"):
        precision = runtime.split()[1]
        try:
            calibration = MATRIX_TEXTS * 8 if precision == "int8" else None
            vectors = encoder.encode(
                MATRIX_TEXTS, backend="openvino", precision=precision, calibration_texts=calibration
            )
        except ValueError as error:
            raise RuntimeRefused(str(error)) from None
        runtime = encoder.inference_runtime("openvino", precision)
        if precision != "int8":
            return vectors, f"OpenVINO {runtime.inference_precision}"
        if runtime.everywhere:
            return vectors, f"OpenVINO {runtime.inference_precision} (int8 asked: no int8 dot products on this CPU)"
        return vectors, f"OpenVINO int8, other ops {runtime.inference_precision}"
    if runtime == "unpadded SavedModel":
        from keras_sentemb.export import export_saved_model

        folder = saved_model or export_saved_model(encoder, os.path.join(work, "saved_model"), overwrite=True)
        serving = tf.saved_model.load(folder).signatures["serving_default"]
        unpadded = "without padding" if encoder.supports_unpadded() else "padded chunks"
        return serving(texts=tf.constant(MATRIX_TEXTS))["embedding"].numpy(), f"SavedModel, {unpadded}"
    if runtime == "LiteRT float32":
        from keras_sentemb.export import export_litert
        from keras_sentemb.runtime.litert_runtime import LiteRTEncoder

        inside = isinstance(encoder.tokenizer, SentenceTokenizer)
        path = export_litert(
            encoder, os.path.join(work, "model.tflite"), tokenizer="inside" if inside else "outside", overwrite=True
        )
        litert = LiteRTEncoder(path)
        if inside:
            return litert.encode(MATRIX_TEXTS), "LiteRT, tokenizer inside"
        packed = encoder.tokenizer.pack(encoder.tokenizer.content_ids(tf.constant(MATRIX_TEXTS)))
        vectors = litert.encode_ids(packed["token_ids"].numpy(), packed["padding_mask"].numpy())
        return vectors, "LiteRT, tokenizer outside (its ids from the model's tokenizer)"
    raise ValueError(f"unknown runtime {runtime!r}")


def cell(family, runtime, work, encoder=None, saved_model=None):
    """(max |Δ|, min cosine, what ran) of `runtime` against the Keras model for `family`."""
    encoder = encoder or encoder_of(family)
    reference = _unit(encoder.encode(MATRIX_TEXTS))
    vectors, ran = runtime_vectors(encoder, runtime, work, saved_model)
    vectors = _unit(vectors)
    return float(np.abs(vectors - reference).max()), float(np.sum(vectors * reference, axis=1).min()), ran


def bar_of(runtime, ran):
    """The bar a cell must meet: by what actually ran (an int8 request run at float32 meets float32's)."""
    if ran.startswith("OpenVINO int8"):
        return BARS["int8"]
    if "bfloat16" in runtime and "bf16" in ran:
        return BARS["bfloat16"]
    return BARS["float32"]
