"""LoRA adapts each family's own layers: "attention" its query and value projections (ModernBERT's fused qkv),
"all" every dense layer of its blocks, whatever the family calls them."""

import os

import keras
import pytest

from keras_sentemb.families.registry import FAMILIES, family_of, lora_layer_names
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.models import SentenceEncoder
from tests.conftest import FIXTURES, make_tiny_backbone
from tests.families.test_family_math import FOLDERS


def block_dense_layers(backbone):
    """Every Dense / EinsumDense inside the backbone's blocks."""
    return [
        layer
        for block in backbone.transformer_layers
        for layer in block._flatten_layers()
        if isinstance(layer, keras.layers.Dense | keras.layers.EinsumDense)
    ]


@pytest.fixture(scope="module", params=sorted(set(FOLDERS.values())))
def folder(request):
    return os.path.join(FIXTURES, "st_folders", request.param)


def test_every_family_names_the_backbones_it_builds():
    assert all(family.backbone_types for family in FAMILIES)


def test_all_adapts_every_dense_layer_of_every_block(folder):
    encoder = SentenceEncoder.from_pretrained(folder)
    encoder.enable_lora(2, "all")
    layers = block_dense_layers(encoder.backbone)
    assert layers and all(layer.lora_enabled for layer in layers)
    trainable = {weight.path for weight in encoder.backbone.trainable_weights}
    assert trainable and all("lora_kernel" in path for path in trainable)


def test_attention_adapts_some_projections_of_every_block_and_not_the_feed_forward(folder):
    encoder = SentenceEncoder.from_pretrained(folder)
    encoder.enable_lora(2)  # "attention"
    for block in encoder.backbone.transformer_layers:
        adapted = [layer.name for layer in block._flatten_layers() if getattr(layer, "lora_enabled", False)]
        assert adapted, f"{block.name}: no adapter"
        assert not any("feedforward" in name or name in ("gate", "up", "down", "mlp_input") for name in adapted)


def test_a_backbone_of_no_family_gets_keras_hubs_default_and_the_encoder_names():
    backbone = keras.Sequential()
    assert family_of(backbone) is None
    assert lora_layer_names(backbone) is None
    assert "feedforward_output_dense" in lora_layer_names(backbone, "all")


def test_a_family_is_found_at_any_dtype():
    bf16 = make_tiny_backbone().__class__.from_config({**make_tiny_backbone().get_config(), "dtype": "mixed_bfloat16"})
    assert family_of(bf16).name == "bert"


@pytest.mark.parametrize("targets", ["everything", "", "qkv"])
def test_an_unknown_choice_is_refused_with_the_choices(targets):
    with pytest.raises(ValueError, match="one of attention, all, or a sequence of layer names"):
        lora_layer_names(make_tiny_backbone(), targets)


def test_layer_names_given_as_one_string_are_refused_by_the_backbone_helper():
    with pytest.raises(ValueError, match="target_layer_names must be layer names, got 'query'"):
        enable_backbone_lora(make_tiny_backbone(), 2, "query")
