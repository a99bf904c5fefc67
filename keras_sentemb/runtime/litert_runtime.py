"""LiteRTEncoder: runs a `.tflite` file written by `export_litert` with the LiteRT interpreter
(`ai-edge-litert`) and TF Text's LiteRT kernels, as an app would (the file runs without TensorFlow:
docs/on_device.md; this package itself imports it)."""

from __future__ import annotations

import os

import numpy as np
from tensorflow_text.core.pybinds import tflite_registrar

from keras_sentemb.runtime.litert_metadata import read_litert_metadata

INSTALL_HINT = 'pip install "./keras-sentemb[litert]" (ai-edge-litert)'


def tf_text_kernel_registrars():
    """TF Text's LiteRT kernel registrars for the ops a file with the tokenizer inside holds
    (`AddFastBertNormalize`, `AddFastWordpieceTokenize`, `AddRaggedTensorToTensor`).

    This package imports TensorFlow anyway, so they come from `tensorflow_text`'s own module (loading
    its shared library a second time under another name crashes the process at exit). An app without
    TensorFlow's Python package loads the same library by path: docs/on_device.md shows how."""
    return [
        tflite_registrar.AddFastBertNormalize,
        tflite_registrar.AddFastWordpieceTokenize,
        tflite_registrar.AddRaggedTensorToTensor,
    ]


class LiteRTEncoder:
    """A `.tflite` sentence encoder from `export_litert`, run by the LiteRT interpreter.

    `encode(texts)` → float32 [N, d] unit vectors (NumPy), `encode_with_codes(texts)` → (vectors, packed
    uint8 codes) for a hashed encoder; `metadata` is the file's card. With the tokenizer outside,
    `encode_ids(token_ids, padding_mask)`.

    Args:
        path: the `.tflite` file.
        threads: interpreter threads (None: LiteRT's default).

    Example:
    (Not run as a doctest: it needs an exported file; tests/export/test_litert_export.py runs the same calls.)
        encoder = LiteRTEncoder("minilm-int8.tflite")
        encoder.encode(["A man is eating food."]).shape
        # -> (1, 384)
    """

    def __init__(self, path: str | os.PathLike, threads: int | None = None):
        try:
            from ai_edge_litert import interpreter as litert
        except ImportError as error:
            raise ImportError(f"LiteRTEncoder needs the LiteRT interpreter: {INSTALL_HINT}") from error
        self.path = os.fspath(path)
        self.metadata = read_litert_metadata(self.path)
        registrars = tf_text_kernel_registrars() if self.metadata["tokenizer"]["place"] == "inside" else []
        self.interpreter = litert.InterpreterWithCustomOps(
            model_path=self.path, custom_op_registerers=registrars, num_threads=threads
        )
        self.runner = self.interpreter.get_signature_runner(self.metadata["signature"])

    @property
    def embedding_dim(self) -> int:
        return int(self.metadata["embedding_dim"])

    def encode_with_codes(self, texts):
        """(vectors float32 [N, d], codes uint8 [N, bits/8] or None) for a list of strings or bytes."""
        if self.metadata["tokenizer"]["place"] != "inside":
            raise ValueError(f"{self.path} takes token ids (tokenizer outside): call encode_ids")
        texts = [text.encode("utf-8", "replace") if isinstance(text, str) else bytes(text) for text in texts]
        if not texts:
            return np.zeros((0, self.embedding_dim), np.float32), None
        outputs = self.runner(texts=np.array(texts, dtype=object))
        return outputs["embedding"], outputs.get("codes")

    def encode(self, texts) -> np.ndarray:
        """float32 [N, d] unit vectors of `texts` (str or UTF-8 bytes)."""
        return self.encode_with_codes(texts)[0]

    def encode_ids(self, token_ids, padding_mask) -> np.ndarray:
        """float32 [N, d] for packed ids (`cls ids sep pad…`), a file with the tokenizer outside."""
        outputs = self.runner(
            token_ids=np.asarray(token_ids, dtype=np.int32), padding_mask=np.asarray(padding_mask, dtype=np.int32)
        )
        return outputs["embedding"]
