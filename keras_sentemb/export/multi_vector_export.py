"""SavedModels of multi-vector (ColBERT) encoders, one a side: raw strings in, each text's token vectors out.

`serving_default(texts)` → `{"vectors": float32 [N, T, dim], "token_counts": int64 [N]}`: row i's first
`token_counts[i]` vectors are text i's scored token vectors (`MultiVectorEncoder.encode_query` /
`encode_document`), the rest zeros — dense outputs, which TF Serving batches and its REST API returns, in place
of a ragged tensor. The query side keeps the marker, the expansion fillers and their attention as the model has
them (what vLLM's ColBERT serving cannot return); the document side of a model of a family runs unpadded (the
backbone on the real tokens only, `MultiVectorEncoder.embed_unpadded`).

Loads with `tensorflow` + `import tensorflow_text`, like the other exports.

Example:
(Not run as a doctest: it writes SavedModels; tests/export/test_multi_vector_export.py runs the same calls.)
    export_multi_vector_encoder(model, "out/colbert-query", side="query")
    served = tf.saved_model.load("out/colbert-query/1").signatures["serving_default"]
    served(tf.constant(["a cat"]))["vectors"]        # float32 [1, 32, 128]
"""

import tensorflow as tf

from keras_sentemb.export.pair_model_export import TEXTS_SPEC, save_module
from keras_sentemb.export.sparse_model_export import side_prompt
from keras_sentemb.models.family_inference import read_projection_variables
from keras_sentemb.utils.graph_function import graph_function


class MultiVectorModule(tf.Module):
    """Tokeniser (with the side's prompt) + `MultiVectorEncoder.pack_content` + the encoder, one graph."""

    def __init__(self, model, side, prompt):
        super().__init__(name="keras_sentemb_multi_vector_encoder")
        object.__setattr__(self, "_model", model)  # its variables tracked below, not its Keras signatures
        self._tokenizer = model.tokenizer
        self._side = side
        self._prompt = prompt or None
        self.model_variables = list(model.variables)
        expansion = model.query_expansion if side == "query" else None
        # Unpadded when every packed token is attended: documents, and queries whose fillers are attended.
        self._unpadded = model.supports_unpadded() and (expansion is None or expansion["attend"])
        if self._unpadded:
            self.merged_projections = model.merged_projection_variables()

    @graph_function(input_signature=[TEXTS_SPEC])
    def serve(self, texts):
        if self._prompt:
            texts = tf.strings.join([self._prompt, texts])
        token_ids, attention, scored = self._model.pack_content(self._tokenizer.content_ids(texts), self._side)
        if self._unpadded:
            sequences = tf.RaggedTensor.from_tensor(token_ids, lengths=tf.reduce_sum(attention, axis=1))
            flat = self._model.embed_unpadded(sequences, read_projection_variables(self.merged_projections))
            kept = tf.boolean_mask(scored, attention > 0)
            rows = tf.RaggedTensor.from_value_rowids(
                tf.boolean_mask(flat, kept), tf.boolean_mask(sequences.value_rowids(), kept), nrows=sequences.nrows()
            )
        else:
            vectors = tf.cast(
                self._model({"token_ids": token_ids, "padding_mask": attention}, training=False), tf.float32
            )
            rows = tf.ragged.boolean_mask(vectors, scored)
        return {"vectors": rows.to_tensor(default_value=0.0), "token_counts": rows.row_lengths()}


def export_multi_vector_encoder(
    model, path, version=1, overwrite=False, side="document", prompt_name=None, prompt=None
):
    """Writes one side of a `MultiVectorEncoder` as a SavedModel at `path/<version>/` (atomically); returns it.
    `side` ("query" | "document") picks the limit, fillers, skip-list and the marker prompt as `encode_query` /
    `encode_document` do (`prompt_name` / `prompt` replace the prompt). `overwrite` replaces only a folder this
    package wrote."""
    if model.tokenizer is None:
        raise ValueError(f"{model.name} has no tokenizer, so it cannot take raw strings.")
    module = MultiVectorModule(model, side, side_prompt(model, side, prompt_name, prompt))
    return save_module(module, {"serving_default": module.serve}, path, version, overwrite, None)
