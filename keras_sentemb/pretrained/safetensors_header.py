"""The header of a `.safetensors` file, read and checked before any tensor is touched.

A safetensors file is an 8-byte little-endian header length N, N bytes of a JSON object
`{name: {"dtype": D, "shape": [d₁, …], "data_offsets": [begin, end]}, "__metadata__": {…}}`,
then the tensors' bytes. `read_safetensors_header(path)` reads at most
`MAX_HEADER_BYTES` of it and checks what a reader relies on, so that a damaged or forged file is
one `ValueError` naming the file and the problem instead of a `SafetensorError`, a `KeyError` or
a gigabyte allocation:

- the path is a regular file (after symlinks; a FIFO or a device is refused without reading);
- 8 ≤ size, N ≤ `MAX_HEADER_BYTES` and 8 + N ≤ size (an empty or truncated file, a header
  length that is garbage);
- the header is UTF-8 JSON, an object of tensor entries, each with a known dtype, a shape of
  non-negative integers and `end − begin = ∏ shape × itemsize`;
- the entries tile the data without gaps or overlaps and end exactly at the end of the file
  (a truncated or padded file), so no tensor claims bytes the file does not have.

The result maps each name to `(dtype, shape)`: what the loaders compare config.json against
before building a layer (`checkpoint_config`).

Example:
>>> import os, struct, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
>>> header = b'{"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}'
>>> with open(path, "wb") as f:
...     _ = f.write(struct.pack("<Q", len(header)) + header + bytes(24))
>>> read_safetensors_header(path)
{'w': TensorEntry(dtype='F32', shape=(2, 3))}
>>> with open(path, "r+b") as f:
...     _ = f.truncate(8 + len(header))  # the tensor bytes cut off
>>> read_safetensors_header(path)
Traceback (most recent call last):
ValueError: .../model.safetensors: truncated: its header declares 24 bytes of tensor data, the file holds 0
"""

import json
import os
import struct
import typing

from keras_sentemb.utils.checked_files import open_regular_file

MAX_HEADER_BYTES = 64 * 2**20  # a 7B model's header is ~50 kB; safetensors' own cap is 100 MB
# Bytes per element of each safetensors dtype.
DTYPE_BYTES = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E5M2": 1,
    "F8_E4M3": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "F64": 8,
    "I64": 8,
    "U64": 8,
}


class TensorEntry(typing.NamedTuple):
    """One tensor of a safetensors header: its dtype name and shape."""

    dtype: str
    shape: tuple


def _entry(path, name, entry):
    """`(TensorEntry, (begin, end))` of one header entry, checked; ValueError naming `path` and `name`."""
    where = f"{path}: tensor {name!r}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {type(entry).__name__}")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"{where}: dtype {dtype!r} is not a safetensors dtype ({', '.join(DTYPE_BYTES)})")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise ValueError(f"{where}: shape {shape!r} is not a list of non-negative integers")
    if not (
        isinstance(offsets, list) and len(offsets) == 2 and all(type(o) is int for o in offsets) and offsets[0] >= 0
    ):
        raise ValueError(f"{where}: data_offsets {offsets!r} is not [begin, end]")
    begin, end = offsets
    elements = 1
    for dimension in shape:
        elements *= dimension
    if end - begin != elements * DTYPE_BYTES[dtype]:
        raise ValueError(
            f"{where}: data_offsets {offsets} hold {end - begin} bytes, its shape {tuple(shape)} of {dtype} "
            f"needs {elements * DTYPE_BYTES[dtype]}"
        )
    return TensorEntry(dtype, tuple(shape)), (begin, end)


def read_safetensors_header(path, max_header_bytes=MAX_HEADER_BYTES):
    """`{name: TensorEntry(dtype, shape)}` of the safetensors file at `path`, checked as the module
    docstring says; `ValueError` (or `FileNotFoundError`) naming the file and the problem."""
    path = os.fspath(path)
    with open_regular_file(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size < 8:
            raise ValueError(f"{path}: not a safetensors file ({size} bytes; its 8-byte header length is missing)")
        (header_bytes,) = struct.unpack("<Q", f.read(8))
        if header_bytes > max_header_bytes:
            raise ValueError(
                f"{path}: not a safetensors file, or a forged one: its header length {header_bytes} is over "
                f"the {max_header_bytes} bytes read"
            )
        if 8 + header_bytes > size:
            raise ValueError(
                f"{path}: truncated: its header length is {header_bytes}, the file has {size - 8} after it"
            )
        raw = f.read(header_bytes)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError(f"{path}: not a safetensors file (its header is not a JSON object)") from None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: not a safetensors file (its header is {type(header).__name__}, not an object)")
    data_bytes = size - 8 - header_bytes
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())):
        raise ValueError(f"{path}: __metadata__ is not an object of strings")
    entries, spans = {}, []
    for name, entry in header.items():
        entries[name], span = _entry(path, name, entry)
        spans.append((span, name))
    position = 0
    for (begin, end), name in sorted(spans):
        if begin != position:
            what = "overlaps the tensor before it" if begin < position else f"leaves a gap at byte {position}"
            raise ValueError(f"{path}: tensor {name!r} at bytes {begin}–{end} {what}")
        position = end
    if position != data_bytes:
        if position > data_bytes:
            raise ValueError(
                f"{path}: truncated: its header declares {position} bytes of tensor data, the file holds {data_bytes}"
            )
        raise ValueError(f"{path}: {data_bytes - position} bytes after the last tensor that no header entry names")
    return entries
