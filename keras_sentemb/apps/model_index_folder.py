"""What the index folders that keep their encoder beside them share (learned-sparse `sparse_index_folder`,
late-interaction `multi_vector_index_folder`): one line a document, the model as a `.keras` file, the index in a
subfolder, and meta.json tying them together, written atomically and checked file by file when opened.

    folder/<model file>    the encoder (both sides: queries need it)
    folder/<subfolder>/    the index of the lines' document vectors
    folder/corpus.txt      the corpus lines, so hits can be printed
    folder/meta.json       kind, engine, sizes, the sha256 of the corpus and of the model file
"""

import dataclasses
import hashlib
import json
import os
import re

import keras

from keras_sentemb.apps.index_folder import INDEX_KIND, open_index_folder
from keras_sentemb.utils.checked_files import check_keras_file, read_json, regular_file_present, require_keys
from keras_sentemb.utils.file_digests import file_sha256
from keras_sentemb.utils.output_targets import replaced_folder

# A line is one document; an encoder reads its first few hundred tokens. A longer line is refused, not tokenised
# whole: it is almost always a file without line ends.
MAX_DOCUMENT_BYTES = 1 << 20


@dataclasses.dataclass(frozen=True)
class ModelIndexKind:
    """One kind of such folder: its meta.json `kind`, its model file and class, its index subfolder and engines,
    and the meta.json key of its vectors' width ("vocabulary" for sparse vectors, "dim" for token vectors)."""

    kind: str
    model_file: str
    model_class: type
    subfolder: str
    engines: tuple
    width_key: str
    what: str  # "a sparse index folder"

    @property
    def files(self):
        return (self.model_file, "corpus.txt", "meta.json")


def is_model_index_folder(folder, kind):
    """Whether `folder`'s meta.json says `kind.kind`."""
    path = os.path.join(os.fspath(folder), "meta.json")
    if not regular_file_present(path):
        return False
    try:
        return read_json(path).get("kind") == kind.kind
    except (ValueError, AttributeError):
        return False


def checked_corpus(corpus, kind):
    """ValueError for an empty corpus, a line with a newline, or one over `MAX_DOCUMENT_BYTES`."""
    if not corpus:
        raise ValueError("the corpus is empty: nothing to index")
    for number, line in enumerate(corpus, start=1):
        if "\n" in line:
            raise ValueError(f"corpus line {number} contains a newline; an index holds one text per line")
        size = len(line.encode("utf-8", "surrogatepass"))
        if size > MAX_DOCUMENT_BYTES:
            raise ValueError(
                f"corpus line {number}: {size:,} bytes, over the {MAX_DOCUMENT_BYTES:,} a document may hold (a "
                f"{kind.kind} encoder reads its first tokens only): split the file into lines"
            )


def load_model(spec, kind):
    """`kind.model_class` from a sentence-transformers folder (`from_pretrained`) or a `.keras` file holding one."""
    spec = os.fspath(spec)
    if spec.endswith(".keras"):
        model = keras.saving.load_model(check_keras_file(spec))
        if not isinstance(model, kind.model_class):
            raise TypeError(f"{spec} holds a {type(model).__name__}, not a {kind.model_class.__name__}")
        return model
    return kind.model_class.from_pretrained(spec)


def write_model_index_folder(kind, folder, corpus, encoder, index, engine, width, overwrite, inputs):
    """Writes the folder (the module docstring) atomically, replacing only an index folder with `overwrite`."""
    text = "".join(line + "\n" for line in corpus).encode("utf-8")
    with replaced_folder(folder, INDEX_KIND, overwrite, inputs) as staging:
        encoder.save(os.path.join(staging, kind.model_file))
        with open(os.path.join(staging, "corpus.txt"), "wb") as f:
            f.write(text)
        os.mkdir(os.path.join(staging, kind.subfolder))
        index.save_into(os.path.join(staging, kind.subfolder))
        meta = {
            "kind": kind.kind,
            "engine": engine,
            "lines": len(corpus),
            "encoder": encoder.name,
            kind.width_key: int(width),
            "corpus_sha256": hashlib.sha256(text).hexdigest(),
            "corpus_bytes": len(text),
            "model_sha256": file_sha256(os.path.join(staging, kind.model_file)),
        }
        with open(os.path.join(staging, "meta.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
    return folder


def read_model_index_meta(folder, kind):
    """The meta.json of a `kind` folder, each value checked: ValueError naming the key otherwise."""
    path = os.path.join(folder, "meta.json")
    keys = ["kind", "engine", "lines", kind.width_key, "corpus_sha256", "corpus_bytes", "model_sha256"]
    meta = require_keys(read_json(path), keys, path)
    digest = lambda v: isinstance(v, str) and re.fullmatch("[0-9a-f]{64}", v) is not None  # noqa: E731
    checks = {
        "kind": lambda v: v == kind.kind,
        "engine": lambda v: v in kind.engines,
        "lines": lambda v: type(v) is int and v >= 1,
        kind.width_key: lambda v: type(v) is int and v >= 1,
        "corpus_sha256": digest,
        "corpus_bytes": lambda v: type(v) is int and v >= 0,
        "model_sha256": digest,
    }
    for key, check in checks.items():
        if not check(meta[key]):
            raise ValueError(f"{path}: {key}={meta[key]!r} is not valid for {kind.what}")
    return meta


def open_model_index_folder(folder, kind):
    """`(folder, meta, corpus, model path)` of a `kind` folder: meta.json, the corpus (size and sha256) and the model
    file's sha256 checked (`open_index_folder`); its index is the caller's to open (`kind.subfolder`)."""
    folder, meta, corpus = open_index_folder(folder, kind.files, lambda f: read_model_index_meta(f, kind), kind.what)
    model_path = os.path.join(folder, kind.model_file)
    if file_sha256(model_path) != meta["model_sha256"]:
        raise ValueError(f"{model_path}: its sha256 differs from meta.json's: not the model this index was built with")
    return folder, meta, corpus, model_path
