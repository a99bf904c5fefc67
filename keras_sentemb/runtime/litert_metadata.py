"""Metadata inside a LiteRT flat buffer: a named buffer in the model's `metadata` list (the place
LiteRT's schema gives it), and the signature a frozen function's conversion lacks, written after
conversion. An app reads the same entry with any flat buffer reader of LiteRT's schema."""

from __future__ import annotations

import os

import flatbuffers
import numpy as np

from keras_sentemb.utils.checked_files import open_regular_file, parse_json, require_keys

METADATA_NAME = "keras_sentemb"
# A file with the tokenizer outside carries its host tokenizer (a Hugging Face tokenizer.json) here.
TOKENIZER_METADATA_NAME = "keras_sentemb_tokenizer"


def _schema():
    """LiteRT's flat buffer schema (generated code over `flatbuffers`): the LiteRT interpreter's copy when it is
    installed (no TensorFlow needed to read a file's card), else TensorFlow's."""
    try:
        from ai_edge_litert import schema_py_generated
    except ImportError:
        from tensorflow.lite.python import schema_py_generated
    return schema_py_generated


def with_metadata(flat_buffer: bytes, name: str, payload: bytes, signature=None) -> bytes:
    """`flat_buffer` (a LiteRT model) with `payload` stored as its metadata entry `name` (replacing one
    of that name), and with `signature` = (key, input names, output names) as its signature over the
    main subgraph's inputs and outputs in order (the converter gives a frozen function none). The
    model's tensors and buffers are copied unchanged.

    Example:
    >>> import tensorflow as tf
    >>> model = tf.lite.TFLiteConverter.from_concrete_functions(
    ...     [tf.function(lambda x: x + 1.0).get_concrete_function(tf.TensorSpec([1], tf.float32))]).convert()
    >>> read_metadata(with_metadata(model, "card", b'{"a": 1}'), "card")
    b'{"a": 1}'
    """
    schema = _schema()
    model = schema.ModelT.InitFromPackedBuf(bytearray(flat_buffer), 0)
    buffer = schema.BufferT()
    buffer.data = np.frombuffer(payload, dtype=np.uint8)
    model.buffers.append(buffer)
    entry = schema.MetadataT()
    entry.name = name
    entry.buffer = len(model.buffers) - 1
    model.metadata = [item for item in (model.metadata or []) if _text(item.name) != name] + [entry]
    if signature is not None:
        key, input_names, output_names = signature
        subgraph = model.subgraphs[0]
        if len(subgraph.inputs) != len(input_names) or len(subgraph.outputs) != len(output_names):
            raise ValueError(
                f"the model has {len(subgraph.inputs)} inputs and {len(subgraph.outputs)} outputs, "
                f"not {list(input_names)} and {list(output_names)}"
            )
        definition = schema.SignatureDefT()
        definition.signatureKey = key
        definition.subgraphIndex = 0
        definition.inputs = [_tensor_map(schema, n, i) for n, i in zip(input_names, subgraph.inputs, strict=True)]
        definition.outputs = [_tensor_map(schema, n, i) for n, i in zip(output_names, subgraph.outputs, strict=True)]
        model.signatureDefs = [definition]
    builder = flatbuffers.Builder(len(flat_buffer) + len(payload) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def _tensor_map(schema, name, tensor_index):
    mapping = schema.TensorMapT()
    mapping.name = name
    mapping.tensorIndex = int(tensor_index)
    return mapping


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def read_metadata(flat_buffer: bytes, name: str) -> bytes | None:
    """The metadata entry `name` of a LiteRT model, or None when it has none."""
    model = _schema().Model.GetRootAs(flat_buffer, 0)
    for index in range(model.MetadataLength()):
        entry = model.Metadata(index)
        if _text(entry.Name()) == name:
            return model.Buffers(entry.Buffer()).DataAsNumpy().tobytes()
    return None


def custom_ops(flat_buffer: bytes) -> list[str]:
    """The custom op names a LiteRT model uses (its operator codes with a custom code)."""
    model = _schema().Model.GetRootAs(flat_buffer, 0)
    names = {_text(model.OperatorCodes(index).CustomCode()) for index in range(model.OperatorCodesLength())}
    return sorted(name for name in names if name)


LITERT_FORMAT = "keras_sentemb.litert/1"
_CARD_KEYS = ("format", "signature", "inputs", "outputs", "embedding_dim", "tokenizer")


def read_litert_metadata(path: str | os.PathLike) -> dict:
    """The keras-sentemb card of a `.tflite` file written by `export_litert` (inputs, outputs, width,
    normalisation, tokenizer, precision, name).

    Raises:
        FileNotFoundError: no such file.
        ValueError: `path: …` in one line for anything that is not such a file: not a regular file
            (a FIFO is refused, never waited on), not a LiteRT flat buffer (no `TFL3` identifier), a
            truncated or damaged one, one without our metadata, or a card that is not ours.
    """
    path = os.fspath(path)
    with open_regular_file(path) as f:
        flat_buffer = f.read()
    if len(flat_buffer) < 8 or flat_buffer[4:8] != b"TFL3":
        raise ValueError(f"{path}: not a LiteRT (.tflite) file ({len(flat_buffer)} bytes, no TFL3 identifier)")
    try:
        payload = read_metadata(flat_buffer, METADATA_NAME)
    except Exception as error:  # the flatbuffers reader of a damaged file: struct.error, IndexError, …
        raise ValueError(f"{path}: a damaged LiteRT file ({type(error).__name__}: {error})") from None
    if payload is None:
        raise ValueError(f"{path}: no '{METADATA_NAME}' metadata: not a file written by export_litert")
    card = parse_json(payload, f"{path} ({METADATA_NAME} metadata)")
    if not isinstance(card, dict) or card.get("format") != LITERT_FORMAT:
        raise ValueError(f"{path}: its '{METADATA_NAME}' metadata is not a {LITERT_FORMAT} card")
    require_keys(card, _CARD_KEYS, f"{path} ({METADATA_NAME} metadata)")
    return card


def read_litert_tokenizer(path: str | os.PathLike) -> bytes | None:
    """The host tokenizer (a Hugging Face tokenizer.json's bytes) that `export_litert` stores in a file with the
    tokenizer outside, or None (a file with the tokenizer inside, or an older export). `path` is a file
    `read_litert_metadata` accepted."""
    with open_regular_file(os.fspath(path)) as f:
        return read_metadata(f.read(), TOKENIZER_METADATA_NAME)
