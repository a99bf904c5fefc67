"""A SparseEncoder folder that is not what it says: each is one ValueError (or FileNotFoundError) naming the
file and what is wrong, before a model is built."""

import os

import numpy as np
import pytest
from safetensors.numpy import save_file

from keras_sentemb.models import SparseEncoder
from keras_sentemb.pretrained.sparse_encoder_folder import read_sparse_encoder_folder
from tests.fixture_folders import SPARSE_FOLDERS, copy_folder, edit_json

FOLDERS = SPARSE_FOLDERS


def copy_of(name, tmp_path):
    return copy_folder(FOLDERS, name, tmp_path)


def test_both_layouts_are_read():
    splade = read_sparse_encoder_folder(os.path.join(FOLDERS, "bert_splade_sum_log1p"))
    assert (splade.document.pooling, splade.document.activation, splade.document.max_length) == (
        "sum",
        "log1p_relu",
        48,
    )
    assert splade.prompts == {"query": "query: ", "document": "passage: "}
    free = read_sparse_encoder_folder(os.path.join(FOLDERS, "bert_inference_free"))
    assert free.query.weight.shape == (500,) and free.default_route == "document"


def _unknown_pooling(folder):
    edit_json(folder / "1_SpladePooling" / "config.json", lambda c: c.update(pooling_strategy="mean"))


def _unknown_activation(folder):
    edit_json(folder / "1_SpladePooling" / "config.json", lambda c: c.update(activation_function="gelu"))


def _feature_extraction(folder):
    edit_json(folder / "sentence_bert_config.json", lambda c: c.update(transformer_task="feature-extraction"))


def _dense_pooling(folder):
    edit_json(folder / "modules.json", lambda m: m[1].update(type="sentence_transformers.models.Pooling"))


def _not_a_dot_product(folder):
    edit_json(folder / "config_sentence_transformers.json", lambda c: c.update(similarity_fn_name="cosine"))


def _max_active_dims_zero(folder):
    edit_json(folder / "config_sentence_transformers.json", lambda c: c.update(max_active_dims=0))


def _tokenizer_wider_than_the_head(folder):
    def add(spec):
        spec["added_tokens"].append(
            {"id": 500, "content": "[WIDE]", "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
        )  # fmt: skip

    edit_json(folder / "tokenizer.json", add)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_unknown_pooling, r"1_SpladePooling/config.json: pooling_strategy 'mean' is not supported"),
        (_unknown_activation, r"activation_function 'gelu' is not supported"),
        (_feature_extraction, r"transformer_task 'feature-extraction' before SpladePooling"),
        (_dense_pooling, r"modules \['Transformer', 'Pooling'\] are not a sparse encoder"),
        (_not_a_dot_product, r"similarity_fn_name 'cosine'"),
        (_max_active_dims_zero, r"max_active_dims must be an integer ≥ 1"),
        (_tokenizer_wider_than_the_head, r"the tokenizer has ids up to 500, the masked-LM head 500"),
    ],
)
def test_a_splade_folder_that_is_not_what_it_says(tmp_path, change, message):
    folder = copy_of("bert_splade_max", tmp_path)
    change(folder)
    with pytest.raises(ValueError, match=message):
        SparseEncoder.from_pretrained(folder)


def _no_query_route(folder):
    def drop(config):
        del config["structure"]["query"]

    edit_json(folder / "router_config.json", drop)


def _route_names_an_unknown_module(folder):
    edit_json(folder / "router_config.json", lambda c: c["structure"].update(query=["query_9_Nothing"]))


def _query_route_of_another_module(folder):
    edit_json(
        folder / "router_config.json",
        lambda c: c["types"].update(query_0_SparseStaticEmbedding="sentence_transformers.models.Dense"),
    )


def _static_weight(value, index=3):
    def change(folder):
        path = folder / "query_0_SparseStaticEmbedding" / "model.safetensors"
        weight = np.ones(500, np.float32)
        weight[index] = value
        save_file({"weight": weight}, path)

    return change


def _static_weight_of_another_vocabulary(folder):
    save_file({"weight": np.ones(400, np.float32)}, folder / "query_0_SparseStaticEmbedding" / "model.safetensors")


def _route_outside_the_folder(folder):
    def escape(config):
        config["types"]["../escape"] = config["types"]["query_0_SparseStaticEmbedding"]
        config["structure"]["query"] = ["../escape"]

    edit_json(folder / "router_config.json", escape)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_no_query_route, r"router_config.json: the Router has no 'query' route"),
        (_route_names_an_unknown_module, r"route 'query' names module 'query_9_Nothing'"),
        (_query_route_of_another_module, r"route 'query': modules \['Dense'\] are not a sparse encoder"),
        (_static_weight(-1.0), r"1 static weight\(s\) are negative, NaN or infinite \(the first: token id 3"),
        (_static_weight(np.nan, 7), r"the first: token id 7, nan"),
        (_static_weight(np.inf), r"negative, NaN or infinite"),
        (_static_weight_of_another_vocabulary, r"400 static weights, the document side's vocabulary is 500"),
        (_route_outside_the_folder, r"not a folder inside the model's"),
    ],
)
def test_an_inference_free_folder_that_is_not_what_it_says(tmp_path, change, message):
    folder = copy_of("bert_inference_free", tmp_path)
    change(folder)
    with pytest.raises(ValueError, match=message):
        SparseEncoder.from_pretrained(folder)


def test_a_folder_without_modules_json_is_no_sparse_encoder(tmp_path):
    folder = copy_of("bert_splade_max", tmp_path)
    os.remove(folder / "modules.json")
    with pytest.raises(FileNotFoundError, match="no modules.json"):
        SparseEncoder.from_pretrained(folder)
