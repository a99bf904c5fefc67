"""enable_backbone_lora: only the LoRA kernels of the query and value projections train;
every other backbone weight, biases included, is frozen."""

import keras
import keras_hub
import numpy as np
import pytest

from keras_sentemb.layers.backbone_lora import copy_backbone_weights, enable_backbone_lora, merged_backbone_weights
from tests.conftest import TINY_VOCAB, make_tiny_backbone


def test_only_lora_kernels_stay_trainable():
    backbone = make_tiny_backbone()
    enable_backbone_lora(backbone, rank=2)
    trainable = [w.path for w in backbone.trainable_weights]
    # two layers × (query, value) × (A, B)
    assert len(trainable) == 8 and all("lora_kernel" in path for path in trainable)
    assert any("query" in path for path in trainable) and any("value" in path for path in trainable)


@pytest.mark.parametrize("rank", [0, -1, 2.0, "4"])
def test_rank_must_be_a_positive_int(rank):
    with pytest.raises(ValueError, match="rank must be a positive int"):
        enable_backbone_lora(make_tiny_backbone(), rank)


def _outputs(backbone):
    token_ids = np.array([[2, 5, 7, 3, 0, 0]], "int32")
    inputs = {"token_ids": token_ids, "segment_ids": np.zeros_like(token_ids), "padding_mask": token_ids > 0}
    return keras.ops.convert_to_numpy(backbone(inputs)["sequence_output"])


def test_merged_weights_of_a_trained_lora_backbone_compute_what_it_computes():
    source = make_tiny_backbone()
    enable_backbone_lora(source, rank=2)
    for variable in source.trainable_weights:  # a "trained" adapter: B·A no longer zero
        variable.assign(np.random.default_rng(0).normal(0, 0.3, variable.shape))
    target = make_tiny_backbone()
    assert not np.allclose(_outputs(target), _outputs(source), atol=1e-3)
    copy_backbone_weights(source, target)
    np.testing.assert_allclose(_outputs(target), _outputs(source), atol=1e-5)
    assert not any("lora_kernel" in path for path in merged_backbone_weights(source))


def test_copying_into_a_different_architecture_names_the_first_difference():
    with pytest.raises(ValueError, match="the backbones differ"):
        wider = keras_hub.models.BertBackbone(len(TINY_VOCAB), 2, 2, 24, 32, max_sequence_length=32)
        copy_backbone_weights(make_tiny_backbone(), wider)


def test_copying_into_a_lora_target_is_refused():
    target = make_tiny_backbone()
    enable_backbone_lora(target, rank=2)
    with pytest.raises(ValueError, match="before enabling LoRA"):
        copy_backbone_weights(make_tiny_backbone(), target)
