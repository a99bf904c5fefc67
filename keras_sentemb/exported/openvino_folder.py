"""The files of an `export_openvino` version folder, and its settings read with every value checked.

    <version>/openvino_model.xml, .bin   the encoder's OpenVINO IR: int32 token_ids, padding_mask [batch,
                                          length] → float32 [batch, d] (pooled, not normalised)
    <version>/tokenizer.json             the host tokenizer (Hugging Face `tokenizers`): content ids only
    <version>/keras_sentemb_openvino.json format, name, precision, embedding_dim, normalize, pooling,
                                          prompts, default_prompt_name, packing (start/end ids, padding), and
                                          the in-graph tokenizer's Keras config (`models.OpenVINOEncoder`)

A folder exported before the host tokenizer was saved has no `packing` key: it loads with
`models.OpenVINOEncoder` (TensorFlow), and `ExportedEncoder` refuses it, saying to export it again.
"""

import os

from keras_sentemb.exported.serving_settings import check_value, positive_int
from keras_sentemb.runtime.runtime_choice import PRECISIONS
from keras_sentemb.utils.checked_files import read_json_object, require_keys

MODEL_FILE = "openvino_model.xml"
SETTINGS_FILE = "keras_sentemb_openvino.json"
TOKENIZER_FILE = "tokenizer.json"
FORMAT = "keras-sentemb-openvino/1"


def is_openvino_folder(path):
    """Whether `path` is a folder holding an OpenVINO IR and its settings file (the version folder of
    `export_openvino`)."""
    path = os.fspath(path)
    return all(os.path.isfile(os.path.join(path, name)) for name in (MODEL_FILE, SETTINGS_FILE))


def read_openvino_settings(folder):
    """The settings of an `export_openvino` folder (a dict), after checks that name `file: key`.

    Raises:
        FileNotFoundError: the IR or the settings file is missing (names which).
        ValueError: another format, or a value of the wrong type or range.
    """
    folder = os.fspath(folder)
    for file in (MODEL_FILE, SETTINGS_FILE):
        if not os.path.isfile(os.path.join(folder, file)):
            raise FileNotFoundError(f"{folder} is not an export_openvino folder: {file} is missing")
    source = os.path.join(folder, SETTINGS_FILE)
    settings = read_json_object(source)
    if settings.get("format") != FORMAT:
        raise ValueError(f"{source}: format {settings.get('format')!r}, expected {FORMAT!r}")
    require_keys(settings, ("name", "precision", "embedding_dim"), source)
    check_value(isinstance(settings["name"], str) and settings["name"], source, "name", settings, "a non-empty string")
    check_value(settings["precision"] in PRECISIONS, source, "precision", settings, f"one of {PRECISIONS}")
    check_value(positive_int(settings["embedding_dim"]), source, "embedding_dim", settings, "a positive int")
    return settings
