"""SequencePacking: what every sentence tokenizer of the project does with its content ids — truncate,
add the model's start and end tokens, pad — in-graph, whatever turns text into ids."""

import tensorflow as tf


class SequencePacking:
    """A mixin for a keras-hub tokenizer with `cls_token_id`, `sep_token_id`, `pad_token_id`,
    `max_length` and `_content_ids_graph(texts)` (1-D strings → ragged ids, at most `max_length - 2`
    a row). It gives `content_ids` (eager or in-graph), `add_special_tokens` and `pack`, the calls
    `SentenceEncoder`, its SavedModel and its tf.data pipelines make."""

    # A vocabulary (30,527 strings for MPNet) or merge list set as a Keras layer attribute is wrapped
    # and tracked element by element: 0.7 s of every model load on 2 cores, for plain strings that
    # hold no weights and are saved as assets. They are set as plain Python attributes.
    UNTRACKED_ATTRIBUTES = frozenset({"vocabulary", "merges", "_token_to_id_map", "_id_to_token_map"})

    def __setattr__(self, name, value):
        if name in self.UNTRACKED_ATTRIBUTES and isinstance(value, (list, tuple, dict)):
            object.__setattr__(self, name, value)
        else:
            super().__setattr__(name, value)

    # Tokenising has no tensor-dependent Python control flow, so AutoGraph is skipped: converting
    # TF Text's code cost seconds per trace (in tf.data maps, serving signatures and the first
    # `encode`), 4-9 s each on 2 cores.
    @tf.autograph.experimental.do_not_convert
    def content_ids(self, texts):
        """Token ids of each text of a 1-D string tensor: a `tf.RaggedTensor` [batch, (ids)] without
        special tokens, at most `max_length - 2` ids a row (the end of a long text is dropped, as
        sentence-transformers truncates).

        Runs the TF graph both eagerly and inside `tf.function`/`tf.data`.
        """
        texts = tf.convert_to_tensor(texts, dtype=tf.string)
        if texts.shape.rank != 1:
            raise ValueError(f"content_ids expects a 1-D string tensor, got shape {texts.shape}")
        if not tf.executing_eagerly():
            return self._content_ids_graph(texts)
        compiled = getattr(self, "_compiled_content_ids", None)
        if compiled is None:
            compiled = tf.function(
                self._content_ids_graph,
                input_signature=[tf.TensorSpec([None], tf.string)],
                autograph=False,
            )
            # Not tracked: a cache, not state to save with the layer.
            object.__setattr__(self, "_compiled_content_ids", compiled)
        return compiled(texts)

    def add_special_tokens(self, content_ids):
        """`cls ids sep` for each row of a `tf.RaggedTensor` of content ids (ragged)."""
        rows = content_ids.nrows()
        cls = tf.fill([rows, 1], tf.cast(self.cls_token_id, content_ids.dtype))
        sep = tf.fill([rows, 1], tf.cast(self.sep_token_id, content_ids.dtype))
        return tf.concat(
            [tf.RaggedTensor.from_tensor(cls), content_ids, tf.RaggedTensor.from_tensor(sep)],
            axis=1,
        )

    def pack(self, content_ids):
        """`{"token_ids", "padding_mask"}` int32 [batch, T]: `cls ids sep pad…`."""
        packed = self.add_special_tokens(content_ids)
        token_ids = packed.to_tensor(default_value=self.pad_token_id)
        padding_mask = tf.sequence_mask(packed.row_lengths(), maxlen=tf.shape(token_ids)[1], dtype=tf.int32)
        return {"token_ids": tf.cast(token_ids, tf.int32), "padding_mask": padding_mask}
