"""enable_backbone_lora: only the LoRA kernels of the query and value projections train;
every other backbone weight, biases included, is frozen."""

import pytest

from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from tests.conftest import make_tiny_backbone


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
