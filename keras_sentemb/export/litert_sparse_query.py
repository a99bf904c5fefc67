"""export_static_query_litert: inference-free SPLADE's query encoder as one LiteRT file, the WordPiece tokenizer
inside: raw strings in, (indices, values) out, no transformer at all."""

from __future__ import annotations

import json
import os

import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

from keras_sentemb.export.litert_export import check_custom_ops, converter_noise_filtered, written_by_export_litert
from keras_sentemb.export.litert_text_inputs import (
    TOKENIZER_CUSTOM_OPS,
    LiteRTWordPieceInputs,
    litert_tokenizer_problem,
)
from keras_sentemb.export.sparse_model_export import side_prompt
from keras_sentemb.runtime.litert_metadata import LITERT_FORMAT, METADATA_NAME, with_metadata
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.graph_function import graph_function
from keras_sentemb.utils.output_targets import check_output_file
from keras_sentemb.version import __version__

TEXTS_SPEC = tf.TensorSpec([None], tf.string, name="texts")


class LiteRTStaticQueryModule(tf.Module):
    """`embed(texts)` → `{"indices": int32 [N, L], "values": float32 [N, L]}` with L the tokenizer's content limit:
    each text's distinct content tokens t with weight[t] > 0, largest first, padded with (−1, 0):

        presence[n, t] = max over the text's positions i of [id_i = t],   w = presence · weight

    (LiteRT builtins only after the tokenizer: one-hot, max, multiply, top-k of a constant k)."""

    def __init__(self, query_encoder, prompt):
        super().__init__(name="keras_sentemb_litert_static_query")
        self._inputs = LiteRTWordPieceInputs(query_encoder.tokenizer, prompt)
        self._weight = tf.constant(query_encoder.weight)
        self.top = int(min(self._inputs.content_limit, query_encoder.weight.shape[0]))
        self.embed = graph_function(self._embed, input_signature=[TEXTS_SPEC])

    def _embed(self, texts):
        ids, lengths = self._inputs.content_ids(texts)
        mask = tf.sequence_mask(lengths, tf.shape(ids)[1], dtype=tf.float32)
        width = int(self._weight.shape[0])
        hits = tf.one_hot(ids, width) * tf.expand_dims(mask, -1)
        # one position of zeros, so that a batch of empty texts (no positions) gives zeros, not −∞
        hits = tf.concat([hits, tf.zeros(tf.stack([tf.shape(ids)[0], 1, width]))], axis=1)
        presence = tf.reduce_max(hits, axis=1)
        values, indices = tf.math.top_k(presence * self._weight, k=self.top)
        kept = values > 0
        return {"indices": tf.where(kept, indices, -1), "values": tf.where(kept, values, 0.0)}


def export_static_query_litert(model, path, prompt_name=None, prompt=None, overwrite=False):
    """Writes an inference-free `SparseEncoder`'s query side as a LiteRT file at `path` (atomically); returns it.

    Its one signature, `serving_default`: input `texts` (string [N]); outputs `indices` (int32 [N, L]) and `values`
    (float32 [N, L]), L the query's content-token limit, active entries first and padded with (−1, 0): the
    entries of `encode_query`'s row. TF Text's LiteRT kernels (`FastBertNormalize`, `FastWordpieceTokenize`,
    `RaggedTensorToTensor`) run the WordPiece tokenizer inside, as `export_litert`'s files do.

    Example:
    (Not run as a doctest: it converts for seconds; tests/export/test_sparse_export.py runs the same calls.)
        encoder = SparseEncoder.from_pretrained(inference_free_folder)
        export_static_query_litert(encoder, "queries.tflite")
    """
    if model.query_encoder is None:
        raise ValueError(f"{model.name} has no static query encoder (not an inference-free SPLADE model)")
    problem = litert_tokenizer_problem(model.query_encoder.tokenizer)
    if problem is not None:
        raise ValueError(f"{model.name}: the query tokenizer cannot go inside a LiteRT file: {problem}")
    path = os.fspath(path)
    check_output_file(path, "LiteRT", overwrite, is_ours=written_by_export_litert)
    resolved_prompt = side_prompt(model, "query", prompt_name, prompt)
    module = LiteRTStaticQueryModule(model.query_encoder, resolved_prompt)
    frozen = convert_variables_to_constants_v2(module.embed.get_concrete_function())
    converter = tf.lite.TFLiteConverter.from_concrete_functions([frozen])
    converter.allow_custom_ops = True
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    with converter_noise_filtered():
        flat_buffer = converter.convert()
    check_custom_ops(flat_buffer, TOKENIZER_CUSTOM_OPS)
    tokenizer = model.query_encoder.tokenizer
    card = {
        "format": LITERT_FORMAT,
        "name": model.name,
        "class": "StaticSparseEncoder",
        "keras_sentemb": __version__,
        "signature": "serving_default",
        "inputs": [{"name": "texts", "dtype": "string", "shape": [-1]}],
        "outputs": [
            {"name": "indices", "dtype": "int32", "shape": [-1, module.top], "padding": -1},
            {"name": "values", "dtype": "float32", "shape": [-1, module.top], "padding": 0.0},
        ],
        "embedding_dim": int(model.query_encoder.weight.shape[0]),
        "similarity": "dot product with the document side's sparse vectors",
        "precision": "float32",
        "prompt": resolved_prompt,
        "tokenizer": {
            "place": "inside",
            "kind": "wordpiece",
            "max_length": int(tokenizer.max_length),
            "vocabulary_size": len(tokenizer.vocabulary),
            "custom_ops": list(TOKENIZER_CUSTOM_OPS),
        },
    }
    flat_buffer = with_metadata(
        flat_buffer,
        METADATA_NAME,
        json.dumps(card, indent=1).encode("utf-8"),
        signature=("serving_default", ["texts"], ["indices", "values"]),
    )
    with atomic_open(path, "wb") as f:
        f.write(flat_buffer)
    return path
