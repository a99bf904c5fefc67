"""Symmetric per-row quantisation of a float matrix [n, d] (a token or word table) to 8, 6 or 4 bits.

Each row r gets one float32 scale s_r = max_j |x_rj| / q_max, with q_max = 127 (int8), 31 (int6) or
7 (int4), and values q_rj = round(x_rj / s_r) in [-q_max, q_max]; so x_rj ≈ q_rj · s_r within s_r / 2.
Int4 values are stored two to a byte (q + 8 in each nibble, low nibble first), so a 4-bit table
takes d / 2 bytes a row plus its 4-byte scale. Int6 values are stored as the 6-bit codes q + 32,
one after the other, most significant bit first (`np.packbits` order): four values in three bytes, a row
ceil(6d / 8) bytes plus its scale.

    >>> x = np.array([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0]], np.float32)
    >>> values, scales = quantize_rows(x, "int4-rows")
    >>> values.dtype, values.shape, scales.tolist()
    (dtype('uint8'), (2, 2), [0.1428571492433548, 0.0])
    >>> dequantize_rows(values, scales, "int4-rows", columns=3).astype(float).round(3).tolist()
    [[0.429, -1.0, 0.286], [0.0, 0.0, 0.0]]
    >>> values, scales = quantize_rows(x, "int6-rows")
    >>> values.shape, dequantize_rows(values, scales, "int6-rows", columns=3).astype(float).round(3).tolist()
    ((2, 3), [[0.516, -1.0, 0.258], [0.0, 0.0, 0.0]])
"""

import numpy as np

ROW_ENCODINGS = {"int8-rows": 127, "int6-rows": 31, "int4-rows": 7}


def _levels(encoding):
    if encoding not in ROW_ENCODINGS:
        raise ValueError(f"encoding must be one of {sorted(ROW_ENCODINGS)}, got {encoding!r}")
    return ROW_ENCODINGS[encoding]


def quantize_rows(matrix, encoding="int8-rows"):
    """(values, float32 scale per row) of `matrix` [n, d]: int8 [n, d] for "int8-rows", the packed
    6-bit codes, uint8 [n, ceil(6d / 8)], for "int6-rows", two 4-bit values a byte, uint8
    [n, ceil(d / 2)], for "int4-rows"."""
    levels = _levels(encoding)
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"quantize_rows takes a matrix [n, d], got shape {matrix.shape}")
    scales = (np.abs(matrix).max(axis=1) / levels).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0)[:, None]
    quantized = np.clip(np.rint(matrix / safe), -levels, levels).astype(np.int8)
    if encoding == "int8-rows":
        return quantized, scales
    if encoding == "int6-rows":
        return _pack_int6(quantized + levels + 1), scales  # codes 1 … 63
    if quantized.shape[1] % 2:
        quantized = np.pad(quantized, ((0, 0), (0, 1)))
    nibbles = (quantized + 8).astype(np.uint8)
    return (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).astype(np.uint8), scales


def _stored_width(columns, encoding):
    """Bytes a row of `columns` values takes: ceil(b · columns / 8), with b = log2(q_max + 1) + 1 bits."""
    return -(-columns * (_levels(encoding) + 1).bit_length() // 8)


def _pack_int6(codes):
    """uint8 [n, ceil(6d / 8)]: the 6-bit `codes` [n, d], four in each 24-bit big-endian group."""
    rows, width = codes.shape
    groups = np.zeros((rows, -(-width // 4) * 4), np.uint32)
    groups[:, :width] = codes
    groups = groups.reshape(rows, -1, 4)
    word = (groups[..., 0] << 18) | (groups[..., 1] << 12) | (groups[..., 2] << 6) | groups[..., 3]
    packed = np.stack([word >> 16, (word >> 8) & 0xFF, word & 0xFF], axis=-1).astype(np.uint8)
    return packed.reshape(rows, -1)[:, : _stored_width(width, "int6-rows")]


def _unpack_int6(values, width):
    """The 6-bit codes [n, width] that `_pack_int6` packed into `values`."""
    rows = len(values)
    padded = np.zeros((rows, -(-width // 4) * 3), np.uint32)
    padded[:, : values.shape[1]] = values
    padded = padded.reshape(rows, -1, 3)
    word = (padded[..., 0] << 16) | (padded[..., 1] << 8) | padded[..., 2]
    codes = np.stack([word >> 18, (word >> 12) & 63, (word >> 6) & 63, word & 63], axis=-1)
    return codes.reshape(rows, -1)[:, :width]


def dequantize_rows(values, scales, encoding="int8-rows", columns=None):
    """The float32 matrix [n, columns] that `quantize_rows` encoded (`columns` is needed for int4,
    where an odd width was padded by one value, and for int6, whose last byte may hold padding)."""
    levels = _levels(encoding)
    values = np.asarray(values)
    if columns is not None and (values.ndim != 2 or values.shape[1] != _stored_width(columns, encoding)):
        raise ValueError(f"{encoding} values of shape {values.shape} do not hold {columns} columns a row")
    if encoding == "int6-rows":
        width = values.shape[1] * 4 // 3 if columns is None else columns
        values = _unpack_int6(values, width).astype(np.int8) - np.int8(levels + 1)
    if encoding == "int4-rows":
        unpacked = np.empty((values.shape[0], 2 * values.shape[1]), np.int8)
        unpacked[:, 0::2] = (values & 0x0F).astype(np.int8) - 8
        unpacked[:, 1::2] = (values >> 4).astype(np.int8) - 8
        values = unpacked[:, : unpacked.shape[1] if columns is None else columns]
    return values.astype(np.float32) * np.asarray(scales, np.float32)[:, None]
