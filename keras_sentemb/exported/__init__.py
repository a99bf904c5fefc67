"""Exported models run without TensorFlow: an `export --backend openvino` folder (its OpenVINO IR, its
tokenizer as a Hugging Face `tokenizer.json`, its prompts, width and precision) loaded by `ExportedEncoder`
with OpenVINO and `tokenizers` only. This is what `keras-sentemb serve FOLDER` and the Ray Serve replicas run:
a process of ~0.3 GB that starts in about a second, where one that imports TensorFlow holds 0.9 GB before
any work. Nothing in this package imports TensorFlow, Keras or keras-hub (an import-linter contract)."""

from keras_sentemb.exported.exported_encoder import ExportedEncoder, is_exported_folder
from keras_sentemb.exported.host_tokenizer import HostTokenizer

__all__ = ["ExportedEncoder", "HostTokenizer", "is_exported_folder"]
