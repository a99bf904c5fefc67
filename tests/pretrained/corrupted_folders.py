"""Corrupted copies of a tiny valid sentence-transformers folder: the probe list of the loader's
reliability (docs/pretrained_models.md, "A folder from the internet").

`CORRUPTIONS` holds `(name, corrupt, message)`: `corrupt(folder)` damages a copy of
`BASE_FOLDER` in place (BERT, CLS+max pooling, a Dense module); `message` is a regular
expression the one `error:` line must match. `tests/apps/test_cli_corrupted_folders.py` runs each
through `keras-sentemb encode` in-process; `benchmarks/corrupted_folders.py` runs each in its own
process and prints the exit code, seconds and peak RSS.
"""

import json
import os
import shutil
import struct

from safetensors.numpy import load_file, save_file

from tests.conftest import FIXTURES

BASE_FOLDER = os.path.join(FIXTURES, "st_folders", "bert_cls_max_dense_new")
TEXT_FILE = "/etc/passwd"  # a file that exists on every Linux machine and is not what it claims


def copy_base(target):
    """A fresh copy of `BASE_FOLDER` at `target` (a path that does not exist yet)."""
    shutil.copytree(BASE_FOLDER, target)
    return target


def _edit_json(relative, edit):
    def corrupt(folder):
        path = os.path.join(folder, relative)
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        document = edit(document)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document, f)

    return corrupt


def _config(**changes):
    return _edit_json("config.json", lambda config: {**config, **changes})


def _without_config_key(key):
    return _edit_json("config.json", lambda config: {k: v for k, v in config.items() if k != key})


def _replace(relative, writer):
    def corrupt(folder):
        path = os.path.join(folder, relative)
        os.remove(path)
        writer(path)

    return corrupt


def _symlink_to(target):
    return lambda path: os.symlink(target, path)


def _bytes(data):
    def write(path):
        with open(path, "wb") as f:
            f.write(data)

    return write


def _truncated(relative, keep):
    def corrupt(folder):
        path = os.path.join(folder, relative)
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.truncate(keep(size))

    return corrupt


def _huge_safetensors_header(path):
    """A file whose header length says 90 MB and that is 90 MB long (sparse: nothing is written)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", 90_000_000) + b"{")
        f.truncate(8 + 90_000_000)


def _safetensors_edit(relative, edit):
    """Rewrites a safetensors file with `edit(header)` applied to its header and the same data."""

    def corrupt(folder):
        path = os.path.join(folder, relative)
        with open(path, "rb") as f:
            (length,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(length))
            data = f.read()
        header = edit(header)
        raw = json.dumps(header).encode()
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(raw)) + raw + data)

    return corrupt


def _word_embeddings_entry(**changes):
    """Rewrites the header entry of the word embeddings with `changes` (their bytes stay as they are)."""
    name = "embeddings.word_embeddings.weight"
    return _safetensors_edit("model.safetensors", lambda header: {**header, name: {**header[name], **changes}})


def _sharded_index_naming(shard):
    """Replaces the checkpoint by a sharded index whose one shard is `shard`."""

    def corrupt(folder):
        os.remove(os.path.join(folder, "model.safetensors"))
        _bytes(json.dumps({"weight_map": {"a": shard}}).encode())(os.path.join(folder, "model.safetensors.index.json"))

    return corrupt


def _without_tensor(relative, name):
    """Saves the safetensors file again without tensor `name` (a valid file that lacks it)."""

    def corrupt(folder):
        path = os.path.join(folder, relative)
        tensors = load_file(path)
        del tensors[name]
        save_file(tensors, path)

    return corrupt


def _fifo(path):
    os.mkfifo(path)


def _write_json(relative, document):
    return _replace(relative, _bytes(json.dumps(document).encode()))


WORD_EMBEDDINGS = r"embeddings\.word_embeddings\.weight has shape \(500, 32\)"

CORRUPTIONS = [
    # config.json: dimensions the model would allocate, checked against the checkpoint first
    ("config vocab_size 10^7", _config(vocab_size=10**7), rf"vocab_size=10000000 disagrees .*{WORD_EMBEDDINGS}"),
    (
        "config num_hidden_layers 10^6",
        _config(num_hidden_layers=10**6),
        r"num_hidden_layers=1000000 disagrees with the checkpoint, which has layers 0–1 \(2\)",
    ),
    ("config hidden_size 10^9", _config(hidden_size=10**9), rf"hidden_size=1000000000 disagrees .*{WORD_EMBEDDINGS}"),
    (
        "config max_position_embeddings 10^9",
        _config(max_position_embeddings=10**9),
        r"max_position_embeddings=1000000000 disagrees .*position_embeddings\.weight has shape \(64, 32\)",
    ),
    (
        "config intermediate_size 10^8",
        _config(intermediate_size=10**8),
        r"intermediate_size=100000000 disagrees .*intermediate\.dense\.weight has shape \(48, 32\)",
    ),
    ("config type_vocab_size 10^8", _config(type_vocab_size=10**8), r"type_vocab_size=100000000 disagrees"),
    (
        "config num_attention_heads 5 (hidden 32)",
        _config(num_attention_heads=5),
        r"hidden_size=32 is not a multiple of num_attention_heads=5",
    ),
    (
        "config num_attention_heads 0",
        _config(num_attention_heads=0),
        r"num_attention_heads must be an integer ≥ 1, got 0",
    ),
    ("config vocab_size a string", _config(vocab_size="500"), r"vocab_size must be an integer ≥ 1, got '500'"),
    (
        "config num_hidden_layers true",
        _config(num_hidden_layers=True),
        r"num_hidden_layers must be an integer ≥ 1, got True",
    ),
    ("config hidden_size 32.0", _config(hidden_size=32.0), r"hidden_size must be an integer ≥ 1, got 32\.0"),
    ("config without num_hidden_layers", _without_config_key("num_hidden_layers"), r"no 'num_hidden_layers'"),
    ("config layer_norm_eps a string", _config(layer_norm_eps="tiny"), r"layer_norm_eps must be a number, got 'tiny'"),
    (
        "config hidden_act os.system",
        _config(hidden_act="os.system"),
        r"config\.json: hidden_act 'os\.system' is not supported; supported: gelu",
    ),
    ("config model_type ../../evil", _config(model_type="../../evil"), r"model_type '\.\./\.\./evil' is not supported"),
    (
        "config model_type a list",
        _config(model_type=["bert"]),
        r"model_type \['bert'\] is not supported \(not a name\)",
    ),
    ("config is a JSON list", _write_json("config.json", [1, 2]), r"config\.json: expected a JSON object, got list"),
    ("config is a JSON string", _write_json("config.json", "bert"), r"config\.json: expected a JSON object, got str"),
    ("config not UTF-8", _replace("config.json", _bytes(b'{"model_type": "\xff"}')), r"config\.json: not valid UTF-8"),
    (
        "config 70 MB of JSON",
        _replace("config.json", _bytes(b'{"x": "' + b"a" * 70_000_000 + b'"}')),
        r"config\.json: 70000009 bytes is more than the 67108864",
    ),
    ("config missing", _replace("config.json", lambda path: None), r"missing config\.json|no config\.json"),
    (
        "config a symlink to a text file",
        _replace("config.json", _symlink_to(TEXT_FILE)),
        r"config\.json:1:\d+: not valid JSON",
    ),
    ("config a FIFO", _replace("config.json", _fifo), r"config\.json: a FIFO, not a regular file"),
    # model.safetensors
    (
        "safetensors truncated",
        _truncated("model.safetensors", lambda size: size - 1000),
        r"model\.safetensors: truncated: its header declares \d+ bytes of tensor data, the file holds \d+",
    ),
    (
        "safetensors cut inside its header",
        _truncated("model.safetensors", lambda size: 100),
        r"model\.safetensors: truncated: its header length is \d+, the file has 92 after it",
    ),
    (
        "safetensors empty",
        _replace("model.safetensors", _bytes(b"")),
        r"model\.safetensors: not a safetensors file \(0 bytes",
    ),
    (
        "safetensors a symlink to a text file",
        _replace("model.safetensors", _symlink_to(TEXT_FILE)),
        r"model\.safetensors: not a safetensors file",
    ),
    (
        "safetensors a symlink to /dev/zero",
        _replace("model.safetensors", _symlink_to("/dev/zero")),
        r"model\.safetensors: a character device \(a symlink to /dev/zero\), not a regular file",
    ),
    ("safetensors a FIFO", _replace("model.safetensors", _fifo), r"model\.safetensors: a FIFO, not a regular file"),
    (
        "safetensors with a 90 MB header",
        _replace("model.safetensors", _huge_safetensors_header),
        r"model\.safetensors: not a safetensors file, or a forged one: its header length 90000000 is over",
    ),
    (
        "safetensors header not JSON",
        _replace("model.safetensors", _bytes(struct.pack("<Q", 4) + b"\x00\x01\x02\x03")),
        r"model\.safetensors: not a safetensors file \(its header is not a JSON object\)",
    ),
    (
        "safetensors tensor missing",
        _without_tensor("model.safetensors", "embeddings.word_embeddings.weight"),
        r"a bert model needs the tensor 'embeddings\.word_embeddings\.weight' \(for vocab_size\); .* has none",
    ),
    (
        "safetensors shape larger than its bytes",
        _word_embeddings_entry(shape=[10**9, 32]),
        r"tensor 'embeddings\.word_embeddings\.weight': data_offsets .* hold 64000 bytes, its shape \(1000000000, 32\)",
    ),
    (
        "safetensors unknown dtype",
        _word_embeddings_entry(dtype="Q7"),
        r"dtype 'Q7' is not a safetensors dtype",
    ),
    (
        "safetensors missing",
        _replace("model.safetensors", lambda path: None),
        r"no model\.safetensors \(nor model\.safetensors\.index\.json\)",
    ),
    (
        "safetensors index naming a shard outside the folder",
        _sharded_index_naming("../../../etc/passwd"),
        r"shard '\.\./\.\./\.\./etc/passwd' is not a file name in the checkpoint's folder",
    ),
    # tokenizer files
    (
        "tokenizer.json a symlink to /dev/zero",
        _replace("tokenizer.json", _symlink_to("/dev/zero")),
        r"tokenizer\.json: a character device \(a symlink to /dev/zero\), not a regular file",
    ),
    ("tokenizer.json a FIFO", _replace("tokenizer.json", _fifo), r"tokenizer\.json: a FIFO, not a regular file"),
    (
        "tokenizer.json a dangling symlink",
        _replace("tokenizer.json", _symlink_to("/nonexistent/tokenizer.json")),
        r"tokenizer\.json: a symlink to the missing /nonexistent/tokenizer\.json",
    ),
    (
        "tokenizer.json truncated",
        _truncated("tokenizer.json", lambda size: size // 2),
        r"tokenizer\.json:\d+:\d+: not valid JSON",
    ),
    (
        "tokenizer.json a JSON list",
        _write_json("tokenizer.json", []),
        r"tokenizer\.json: expected a JSON object, got list",
    ),
    ("tokenizer_config.json a FIFO", _replace("tokenizer_config.json", _fifo), r"tokenizer_config\.json: a FIFO"),
    # sentence-transformers modules
    (
        "modules.json an object",
        _write_json("modules.json", {"0": "Transformer"}),
        r"expected a non-empty list of modules",
    ),
    (
        "modules.json path outside the folder",
        _edit_json("modules.json", lambda modules: [modules[0], {**modules[1], "path": "../../../etc"}, *modules[2:]]),
        r"has path '\.\./\.\./\.\./etc', not a folder inside the model's",
    ),
    (
        "Pooling mode unknown",
        _write_json("1_Pooling/config.json", {"pooling_mode": "median", "word_embedding_dimension": 32}),
        r"unknown pooling mode\(s\) \['median'\]",
    ),
    (
        "Dense out_features 10^9",
        _edit_json("2_Dense/config.json", lambda c: {**c, "out_features": 10**9}),
        r"out_features=1000000000 need linear\.weight of shape \(1000000000, 64\); .*has \(16, 64\)",
    ),
    (
        "Dense in_features a string",
        _edit_json("2_Dense/config.json", lambda c: {**c, "in_features": "64"}),
        r"in_features must be an integer ≥ 1, got '64'",
    ),
    (
        "Dense weights truncated",
        _truncated("2_Dense/model.safetensors", lambda size: size - 100),
        r"2_Dense/model\.safetensors: truncated",
    ),
    (
        "max_seq_length a string",
        _edit_json("sentence_bert_config.json", lambda c: {**c, "max_seq_length": "many"}),
        r"sentence_bert_config\.json: max_seq_length must be an integer ≥ 1, got 'many'",
    ),
    (
        "truncate_dim a string",
        _edit_json("config_sentence_transformers.json", lambda c: {**c, "truncate_dim": "half"}),
        r"truncate_dim must be an integer ≥ 1, got 'half'",
    ),
]
