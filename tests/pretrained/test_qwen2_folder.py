"""A Qwen2 folder (gte-Qwen2's shape): what its config.json may say, and the tensors it must hold."""

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from keras_sentemb.models import SentenceEncoder
from tests.pretrained.test_sentence_transformers_folder import copy_of, edit_json

QWEN2 = "qwen2_lasttoken_prompts_new"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hidden_act": "gelu"}, r"hidden_act='gelu' is not supported \(only 'silu'\)"),
        ({"use_sliding_window": True}, r"use_sliding_window=True is not supported"),
        ({"rope_parameters": {"rope_type": "yarn", "factor": 4.0}}, r"RoPE scaling .* is not supported"),
        ({"rope_parameters": {"rope_theta": -1.0}}, r"rope_theta"),
        ({"num_key_value_heads": 3}, r"num_attention_heads=4 is not a multiple of num_key_value_heads=3"),
        ({"rms_norm_eps": 0.0}, r"rms_norm_eps=0.0: must be a number in \(0, 0.1\]"),
        ({"layer_types": ["sliding_attention", "full_attention"]}, r"layer_types"),
    ],
)
def test_a_config_value_that_does_not_fit_is_refused_naming_the_file_and_key(changes, message, tmp_path):
    folder = copy_of(QWEN2, tmp_path)
    edit_json(folder / "config.json", lambda config: config.update(changes))
    with pytest.raises(ValueError, match=rf"config\.json.*{message}"):
        SentenceEncoder.from_pretrained(folder)


def test_a_checkpoint_without_the_projection_biases_is_refused_by_tensor_name(tmp_path):
    """Qwen2's query/key/value projections carry biases: a checkpoint without them is not Qwen2's."""
    folder = copy_of(QWEN2, tmp_path)
    tensors = {
        name: value for name, value in load_file(folder / "model.safetensors").items() if "q_proj.bias" not in name
    }
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(KeyError, match=r"layers\.0\.self_attn\.q_proj\.bias"):
        SentenceEncoder.from_pretrained(folder)


def test_a_bias_of_the_wrong_size_is_refused(tmp_path):
    folder = copy_of(QWEN2, tmp_path)
    tensors = load_file(folder / "model.safetensors")
    tensors["layers.1.self_attn.k_proj.bias"] = np.zeros(3, np.float32)
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ValueError, match=r"tensor 'layers\.1\.self_attn\.k_proj\.bias' has shape \(3,\)"):
        SentenceEncoder.from_pretrained(folder)
