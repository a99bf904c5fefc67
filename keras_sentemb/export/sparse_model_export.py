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
from keras_sentemb.models.family_inference import read_projection_variables
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
    """Tokeniser (with the side's prompt) + SPLADE transformer, one graph.

    A request's texts are sorted longest first and run `chunk_size` at a time; each chunk keeps only its rows'
    active entries (their top k) before the next one runs, so a request of any size holds at most one chunk's
    activations and [chunk_size, vocabulary] weights, never [texts, tokens, vocabulary]. A model of a family
    (`supports_unpadded()`) runs a chunk without padding (`SparseEncoder.embed_unpadded`: the backbone on the real
    tokens, the masked-LM head a chunk of tokens at a time); any other pads a chunk to its longest text."""

    def __init__(self, model, prompt, max_active_dims, chunk_size=32):
        super().__init__(name="keras_sentemb_sparse_encoder")
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
        object.__setattr__(self, "_model", model)  # its variables tracked below, not its Keras signatures
        self._tokenizer = model.tokenizer
        self._prompt = prompt or None
        self._max_active_dims = max_active_dims
        self._chunk_size = chunk_size
        self.model_variables = list(model.variables)
        self._unpadded = model.supports_unpadded()
        if self._unpadded:
            self.merged_projections = model.merged_projection_variables()

    def _weights(self, content):
        """float32 [n, vocabulary] of one chunk's content ids [n, (ids)]."""
        if self._unpadded:
            projections = read_projection_variables(self.merged_projections)
            return self._model.embed_unpadded(self._tokenizer.add_special_tokens(content), projections)
        return tf.cast(self._model(self._tokenizer.pack(content), training=False), tf.float32)

    @graph_function(input_signature=[TEXTS_SPEC])
    def serve(self, texts):
        if self._prompt:
            texts = tf.strings.join([self._prompt, texts])
        content = self._tokenizer.content_ids(texts)
        order = tf.argsort(content.row_lengths(), direction="DESCENDING", stable=True)
        by_length = tf.gather(content, order)
        count = tf.shape(order)[0]
        entries = [
            tf.TensorArray(dtype, size=0, dynamic_size=True, infer_shape=False, element_shape=[None])
            for dtype in ENTRY_DTYPES
        ]

        def run_chunk(index, start, rows, indices, values):
            size = tf.minimum(self._chunk_size, count - start)
            chunk_indices, chunk_values = padded_active_entries(
                self._weights(by_length[start : start + size]), self._max_active_dims
            )
            kept = chunk_indices >= 0
            chunk_rows = tf.broadcast_to(tf.gather(order, tf.range(start, start + size))[:, None], tf.shape(kept))
            return (
                index + 1,
                start + size,
                rows.write(index, tf.cast(tf.boolean_mask(chunk_rows, kept), tf.int64)),
                indices.write(index, tf.boolean_mask(chunk_indices, kept)),
                values.write(index, tf.boolean_mask(chunk_values, kept)),
            )

        _, _, rows, indices, values = tf.while_loop(
            lambda index, start, *_: start < count, run_chunk, [tf.constant(0), tf.constant(0), *entries]
        )
        return request_rows(rows.concat(), indices.concat(), values.concat(), count)


ENTRY_DTYPES = (tf.int64, tf.int64, tf.float32)


def request_rows(rows, indices, values, count):
    """`{"indices", "values"}` [count, k] of active entries (row, index, value) listed chunk by chunk, each row's
    entries together and largest first: rows in request order, k the most any row has, padded with (−1, 0).

    >>> out = request_rows(tf.constant([1, 0, 0], tf.int64), tf.constant([4, 2, 3], tf.int64), tf.constant([1.0, 5.0, 2.0]), 3)
    >>> out["indices"].numpy().tolist(), out["values"].numpy().tolist()
    ([[2, 3], [4, -1], [-1, -1]], [[5.0, 2.0], [1.0, 0.0], [0.0, 0.0]])
    """
    by_row = tf.argsort(rows, stable=True)  # a row's entries keep their order (largest first)
    rows = tf.gather(rows, by_row)
    nrows = tf.cast(count, tf.int64)
    ragged = [tf.RaggedTensor.from_value_rowids(tf.gather(t, by_row), rows, nrows=nrows) for t in (indices, values)]
    return {"indices": ragged[0].to_tensor(default_value=-1), "values": ragged[1].to_tensor(default_value=0.0)}


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
    model,
    path,
    version=1,
    overwrite=False,
    side="document",
    prompt_name=None,
    prompt=None,
    max_active_dims=None,
    chunk_size=32,
    warmup_name=None,
):
    """Writes the SPLADE side of a `SparseEncoder` as a SavedModel at `path/<version>/` (atomically); returns it.
    `side` picks the prompt as `encode_query` / `encode_document` do (or `prompt_name` / `prompt`);
    `max_active_dims` caps k (default the model's own); a request runs `chunk_size` texts at a time
    (`SparseEncoderModule`). `warmup_name` also writes a TF Serving warmup request for that served model name."""
    if model.tokenizer is None:
        raise ValueError(f"{model.name} has no tokenizer, so it cannot take raw strings.")
    if side == "query" and model.query_encoder is not None:
        raise ValueError(f"{model.name} encodes queries without a transformer: export_static_query_encoder writes it")
    module = SparseEncoderModule(
        model, side_prompt(model, side, prompt_name, prompt), max_active_dims or model.max_active_dims, chunk_size
    )
    return save_module(module, {"serving_default": module.serve}, path, version, overwrite, warmup_name)


def export_static_query_encoder(model, path, version=1, overwrite=False, prompt_name=None, prompt=None):
    """Writes an inference-free `SparseEncoder`'s query side (tokenizer + static weights, no transformer) as a
    SavedModel at `path/<version>/` (atomically); returns it. Its vectors are `encode_query`'s."""
    if model.query_encoder is None:
        raise ValueError(f"{model.name} has no static query encoder (not an inference-free SPLADE model)")
    module = StaticQueryModule(
        model.query_encoder, side_prompt(model, "query", prompt_name, prompt), model.max_active_dims
    )
    return save_module(module, {"serving_default": module.serve}, path, version, overwrite, None)
