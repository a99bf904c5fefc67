"""export_litert: a sentence encoder (or a hashed one) as one LiteRT (`.tflite`) file that takes a batch
of raw strings and returns unit vectors (and codes), with the tokenizer inside, at float32, float16 or
int8; or, for tokenizers whose ops have no LiteRT kernels, a file that takes token ids."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import warnings

import keras
import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

from keras_sentemb.export.litert_text_inputs import (
    TOKENIZER_CUSTOM_OPS,
    LiteRTWordPieceInputs,
    litert_tokenizer_problem,
    reachable_token_ids,
)
from keras_sentemb.export.quantized_rows import QuantizedRows
from keras_sentemb.exported.serving_settings import packing_settings
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.runtime.litert_metadata import (
    LITERT_FORMAT,
    METADATA_NAME,
    TOKENIZER_METADATA_NAME,
    custom_ops,
    read_litert_metadata,
    with_metadata,
)
from keras_sentemb.runtime.litert_runtime import tf_text_kernel_registrars
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.graph_function import graph_function
from keras_sentemb.utils.output_targets import check_output_file
from keras_sentemb.utils.start_up_noise import start_up_noise_filtered
from keras_sentemb.version import __version__

PRECISIONS = ("float32", "float16", "int8")
TOKENIZER_PLACES = ("inside", "outside")
TEXTS_SPEC = tf.TensorSpec([None], tf.string, name="texts")
IDS_SPEC = tf.TensorSpec([None, None], tf.int32, name="token_ids")
MASK_SPEC = tf.TensorSpec([None, None], tf.int32, name="padding_mask")


class LiteRTEmbeddingModule(tf.Module):
    """What `export_litert` converts: `embed(texts)` → `{"embedding": float32 [N, d]}` (unit vectors;
    plus `"codes"`, uint8 [N, bits/8] packed, for a hashed encoder), or `embed(token_ids, padding_mask)`
    with the tokenizer outside.

    A `StaticEncoder` pools its table over the content ids (no [CLS]/[SEP]) as `embed_content_ids` does:
    one folded table (E·w·P) at float precisions; at int8 (`quantized_tables`) E·w as 4-bit rows
    (`QuantizedRows`; a zoo member's table is on that grid already, so nothing is lost) and P after the
    mean. An encoder of a registered family (`keras_sentemb.families`) runs `inference_graph`: its family's
    math on a padded batch, as `openvino_graph_fn` does, with the token table given as an argument: int8 rows
    with a scale each at int8, cut to the reachable vocabulary (`reachable_token_ids`, tokenizer inside) for
    every family whose positions do not read the ids, and the position table cut to the tokenizer's
    `max_length`. Other backbones run `openvino_graph_fn()` (the Keras layers' graph).
    """

    def __init__(self, model, tokenizer="inside", prompt=None, quantized_tables=False):
        super().__init__(name="keras_sentemb_litert")
        self._hashing = model.hashing if isinstance(model, HashedEncoder) else None
        encoder = model.encoder if isinstance(model, HashedEncoder) else model
        self._static = callable(getattr(encoder, "embed_content_ids", None))
        self._projection = None
        if self._static:
            # float: one folded table (E·w·P); int8: E·w as 4-bit rows (the zoo's own grid) and P after the mean.
            encoder = encoder.with_weights_folded() if quantized_tables else encoder.folded()
            if encoder.projection is not None:
                self._projection = tf.constant(encoder.projection.kernel.numpy())
        self._encoder = encoder
        # Keras 3 layers are not tracked by tf.Module: their variables are listed for freezing.
        self.encoder_variables = list(encoder.variables)
        if self._hashing is not None:
            self.hashing_variables = list(self._hashing.variables)
        family = None if self._static else getattr(encoder, "inference_family", lambda: None)()
        graph_family = None if family is None else encoder.inference_graph()
        # A vocabulary pruned to the entries tokenising can give (tokenizer inside: the static tier and every
        # family whose positions do not read the ids; MPNet's and RoBERTa's count the non-pad ids).
        kept_ids = None
        if tokenizer == "inside" and (self._static or (family is not None and not family.positions_read_ids)):
            kept_ids = reachable_token_ids(encoder.tokenizer)
        self._inputs = LiteRTWordPieceInputs(encoder.tokenizer, prompt, kept_ids) if tokenizer == "inside" else None
        if self._static or graph_family is not None:
            table = (encoder.token_table.embeddings if self._static else _token_embedding(encoder)).numpy()
            if kept_ids is not None:
                table = table[kept_ids]
            if quantized_tables:
                table = QuantizedRows(table, "int4-rows" if self._static else "int8-rows")
            else:
                table = tf.constant(table)
        if self._static:
            self._table = table
        elif graph_family is not None:
            self._graph = encoder.inference_graph(
                token_table=table, max_positions=getattr(encoder.tokenizer, "max_length", None)
            )
        else:
            self._graph = encoder.openvino_graph_fn()
        if tokenizer == "inside":
            self.embed = graph_function(self._embed_texts, input_signature=[TEXTS_SPEC])
        else:
            self.embed = graph_function(self._embed_ids, input_signature=[IDS_SPEC, MASK_SPEC])

    def _embed_texts(self, texts):
        if self._static:
            ids, lengths = self._inputs.content_ids(texts)
            mask = tf.sequence_mask(lengths, tf.shape(ids)[1], dtype=tf.float32)
            return self._outputs(self._static_embedding(ids, mask, lengths))
        packed = self._inputs(texts)
        return self._outputs(self._graph(packed["token_ids"], packed["padding_mask"]))

    def _embed_ids(self, token_ids, padding_mask):
        if self._static:
            # The packed ids hold [CLS] first and [SEP] last; the static tier pools the ids between.
            lengths = tf.reduce_sum(padding_mask, axis=1) - 2
            ids = token_ids[:, 1:]
            mask = tf.sequence_mask(lengths, tf.shape(ids)[1], dtype=tf.float32)
            return self._outputs(self._static_embedding(ids, mask, lengths))
        return self._outputs(self._graph(token_ids, padding_mask))

    def _static_embedding(self, ids, mask, lengths):
        """mean over a text's content ids of the table's rows (then the projection); zero for none."""
        rows = self._table.gather(ids) if isinstance(self._table, QuantizedRows) else tf.gather(self._table, ids)
        sums = tf.reduce_sum(rows * tf.expand_dims(mask, -1), axis=1)
        mean = sums / tf.expand_dims(tf.cast(tf.maximum(lengths, 1), tf.float32), -1)
        return mean if self._projection is None else tf.matmul(mean, self._projection)

    def _outputs(self, embedding):
        embedding = tf.cast(embedding, tf.float32)
        unit = tf.math.l2_normalize(embedding, axis=-1, epsilon=1e-12)
        outputs = {"embedding": unit}
        if self._hashing is not None:
            outputs["codes"] = tf.convert_to_tensor(self._hashing.binarize(unit, packed=True))
        return outputs


def _token_embedding(encoder):
    backbone = encoder.backbone
    layer = backbone.token_embedding if hasattr(backbone, "token_embedding") else backbone.embeddings.token_embedding
    return layer.embeddings


# What TensorFlow Lite's converter writes on every conversion, which reads like a problem and is none: its
# deprecation note for frozen concrete functions (the path taken on purpose, see `_converter`), the quantiser's
# note on input statistics (the inputs stay float: strings or ids), the MLIR quantiser's settings line, and
# TensorFlow 2.20's native log of every conversion, written whatever TF_CPP_MIN_LOG_LEVEL says (Grappler's device
# count and session, the converter's ignored flags; 2.21 writes none of it).
CONVERTER_NOISE = re.compile(
    rb"^(fully_quantize: \d+, inference_type: \d+, .*"
    rb"|[IW]\d{4} [\d:. ]+\d+ (devices\.cc:\d+\] Number of eligible GPUs .*"
    rb"|single_machine\.cc:\d+\] Starting new session"
    rb"|tf_tfl_flatbuffer_helpers\.cc:\d+\] Ignored (output_format|drop_control_dependency)\.))$"
)
CONVERTER_WARNINGS = (
    "Please consider providing the trackable_obj argument in the from_concrete_functions",
    "Statistics for quantized inputs were expected, but not specified",
)


class _WithoutConverterNotes(logging.Filter):
    def filter(self, record):
        return not any(note in record.getMessage() for note in CONVERTER_WARNINGS)


@contextlib.contextmanager
def converter_noise_filtered():
    """The conversion without `CONVERTER_NOISE` lines on standard error and `CONVERTER_WARNINGS` (absl's log,
    Python warnings); every other line and warning is kept."""
    absl_logger, notes = logging.getLogger("absl"), _WithoutConverterNotes()
    absl_logger.addFilter(notes)
    try:
        with warnings.catch_warnings():
            for note in CONVERTER_WARNINGS:
                warnings.filterwarnings("ignore", message=re.escape(note))
            with start_up_noise_filtered(noise=CONVERTER_NOISE):
                yield
    finally:
        absl_logger.removeFilter(notes)


def _converter(module, precision, calibration_texts):
    # Frozen first: the converter, given Keras 3 variables, keeps them as resource variables without
    # their values (a file of a few MB whose vectors are NaN).
    frozen = convert_variables_to_constants_v2(module.embed.get_concrete_function())
    converter = tf.lite.TFLiteConverter.from_concrete_functions([frozen])
    converter.allow_custom_ops = True
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if precision == "float16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif precision == "int8":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        if calibration_texts is not None:
            converter.representative_dataset = _representative_dataset(module, calibration_texts)
            # The calibrator runs the file's tokenizer ops: TF Text's kernels are registered with it.
            converter.target_spec._experimental_custom_op_registerers = tf_text_kernel_registrars()
    return converter


def _representative_dataset(module, calibration_texts):
    """Full-integer calibration samples: the calibration texts one at a time, as the file's input."""
    texts = [text.encode("utf-8") if isinstance(text, str) else bytes(text) for text in calibration_texts]
    if not texts:
        raise ValueError("calibration_texts is empty: give a few hundred sentences like the ones you will encode")
    if module._inputs is None:
        raise ValueError("full-integer int8 is calibrated on texts: it needs the tokenizer inside")

    def samples():
        for text in texts:
            yield [np.array([text], dtype=object)]

    return samples


def export_litert(
    model: keras.Model,
    path: str | os.PathLike,
    precision: str = "float32",
    tokenizer: str = "inside",
    calibration_texts=None,
    prompt_name: str | None = None,
    prompt: str | None = None,
    overwrite: bool = False,
) -> str:
    """Writes `model` as a LiteRT flat buffer at `path` (atomically) and returns `path`.

    The file's one signature, `serving_default`:
    - tokenizer inside: input `texts` (string [N]); outputs `embedding` (float32 [N, d], unit length)
      and, for a `HashedEncoder`, `codes` (uint8 [N, bits/8], packed, first bit most significant).
      It holds TF Text's custom ops (`FastBertNormalize`, `FastWordpieceTokenize`,
      `RaggedTensorToTensor`): register TF Text's LiteRT kernels with the interpreter
      (`tensorflow_text.tflite_registrar`, or TF Text's Android/iOS op libraries). Only WordPiece
      models (`SentenceTokenizer`: MiniLM, MPNet, BERT, the static tier) go inside; see
      `litert_tokenizer_problem`.
    - tokenizer outside: inputs `token_ids` and `padding_mask` (int32 [N, T], `cls ids sep pad…`),
      builtin ops only; the app tokenises (the model's `tokenizer.json`).

    Precisions: "float32"; "float16" (weights stored as float16, about half the size); "int8"
    (dynamic-range: int8 weights, int8 matrix products with activations quantised on the fly; for the
    static tier a 4-bit token table; token tables as `QuantizedRows`, a scale a row). With `calibration_texts` int8 is full-integer
    where the ops allow (activations quantised with ranges measured on those texts).

    The file carries metadata (`litert_metadata.read_litert_metadata`): inputs, outputs, widths,
    normalisation, tokenizer pipeline and its known differences from the model's tokenizer.json,
    precision, the model's name and card fields.

    Args:
        model: a `SentenceEncoder`, `StaticEncoder` or `HashedEncoder` with a tokenizer.
        path: the `.tflite` file to write.
        precision: "float32", "float16" or "int8".
        tokenizer: "inside" (raw strings in) or "outside" (token ids in).
        calibration_texts: sentences for full-integer int8 (a few hundred like the ones you will encode).
        prompt_name / prompt: a model with prompts: the one every text gets (as `encode` chooses it).
        overwrite: replace an existing file (else FileExistsError).

    Example:
    (Not run as a doctest: it loads pretrained weights and converts for seconds; the tests run the same calls.)
        encoder = SentenceEncoder.from_pretrained("minilm-l6")
        export_litert(encoder, "minilm-int8.tflite", precision="int8")
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if tokenizer not in TOKENIZER_PLACES:
        raise ValueError(f"tokenizer must be one of {TOKENIZER_PLACES}, got {tokenizer!r}")
    if calibration_texts is not None and precision != "int8":
        raise ValueError(f"calibration_texts is for precision='int8', not {precision!r}")
    path = os.fspath(path)
    # before the (long) conversion: a writable folder, and nothing replaced but a .tflite file we wrote
    check_output_file(path, "LiteRT", overwrite, is_ours=written_by_export_litert)
    encoder = model.encoder if isinstance(model, HashedEncoder) else model
    if not callable(getattr(encoder, "embed_content_ids", None)) and not callable(
        getattr(encoder, "openvino_graph_fn", None)
    ):
        raise TypeError(
            f"export_litert takes a SentenceEncoder, StaticEncoder or HashedEncoder, got {type(model).__name__}"
        )
    if tokenizer == "inside":
        problem = litert_tokenizer_problem(encoder.tokenizer)
        if problem is not None:
            raise ValueError(
                f"{encoder.name}: the tokenizer cannot go inside a LiteRT file: {problem}; "
                "export with tokenizer='outside' (token ids in) and tokenise in the app"
            )
    if tokenizer == "outside" and (prompt_name is not None or prompt):
        raise ValueError(
            "a prompt is tokenised inside the file: with tokenizer='outside' prepend it in the app (the file's card "
            "lists the model's prompts and its default one)"
        )
    resolve = getattr(encoder, "resolve_prompt", None)
    resolved_prompt = resolve(prompt_name, prompt) if resolve is not None and tokenizer == "inside" else None
    module = LiteRTEmbeddingModule(model, tokenizer, resolved_prompt, quantized_tables=precision == "int8")
    with converter_noise_filtered():
        flat_buffer = _converter(module, precision, calibration_texts).convert()
    check_custom_ops(flat_buffer, TOKENIZER_CUSTOM_OPS if tokenizer == "inside" else ())
    metadata = litert_model_card(model, module, precision, tokenizer, resolved_prompt, calibration_texts is not None)
    flat_buffer = with_metadata(
        flat_buffer,
        METADATA_NAME,
        json.dumps(metadata, indent=1).encode("utf-8"),
        signature=(
            "serving_default",
            [item["name"] for item in metadata["inputs"]],
            # The frozen function's outputs, in the order of its output dict's sorted keys.
            sorted(item["name"] for item in metadata["outputs"]),
        ),
    )
    if "packing" in metadata:  # the host tokenizer, for an app or `keras-sentemb serve FILE` (no TensorFlow)
        host = encoder.tokenizer.host_tokenizer().to_str().encode("utf-8")
        flat_buffer = with_metadata(flat_buffer, TOKENIZER_METADATA_NAME, host)
    with atomic_open(path, "wb") as f:
        f.write(flat_buffer)
    return path


def written_by_export_litert(path):
    """Whether `path` is a `.tflite` file `export_litert` wrote (its metadata reads)."""
    try:
        read_litert_metadata(path)
    except ValueError:
        return False
    return True


def check_custom_ops(flat_buffer, allowed):
    """Raises ValueError naming the custom ops of a converted file beyond `allowed` (TF ops that LiteRT has
    no builtin for and no kernel library provides: the file would fail to load in an app)."""
    extra = sorted(set(custom_ops(flat_buffer)) - set(allowed))
    if extra:
        raise ValueError(
            f"the converted model needs custom ops no LiteRT runtime provides: {', '.join(extra)} "
            f"(allowed: {', '.join(allowed) or 'none'}); this model's graph does not convert to LiteRT builtins"
        )


def litert_model_card(model, module, precision, tokenizer, prompt, full_integer):
    """The metadata a mobile developer needs, as a JSON-able dict (stored in the file)."""
    encoder = module._encoder
    inputs = (
        [{"name": "texts", "dtype": "string", "shape": [-1]}]
        if tokenizer == "inside"
        else [
            {"name": "token_ids", "dtype": "int32", "shape": [-1, -1]},
            {"name": "padding_mask", "dtype": "int32", "shape": [-1, -1]},
        ]
    )
    width = int(encoder.embedding_dim)
    outputs = [{"name": "embedding", "dtype": "float32", "shape": [-1, width], "normalized": "l2"}]
    if module._hashing is not None:
        outputs.append({"name": "codes", "dtype": "uint8", "shape": [-1, module._hashing.bits // 8], "packing": "msb"})
    vocabulary = encoder.tokenizer.vocabulary if encoder.tokenizer is not None else None
    card = {
        "format": LITERT_FORMAT,
        "name": model.name,
        "class": type(model).__name__,
        "keras_sentemb": __version__,
        "signature": "serving_default",
        "inputs": inputs,
        "outputs": outputs,
        "embedding_dim": width,
        "similarity": "cosine (the vectors are unit length: a dot product)",
        "precision": precision,
        "quantization": _quantization_description(precision, full_integer, module._static),
        "prompt": prompt,
        "tokenizer": {
            "place": tokenizer,
            "kind": "wordpiece"
            if vocabulary is not None and tokenizer == "inside"
            else type(encoder.tokenizer).__name__,
            "max_length": int(getattr(encoder.tokenizer, "max_length", 0)) or None,
            "vocabulary_size": len(vocabulary) if vocabulary is not None else None,
        },
    }
    if tokenizer == "inside":
        card["tokenizer"]["custom_ops"] = list(TOKENIZER_CUSTOM_OPS)
        card["tokenizer"]["differences_from_tokenizer_json"] = [
            "special tokens written in a text ('[SEP]') are read as text",
            "a word is unknown past 100 bytes (tokenizer.json: past 100 characters)",
            "invalid UTF-8 bytes become a space (tokenizer.json: deleted)",
        ]
    else:
        tokenizer_object = encoder.tokenizer
        card["tokenizer"]["special_ids"] = {
            name: int(getattr(tokenizer_object, f"{name}_token_id"))
            for name in ("cls", "sep", "pad")
            if getattr(tokenizer_object, f"{name}_token_id", None) is not None
        }
        if (
            callable(getattr(tokenizer_object, "host_tokenizer", None))
            and module._hashing is None
            and not module._static
        ):
            # what a server without TensorFlow needs: the packing of `encode`, the prompts to prepend, and the host
            # tokenizer (the file's `keras_sentemb_tokenizer` metadata entry)
            card["packing"] = packing_settings(tokenizer_object)
            card["prompts"] = dict(getattr(encoder, "prompts", None) or {})
            card["default_prompt_name"] = getattr(encoder, "default_prompt_name", None)
            card["tokenizer"]["host"] = TOKENIZER_METADATA_NAME
    return card


def _quantization_description(precision, full_integer, static):
    if precision == "float32":
        return "none"
    if precision == "float16":
        return "float16 weights, float32 compute"
    if static:
        return "token table as 4-bit rows with a scale a row (the zoo's grid), projection int8 per channel"
    if full_integer:
        return "full-integer int8 where the ops allow (activation ranges from calibration texts); token table int8 rows"
    return "dynamic-range int8: int8 weights per channel, activations quantised per call; token table int8 rows"
