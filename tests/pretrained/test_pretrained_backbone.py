"""load_backbone_and_tokenizer: the backbone of a preset with a tokenizer that follows the folder's
sentence-transformers settings and never exceeds the backbone's positions."""

from keras_sentemb.pretrained.pretrained_backbone import load_backbone_and_tokenizer
from tests.conftest import require_minilm


def test_the_minilm_preset_gives_its_backbone_tokenizer_and_settings():
    require_minilm()
    backbone, tokenizer, spec = load_backbone_and_tokenizer("minilm-l6")
    assert (backbone.num_layers, backbone.hidden_dim, backbone.hidden_act) == (6, 384, "gelu")
    assert (tokenizer.max_length, spec.pooling_modes, spec.normalize) == (256, ("mean",), True)
    assert tokenizer.lowercase_text is True and tokenizer.strip_accents is True


def test_max_length_lowers_the_limit_but_never_past_the_positions():
    require_minilm()
    _, short, _ = load_backbone_and_tokenizer("minilm-l6", max_length=32)
    backbone, long, _ = load_backbone_and_tokenizer("minilm-l6", max_length=100_000)
    assert short.max_length == 32
    assert long.max_length == backbone.max_sequence_length == 512
