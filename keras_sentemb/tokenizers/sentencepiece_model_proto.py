"""A SentencePiece `ModelProto` written from a Hugging Face Unigram vocabulary, for TF Text's
`SentencepieceTokenizer` (the Viterbi segmentation), in protobuf's wire format.

Written by hand, field by field (sentencepiece's `sentencepiece_model.proto`): the generated
`sentencepiece_model_pb2` needs a newer protobuf runtime than TensorFlow allows. The model does no
normalisation of its own (Hugging Face's normaliser and pre-tokeniser run before it, in-graph) and
sees words that already carry their "▁".

Example:
>>> proto = unigram_model_proto([("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁a", -1.0)],
...                             unk_id=3, control_ids=(0, 1, 2))
>>> import tensorflow_text as tf_text
>>> tf_text.SentencepieceTokenizer(proto).tokenize(["▁a▁a"]).to_list()
[[4, 4]]
"""

import struct

UNIGRAM = 1
NORMAL, UNKNOWN, CONTROL = 1, 2, 3


def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field, wire_type):
    return _varint((field << 3) | wire_type)


def _int_field(field, value):
    return _key(field, 0) + _varint(value & 0xFFFFFFFFFFFFFFFF)


def _bytes_field(field, value):
    return _key(field, 2) + _varint(len(value)) + value


def _float_field(field, value):
    return _key(field, 5) + struct.pack("<f", value)


def unigram_model_proto(pieces, unk_id, control_ids=()):
    """The serialized `ModelProto` of a Unigram model: `pieces` `[(piece, score)]` in id order, `unk_id`
    the unknown piece, `control_ids` pieces never produced (special tokens)."""
    control = set(control_ids)
    body = bytearray()
    for index, (piece, score) in enumerate(pieces):
        kind = UNKNOWN if index == unk_id else CONTROL if index in control else NORMAL
        message = _bytes_field(1, piece.encode("utf-8")) + _float_field(2, float(score)) + _int_field(3, kind)
        body += _bytes_field(1, message)
    trainer = _int_field(3, UNIGRAM) + _int_field(4, len(pieces)) + _int_field(40, unk_id)
    # No bos/eos/pad of the model's own: -1 switches them off.
    trainer += _int_field(41, -1) + _int_field(42, -1) + _int_field(43, -1)
    body += _bytes_field(2, trainer)
    normalizer = _bytes_field(1, b"identity") + _int_field(3, 0) + _int_field(4, 0) + _int_field(5, 0)
    body += _bytes_field(3, normalizer)
    return bytes(body)
