"""Reading a sentence-transformers folder: both layouts, and a clear error for anything we do not
compute (never silently wrong vectors)."""

import os

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from keras_sentemb import SentenceEncoder
from keras_sentemb.pretrained import load_hugging_face_backbone, read_sentence_transformers_folder, tokenizer_arguments
from tests.fixture_folders import ST_FOLDERS, copy_folder, edit_json

FOLDERS = ST_FOLDERS


def copy_of(name, tmp_path):
    return copy_folder(FOLDERS, name, tmp_path)


def test_the_older_layout_reads_flags_and_max_seq_length():
    spec = read_sentence_transformers_folder(os.path.join(FOLDERS, "distilbert_sqrt_residual_old"))
    assert (spec.pooling_modes, spec.pooler_modes) == (("mean_sqrt_len_tokens",), ("mean_sqrt_len",))
    assert spec.max_length == 48 and spec.normalize is False
    assert [(d.out_features, d.activation, d.use_residual) for d in spec.dense] == [(32, "relu", True)]


def test_the_6x_layout_reads_pooling_mode_model_max_length_prompts_and_truncate_dim():
    spec = read_sentence_transformers_folder(os.path.join(FOLDERS, "bert_weighted_last_prompts_new"))
    assert spec.pooling_modes == ("weightedmean", "lasttoken") and spec.max_length == 48
    assert spec.prompts == {"query": "query: ", "document": "passage: "} and spec.default_prompt_name == "query"
    assert spec.truncate_dim == 16 and spec.normalize is True
    assert [(d.out_features, d.activation, d.bias) for d in spec.dense] == [(24, "linear", False)]


def test_a_plain_hugging_face_folder_is_mean_pooled_to_its_positions(tmp_path):
    folder = copy_of("bert_mean_normalize_old", tmp_path)
    for name in ("modules.json", "sentence_bert_config.json", "config_sentence_transformers.json"):
        (folder / name).unlink()
    edit_json(folder / "tokenizer_config.json", lambda c: c.update(model_max_length=1e30))
    spec = read_sentence_transformers_folder(folder)
    assert (spec.pooling_modes, spec.normalize, spec.max_length, spec.dense) == (("mean",), False, None, ())
    assert SentenceEncoder.from_pretrained(folder).tokenizer.max_length == 64  # max_position_embeddings


def test_truncate_dim_and_normalize_can_be_overridden():
    encoder = SentenceEncoder.from_pretrained(os.path.join(FOLDERS, "bert_weighted_last_prompts_new"), truncate_dim=8)
    assert encoder.embedding_dim == 8
    with pytest.raises(ValueError, match="truncate_dim must be an int in"):
        SentenceEncoder.from_pretrained(os.path.join(FOLDERS, "bert_mean_normalize_old"), truncate_dim=33)


def test_an_unknown_prompt_name_says_which_there_are():
    encoder = SentenceEncoder.from_pretrained(os.path.join(FOLDERS, "bert_weighted_last_prompts_new"))
    with pytest.raises(ValueError, match=r"'title'.*\['document', 'query'\]"):
        encoder.encode(["a"], prompt_name="title")


@pytest.mark.parametrize(
    "module_type, message",
    [
        ("sentence_transformers.models.LayerNorm", "LayerNorm\\) is not supported"),
        ("sentence_transformers.base.modules.router.Router", "Router\\) is not supported"),
        ("my_package.CustomModule", "not a sentence-transformers module"),
    ],
)
def test_an_unsupported_module_is_refused_by_name(module_type, message, tmp_path):
    folder = copy_of("bert_mean_normalize_old", tmp_path)
    edit_json(folder / "modules.json", lambda m: m.insert(2, {"idx": 9, "name": "9", "path": "", "type": module_type}))
    with pytest.raises(ValueError, match=message):
        SentenceEncoder.from_pretrained(folder)


def test_a_module_out_of_order_is_refused(tmp_path):
    folder = copy_of("bert_cls_max_dense_new", tmp_path)
    edit_json(folder / "modules.json", lambda m: m.insert(1, m.pop(2)))  # Dense before Pooling
    with pytest.raises(ValueError, match="Dense module before Pooling"):
        read_sentence_transformers_folder(folder)


def test_an_unknown_pooling_mode_or_dense_activation_is_refused(tmp_path):
    folder = copy_of("bert_cls_max_dense_new", tmp_path)
    edit_json(folder / "1_Pooling" / "config.json", lambda c: c.update(pooling_mode=["cls", "median"]))
    with pytest.raises(ValueError, match="unknown pooling mode.*median"):
        read_sentence_transformers_folder(folder)
    folder = copy_of("bert_mean_normalize_old", tmp_path / "b")
    edit_json(folder / "1_Pooling" / "config.json", lambda c: c.update(include_prompt=False))
    with pytest.raises(ValueError, match="include_prompt=false"):
        SentenceEncoder.from_pretrained(folder)
    folder = copy_of("bert_cls_max_dense_new", tmp_path / "c")
    edit_json(
        folder / "2_Dense" / "config.json",
        lambda c: c.update(activation_function="torch.nn.modules.activation.Softsign"),
    )
    with pytest.raises(ValueError, match="Dense activation 'torch.nn.modules.activation.Softsign'"):
        read_sentence_transformers_folder(folder)


@pytest.mark.parametrize(
    ("model_type", "why"),
    [("funnel", "no Keras implementation here"), ("llama", "Qwen3's, Qwen2's and Gemma 3's"), ("albert", "NFKD")],
)
def test_an_architecture_we_do_not_compute_is_refused_by_name(model_type, why, tmp_path):
    """Refused with why: keras-hub converts llama and albert checkpoints, but this loader does not build them."""
    folder = copy_of("bert_mean_normalize_old", tmp_path)
    edit_json(folder / "config.json", lambda c: c.update(model_type=model_type))
    supported = "supported: bert, distilbert, gemma3_text, modernbert, mpnet, qwen2, qwen3, roberta, t5, xlm-roberta"
    with pytest.raises(ValueError, match=f"model_type '{model_type}' is not supported \\(.*{why}.*\\); {supported}"):
        SentenceEncoder.from_pretrained(folder)


def test_a_roberta_config_with_token_types_is_refused(tmp_path):
    """RoBERTa's one token-type row is folded into the positions; a checkpoint with two is not RoBERTa's."""
    folder = copy_of("roberta_mean_normalize_new", tmp_path)
    edit_json(folder / "config.json", lambda c: c.update(type_vocab_size=2))
    with pytest.raises(ValueError, match=r"type_vocab_size=2 disagrees with the checkpoint: .*token_type.* \(1, 32\)"):
        SentenceEncoder.from_pretrained(folder)
    tensors = load_file(folder / "model.safetensors")
    tensors["embeddings.token_type_embeddings.weight"] = np.zeros((2, 32), np.float32)
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(ValueError, match="type_vocab_size=2 is not supported"):
        SentenceEncoder.from_pretrained(folder)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t["model"].update(dropout=0.1), "BPE dropout=0.1 is not supported"),
        (lambda t: t.update(normalizer={"type": "NFKC"}), "normalizer 'NFKC' is not supported"),
        (lambda t: t["pre_tokenizer"].update(use_regex=False), "pre-tokenizer 'ByteLevel' is not supported"),
        (lambda t: t["added_tokens"][0].update(single_word=True), "single_word"),
    ],
)
def test_a_byte_level_bpe_we_cannot_reproduce_is_refused(edit, message, tmp_path):
    folder = copy_of("roberta_mean_normalize_new", tmp_path)
    edit_json(folder / "tokenizer.json", edit)
    with pytest.raises(ValueError, match=message):
        SentenceEncoder.from_pretrained(folder)


def test_a_tokenizer_we_cannot_reproduce_is_refused_by_name(tmp_path):
    folder = copy_of("bert_mean_normalize_old", tmp_path)
    edit_json(folder / "tokenizer.json", lambda t: t["normalizer"].update(type="Sequence"))
    with pytest.raises(ValueError, match="normalizer 'Sequence' is not supported"):
        tokenizer_arguments(folder)
    edit_json(folder / "tokenizer.json", lambda t: t.update(model={"type": "BPE", "vocab": {}, "merges": []}))
    with pytest.raises(ValueError, match="model 'BPE' is not supported"):
        tokenizer_arguments(folder)


def test_weights_that_do_not_match_the_config_are_refused(tmp_path):
    folder = copy_of("mpnet_mean_normalize_old", tmp_path)
    edit_json(folder / "config.json", lambda c: c.update(num_hidden_layers=1))
    with pytest.raises(
        ValueError, match=r"num_hidden_layers=1 disagrees with the checkpoint, which has layers 0–1 \(2\)"
    ):
        load_hugging_face_backbone(folder)
    edit_json(folder / "config.json", lambda c: c.update(num_hidden_layers=2, intermediate_size=40))
    with pytest.raises(
        ValueError, match="intermediate_size=40 disagrees .* encoder.layer.0.intermediate.dense.weight has"
    ):
        load_hugging_face_backbone(folder)
    edit_json(folder / "config.json", lambda c: c.update(intermediate_size=48))
    tensors = load_file(folder / "model.safetensors")
    tensors["encoder.layer.1.attention.attn.extra.weight"] = np.zeros((2, 2), np.float32)
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(ValueError, match="do not belong to the mpnet model.*encoder.layer.1.attention.attn.extra"):
        load_hugging_face_backbone(folder)


@pytest.mark.parametrize(
    "folder_name, skipped, refused",
    [
        ("bert_mean_normalize_old", "cls.predictions.bias", "lm_head.bias"),  # BERT's MLM head vs RoBERTa's
        ("qwen3_lasttoken_prompts_new", "lm_head.weight", "decoder.final_layer_norm.weight"),  # a T5 decoder's
    ],
)
def test_only_the_modules_its_own_family_never_reads_are_left_unread(tmp_path, folder_name, skipped, refused):
    """`Family.unread_modules`: another task's head of this family is skipped; a tensor only another family's
    checkpoint holds is not this model's, and refused by name."""
    folder = copy_of(folder_name, tmp_path)
    tensors = load_file(folder / "model.safetensors")
    tensors[skipped] = np.zeros((3,), np.float32)
    save_file(tensors, folder / "model.safetensors")
    load_hugging_face_backbone(folder)
    tensors[refused] = np.zeros((3,), np.float32)
    save_file(tensors, folder / "model.safetensors")
    with pytest.raises(ValueError, match=f"do not belong to the .* model.*{refused}"):
        load_hugging_face_backbone(folder)


def test_a_pytorch_only_checkpoint_says_how_to_convert_it(tmp_path):
    folder = copy_of("bert_mean_normalize_old", tmp_path)
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    with pytest.raises(FileNotFoundError, match="pytorch_model.bin, which needs PyTorch.*safe_serialization"):
        load_hugging_face_backbone(folder)


def test_a_task_models_prefixed_names_are_read(tmp_path):
    folder = copy_of("mpnet_mean_normalize_old", tmp_path)
    tensors = load_file(folder / "model.safetensors")
    save_file({f"mpnet.{name}": value for name, value in tensors.items()}, folder / "model.safetensors")
    prefixed = load_hugging_face_backbone(folder)
    plain = load_hugging_face_backbone(os.path.join(FOLDERS, "mpnet_mean_normalize_old"))
    for a, b in zip(prefixed.weights, plain.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
