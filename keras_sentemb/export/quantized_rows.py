"""QuantizedRows: a [V, d] float table stored at 8 or 4 bits with one float scale a row
(`utils.row_quantization`, the zoo's "int8-rows" / "int4-rows"), read back row by row in LiteRT builtin ops."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from keras_sentemb.utils.row_quantization import quantize_rows


class QuantizedRows:
    """A table T [V, d] as integer codes q and a scale s_i a row (`quantize_rows`), T[i] ≈ s_i · q[i], with
    s_i = max_j |T[i, j]| / q_max (q_max = 127 for "int8-rows", 7 for "int4-rows"; the row's largest value
    exact). "int4-rows" packs two codes a byte, low nibble first: T[i, 2j] ≈ s_i · ((q[i, j] mod 16) − 8),
    T[i, 2j+1] ≈ s_i · (⌊q[i, j] / 16⌋ − 8).

    A scale a row, not one for the table: TF Lite's dynamic-range quantisation gives a gathered table a
    single scale, which costs all-mpnet-base-v2 its vectors (cosine 0.984 to float32 on STS-B sentences).
    A 4-bit row costs d/2 + 4 bytes: the static tier's 30,522 × 384 table is 6.0 MB instead of 46.9 MB.

    `gather(ids)` (any int shape) returns float32 rows [*ids.shape, d] in ops that LiteRT runs as builtins
    (GATHER, CAST, MUL; FLOOR_MOD, FLOOR_DIV and RESHAPE for 4 bits).

    Example:
    >>> rows = QuantizedRows(np.array([[7.0, -3.5, 0.0, 1.0]], dtype="float32"), "int4-rows")
    >>> rows.gather(tf.constant([0])).numpy().tolist()
    [[7.0, -4.0, 0.0, 1.0]]
    """

    def __init__(self, table, encoding="int8-rows"):
        table = np.asarray(table, dtype=np.float32)
        if encoding not in ("int8-rows", "int4-rows"):
            raise ValueError(f'QuantizedRows reads "int8-rows" or "int4-rows" tables, got {encoding!r}')
        if table.ndim != 2 or (encoding == "int4-rows" and table.shape[1] % 2):
            raise ValueError(f"QuantizedRows takes a [V, d] table (d even for int4-rows), got shape {table.shape}")
        codes, scales = quantize_rows(table, encoding)
        self.encoding = encoding
        self.width = table.shape[1]
        self.codes = tf.constant(codes)
        self.scales = tf.constant(scales)

    def gather(self, ids):
        codes = tf.cast(tf.gather(self.codes, ids), tf.int32)
        if self.encoding == "int4-rows":
            codes = tf.stack([tf.math.floormod(codes, 16), tf.math.floordiv(codes, 16)], axis=-1)
            codes = tf.reshape(codes, tf.concat([tf.shape(ids), [self.width]], axis=0)) - 8
        return tf.cast(codes, tf.float32) * tf.expand_dims(tf.gather(self.scales, ids), -1)
