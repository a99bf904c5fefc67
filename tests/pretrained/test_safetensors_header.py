"""read_safetensors_header reads at most a bounded header and accepts only files whose entries tile
the data exactly: what safetensors writes loads, everything else is one ValueError naming the file."""

import json
import struct

import numpy as np
import pytest
from safetensors.numpy import save_file

from keras_sentemb.pretrained.safetensors_header import TensorEntry, read_safetensors_header


def raw_file(path, header, data=b""):
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    return path


def test_what_safetensors_writes_is_read_with_every_dtype_and_shape(tmp_path):
    tensors = {
        "a": np.zeros((3, 4), np.float32),
        "b": np.zeros((0, 2), np.float16),
        "c": np.zeros((), np.int64),
        "d": np.zeros((5,), np.uint8),
    }
    save_file(tensors, tmp_path / "m.safetensors", metadata={"format": "np"})
    assert read_safetensors_header(tmp_path / "m.safetensors") == {
        "a": TensorEntry("F32", (3, 4)),
        "b": TensorEntry("F16", (0, 2)),
        "c": TensorEntry("I64", ()),
        "d": TensorEntry("U8", (5,)),
    }


@pytest.mark.parametrize(
    ("header", "data", "message"),
    [
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, bytes(4), "truncated: .* declares 8 bytes"),
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, bytes(12), "4 bytes after the last tensor"),
        ({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, bytes(8), r"hold 8 bytes, its shape \(3,\)"),
        ({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 8]}}, bytes(8), "not a list of non-negative"),
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [8]}}, bytes(8), r"data_offsets \[8\] is not"),
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, bytes(12), "leaves a gap at byte 0"),
        (
            {
                "a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]},
            },
            bytes(6),
            "overlaps the tensor before it",
        ),
        ({"w": [1, 2]}, b"", "tensor 'w': expected an object"),
        ({"__metadata__": {"a": 1}}, b"", "__metadata__ is not an object of strings"),
    ],
)
def test_entries_that_do_not_tile_the_data_exactly_are_refused(tmp_path, header, data, message):
    with pytest.raises(ValueError, match=message):
        read_safetensors_header(raw_file(tmp_path / "m.safetensors", header, data))


def test_a_header_over_the_bound_is_refused_without_being_read(tmp_path):
    path = tmp_path / "m.safetensors"
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", 10**6))
        f.truncate(8 + 10**6)
    with pytest.raises(ValueError, match="header length 1000000 is over the 1000 bytes read"):
        read_safetensors_header(path, max_header_bytes=1000)
