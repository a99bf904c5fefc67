"""SavedModels of multi-vector (ColBERT) encoders: raw strings in, each text's token vectors out, a side a signature.

Each side's signature (`texts`) → `{"vectors": float32 [N, T, dim], "token_counts": int64 [N]}`: row i's first
`token_counts[i]` vectors are text i's scored token vectors (`MultiVectorEncoder.encode_query` /
`encode_document`), the rest zeros — dense outputs, which TF Serving batches and its REST API returns, in place
of a ragged tensor. The query side keeps the marker, the expansion fillers and their attention as the model has
them (what vLLM's ColBERT serving cannot return); the document side of a model of a family runs unpadded (the
backbone on the real tokens only, `MultiVectorEncoder.embed_unpadded`).

| `side`                | signatures                                                                   |
|-----------------------|------------------------------------------------------------------------------|
| "both" (the default)  | `query`, `document`, and `serving_default` = `document` (TF Serving's own)  |
| "query" / "document"  | `serving_default` = that side                                                |

With both sides in one SavedModel a TF Serving client names the side as `signature_name` (one served model,
as `/embed_all` names it with `side`). Loads with `tensorflow` + `import tensorflow_text`, like the other exports.

Example:
(Not run as a doctest: it writes SavedModels; tests/export/test_multi_vector_export.py runs the same calls.)
    export_multi_vector_encoder(model, "out/colbert")
    served = tf.saved_model.load("out/colbert/1").signatures["query"]
    served(tf.constant(["a cat"]))["vectors"]        # float32 [1, 32, 128]
"""

import tensorflow as tf

from keras_sentemb.export.pair_model_export import TEXTS_SPEC, save_module
from keras_sentemb.export.sparse_model_export import SIDES, side_prompt
from keras_sentemb.models.family_inference import read_projection_variables
from keras_sentemb.utils.graph_function import graph_function

BOTH_SIDES = "both"


class MultiVectorModule(tf.Module):
    """Tokeniser (with each side's prompt) + `MultiVectorEncoder.pack_content` + the encoder, one graph a side.

    `prompts` maps each exported side ("query", "document") to its prompt (or None)."""

    def __init__(self, model, prompts):
        super().__init__(name="keras_sentemb_multi_vector_encoder")
        object.__setattr__(self, "_model", model)  # its variables tracked below, not its Keras signatures
        self._tokenizer = model.tokenizer
        self._prompts = {side: prompt or None for side, prompt in prompts.items()}
        self.model_variables = list(model.variables)
        # A side runs unpadded when every packed token is attended: documents, and queries whose fillers are.
        expansion = model.query_expansion
        self._unpadded = {
            side: model.supports_unpadded() and (side == "document" or expansion is None or expansion["attend"])
            for side in prompts
        }
        if any(self._unpadded.values()):
            self.merged_projections = model.merged_projection_variables()
        # one traced function a side exported (the SavedModel traces every function the module holds)
        self.serve_sides = {side: self._side_function(side) for side in prompts}

    def _side_function(self, side):
        return graph_function(lambda texts: self._serve(texts, side), input_signature=[TEXTS_SPEC])

    def signatures(self):
        """`{signature name: function}`: see the module's table."""
        if len(self.serve_sides) == 1:
            return {"serving_default": next(iter(self.serve_sides.values()))}
        return {"serving_default": self.serve_sides["document"], **self.serve_sides}

    def _serve(self, texts, side):
        prompt = self._prompts[side]
        if prompt:
            texts = tf.strings.join([prompt, texts])
        token_ids, attention, scored = self._model.pack_content(self._tokenizer.content_ids(texts), side)
        if self._unpadded[side]:
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
    model, path, version=1, overwrite=False, side=BOTH_SIDES, prompt_name=None, prompt=None, warmup_name=None
):
    """Writes a `MultiVectorEncoder` as a SavedModel at `path/<version>/` (atomically); returns it.

    `side` "both" (the default) exports the `query` and `document` signatures (`serving_default` = documents);
    "query" or "document" exports that side alone as `serving_default`. Each side gets the limit, fillers,
    skip-list and marker prompt as `encode_query` / `encode_document`; `prompt_name` / `prompt` replace the prompt
    of a single exported side. `warmup_name` also writes TF Serving warmup requests (a request a signature) for
    that served model name. `overwrite` replaces only a folder this package wrote."""
    if model.tokenizer is None:
        raise ValueError(f"{model.name} has no tokenizer, so it cannot take raw strings.")
    if side == BOTH_SIDES:
        if prompt_name is not None or prompt is not None:
            raise ValueError("prompt_name / prompt replace one side's prompt: export that side alone (side=...)")
        prompts = {name: side_prompt(model, name, None, None) for name in SIDES}
    else:
        if side not in SIDES:
            raise ValueError(f"side {side!r}: one of {', '.join((*SIDES, BOTH_SIDES))}")
        prompts = {side: side_prompt(model, side, prompt_name, prompt)}
    module = MultiVectorModule(model, prompts)
    return save_module(module, module.signatures(), path, version, overwrite, warmup_name)
