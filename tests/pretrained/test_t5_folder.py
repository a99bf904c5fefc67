"""A T5 encoder folder (sentence-t5, GTR): what its config.json may say, and the checkpoints it may come in."""

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from keras_sentemb.models import SentenceEncoder
from tests.pretrained.test_sentence_transformers_folder import copy_of, edit_json

TEXTS = ["the cat sat on the mat", "a dog ran", "ünïcödé and   spaces", ""]
RELU, GATED = "t5_relu_mean_dense_new", "t5_gatedgelu_mean_dense_new"


def test_a_whole_t5_checkpoint_loads_its_encoder_alone(tmp_path):
    """T5ForConditionalGeneration's tensors: the tied `encoder.embed_tokens`, a decoder and the LM head beside
    the encoder's; the decoder's and the head's are not read, the vectors are the encoder folder's."""
    folder = copy_of(GATED, tmp_path)
    tensors = load_file(folder / "model.safetensors")
    tensors["encoder.embed_tokens.weight"] = tensors["shared.weight"]
    tensors["decoder.embed_tokens.weight"] = tensors["shared.weight"]
    tensors["decoder.block.0.layer.0.SelfAttention.q.weight"] = np.zeros((48, 32), np.float32)
    tensors["lm_head.weight"] = tensors["shared.weight"]
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    whole = SentenceEncoder.from_pretrained(folder).encode(TEXTS)
    alone = SentenceEncoder.from_pretrained(copy_of(GATED, tmp_path / "encoder")).encode(TEXTS)
    np.testing.assert_allclose(whole, alone, atol=1e-6)


def test_a_tensor_of_another_model_is_still_refused(tmp_path):
    folder = copy_of(RELU, tmp_path)
    tensors = load_file(folder / "model.safetensors")
    tensors["encoder.block.0.layer.2.extra.weight"] = np.zeros((2, 2), np.float32)
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ValueError, match=r"checkpoint tensors do not belong to the t5 model"):
        SentenceEncoder.from_pretrained(folder)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"feed_forward_proj": "gated-swishy"}, r"feed_forward_proj 'gated-swishy' is not supported"),
        ({"feed_forward_proj": "gated-gelu-relu"}, r"feed_forward_proj 'gated-gelu-relu' is not supported"),
        ({"feed_forward_proj": 3}, r"feed_forward_proj must be a string, got 3"),
        ({"is_decoder": True}, r"is_decoder=true is a T5 decoder"),
        ({"n_positions": 0}, r"n_positions must be a positive int, got 0"),
        ({"n_positions": "512"}, r"n_positions must be a positive int, got '512'"),
        ({"d_kv": 16}, r"num_heads×d_kv=4×16 disagrees with the checkpoint"),
        ({"d_ff": 10**7}, r"d_ff=10000000 disagrees with the checkpoint"),
        ({"relative_attention_num_buckets": 64}, r"relative_attention_num_buckets=64 disagrees with the checkpoint"),
        ({"layer_norm_epsilon": -1.0}, r"layer_norm_epsilon=-1.0: must be a number in \(0, 0.1\]"),
    ],
)
def test_a_config_value_that_does_not_fit_is_refused_naming_the_file_and_key(changes, message, tmp_path):
    folder = copy_of(RELU, tmp_path)
    edit_json(folder / "config.json", lambda config: config.update(changes))
    with pytest.raises(ValueError, match=rf"config\.json: .*{message}"):
        SentenceEncoder.from_pretrained(folder)


def test_a_relu_checkpoint_read_as_gated_is_refused(tmp_path):
    """sentence-t5 (wi) called GTR (wi_0, wi_1): the tensors it names are not there."""
    folder = copy_of(RELU, tmp_path)
    edit_json(folder / "config.json", lambda config: config.update(feed_forward_proj="gated-gelu"))
    with pytest.raises(KeyError, match=r"DenseReluDense\.wi_0"):
        SentenceEncoder.from_pretrained(folder)
