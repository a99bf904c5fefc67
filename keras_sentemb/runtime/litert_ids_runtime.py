"""LiteRTTokenIdsRuntime: a LiteRT file that takes token ids (`export_litert(tokenizer="outside")`) run by the LiteRT
interpreter alone — no TensorFlow, no TF Text kernels: what a server of that file runs."""

from __future__ import annotations

import os
import threading

import numpy as np

INSTALL_HINT = 'pip install "./keras-sentemb[litert]" (ai-edge-litert)'
# The most tokens (texts × padded length) one call takes; a larger batch runs in parts at the same padded length
# (the same vectors): the interpreter's tensors are sized for the largest call.
LITERT_MAX_BATCH_TOKENS = 4096


class LiteRTTokenIdsRuntime:
    """`runtime(token_ids, padding_mask)` → float32 [N, d]: the file's `signature` run on packed int32 ids.

    Args:
        path: the `.tflite` file (its inputs `token_ids`, `padding_mask`; its output `embedding`).
        signature: the signature key (the card's).
        precision: the file's precision (its card's), reported as `precision`.
        threads: interpreter threads (None: LiteRT's default).
    """

    max_batch_tokens = LITERT_MAX_BATCH_TOKENS

    def __init__(self, path: str | os.PathLike, signature: str, precision: str, threads: int | None = None):
        try:
            from ai_edge_litert import interpreter as litert
        except ImportError as error:
            raise ImportError(f"a LiteRT file needs the LiteRT interpreter: {INSTALL_HINT}") from error
        self.path, self.precision = os.fspath(path), precision
        self._interpreter = litert.Interpreter(model_path=self.path, num_threads=threads)
        self._runner = self._interpreter.get_signature_runner(signature)
        self._lock = threading.Lock()  # one interpreter: one call at a time

    def __call__(self, token_ids, padding_mask):
        with self._lock:
            outputs = self._runner(
                token_ids=np.asarray(token_ids, dtype=np.int32), padding_mask=np.asarray(padding_mask, dtype=np.int32)
            )
        return np.asarray(outputs["embedding"], dtype=np.float32)

    def __repr__(self):
        return f"LiteRTTokenIdsRuntime({self.path!r}, {self.precision})"
