"""SavedModels of sparse encoders (SPLADE), raw strings in, one (indices, values) list a text out.

`serving_default(texts)` → `{"indices": int64 [N, k], "values": float32 [N, k]}`: row i holds text i's active
vocabulary entries, largest weight first, k the most any text of the request has (at most `max_active_dims`),
shorter rows padded with index −1 and value 0. Dense [N, k] outputs are what TF Serving batches; a row's
(index, value) pairs with index ≥ 0 are `SparseEncoder.encode`'s CSR row.

- `export_sparse_encoder(model, path, side=…)`: the SPLADE transformer (either side; the side picks the prompt).
- `export_static_query_encoder(model, path)`: an inference-free model's query side (`StaticSparseEncoder`): the
  tokenizer and one weight a token in one graph, no transformer.

Both load with `tensorflow` + `import tensorflow_text`, like the other exports.
"""

import tensorflow as tf

from keras_sentemb.data.prompts import document_prompt, query_prompt, resolve_prompt
from keras_sentemb.export.pair_model_export import TEXTS_SPEC, save_module
from keras_sentemb.utils.graph_function import graph_function

SIDES = ("query", "document")


def padded_active_entries(weights, max_active_dims=None):
    """`(indices int64 [N, k], values float32 [N, k])` of dense weights [N, V]: each row's entries > 0, largest
    first, k the most any row has (at most `max_active_dims`), padded with (−1, 0).

    >>> indices, values = padded_active_entries(tf.constant([[0.0, 2.0, 1.0], [0.5, 0.0, 0.0]]))
    >>> indices.numpy().tolist(), values.numpy().tolist()
    ([[1, 2], [0, -1]], [[2.0, 1.0], [0.5, 0.0]])
    """
    active = tf.reduce_sum(tf.cast(weights > 0, tf.int32), axis=1)
    k = tf.reduce_max(tf.concat([active, [0]], axis=0))
    if max_active_dims is not None:
        k = tf.minimum(k, max_active_dims)
    values, indices = tf.math.top_k(weights, k=k)
    kept = values > 0
    return tf.where(kept, tf.cast(indices, tf.int64), tf.constant(-1, tf.int64)), tf.where(kept, values, 0.0)


class SparseEncoderModule(tf.Module):
    """Tokeniser (with the side's prompt) + SPLADE transformer, one graph."""

    def __init__(self, model, prompt, max_active_dims):
        super().__init__(name="keras_sentemb_sparse_encoder")
        object.__setattr__(self, "_model", model)  # its variables tracked below, not its Keras signatures
        self._tokenizer = model.tokenizer
        self._prompt = prompt or None
        self._max_active_dims = max_active_dims
        self.model_variables = list(model.variables)

    @graph_function(input_signature=[TEXTS_SPEC])
    def serve(self, texts):
        if self._prompt:
            texts = tf.strings.join([self._prompt, texts])
        inputs = self._tokenizer.pack(self._tokenizer.content_ids(texts))
        weights = tf.cast(self._model(inputs, training=False), tf.float32)
        indices, values = padded_active_entries(weights, self._max_active_dims)
        return {"indices": indices, "values": values}


class StaticQueryModule(tf.Module):
    """Inference-free SPLADE's query side: w(text)_t = weight[t] for each distinct token t of the text."""

    def __init__(self, query_encoder, prompt, max_active_dims):
        super().__init__(name="keras_sentemb_static_query_encoder")
        self._tokenizer = query_encoder.tokenizer
        self.weight = tf.Variable(query_encoder.weight, trainable=False, name="static_weight")
        self._prompt = prompt or None
        self._max_active_dims = max_active_dims

    @graph_function(input_signature=[TEXTS_SPEC])
    def serve(self, texts):
        if self._prompt:
            texts = tf.strings.join([self._prompt, texts])
        ids = tf.cast(self._tokenizer.content_ids(texts), tf.int64)
        return static_query_entries(ids, self.weight, self._max_active_dims)


def static_query_entries(ids, weight, max_active_dims=None):
    """`padded_active_entries` of w(text)_t = weight[t] (each distinct id once) for ragged token ids [N, (ids)]."""
    width = tf.cast(tf.shape(weight)[0], tf.int64)
    keys, _ = tf.unique(ids.value_rowids() * width + ids.flat_values)
    rows, columns = keys // width, keys % width
    dense = tf.scatter_nd(tf.stack([rows, columns], axis=1), tf.gather(weight, columns), tf.stack([ids.nrows(), width]))
    return dict(zip(("indices", "values"), padded_active_entries(dense, max_active_dims)))


def side_prompt(model, side, prompt_name, prompt):
    """The prompt a side gets: `prompt_name` / `prompt` when given, else the model's query or document prompt."""
    if side not in SIDES:
        raise ValueError(f"side {side!r}: one of {', '.join(SIDES)}")
    if prompt_name is not None or prompt is not None:
        return resolve_prompt(model.prompts, None, prompt_name, prompt)
    return (query_prompt if side == "query" else document_prompt)(model.prompts)


def export_sparse_encoder(
    model, path, version=1, overwrite=False, side="document", prompt_name=None, prompt=None, max_active_dims=None
):
    """Writes the SPLADE side of a `SparseEncoder` as a SavedModel at `path/<version>/` (atomically); returns it.
    `side` picks the prompt as `encode_query` / `encode_document` do (or `prompt_name` / `prompt`);
    `max_active_dims` caps k (default the model's own)."""
    if model.tokenizer is None:
        raise ValueError(f"{model.name} has no tokenizer, so it cannot take raw strings.")
    if side == "query" and model.query_encoder is not None:
        raise ValueError(f"{model.name} encodes queries without a transformer: export_static_query_encoder writes it")
    module = SparseEncoderModule(
        model, side_prompt(model, side, prompt_name, prompt), max_active_dims or model.max_active_dims
    )
    return save_module(module, {"serving_default": module.serve}, path, version, overwrite, None)


def export_static_query_encoder(model, path, version=1, overwrite=False, prompt_name=None, prompt=None):
    """Writes an inference-free `SparseEncoder`'s query side (tokenizer + static weights, no transformer) as a
    SavedModel at `path/<version>/` (atomically); returns it. Its vectors are `encode_query`'s."""
    if model.query_encoder is None:
        raise ValueError(f"{model.name} has no static query encoder (not an inference-free SPLADE model)")
    module = StaticQueryModule(
        model.query_encoder, side_prompt(model, "query", prompt_name, prompt), model.max_active_dims
    )
    return save_module(module, {"serving_default": module.serve}, path, version, overwrite, None)
