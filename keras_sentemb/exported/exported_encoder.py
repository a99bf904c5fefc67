"""ExportedEncoder: an `export --backend openvino` folder run by OpenVINO, or a `.tflite` file of `export --litert
--tokenizer outside` run by the LiteRT interpreter, its texts tokenised by `tokenizers`: without TensorFlow.

Example (not run as a doctest: it needs an exported folder):

    encoder = ExportedEncoder.load("serving/minilm-int8/1")
    encoder.encode(["A man plays a guitar."]).shape  # (1, 384), as SentenceEncoder.encode(..., backend="openvino")
"""

from __future__ import annotations

import os

import numpy as np

from keras_sentemb.data.length_buckets import length_buckets
from keras_sentemb.data.prompts import document_prompt, query_prompt, resolve_prompt
from keras_sentemb.data.text_inputs import validate_texts
from keras_sentemb.exported.host_tokenizer import HostTokenizer
from keras_sentemb.exported.openvino_folder import (
    MODEL_FILE,
    SETTINGS_FILE,
    TOKENIZER_FILE,
    is_openvino_folder,
    read_openvino_settings,
)
from keras_sentemb.exported.serving_settings import read_packing, read_prompts
from keras_sentemb.runtime.batched_rows import BatchedRows, check_batch_size, finished_vectors
from keras_sentemb.runtime.litert_ids_runtime import LiteRTTokenIdsRuntime
from keras_sentemb.runtime.litert_metadata import read_litert_metadata, read_litert_tokenizer
from keras_sentemb.runtime.openvino_runtime import OpenVINORuntime
from keras_sentemb.utils.argument_checks import truncate_dim_or_none


def is_exported_folder(path) -> bool:
    """Whether `path` is what `ExportedEncoder.load` reads: an `export_openvino` version folder, a base folder whose
    newest version folder is one, or a LiteRT file (`.tflite`)."""
    return exported_version(path) is not None


def exported_version(path):
    """`path` itself when it is an `export_openvino` version folder or a `.tflite` file; else its numbered
    subfolder of the highest number when that one is an `export_openvino` folder; else None."""
    path = os.fspath(path)
    if path.endswith(".tflite") and os.path.exists(path):
        return path
    if not os.path.isdir(path):
        return None
    if is_openvino_folder(path):
        return path
    versions = [name for name in os.listdir(path) if name.isdigit() and os.path.isdir(os.path.join(path, name))]
    newest = os.path.join(path, max(versions, key=int)) if versions else None
    return newest if newest and is_openvino_folder(newest) else None


class ExportedEncoder(BatchedRows):
    """`encode` of an exported sentence encoder on OpenVINO, its texts tokenised by Hugging Face `tokenizers`:
    the vectors of `SentenceEncoder.encode(texts, backend="openvino", precision=...)` of the model that was
    exported (same packing, same batching and padding, same runtime), in a process without TensorFlow.

    It has what `server.EmbeddingService` asks of a model: `tokenizer`, `prompts`, `resolve_prompt`,
    `tokenize_to_rows`, `packed_length`, `predict_rows` (`runtime.batched_rows.BatchedRows`), `inference_runtime`,
    `embedding_dim`.

    Args:
        runtime: the `OpenVINORuntime` of the IR.
        tokenizer: its `HostTokenizer`.
        embedding_dim: the width of a vector.
        name: the model's name.
        precision: the exported precision.
        prompts / default_prompt_name: as `SentenceEncoder`'s.
    """

    def __init__(
        self,
        runtime,
        tokenizer,
        embedding_dim,
        name,
        precision="float32",
        prompts=None,
        default_prompt_name=None,
    ):
        self.runtime, self.tokenizer, self.name = runtime, tokenizer, name
        self.embedding_dim, self.precision = int(embedding_dim), precision
        self.prompts, self.default_prompt_name = dict(prompts or {}), default_prompt_name

    @classmethod
    def load(cls, folder: str | os.PathLike) -> ExportedEncoder:
        """Loads an `export_openvino` version folder (or the newest version of a base folder).

        Raises:
            FileNotFoundError: a file of the folder is missing (names which).
            ValueError: a settings value is wrong (names `file: key`), or the folder was exported before its
                host tokenizer was saved (export it again).
            ImportError: OpenVINO is not installed.
        """
        version = exported_version(folder)
        if version is None:
            version = os.fspath(folder)  # read_openvino_settings names what is missing
        if version.endswith(".tflite"):
            return cls.load_litert(version)
        settings = read_openvino_settings(version)
        source = os.path.join(version, SETTINGS_FILE)
        packing = read_packing(settings, source)
        prompts, default_prompt_name = read_prompts(settings, source)
        tokenizer = HostTokenizer.from_file(os.path.join(version, TOKENIZER_FILE), **packing)
        runtime = OpenVINORuntime.load(os.path.join(version, MODEL_FILE), settings["precision"], tokenizer.max_length)
        return cls(
            runtime,
            tokenizer,
            settings["embedding_dim"],
            settings["name"],
            settings["precision"],
            prompts,
            default_prompt_name,
        )

    @classmethod
    def load_litert(cls, path: str | os.PathLike, threads: int | None = None) -> ExportedEncoder:
        """Loads a `.tflite` file of `export_litert(encoder, path, tokenizer="outside")`: its card's packing and
        prompts, its host tokenizer (the `keras_sentemb_tokenizer` metadata entry), run by the LiteRT interpreter.

        Raises:
            ValueError: a file that is not ours, one with the tokenizer inside (its TF Text kernels need
                TensorFlow Text: export it with the tokenizer outside), or one exported before the host tokenizer
                was stored in it (export it again).
            ImportError: the LiteRT interpreter (`ai-edge-litert`) is not installed.
        """
        path = os.fspath(path)
        card = read_litert_metadata(path)
        if card["tokenizer"].get("place") != "outside":
            raise ValueError(
                f"{path}: its tokenizer is inside (TF Text's kernels, which need TensorFlow Text): export it with the "
                "tokenizer outside (keras-sentemb export --litert --tokenizer outside) to serve it without TensorFlow"
            )
        packing = read_packing(card, f"{path} (keras_sentemb metadata)")
        prompts, default_prompt_name = read_prompts(card, f"{path} (keras_sentemb metadata)")
        host = read_litert_tokenizer(path)
        if host is None:
            raise ValueError(f"{path}: no host tokenizer stored in it: export it again")
        tokenizer = HostTokenizer.from_bytes(host, f"{path} (keras_sentemb_tokenizer metadata)", **packing)
        runtime = LiteRTTokenIdsRuntime(path, card["signature"], card.get("precision", "float32"), threads)
        name = card.get("name") or os.path.splitext(os.path.basename(path))[0]
        return cls(runtime, tokenizer, card["embedding_dim"], name, runtime.precision, prompts, default_prompt_name)

    # ------------------------------------------------------------------ what the server asks
    def resolve_prompt(self, prompt_name: str | None = None, prompt: str | None = None) -> str | None:
        """As `SentenceEncoder.resolve_prompt` (`data.prompts.resolve_prompt`)."""
        return resolve_prompt(self.prompts, self.default_prompt_name, prompt_name, prompt)

    @property
    def length_buckets(self):
        return length_buckets(self.tokenizer.max_length)

    def packed_length(self, row):
        return self.tokenizer.packed_length(row)

    def pack_batch(self, rows, length):
        return self.tokenizer.pack_batch(rows, length)

    def tokenize_to_rows(self, utf8_texts):
        """Content-id rows (NumPy int32, truncated) of texts (UTF-8 bytes or str)."""
        return self.tokenizer.content_id_rows(utf8_texts)

    @property
    def backend(self):
        """ "litert" for a LiteRT file, else "openvino"."""
        return "litert" if isinstance(self.runtime, LiteRTTokenIdsRuntime) else "openvino"

    def inference_runtime(self, backend=None, precision=None, calibration_texts=None):
        """The loaded runtime; another backend or precision is a ValueError (export again for that)."""
        if backend not in (None, self.backend) or precision not in (None, self.precision):
            raise ValueError(
                f"{self.name} is exported for {self.backend} at {self.precision}; got backend={backend!r}, "
                f"precision={precision!r} (export it again for another precision)"
            )
        return self.runtime

    # ------------------------------------------------------------------ the Python API
    def encode(
        self,
        texts,
        batch_size: int = 64,
        normalize: bool = True,
        progress: bool | None = None,
        *,
        prompt_name: str | None = None,
        prompt: str | None = None,
        truncate_dim: int | None = None,
    ) -> np.ndarray:
        """float32 NumPy [N, d] in input order (a single `str` gives [d]), as `SentenceEncoder.encode`: the prompt
        prepended, the first `truncate_dim` features kept, then unit length with `normalize`."""
        utf8_texts, single = validate_texts(texts)
        check_batch_size(batch_size)
        truncate_dim = truncate_dim_or_none(truncate_dim, self.embedding_dim)
        prefix = self.resolve_prompt(prompt_name, prompt)
        if prefix:
            utf8_texts = [prefix.encode("utf-8") + text for text in utf8_texts]
        rows = self.tokenize_to_rows(utf8_texts) if utf8_texts else []
        vectors = self.predict_rows(rows, batch_size, progress)
        vectors = finished_vectors(vectors, truncate_dim, normalize)
        return vectors[0] if single else vectors

    def encode_query(self, texts, prompt_name=None, prompt=None, **kwargs):
        """`encode` with the "query" prompt when none is given (`SentenceEncoder.encode_query`)."""
        if prompt_name is None and prompt is None:
            prompt = query_prompt(self.prompts)
        return self.encode(texts, prompt_name=prompt_name, prompt=prompt, **kwargs)

    def encode_document(self, texts, prompt_name=None, prompt=None, **kwargs):
        """`encode` with the first of the "document", "passage", "corpus" prompts (`SentenceEncoder.encode_document`)."""
        if prompt_name is None and prompt is None:
            prompt = document_prompt(self.prompts)
        return self.encode(texts, prompt_name=prompt_name, prompt=prompt, **kwargs)

    def __repr__(self):
        return f"ExportedEncoder({self.name!r}, {self.embedding_dim}-d, {self.backend} {self.precision})"
