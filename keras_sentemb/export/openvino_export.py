"""export_openvino: a sentence encoder as an OpenVINO IR at float32, bfloat16 or int8, with its
tokenizer, for `OpenVINOEncoder.load` (or any OpenVINO runtime fed token ids)."""

from __future__ import annotations

import json
import os

from keras_sentemb.export.serving_export import version_folder
from keras_sentemb.exported.openvino_folder import FORMAT, MODEL_FILE, SETTINGS_FILE, TOKENIZER_FILE
from keras_sentemb.exported.serving_settings import packing_settings
from keras_sentemb.models.openvino_encoder import tokenizer_settings
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.utils.output_targets import replaced_folder
from keras_sentemb.utils.types import Texts
from keras_sentemb.version import __version__

OPENVINO_KIND = "openvino"  # the marker of its version folders (utils.output_targets)


def export_openvino(
    encoder: SentenceEncoder,
    path: str | os.PathLike,
    precision: str = "float32",
    calibration_texts: Texts | None = None,
    version: int = 1,
    overwrite: bool = False,
) -> str:
    """Writes `encoder` at `precision` to `path/<version>/` (atomically); returns that folder.

    The folder holds `openvino_model.xml` + `.bin` (inputs `token_ids`, `padding_mask` int32
    [batch, length]; output float32 [batch, d]; for int8 the NNCF-quantised model, calibrated
    on `calibration_texts`), `tokenizer.json` (the host tokenizer: Hugging Face `tokenizers`) and
    `keras_sentemb_openvino.json` (precision, width, pooling, prompts, packing, the in-graph tokenizer).
    `keras_sentemb.exported.ExportedEncoder.load(folder)` runs it without TensorFlow (`keras-sentemb serve`).
    The layout (`path/<version>/`) is the one OpenVINO Model Server reads as well.
    `OpenVINOEncoder.load(folder).encode(texts)` gives the vectors of
    `encoder.encode(texts, backend="openvino", precision=precision)`.

    Args:
        encoder: a `SentenceEncoder` (its tokenizer is saved with it).
        path: the model's base folder.
        precision: "float32", "bfloat16" (compiled for at load; the weights stay float32) or
            "int8".
        calibration_texts: for int8: a few hundred sentences like the ones you will encode.
        version / overwrite: as `export_saved_model`.

    Raises:
        TypeError: `encoder` is not a `SentenceEncoder`.
        ImportError: OpenVINO (or NNCF for int8) is not installed.
    """
    if not isinstance(encoder, SentenceEncoder):
        raise TypeError(f"export_openvino takes a SentenceEncoder, got {type(encoder).__name__}")
    target = version_folder(path, version, overwrite, kind=OPENVINO_KIND)  # before the (long) conversion
    tokenizer = encoder._require_tokenizer()
    runtime = encoder.inference_runtime("openvino", precision, calibration_texts)
    settings = {
        "format": FORMAT,
        "name": encoder.name,
        "precision": precision,
        "embedding_dim": encoder.embedding_dim,
        "pooling": encoder.pooling if isinstance(encoder.pooling, str) else list(encoder.pooling),
        "normalize": bool(encoder.normalize),  # in the graph; encode(normalize=True) makes unit vectors anyway
        "prompts": dict(encoder.prompts),
        "default_prompt_name": encoder.default_prompt_name,
        "packing": packing_settings(tokenizer),
        "tokenizer": tokenizer_settings(tokenizer),
        "keras_sentemb": __version__,
    }
    with replaced_folder(target, OPENVINO_KIND, overwrite) as staging:
        runtime.save(os.path.join(staging, MODEL_FILE))
        tokenizer.host_tokenizer().save(os.path.join(staging, TOKENIZER_FILE))
        with open(os.path.join(staging, SETTINGS_FILE), "w", encoding="utf-8") as f:
            json.dump(settings, f)
    return target
