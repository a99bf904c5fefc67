"""An exported model folder, loaded once per worker process of a bulk job: strings in, vectors
(and packed codes) out.

Two kinds of folder, told apart by what they hold:

| folder                                   | written by           | runs on                   |
|------------------------------------------|----------------------|---------------------------|
| `saved_model.pb` + `variables/`          | `export_saved_model` | TensorFlow + TF Text      |
| `openvino_model.xml` + settings JSON     | `export_openvino`    | OpenVINO (float32/bf16/int8) |

Either may be given as the version folder itself or as its base folder (TF Serving's and
OpenVINO Model Server's layout: the highest numbered version inside is used).
"""

import functools
import os

import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the ops of the SavedModels' tokenizers)
from tensorflow.core.protobuf import saved_model_pb2

from keras_sentemb.models.openvino_encoder import OpenVINOEncoder

SAVED_MODEL_FILE = "saved_model.pb"
OPENVINO_SETTINGS_FILE = "keras_sentemb_openvino.json"  # models.openvino_encoder.SETTINGS_FILE
_MODEL_FILES = (SAVED_MODEL_FILE, OPENVINO_SETTINGS_FILE)


def exported_version(path):
    """The model folder `path` names: `path` itself when it holds `saved_model.pb` (or an
    OpenVINO export's settings), else its highest numbered version folder that does; None
    when neither.

    Example:
        >>> exported_version("/no/such/folder") is None
        True
    """

    def holds_model(folder):
        return any(tf.io.gfile.exists(tf.io.gfile.join(folder, name)) for name in _MODEL_FILES)

    path = os.fspath(path)
    if holds_model(path):
        return path
    if not tf.io.gfile.isdir(path):
        return None
    versions = [
        int(name.rstrip("/"))
        for name in tf.io.gfile.listdir(path)
        if name.rstrip("/").isdigit() and holds_model(tf.io.gfile.join(path, name.rstrip("/")))
    ]
    return tf.io.gfile.join(path, str(max(versions))) if versions else None


def saved_model_signatures(model_dir):
    """The signature names of the SavedModel in `model_dir` (any `tf.io.gfile` path),
    read from `saved_model.pb` without loading the model."""

    path = tf.io.gfile.join(model_dir, SAVED_MODEL_FILE)
    if not tf.io.gfile.exists(path):
        raise FileNotFoundError(
            f"{model_dir} is not a SavedModel folder (no saved_model.pb); write one with "
            "`keras-sentemb export PATH` and pass PATH/<version>"
        )
    saved = saved_model_pb2.SavedModel()
    with tf.io.gfile.GFile(path, "rb") as f:
        saved.ParseFromString(f.read())
    # `__saved_model_init_op` (table initialisers) is stored as a signature too; it is not one.
    return sorted(name for name in saved.meta_graphs[0].signature_def if not name.startswith("__"))


def _as_bytes(texts):
    """The batch `texts` (a list of str or bytes) as bytes; a bare string is refused (it is not a batch:
    iterating it would embed each character)."""
    if isinstance(texts, (str, bytes, bytearray)):
        raise TypeError(f"a batch of texts is a list of strings, got one {type(texts).__name__}: wrap it in a list")
    out = []
    for i, text in enumerate(texts):
        if isinstance(text, str):
            out.append(text.encode("utf-8"))
        elif isinstance(text, (bytes, bytearray, np.bytes_)):
            out.append(bytes(text))
        else:
            raise TypeError(f"text {i} of the batch is {type(text).__name__} ({text!r:.40}); expected str or bytes")
    return out


def limit_threads(threads):
    """Caps TensorFlow's thread pools of this process at `threads` (before its first op;
    afterwards TensorFlow keeps its pools, and this does nothing)."""
    try:
        tf.config.threading.set_intra_op_parallelism_threads(int(threads))
        tf.config.threading.set_inter_op_parallelism_threads(int(threads))
    except RuntimeError:  # the runtime is already initialised in this process
        pass


def embed_with_signatures(saved_model, texts, with_codes=False):
    """Texts (str or bytes) through a loaded keras-sentemb SavedModel → (float32 [n, d],
    uint8 [n, bits/8] or None). Codes come from the `embed_and_hash` signature (one encoder
    pass), or from `hash` for exports that predate it."""
    strings = tf.constant(_as_bytes(texts), dtype=tf.string, shape=[len(texts)])
    signatures = saved_model.signatures
    if with_codes and "embed_and_hash" in signatures:
        outputs = signatures["embed_and_hash"](texts=strings)
        return outputs["embedding"].numpy().astype(np.float32), outputs["codes"].numpy().astype(np.uint8)
    embeddings = signatures["serving_default"](texts=strings)["embedding"].numpy().astype(np.float32)
    codes = signatures["hash"](texts=strings)["codes"].numpy().astype(np.uint8) if with_codes else None
    return embeddings, codes


def chunk_with_signature(saved_model, texts):
    """Texts (str or bytes) through the `chunks` signature of a loaded SavedModel: {"embedding"
    float32 [C, d], "document", "start", "end" int64 [C]} as NumPy arrays."""
    strings = tf.constant(_as_bytes(texts), dtype=tf.string, shape=[len(texts)])
    return {name: value.numpy() for name, value in saved_model.signatures["chunks"](texts=strings).items()}


class ExportedModel:
    """A model folder (see the module doc) ready to embed batches of texts.

    Args:
        model_dir: a version folder or its base folder.
        with_codes: also return packed binary codes (default: when the SavedModel has a
            `hash` signature; an OpenVINO export has none).
        threads: the CPU threads a SavedModel may use in this process (default: all
            cores). A bulk engine runs one model per task slot, so each should use its
            slot's CPUs. An OpenVINO export keeps OpenVINO's own choice: capped at one
            thread, two Spark workers ran an int8 job 2.1× slower than uncapped
            (docs/scaling_out.md).

    Raises:
        FileNotFoundError: `model_dir` holds no exported model (says how to write one).
        ValueError: codes asked of a model without a `hash` signature.

    Example:
    (Not run as a doctest: it needs an exported model folder.)
        model = ExportedModel("serving/minilm")
        vectors, codes = model.embed([b"A man plays a guitar.", "Ein Hund."])
    """

    def __init__(self, model_dir, with_codes=None, threads=None):
        found = exported_version(model_dir)
        if found is None:
            raise FileNotFoundError(
                f"{model_dir} holds no exported model ({' or '.join(_MODEL_FILES)}, itself or in a "
                "numbered version folder); write one with `keras-sentemb export PATH --model SPEC` "
                "(or export_openvino for OpenVINO)"
            )
        self.model_dir = found
        if tf.io.gfile.exists(tf.io.gfile.join(found, SAVED_MODEL_FILE)):
            self.kind = "saved_model"
            signatures = saved_model_signatures(found)
            if "serving_default" not in signatures:
                raise ValueError(f"{found} has no serving_default signature (it has {signatures})")
            has_codes = "hash" in signatures
        else:
            self.kind = "openvino"
            has_codes = False
        if with_codes and not has_codes:
            raise ValueError(f"{found} has no `hash` signature: export a HashedEncoder (SavedModel) for codes")
        self.with_codes = has_codes if with_codes is None else bool(with_codes)
        self.threads = threads
        self._model = None

    def _loaded(self):
        if self._model is None:
            if self.threads and self.kind == "saved_model":
                limit_threads(self.threads)
            if self.kind == "saved_model":
                self._model = tf.saved_model.load(self.model_dir)
            else:
                self._model = OpenVINOEncoder.load(self.model_dir)
        return self._model

    def embed(self, texts):
        """`texts` (str or bytes) → (float32 [n, d], uint8 [n, bits/8] or None), in order.

        The vectors are those of the exported model's `encode` (unit length where it
        normalises); codes come from the `embed_and_hash` signature (one encoder pass), or
        from `hash` for exports that predate it.
        """
        model = self._loaded()
        if self.kind == "openvino":
            decoded = [t.decode("utf-8", errors="replace") for t in _as_bytes(texts)]
            return model.encode(decoded, batch_size=max(len(decoded), 1), progress=False), None
        return embed_with_signatures(model, texts, self.with_codes)


@functools.lru_cache(maxsize=4)
def load_exported_model(model_dir, with_codes=None, threads=None):
    """The `ExportedModel` of `model_dir`, loaded once per process: what a Spark Python
    worker or a Ray actor calls for every batch."""
    model = ExportedModel(model_dir, with_codes, threads)
    model._loaded()
    return model
