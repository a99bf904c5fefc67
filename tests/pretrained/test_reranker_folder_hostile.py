"""A reranker folder that is not what it says is refused with a ValueError naming the file and the value —
never loaded as a silently wrong model: an activation it does not compute, a module it does not run, a token id
out of the vocabulary, a chat template that does not place the texts (or reaches outside Jinja's sandbox, or
leaves its budget of steps, output, memory and time), a
head without its weights, and a caller overriding the folder's own head."""

import json
import os
import shutil

import pytest
from safetensors.numpy import load_file, save_file

from keras_sentemb.models import CrossEncoder
from keras_sentemb.pretrained.reranker_folder import read_reranker_folder

FOLDERS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "reranker_folders")


def copy(tmp_path, name):
    return shutil.copytree(os.path.join(FOLDERS, name), tmp_path / name)


def edit_json(path, **changes):
    with open(path, encoding="utf-8") as f:
        value = json.load(f)
    value.update(changes)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f)


def without_tensor(folder, prefix):
    path = os.path.join(folder, "model.safetensors")
    tensors = {name: value for name, value in load_file(path).items() if not name.startswith(prefix)}
    save_file(tensors, path)


def write_template(folder, text):
    with open(os.path.join(folder, "chat_template.jinja"), "w", encoding="utf-8") as f:
        f.write(text)


def test_an_activation_it_does_not_compute_is_refused(tmp_path):
    folder = copy(tmp_path, "bert_reranker")
    edit_json(folder / "config_sentence_transformers.json", activation_fn="torch.nn.modules.activation.Tanh")
    with pytest.raises(ValueError, match="activation_fn 'torch.nn.modules.activation.Tanh' is not supported"):
        read_reranker_folder(folder)


def test_a_module_it_does_not_run_is_refused(tmp_path):
    folder = copy(tmp_path, "xlm_roberta_reranker")
    with open(folder / "modules.json", "w") as f:
        json.dump([{"path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"},
                   {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}], f)  # fmt: skip
    with pytest.raises(ValueError, match="modules.json: module .*Pooling' is not supported in a reranker"):
        read_reranker_folder(folder)


def test_a_module_path_outside_the_folder_is_refused(tmp_path):
    folder = copy(tmp_path, "qwen3_reranker")
    with open(folder / "modules.json") as f:
        modules = json.load(f)
    modules[1]["path"] = "../../etc"
    with open(folder / "modules.json", "w") as f:
        json.dump(modules, f)
    with pytest.raises(ValueError, match="has path '../../etc', not a folder inside the model's"):
        read_reranker_folder(folder)


def test_a_score_config_that_is_not_an_object_is_refused(tmp_path):
    folder = copy(tmp_path, "qwen3_reranker")
    (folder / "1_LogitScore" / "config.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="1_LogitScore/config.json"):
        read_reranker_folder(folder)


@pytest.mark.parametrize("token_id", [10**6, -1, "yes", None])
def test_a_score_token_outside_the_vocabulary_is_refused(tmp_path, token_id):
    folder = copy(tmp_path, "qwen3_reranker")
    edit_json(folder / "1_LogitScore" / "config.json", true_token_id=token_id)
    with pytest.raises(ValueError, match=r"1_LogitScore/config.json: true_token_id must be a token id in \[0, 700\)"):
        read_reranker_folder(folder)


@pytest.mark.parametrize(
    "template, message",
    [
        ("{{ messages[0].content }} and nothing else", "render the query once and then the document once"),
        ("{{ messages[1].content }} {{ messages[0].content }}", "render the query once and then the document once"),
        ("{{ messages[0].content }}{{ messages[0].content }}{{ messages[1].content }}", "query once"),
        ("{{ messages[0].content | upper }} {{ messages[1].content }}", "query once"),
        ("{{ raise_exception('no pairs here') }}", "chat_template.jinja: the template does not render: TemplateError: no pairs here"),
        ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "chat_template.jinja: the template does not render: SecurityError"),
        ("{% for m in messages %}{{ m.content }}{% if m.content|length > 5 %}!{% endif %}{% endfor %}", "renders differently"),
        ("   ", "must be a non-empty string"),
    ],
    ids=["no-document", "document-first", "query-twice", "transformed", "raises", "sandbox-escape", "depends-on-text",
         "blank"],
)  # fmt: skip
def test_a_chat_template_that_does_not_place_the_texts_is_refused(tmp_path, template, message):
    folder = copy(tmp_path, "qwen3_reranker")
    write_template(folder, template)
    with pytest.raises(ValueError, match=message):
        CrossEncoder.from_pretrained(folder)


@pytest.mark.parametrize(
    "template, message",
    [
        ("{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}", r"range\(\) of 100,000 items"),
        ("{% for i in range(9999) %}{% for j in range(9999) %}x{% endfor %}{% endfor %}", "renders more than 100,000 characters"),
        ("{% for i in range(9999) %}{% for j in range(9999) %}{% endfor %}{% endfor %}", "ran more than 1,000,000 steps"),
        ("{{ 'x' * 10**9 }}", "a repetition of 1,000,000,000 items"),
        ("{{ 'x' | center(10**9) }}", "needs more than 256 MiB to render"),
        ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "a concatenation of 131,072 characters"),
        ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}", "a sum of 131,072 characters"),
        ("{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}", "a sum of 131,072 items"),
        ("{{ 7 ** 100000 }}", "too large to compute"),
        ("{{ range(10**9) }}", r"range\(\) of 1,000,000,000 items"),
        ("{% include '/etc/passwd' %}", "does not render: TypeError: no loader"),
        ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "RecursionError"),
    ],
    ids=["nested-loops", "output", "steps", "repetition", "filter-memory", "doubling", "adding-strings", "adding-lists",
         "power", "huge-range", "include",
         "recursion"],
)  # fmt: skip
def test_a_chat_template_that_leaves_its_budget_is_refused_naming_the_file(tmp_path, template, message):
    folder = copy(tmp_path, "qwen3_reranker")
    write_template(folder, template)
    with pytest.raises(ValueError, match=f"{folder}/chat_template.jinja: .*{message}"):
        read_reranker_folder(folder)


def test_a_template_in_tokenizer_config_is_named_by_its_key(tmp_path):
    folder = copy(tmp_path, "qwen3_reranker")
    os.remove(folder / "chat_template.jinja")
    edit_json(folder / "tokenizer_config.json", chat_template="{{ raise_exception('nope') }}")
    with pytest.raises(ValueError, match="tokenizer_config.json:chat_template: the template does not render: .*nope"):
        read_reranker_folder(folder)


def test_a_causal_reranker_without_a_chat_template_is_refused(tmp_path):
    folder = copy(tmp_path, "qwen3_reranker")
    os.remove(folder / "chat_template.jinja")
    with pytest.raises(ValueError, match="a causal-LM reranker needs a chat template"):
        read_reranker_folder(folder)


def test_a_causal_reranker_of_a_family_without_a_language_model_head_is_refused(tmp_path):
    folder = copy(tmp_path, "qwen3_reranker")
    edit_json(folder / "config.json", architectures=["BertForCausalLM"], model_type="bert")
    with pytest.raises(ValueError, match="config.json: a bert causal-LM reranker is not supported"):
        read_reranker_folder(folder)


def test_an_oversized_chat_template_is_refused_before_it_is_read_whole(tmp_path):
    folder = copy(tmp_path, "qwen3_reranker")
    write_template(folder, "x" * (2 << 20))
    with pytest.raises(ValueError, match="chat_template.jinja: more than 1048576 bytes"):
        read_reranker_folder(folder)


def test_a_classifier_without_its_weights_is_refused(tmp_path):
    folder = copy(tmp_path, "xlm_roberta_reranker")
    without_tensor(folder, "classifier.out_proj")
    with pytest.raises(KeyError, match="has no tensor 'classifier.out_proj.weight'"):
        CrossEncoder.from_pretrained(folder)


def test_bert_without_its_pooler_is_refused(tmp_path):
    folder = copy(tmp_path, "bert_reranker")
    without_tensor(folder, "bert.pooler")
    with pytest.raises(ValueError, match="BertForSequenceClassification without its head's pooler.dense.weight"):
        CrossEncoder.from_pretrained(folder)


def test_labels_that_disagree_with_the_classifier_are_refused(tmp_path):
    folder = copy(tmp_path, "modernbert_reranker_mean")
    edit_json(folder / "config.json", id2label={"0": "a", "1": "b"}, label2id={"a": 0, "b": 1})
    with pytest.raises(
        ValueError, match=r"tensor 'classifier.weight' has shape \(32, 1\), the model's logits/kernel needs \(32, 2\)"
    ):
        CrossEncoder.from_pretrained(folder)


@pytest.mark.parametrize("num_labels", [0, -2, "3", 1.5])
def test_a_nonsense_label_count_is_refused(tmp_path, num_labels):
    folder = copy(tmp_path, "bert_reranker")
    edit_json(folder / "config.json", num_labels=num_labels, id2label={})
    with pytest.raises(ValueError, match="num_labels must be an integer ≥ 1"):
        read_reranker_folder(folder)


def test_a_reranker_folder_keeps_its_own_head(tmp_path):
    with pytest.raises(ValueError, match="is a reranker with its own head: leave num_labels, pooling unset"):
        CrossEncoder.from_pretrained(os.path.join(FOLDERS, "bert_reranker"), num_labels=2, pooling="mean")


def test_a_family_without_a_classification_head_here_is_named(tmp_path):
    folder = copy(tmp_path, "qwen3_reranker")
    edit_json(folder / "config.json", architectures=["Qwen3ForSequenceClassification"])
    os.remove(folder / "modules.json")
    with pytest.raises(ValueError, match="a qwen3 sequence-classification head is not supported"):
        read_reranker_folder(folder)


ENCODER_FOLDER = os.path.join(os.path.dirname(FOLDERS), "st_folders", "bert_mean_normalize_old")


def test_an_encoder_folder_loaded_as_a_cross_encoder_warns_that_its_head_is_new_until_fit():
    import warnings

    import numpy as np

    from keras_sentemb.models.cross_encoder import UntrainedHeadWarning

    model = CrossEncoder.from_pretrained(ENCODER_FOLDER)
    with pytest.warns(UntrainedHeadWarning, match="its scoring head is new .* noise until the model is fine-tuned"):
        model.rerank("a cat", ["a cat sits", "a dog runs"])
    rows = list(zip(*model.pair_rows([b"a cat", b"a dog"], [b"a cat sits", b"a dog runs"])))
    inputs = model.pack_batch(rows, max(len(ids) for ids, _ in rows))
    model.compile(optimizer="adam")
    model.fit(dict(zip(model.input_names, inputs)), np.array([1.0, 0.0], dtype="float32"), epochs=1, verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UntrainedHeadWarning)
        model.rerank("a cat", ["a cat sits", "a dog runs"])


def test_a_reranker_folder_is_scored_without_a_warning():
    import warnings

    from keras_sentemb.models.cross_encoder import UntrainedHeadWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", UntrainedHeadWarning)
        CrossEncoder.from_pretrained(os.path.join(FOLDERS, "bert_reranker")).rerank("a cat", ["a cat sits"])
