"""`serve MODEL --backend openvino`: the model converted once, in a child process, into a cache folder that the
server then runs without TensorFlow (`exported.ExportedEncoder`).

The cache folder is `$KERAS_SENTEMB_HOME/openvino/<name>-<precision>-<key>/1/`, written by `keras-sentemb export
--backend openvino` (atomically: a staging folder renamed into place, marked as ours). The key is a SHA-256 of
what the conversion reads: the preset name, or a folder's real path with each file's name, size and
modification time; the precision; the calibration texts; the keras-sentemb version. A changed input is
a new key, so a stale conversion is never served; a second start with the same inputs converts nothing.
"""

import hashlib
import json
import logging
import os
import subprocess
import sys
import tempfile

from keras_sentemb.exported.exported_encoder import exported_version
from keras_sentemb.utils.home_folder import keras_sentemb_home
from keras_sentemb.version import __version__

LOG = logging.getLogger("keras_sentemb.server")


def converts_to_openvino(spec) -> bool:
    """Whether `serve SPEC --backend openvino` converts SPEC in a child process: a preset name or a Hugging Face
    folder (always a `SentenceEncoder`). A zoo model or a `.keras` file may hold another kind of model (a
    cross-encoder, a hashed encoder): it runs in the server's own process, as before."""
    spec = os.fspath(spec)
    return not spec.startswith("zoo:") and not spec.endswith(".keras")


def served_folder(spec, backend=None, precision=None, calibration_texts=None, dtype=None):
    """The exported model to serve `spec` from without TensorFlow, or None to load it in the server's process:
    `spec` itself when it is an exported OpenVINO folder or LiteRT file (it runs there at its own precision:
    another backend, a dtype or calibration texts are a ValueError); with `backend="openvino"` a preset or
    Hugging Face folder converted once (`converted_folder`); else None."""
    exported = exported_version(spec)
    if exported is not None:
        runtime = "litert" if exported.endswith(".tflite") else "openvino"
        if backend not in (None, runtime) or dtype or calibration_texts:
            raise ValueError(
                f"{os.fspath(spec)} is exported for {runtime}: it runs there at its own precision "
                "(another --backend, --dtype and --calibration do not apply)"
            )
        return exported
    if backend == "openvino" and converts_to_openvino(spec) and not dtype:
        return converted_folder(spec, precision or "float32", calibration_texts)
    return None


def conversion_key(spec, precision, calibration_texts=None) -> str:
    """16 hex digits of SHA-256 over the conversion's inputs (see the module docstring).

    >>> conversion_key("minilm-l6", "int8") == conversion_key("minilm-l6", "int8")
    True
    >>> conversion_key("minilm-l6", "int8") == conversion_key("minilm-l6", "float32")
    False
    """
    spec = os.fspath(spec)
    inputs = {"model": spec, "precision": precision, "keras_sentemb": __version__}
    if os.path.isdir(spec):
        inputs["model"] = os.path.realpath(spec)
        inputs["files"] = sorted(
            (os.path.relpath(os.path.join(root, name), spec), stat.st_size, stat.st_mtime_ns)
            for root, _, names in os.walk(spec)
            for name in names
            for stat in [os.stat(os.path.join(root, name))]
        )
    if calibration_texts:
        inputs["calibration"] = hashlib.sha256("\n".join(calibration_texts).encode("utf-8")).hexdigest()
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def cache_folder(spec, precision, calibration_texts=None) -> str:
    """The base folder of `spec`'s conversion at `precision` (its version folder `1/` inside)."""
    stem = os.path.basename(os.path.normpath(os.fspath(spec))).lower() or "model"
    key = conversion_key(spec, precision, calibration_texts)
    return os.path.join(keras_sentemb_home(), "openvino", f"{stem}-{precision}-{key}")


def converted_folder(spec, precision, calibration_texts=None) -> str:
    """The exported version folder of `spec` at `precision`: the cached one, or one converted now by `keras-sentemb
    export` in a child process (its TensorFlow leaves with it). ValueError with the child's last line when the
    conversion fails."""
    base = cache_folder(spec, precision, calibration_texts)
    cached = exported_version(base)
    if cached is not None:
        LOG.info("serving the OpenVINO conversion cached in %s", cached)
        return cached
    command = [sys.executable, "-m", "keras_sentemb.apps.cli", "export", base, "--model", os.fspath(spec)]
    command += ["--backend", "openvino", "--precision", precision, "--overwrite"]
    LOG.info("converting %s to OpenVINO %s once, in a child process, into %s", spec, precision, base)
    with tempfile.TemporaryDirectory() as scratch:
        if calibration_texts:
            calibration = os.path.join(scratch, "calibration.txt")
            with open(calibration, "w", encoding="utf-8") as f:
                f.write("\n".join(calibration_texts) + "\n")
            command += ["--calibration", calibration]
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    converted = exported_version(base)
    if done.returncode != 0 or converted is None:
        lines = [line for line in done.stderr.splitlines() if line.strip()] or [f"exit status {done.returncode}"]
        raise ValueError(f"converting {spec} to OpenVINO {precision} failed: {lines[-1]}")
    return converted
