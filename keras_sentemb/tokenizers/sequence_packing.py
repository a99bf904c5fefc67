"""SequencePacking: what every sentence tokenizer of the project does with its content ids — truncate,
add the model's start and end tokens, pad — in-graph, whatever turns text into ids."""

import tensorflow as tf

from keras_sentemb.utils.graph_function import graph_function


class SequencePacking:
    """A mixin for a keras-hub tokenizer with `cls_token_id`, `sep_token_id`, `pad_token_id`,
    `max_length` and `_content_ids_graph(texts)` (1-D strings → ragged ids, at most `content_limit`
    a row). It gives `content_ids` (eager or in-graph), `add_special_tokens` and `pack`, the calls
    `SentenceEncoder`, its SavedModel and its tf.data pipelines make.

    A text is packed as `start_ids content end_ids`: `[cls] … [sep]` unless the tokenizer sets
    `start_tokens` / `end_tokens` (its `tokenizer.json` template: Qwen3 appends `<|endoftext|>` only),
    padded on its `padding_side` ("right", or "left" as Qwen3-Embedding's tokenizer pads)."""

    start_tokens = None  # None: (cls_token,)
    end_tokens = None  # None: (sep_token,)
    padding_side = "right"

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
            compiled = graph_function(self._content_ids_graph, input_signature=[tf.TensorSpec([None], tf.string)])
            # Not tracked: a cache, not state to save with the layer.
            object.__setattr__(self, "_compiled_content_ids", compiled)
        return compiled(texts)

    @property
    def start_ids(self):
        """The ids in front of every text's content ids (`(cls_token_id,)` by default)."""
        if self.start_tokens is None:
            return (int(self.cls_token_id),)
        return tuple(int(self.token_to_id(token)) for token in self.start_tokens)

    @property
    def end_ids(self):
        """The ids after every text's content ids (`(sep_token_id,)` by default)."""
        if self.end_tokens is None:
            return (int(self.sep_token_id),)
        return tuple(int(self.token_to_id(token)) for token in self.end_tokens)

    @property
    def special_token_count(self):
        """Special tokens a packed text carries (2 for `cls … sep`)."""
        return len(self.start_ids) + len(self.end_ids)

    @property
    def content_limit(self):
        """The most content ids a packed text keeps: `max_length` less its special tokens."""
        return self.max_length - self.special_token_count

    def add_special_tokens(self, content_ids):
        """`start ids end` (`cls ids sep`) for each row of a `tf.RaggedTensor` of content ids (ragged)."""
        rows = content_ids.nrows()
        parts = []
        for ids in (self.start_ids, None, self.end_ids):
            if ids is None:
                parts.append(content_ids)
            elif ids:
                fixed = tf.tile(tf.constant([ids], content_ids.dtype), tf.stack([rows, tf.ones_like(rows)]))
                parts.append(tf.RaggedTensor.from_tensor(fixed))
        return tf.concat(parts, axis=1) if len(parts) > 1 else content_ids

    def pack(self, content_ids):
        """`{"token_ids", "padding_mask"}` int32 [batch, T]: `cls ids sep pad…` (or `pad… ids end` on the left)."""
        packed = self.add_special_tokens(content_ids)
        if self.padding_side == "left":
            reversed_rows = tf.reverse(packed, axis=[1])
            token_ids = tf.reverse(reversed_rows.to_tensor(default_value=self.pad_token_id), axis=[1])
            width = tf.shape(token_ids)[1]
            padding_mask = tf.reverse(tf.sequence_mask(packed.row_lengths(), maxlen=width, dtype=tf.int32), axis=[1])
        else:
            token_ids = packed.to_tensor(default_value=self.pad_token_id)
            padding_mask = tf.sequence_mask(packed.row_lengths(), maxlen=tf.shape(token_ids)[1], dtype=tf.int32)
        return {"token_ids": tf.cast(token_ids, tf.int32), "padding_mask": padding_mask}
