"""What every sentence encoder of the package does the same way: raw texts in, one vector per
text out, with smart batching (`encode`) and one traced embedding function (`embed_fn`)."""

import numpy as np
import tensorflow as tf
from tqdm.auto import tqdm

from keras_sentemb.data.smart_batching import default_length_buckets, plan_batches
from keras_sentemb.data.text_inputs import validate_texts

# `encode(progress=None)` shows a bar from this many texts on.
_PROGRESS_THRESHOLD = 2048


class TextEncoding:
    """Mixin (before `keras.Model`) for models mapping `{"token_ids", "padding_mask"}` to one
    vector per row, with their tokenizer in `self.tokenizer` (its `content_id_rows` and
    `max_length`). A model says how its tokenizer's rows are packed:

    - `packed_length(row)`: the tokens a content-id row takes once packed;
    - `pack_batch(rows, length)`: NumPy int32 `(token_ids, padding_mask)` [len(rows), length].
    """

    tokenizer_hint = "a tokenizer"

    @property
    def embedding_dim(self):
        """The number of features of one embedding."""
        return int(self.output.shape[-1])

    def _require_tokenizer(self):
        if self.tokenizer is None:
            raise ValueError(f"{self.name} has no tokenizer: pass tokenizer={self.tokenizer_hint} "
                             "to encode or export raw strings.")
        return self.tokenizer

    @property
    def length_buckets(self):
        """The padded lengths `encode` uses (see `smart_batching.default_length_buckets`)."""
        return default_length_buckets(self._require_tokenizer().max_length)

    def embed_fn(self):
        """The `tf.function` (token_ids, padding_mask) → float32 embeddings that `encode`
        calls. Its input signature is [None, None] int32, so it is traced exactly once,
        whatever the batch sizes and bucket lengths (see `experimental_get_tracing_count()`).
        """
        if getattr(self, "_embed_function", None) is None:
            spec = tf.TensorSpec([None, None], tf.int32)

            def embed(token_ids, padding_mask):
                inputs = {"token_ids": token_ids, "padding_mask": padding_mask}
                return tf.cast(self(inputs, training=False), tf.float32)

            # A cache, not state: set past Keras/TF tracking so it is never saved.
            object.__setattr__(self, "_embed_function",
                               tf.function(embed, input_signature=[spec, spec]))
        return self._embed_function

    def tokenize_to_rows(self, utf8_texts):
        """Content-id rows (NumPy int32, truncated) for a list of UTF-8 byte strings."""
        return self._require_tokenizer().content_id_rows(utf8_texts)

    def encode_texts(self, texts, batch_size, normalize, progress):
        """`encode`'s work: validate, tokenise, sort by packed length, batch `batch_size`
        texts padded to the smallest bucket that holds the longest, embed, and put the
        rows back in input order (L2-normalised with `normalize`). A single `str` gives
        one vector [d]; `[]` gives shape (0, d).

        Raises:
            TypeError / ValueError: a non-text element or invalid UTF-8 bytes (its index),
                or a `batch_size` that is not a positive int.
        """
        utf8_texts, single = validate_texts(texts)
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        self._require_tokenizer()
        embeddings = np.zeros((len(utf8_texts), self.embedding_dim), dtype=np.float32)
        if not utf8_texts:
            return embeddings
        rows = self.tokenize_to_rows(utf8_texts)
        lengths = np.array([self.packed_length(row) for row in rows], dtype=np.int64)
        embed = self.embed_fn()
        show = progress if progress is not None else len(utf8_texts) >= _PROGRESS_THRESHOLD
        with tqdm(total=len(utf8_texts), unit="sent", desc="encode", disable=not show) as bar:
            for batch in plan_batches(lengths, batch_size, self.length_buckets):
                token_ids, padding_mask = self.pack_batch([rows[i] for i in batch.indices],
                                                          batch.length)
                embeddings[batch.indices] = embed(token_ids, padding_mask).numpy()
                bar.update(len(batch.indices))
        if normalize:
            embeddings /= np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-12)
        return embeddings[0] if single else embeddings
