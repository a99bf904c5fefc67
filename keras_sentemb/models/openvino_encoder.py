"""OpenVINOEncoder: a sentence encoder exported by `export_openvino`, run without Keras weights.

The folder `export_openvino` writes holds the OpenVINO IR of the encoder's traced function
(`openvino_model.xml` + `.bin`, already quantised for int8), `keras_sentemb_openvino.json`
(the tokenizer's vocabulary and settings, the precision, the embedding width) and, since the lean
runtime, `tokenizer.json` (`exported.openvino_folder`). This class rebuilds the in-graph tokenizer
(TensorFlow) and reads folders of every export; `keras_sentemb.exported.ExportedEncoder` reads the
same folder without TensorFlow (what `keras-sentemb serve FOLDER` runs).

Example (not run as a doctest: it exports a real model):

    folder = export_openvino(encoder, "serving/minilm-int8", precision="int8",
                             calibration_texts=sentences)
    OpenVINOEncoder.load(folder).encode(["A man plays a guitar."]).shape
    # -> (1, 384)
"""

from __future__ import annotations

import os

import numpy as np

from keras_sentemb.exported.openvino_folder import (  # noqa: E402  (the folder's names, re-exported)
    MODEL_FILE,
    read_openvino_settings,
)
from keras_sentemb.models.embedding_model import EmbeddingModel
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.runtime import OpenVINORuntime
from keras_sentemb.tokenizers.byte_level_bpe_tokenizer import ByteLevelBpeTokenizer
from keras_sentemb.tokenizers.sentence_tokenizer import SentenceTokenizer
from keras_sentemb.tokenizers.sentencepiece_bpe_tokenizer import SentencePieceBpeTokenizer
from keras_sentemb.tokenizers.unigram_tokenizer import UnigramTokenizer
from keras_sentemb.utils.types import Texts

TOKENIZER_CLASSES = {
    cls.__name__: cls for cls in (SentenceTokenizer, ByteLevelBpeTokenizer, UnigramTokenizer, SentencePieceBpeTokenizer)
}


def tokenizer_settings(tokenizer):
    """What `OpenVINOEncoder.load` rebuilds the encoder's tokenizer from (JSON-able): its class, its Keras
    config and its vocabulary (and merge rules)."""
    name = type(tokenizer).__name__
    if name not in TOKENIZER_CLASSES:
        raise TypeError(f"export_openvino: a {name} tokenizer cannot be saved (supported: {sorted(TOKENIZER_CLASSES)})")
    config = tokenizer.get_config()
    if isinstance(tokenizer, (UnigramTokenizer, SentencePieceBpeTokenizer)):  # its config holds its vocabulary
        return {"class": name, "config": config}
    config["vocabulary"] = (
        dict(tokenizer.vocabulary) if isinstance(tokenizer.vocabulary, dict) else list(tokenizer.vocabulary)
    )
    if isinstance(tokenizer, ByteLevelBpeTokenizer):
        config["merges"] = list(tokenizer.merges)
    return {"class": name, "config": config}


def tokenizer_from_settings(settings):
    """The tokenizer `tokenizer_settings` describes (older exports: a BERT `SentenceTokenizer`'s arguments)."""
    if "class" not in settings:
        return SentenceTokenizer(**settings)
    return TOKENIZER_CLASSES[settings["class"]].from_config(settings["config"])


class OpenVINOEncoder(EmbeddingModel):
    """`encode` of an exported encoder on OpenVINO (same batching, same vectors as the
    `SentenceEncoder.encode(backend="openvino", precision=...)` that was exported).

    Args:
        runtime: an `OpenVINORuntime`.
        tokenizer: the encoder's tokenizer (`SentenceTokenizer`, `ByteLevelBpeTokenizer`, `UnigramTokenizer`,
            `SentencePieceBpeTokenizer`).
        embedding_dim: the width of one vector.
        name: the model's name.
    """

    def __init__(self, runtime, tokenizer, embedding_dim, name="openvino_encoder"):
        self.runtime = runtime
        self.tokenizer = tokenizer
        self._embedding_dim = int(embedding_dim)
        self.name = name

    @classmethod
    def load(cls, folder: str | os.PathLike) -> OpenVINOEncoder:
        """Loads a version folder written by `export_openvino`.

        Raises:
            FileNotFoundError: the folder lacks the IR or the settings file (names which).
            ValueError: the settings file is of another format.
        """
        folder = os.fspath(folder)
        settings = read_openvino_settings(folder)
        tokenizer = tokenizer_from_settings(settings["tokenizer"])
        runtime = OpenVINORuntime.load(os.path.join(folder, MODEL_FILE), settings["precision"], tokenizer.max_length)
        return cls(runtime, tokenizer, settings["embedding_dim"], name=settings["name"])

    @property
    def precision(self):
        return self.runtime.precision

    @property
    def embedding_dim(self):
        return self._embedding_dim

    # `[CLS] row [SEP] [PAD]…`: SentenceEncoder's packing, the one the exported graph was traced with.
    packed_length = SentenceEncoder.packed_length
    pack_batch = SentenceEncoder.pack_batch

    def inference_runtime(self, backend=None, precision=None, calibration_texts=None):
        """The loaded runtime; asking for another backend or precision is a ValueError (export
        again for that)."""
        if backend not in (None, "openvino") or precision not in (None, self.precision):
            raise ValueError(
                f"this export runs on OpenVINO at {self.precision}; got backend={backend!r}, "
                f"precision={precision!r} (export again for another precision)"
            )
        return self.runtime

    def encode(
        self,
        texts: Texts,
        batch_size: int = 64,
        normalize: bool = True,
        progress: bool | None = None,
        *,
        truncate_dim: int | None = None,
    ) -> np.ndarray:
        """As `SentenceEncoder.encode` (float32 NumPy [N, d], input order, smart batching;
        `truncate_dim` keeps the first features), at the exported precision."""
        return self.encode_texts(texts, batch_size, normalize, progress, None, self.precision, None, truncate_dim)
