"""MPNetBackbone: Hugging Face MPNet's computation, in keras-hub's shape."""

import json
import os

import keras
import numpy as np
import pytest

from keras_sentemb.backbones import MPNetBackbone, relative_position_buckets
from keras_sentemb.families.relative_position_bias import distance_buckets
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from tests.conftest import FIXTURES
from tests.layer_test_case import run_model_test

TOKENS = {
    "token_ids": np.array([[0, 7, 9, 12, 2, 1, 1], [0, 5, 2, 1, 1, 1, 1]], dtype="int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0, 0]], dtype="int32"),
}


def tiny_mpnet(**overrides):
    keras.utils.set_random_seed(0)
    config = dict(vocabulary_size=20, num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16)
    config.update(max_sequence_length=16, dropout=0.0, **overrides)
    return MPNetBackbone(**config)


def test_buckets_are_hugging_faces_for_every_distance():
    """The table Hugging Face's `relative_position_bucket` gives for j − i in [−1100, 1100)."""
    with open(os.path.join(FIXTURES, "st_folders_reference", "mpnet_buckets.json")) as f:
        reference = json.load(f)
    start, stop = reference["relative_positions"]
    ours = distance_buckets(np.arange(start, stop), reference["num_buckets"], reference["max_distance"])
    assert ours.tolist() == reference["buckets"]


def test_the_bucket_matrix_is_indexed_query_then_key():
    buckets = relative_position_buckets(40, num_buckets=32, max_distance=128)
    # i attends j: j before i is n = i − j > 0 (buckets 0–15), j after i is 16 + …
    assert (buckets[0, 0], buckets[5, 0], buckets[0, 5]) == (0, 5, 16 + 5)
    assert buckets[39, 0] == 8 + int(np.log(39 / 8) / np.log(16) * 8)  # logarithmic from 8 on


def test_passes_the_shared_model_checks(tmp_path):
    run_model_test(tiny_mpnet(), TOKENS, (2, 7, 8), tmp_path)


def test_padding_never_changes_the_real_tokens_states():
    backbone = tiny_mpnet()
    short = {k: v[:1, :5] for k, v in TOKENS.items()}
    padded = backbone(TOKENS)[:1, :5]
    np.testing.assert_allclose(backbone(short), padded, atol=1e-5)


def test_its_blocks_are_the_layer_states_sentence_encoders_pool():
    backbone = tiny_mpnet()
    states = transformer_layer_states(backbone)(TOKENS)
    assert len(states) == 2
    np.testing.assert_allclose(states[-1], backbone(TOKENS), atol=1e-6)


def test_lora_adapts_the_query_and_value_projections():
    backbone = tiny_mpnet()
    enable_backbone_lora(backbone, 2)
    trainable = sorted(v.path for v in backbone.trainable_weights)
    assert trainable and all("lora_kernel" in path for path in trainable)
    assert {path.split("/")[1] for path in trainable} == {"query", "value"}


def test_bfloat16_compute_stays_close_to_float32():
    full = np.asarray(tiny_mpnet()(TOKENS))
    half = tiny_mpnet(dtype="mixed_bfloat16")
    half.set_weights(tiny_mpnet().get_weights())
    mask = TOKENS["padding_mask"][:, :, None].astype(bool)
    assert np.abs(np.asarray(half(TOKENS), "float32") - full)[np.broadcast_to(mask, full.shape)].max() < 0.1


def test_a_hidden_size_that_heads_do_not_divide_is_refused():
    with pytest.raises(ValueError, match="not a multiple of 3 heads"):
        tiny_mpnet(num_heads=3)
