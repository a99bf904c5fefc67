"""config.json is checked against the checkpoint's shapes before anything is built, for every family:
each dimension, the layer count, the heads, the padding id and the types, one error naming the key,
its value and the tensor."""

import json
import shutil

import pytest

from keras_sentemb.families.registry import FAMILIES as REGISTERED
from keras_sentemb.families.registry import MODEL_TYPES
from keras_sentemb.pretrained import load_hugging_face_backbone
from tests.conftest import FIXTURES

# One tiny folder of each family, its layer-count key and its hidden-size key.
FAMILIES = {
    "bert": ("bert_mean_normalize_old", "num_hidden_layers", "hidden_size"),
    "distilbert": ("distilbert_sqrt_residual_old", "n_layers", "dim"),
    "mpnet": ("mpnet_mean_normalize_old", "num_hidden_layers", "hidden_size"),
    "roberta": ("roberta_mean_normalize_new", "num_hidden_layers", "hidden_size"),
    "xlm-roberta": ("xlm_roberta_mean_normalize_new", "num_hidden_layers", "hidden_size"),
    "qwen3": ("qwen3_lasttoken_prompts_new", "num_hidden_layers", "hidden_size"),
    "qwen2": ("qwen2_lasttoken_prompts_new", "num_hidden_layers", "hidden_size"),
    "t5": ("t5_relu_mean_dense_new", "num_layers", "d_model"),
    "modernbert": ("modernbert_mean_prompts_new", "num_hidden_layers", "hidden_size"),
    "gemma3_text": ("gemma3_mean_dense_prompts_new", "num_hidden_layers", "hidden_size"),
}
# Families whose head size is its own setting (its key): heads × head size is checked against the projections.
OWN_HEAD_SIZE = {"qwen3": "head_dim", "gemma3_text": "head_dim", "t5": "d_kv"}
GROUPED_QUERY = ("gemma3_text", "qwen3")  # key/value heads shared by groups of query heads
HEADS = {"distilbert": "n_heads", "t5": "num_heads"}  # the heads' key where it is not num_attention_heads


def folder_with(tmp_path, family, **changes):
    folder = tmp_path / family
    shutil.copytree(f"{FIXTURES}/st_folders/{FAMILIES[family][0]}", folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))
    return folder


def test_every_family_the_loader_builds_is_described():
    assert set(MODEL_TYPES) == set(FAMILIES)
    assert all(family.dimensions is not None for family in REGISTERED)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_vocabulary_the_checkpoint_does_not_have_is_refused_before_building(family, tmp_path):
    folder = folder_with(tmp_path, family, vocab_size=10**7)
    embeddings = r"(word_embeddings|embed_tokens|tok_embeddings|shared)\.weight"
    with pytest.raises(ValueError, match=rf"config\.json: vocab_size=10000000 disagrees .*{embeddings}"):
        load_hugging_face_backbone(folder)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_layer_count_must_be_the_layers_present(family, tmp_path):
    layers = FAMILIES[family][1]
    folder = folder_with(tmp_path, family, **{layers: 10**6})
    with pytest.raises(
        ValueError, match=rf"{layers}=1000000 disagrees with the checkpoint, which has layers 0–(1 \(2|3 \(4)\)"
    ):
        load_hugging_face_backbone(folder)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_hidden_size_must_be_the_checkpoints_and_divide_among_the_heads(family, tmp_path):
    hidden = FAMILIES[family][2]
    heads = HEADS.get(family, "num_attention_heads")
    with pytest.raises(ValueError, match=rf"{hidden}=64 disagrees with the checkpoint"):
        load_hugging_face_backbone(folder_with(tmp_path / "a", family, **{hidden: 64}))
    if family in OWN_HEAD_SIZE:  # 6 query heads (sharing the 2 key/value heads evenly), but the checkpoint has 4
        with pytest.raises(
            ValueError, match=rf"{heads}(×{OWN_HEAD_SIZE[family]})?=6(×\d+)? disagrees with the checkpoint"
        ):
            load_hugging_face_backbone(folder_with(tmp_path / "b", family, **{heads: 6}))
    else:
        with pytest.raises(ValueError, match=rf"{hidden}=32 is not a multiple of {heads}=5"):
            load_hugging_face_backbone(folder_with(tmp_path / "b", family, **{heads: 5}))


@pytest.mark.parametrize("family", GROUPED_QUERY)
def test_key_value_heads_must_match_the_checkpoint_and_share_the_query_heads_evenly(family, tmp_path):
    with pytest.raises(ValueError, match=r"num_key_value_heads×head_dim=1×16 disagrees .*k_proj"):
        load_hugging_face_backbone(folder_with(tmp_path / "a", family, num_key_value_heads=1))
    with pytest.raises(ValueError, match=r"num_attention_heads=4 is not a multiple of num_key_value_heads=3"):
        load_hugging_face_backbone(folder_with(tmp_path / "b", family, num_key_value_heads=3))


@pytest.mark.parametrize("family", ["mpnet", "roberta", "xlm-roberta"])
def test_a_padding_id_outside_the_positions_is_refused(family, tmp_path):
    folder = folder_with(tmp_path, family, pad_token_id=10**6)
    with pytest.raises(ValueError, match=r"pad_token_id=1000000 must be below vocab_size"):
        load_hugging_face_backbone(folder)


def test_mpnets_relative_buckets_are_checked_against_their_table(tmp_path):
    folder = folder_with(tmp_path, "mpnet", relative_attention_num_buckets=10**6)
    with pytest.raises(ValueError, match=r"relative_attention_num_buckets=1000000 disagrees .*relative_attention_bias"):
        load_hugging_face_backbone(folder)


def test_a_task_models_prefixed_checkpoint_is_checked_by_the_same_names(tmp_path):
    from safetensors.numpy import load_file, save_file

    folder = folder_with(tmp_path, "bert", num_hidden_layers=3)
    tensors = load_file(folder / "model.safetensors")
    save_file({f"bert.{name}": value for name, value in tensors.items()}, folder / "model.safetensors")
    with pytest.raises(ValueError, match=r"num_hidden_layers=3 disagrees with the checkpoint, which has layers 0–1"):
        load_hugging_face_backbone(folder)
