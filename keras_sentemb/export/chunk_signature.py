"""InGraphChunking: the windows of `encode(texts, chunking=…)`, cut in TF ops for the SavedModel's
`chunks` signature (TensorFlow and TF Text only), naive or late.

A text (the prompt in front) is tokenised untruncated; its word pieces after the prompt's are cut into
windows of `size` pieces starting every `size − overlap` (`chunking.token_windows` without sentence
ends). Naive chunks run through the model as `[CLS] prompt window [SEP]`. Late chunks read token
states from context windows of `context` pieces (`chunking.context_windows`): window 0 covers pieces
[0, C), window j ≥ 1 starts at j·(C − ω) and lends its states from j·(C − ω) + ω on, so piece t is
read from window 0 when t < C and from window ⌊(t − ω) / (C − ω)⌋ otherwise; a chunk's vector is
the mean of its pieces' states through the model's head. Sentence ends need character offsets,
which the graph's tokenizers do not keep: `encode` only.
"""

import tensorflow as tf

from keras_sentemb.chunking.chunking import Chunking


class InGraphChunking:
    """A `Chunking` checked against a model at export time, and its windows in TF ops.

    Args:
        encoder: a `SentenceEncoder` (late chunking needs its `token_states_fn` and `head_fn`).
        prompt: the prompt the graph puts in front of every text (it ends at a word boundary,
            as "query: " does), or None.
        chunking: a `Chunking` without sentence ends.
    """

    def __init__(self, encoder, prompt, chunking):
        if not isinstance(chunking, Chunking):
            raise TypeError(f"chunking must be a Chunking, got {type(chunking).__name__}")
        if chunking.sentences:
            raise ValueError(
                "the SavedModel's chunks signature cuts windows of word pieces; sentence ends are encode's "
                "(they need character offsets): Chunking(sentences=False) here"
            )
        tokenizer = encoder.tokenizer
        if not callable(getattr(tokenizer, "content_ids_with_offsets", None)):
            raise TypeError(f"chunking needs a word-piece tokenizer; {type(tokenizer).__name__} is none")
        self.encoder, self.tokenizer, self.late = encoder, tokenizer, chunking.late
        self.prompt_pieces = 0
        if prompt:
            # the prompt's pieces at the head of `prompt + text`
            ((_, offsets),) = tokenizer.content_ids_with_offsets([prompt + "x"])
            self.prompt_pieces = int((offsets[:, 1] <= len(prompt)).sum())
        if self.late:
            positions = int(getattr(encoder.backbone, "max_sequence_length", tokenizer.max_length))
            context = chunking.context or positions - 2
            if context > positions - 2:
                raise ValueError(
                    f"late chunking context {context} exceeds this backbone's {positions - 2} content positions"
                )
            self.context = context - self.prompt_pieces
            self.context_overlap = (
                chunking.context_overlap if chunking.context_overlap is not None else self.context // 8
            )
            self.size = chunking.window_size(self.context)
            self.states_fn, self.head_fn = encoder.token_states_fn(), encoder.head_fn()
            self.width = int(encoder.get_layer("pooler").output.shape[-1])  # the pooled layers' features
        else:
            self.size = chunking.window_size(tokenizer.content_limit - self.prompt_pieces)
        self.overlap = chunking.overlap

    def windows(self, texts):
        """(prompt ids [N, (P)], content ids [N, (L)], document [C], start [C], end [C]) of prompted texts."""
        ids = self.tokenizer.tokenize(texts)
        prompt_ids, content = ids[:, : self.prompt_pieces], ids[:, self.prompt_pieces :]
        lengths = content.row_lengths()
        document, start = _windows(lengths, self.size, self.size - self.overlap)
        return prompt_ids, content, document, start, tf.minimum(start + self.size, tf.gather(lengths, document))

    def naive_rows(self, prompt_ids, content, document, start, end):
        """Each chunk's model input without its special tokens: prompt ids, then its window."""
        return tf.concat([tf.gather(prompt_ids, document), _pieces(content, document, start, end)], axis=1)

    def late_vectors(self, prompt_ids, content, document, start, end, batch_size):
        """Each chunk's vector [C, d] (before normalisation): the mean of its pieces' token states read
        from the context windows, through the model's head. A chunk without pieces (an empty text)
        is NaN here; the signature gives it the text's own vector."""
        lengths = content.row_lengths()
        step = self.context - self.context_overlap
        window_document, window_start = _windows(lengths, self.context, step)
        window_end = tf.minimum(window_start + self.context, tf.gather(lengths, window_document))
        rows = tf.concat(
            [tf.gather(prompt_ids, window_document), _pieces(content, window_document, window_start, window_end)],
            axis=1,
        )
        states = self._token_states(rows, batch_size)  # [R, T, H]
        # every piece of every text: its window and its place in that window's row
        piece_document = tf.repeat(tf.range(tf.size(lengths, out_type=tf.int64)), lengths)
        piece = tf.ragged.range(lengths).flat_values
        window = tf.where(piece < self.context, tf.zeros_like(piece), (piece - self.context_overlap) // step)
        per_text = tf.math.bincount(tf.cast(window_document, tf.int32), minlength=tf.size(lengths), dtype=tf.int64)
        windows_before = tf.concat([tf.zeros([1], tf.int64), tf.cumsum(per_text)], 0)
        row = tf.gather(windows_before, piece_document) + window
        position = 1 + self.prompt_pieces + piece - tf.gather(window_start, row)
        piece_states = tf.gather_nd(states, tf.stack([row, position], axis=1))  # [pieces, H]
        first = tf.gather(content.row_splits, document) + start
        chunk_states = tf.gather(piece_states, tf.ragged.range(first, first + end - start))
        return tf.cast(self.head_fn(tf.reduce_mean(chunk_states, axis=1)), tf.float32)

    def _token_states(self, rows, batch_size):
        """The token states [R, T, H] of `[CLS] row [SEP]` for each row, T the longest row + 2,
        run `batch_size` rows at a time."""
        packed = self.tokenizer.pack(rows)
        count = tf.shape(packed["token_ids"])[0]

        def step(start, outputs):
            piece = {name: value[start : start + batch_size] for name, value in packed.items()}
            states = self.states_fn(piece["token_ids"], piece["padding_mask"])
            return start + batch_size, outputs.write(start // batch_size, states)

        outputs = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
        _, outputs = tf.while_loop(lambda start, _: start < count, step, [tf.constant(0), outputs])
        return tf.ensure_shape(outputs.concat(), [None, None, self.width])


def _windows(lengths, size, step):
    """(document, start) int64 [C] of the windows of `size` every `step` over texts of `lengths`
    pieces: a text of L ≤ size pieces (an empty one too) has one window, a longer one
    ⌈(L − size) / step⌉ + 1."""
    count = tf.where(lengths <= size, tf.ones_like(lengths), (lengths - size + step - 1) // step + 1)
    document = tf.repeat(tf.range(tf.size(lengths, out_type=tf.int64)), count)
    return document, tf.ragged.range(count).flat_values * step


def _pieces(content, document, start, end):
    """The content ids [C, (end − start)] of each window."""
    first = tf.gather(content.row_splits, document) + start
    return tf.gather(content.flat_values, tf.ragged.range(first, first + end - start))
