"""What a sentence-transformers reranker folder (a `CrossEncoder`'s) computes, read from its files (no PyTorch),
and the parts of the Keras `CrossEncoder` that computes it.

A reranker folder is a Hugging Face task model (config.json `architectures`):

- `<Family>ForSequenceClassification` (BERT, RoBERTa / XLM-R, MPNet, ModernBERT): the family's backbone and its
  classification head (`Family.classifier_head`: the tensors and how they pool), `num_labels` logits a pair;
- `<Family>ForCausalLM` (Qwen3-Reranker): the backbone, and the score of sentence-transformers' `LogitScore`
  module: the last token's logit of `true_token_id` minus that of `false_token_id` ("yes" and "no"), i.e. the
  last state times the difference of the two rows of the LM head (the token embeddings when tied); the pair
  is rendered by the folder's chat template (`ChatPairTemplate`).

Around it: `modules.json` (a Transformer, then LogitScore for a causal LM; any other module is refused), the
scores' activation (`activation_fn` of config_sentence_transformers.json, of config.json's
`sentence_transformers` section, or the pre-4.0 `sbert_ce_default_activation_function`; default Sigmoid for
one label, Identity for more, as sentence-transformers decides), and the token limit (sentence-transformers':
`max_seq_length`, else the tokenizer's `model_max_length`, at most the model's positions).

Example (a tiny folder of the test fixtures):
>>> spec = read_reranker_folder("tests/fixtures/reranker_folders/xlm_roberta_reranker")
>>> spec.architecture, spec.num_labels, spec.score_activation, spec.max_length
('XLMRobertaForSequenceClassification', 1, 'sigmoid', 48)
"""

import contextlib
import dataclasses
import os

from keras_sentemb.families.registry import family_for_model_type
from keras_sentemb.pretrained.hugging_face_backbones import hugging_face_model_type, open_hugging_face_checkpoint
from keras_sentemb.pretrained.sentence_transformers_folder import SENTENCE_BERT_CONFIGS, module_kind, token_limit
from keras_sentemb.pretrained.tokenizer_json import load_tokenizer
from keras_sentemb.tokenizers.chat_pair_template import ChatPairTemplate, template_parts
from keras_sentemb.utils.checked_files import read_json, read_json_if_present, read_json_object, regular_file_present

# torch activations of sentence-transformers' CrossEncoder → `CrossEncoder.score_activation`
SCORE_ACTIVATIONS = {
    "torch.nn.modules.activation.Sigmoid": "sigmoid",
    "torch.nn.modules.linear.Identity": "linear",
}
TASK_SUFFIXES = ("ForSequenceClassification", "ForCausalLM")
MAX_CHAT_TEMPLATE_BYTES = 1 << 20


@dataclasses.dataclass(frozen=True)
class RerankerFolder:
    """A reranker folder's model (see the module docstring)."""

    root: str
    transformer_folder: str
    architecture: str
    model_type: str
    num_labels: int
    score_activation: str
    max_length: int | None
    true_token_id: int | None = None
    false_token_id: int | None = None
    chat_template_parts: tuple | None = None  # (prefix, infix, suffix) of the chat template (`template_parts`)

    @property
    def causal(self):
        """Whether it scores with a causal LM's token logits (Qwen3-Reranker)."""
        return self.architecture.endswith("ForCausalLM")


def reranker_architecture(folder):
    """config.json's first `architectures` entry when it is a task model a reranker is ("…ForSequenceClassification",
    "…ForCausalLM"), else None (a plain or sentence-transformers encoder folder)."""
    path = os.path.join(os.fspath(folder), "config.json")
    if not regular_file_present(path):
        return None
    architectures = read_json_object(path).get("architectures")
    if isinstance(architectures, list) and architectures and isinstance(architectures[0], str):
        return architectures[0] if architectures[0].endswith(TASK_SUFFIXES) else None
    return None


def _modules(root):
    """(the Transformer's folder, LogitScore's config or None) of modules.json (absent: the folder itself)."""
    path = os.path.join(root, "modules.json")
    if not regular_file_present(path):
        return root, None
    entries = read_json(path)
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected a non-empty list of modules")
    transformer, logit_score = None, None
    for entry in entries:
        name = module_kind(entry, path)
        module_path = entry.get("path")
        folder = os.path.join(root, module_path) if module_path else root
        if name == "Transformer" and transformer is None:
            transformer = folder
        elif name == "LogitScore" and transformer is not None and logit_score is None:
            source = os.path.join(folder, "config.json")
            logit_score = read_json_object(source) if regular_file_present(source) else {}
            logit_score["_source"] = source
        else:
            raise ValueError(
                f"{path}: module {entry.get('type')!r} is not supported in a reranker; supported: a Transformer, "
                "then LogitScore (a causal LM's token logits)"
            )
    if transformer is None:
        raise ValueError(f"{path}: a reranker needs a Transformer module")
    return transformer, logit_score


def _score_activation(root, config, num_labels):
    settings = read_json_if_present(root, "config_sentence_transformers.json")
    section = config.get("sentence_transformers") if isinstance(config.get("sentence_transformers"), dict) else {}
    name = (
        settings.get("activation_fn")
        or section.get("activation_fn")
        or config.get("sbert_ce_default_activation_function")
    )
    if name is None:
        return "sigmoid" if num_labels == 1 else "linear"
    if name not in SCORE_ACTIVATIONS:
        raise ValueError(f"{root}: activation_fn {name!r} is not supported; supported: {', '.join(SCORE_ACTIVATIONS)}")
    return SCORE_ACTIVATIONS[name]


def _token_id(value, source, key, vocabulary_size, optional=False):
    if value is None and optional:
        return None
    if type(value) is not int or not 0 <= value < vocabulary_size:
        raise ValueError(f"{source}: {key} must be a token id in [0, {vocabulary_size}), got {value!r}")
    return value


def _chat_template(folder):
    """(the chat template of a tokenizer folder, the file it came from): chat_template.jinja, else
    tokenizer_config.json's `chat_template` (a string, or a list of named ones: the "default")."""
    path = os.path.join(folder, "chat_template.jinja")
    if regular_file_present(path):
        with open(path, "rb") as f:
            data = f.read(MAX_CHAT_TEMPLATE_BYTES + 1)
        if len(data) > MAX_CHAT_TEMPLATE_BYTES:
            raise ValueError(f"{path}: more than {MAX_CHAT_TEMPLATE_BYTES} bytes")
        try:
            return data.decode("utf-8"), path
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not valid UTF-8 ({error.reason} at byte {error.start})") from None
    template = _tokenizer_config(folder).get("chat_template")
    if isinstance(template, list):
        named = {item.get("name"): item.get("template") for item in template if isinstance(item, dict)}
        template = named.get("default")
    if not isinstance(template, str):
        raise ValueError(
            f"{folder}: a causal-LM reranker needs a chat template (chat_template.jinja or tokenizer_config.json)"
        )
    return template, os.path.join(folder, "tokenizer_config.json:chat_template")


def _tokenizer_config(folder):
    return read_json_if_present(folder, "tokenizer_config.json")


def _special_tokens(folder):
    """The special tokens a chat template may name (tokenizer_config.json's bos/eos/pad/unk tokens)."""
    config = _tokenizer_config(folder)
    return {
        key: value
        for key in ("bos_token", "eos_token", "pad_token", "unk_token")
        if isinstance(value := config.get(key), str)
    }


def _chat_template_parts(folder):
    """`template_parts` of the folder's chat template, rendered in its budget before anything else is built."""
    template, source = _chat_template(folder)
    return template_parts(template, _special_tokens(folder), source)


def read_reranker_folder(folder):
    """A `RerankerFolder` for `folder`; ValueError for a folder that is not a reranker we compute."""
    root = os.fspath(folder)
    architecture = reranker_architecture(root)
    if architecture is None:
        raise ValueError(f"{root}: config.json names no …ForSequenceClassification or …ForCausalLM architecture")
    transformer_folder, logit_score = _modules(root)
    model_type = hugging_face_model_type(transformer_folder)  # refuses a model type we do not build
    config = read_json_object(os.path.join(transformer_folder, "config.json"))
    sbert_config, sbert_config_name = {}, SENTENCE_BERT_CONFIGS[0]
    for sbert_config_name in SENTENCE_BERT_CONFIGS:
        sbert_config = read_json_if_present(transformer_folder, sbert_config_name)
        if sbert_config:
            break
    limit = token_limit(transformer_folder, sbert_config, sbert_config_name)
    source = os.path.join(transformer_folder, "config.json")
    if architecture.endswith("ForCausalLM"):
        if not family_for_model_type(model_type).language_model_head:
            raise ValueError(f"{source}: a {model_type} causal-LM reranker is not supported (its LM head is not read)")
        if logit_score is None:
            raise ValueError(f"{root}: a causal-LM reranker needs a LogitScore module in modules.json")
        vocabulary_size = config.get("vocab_size")
        where = logit_score["_source"]
        true_id = _token_id(logit_score.get("true_token_id"), where, "true_token_id", vocabulary_size)
        false_id = _token_id(logit_score.get("false_token_id"), where, "false_token_id", vocabulary_size, True)
        return RerankerFolder(
            root, transformer_folder, architecture, model_type, 1, _score_activation(root, config, 1), limit,
            true_id, false_id, _chat_template_parts(transformer_folder),
        )  # fmt: skip
    if logit_score is not None:
        raise ValueError(f"{root}: LogitScore after a {architecture} is not supported")
    family = family_for_model_type(model_type)
    if family.classifier_head is None:
        raise ValueError(f"{source}: a {model_type} sequence-classification head is not supported")
    labels = config.get("id2label")
    num_labels = len(labels) if isinstance(labels, dict) and labels else config.get("num_labels", 2)
    if type(num_labels) is not int or num_labels < 1:
        raise ValueError(f"{source}: num_labels must be an integer ≥ 1, got {num_labels!r}")
    return RerankerFolder(
        root, transformer_folder, architecture, model_type, num_labels,
        _score_activation(root, config, num_labels), limit,
    )  # fmt: skip


@contextlib.contextmanager
def reranker_parts(folder, dtype=None, max_length=None):
    """`(backbone, tokenizer, arguments, fill_head)` of a reranker folder, its checkpoint open: build
    `CrossEncoder(backbone, tokenizer, **arguments)`, then `fill_head(model)` reads its head's weights; leaving
    the block checks that every tensor of the checkpoint was read."""
    spec = read_reranker_folder(folder)
    with open_hugging_face_checkpoint(spec.transformer_folder, dtype) as (backbone, tensors, config):
        limit = min(max_length or spec.max_length or backbone.max_sequence_length, backbone.max_sequence_length)
        tokenizer = load_tokenizer(spec.transformer_folder, limit)
        arguments = {"num_labels": spec.num_labels, "score_activation": spec.score_activation}
        if spec.causal:
            arguments.update(
                pooling="last",
                logits_bias=False,
                pair_template=ChatPairTemplate.from_parts(spec.chat_template_parts, tokenizer),
            )
            head_rows = family_for_model_type(spec.model_type).language_model_head
            yield backbone, tokenizer, arguments, lambda model: _fill_logit_score(model, tensors, spec, head_rows)
        else:
            head = family_for_model_type(spec.model_type).classifier_head(config)
            missing = [name for name in head.backbone_tensors if name not in tensors]
            if missing:
                raise ValueError(f"{tensors.describe()}: a {spec.architecture} without its head's {', '.join(missing)}")
            arguments.update(pooling=head.pooling, prediction_head=head.prediction_head)
            yield backbone, tokenizer, arguments, lambda model: _fill_classifier_head(model, tensors, head)


def _fill_classifier_head(model, tensors, head):
    for layer_name, tensor_name in head.tensors.items():
        layer = model.get_layer(layer_name)
        if hasattr(layer, "gamma"):  # a LayerNorm: weight (and bias where it has one)
            tensors.assign(layer.gamma, f"{tensor_name}.weight")
            if layer.center:
                tensors.assign(layer.beta, f"{tensor_name}.bias")
        else:
            tensors.assign_linear(layer, tensor_name)


def _fill_logit_score(model, tensors, spec, head_rows):
    """logits = h_last · (W[true] − W[false]) with W the LM head (`head_rows`: the family's names of it, the
    first present read: `lm_head.weight`, or the token embeddings when tied): LogitScore's logit[true] −
    logit[false]."""
    rows = tensors.get(next((name for name in head_rows if name in tensors), head_rows[-1]))
    direction = rows[spec.true_token_id] - (0 if spec.false_token_id is None else rows[spec.false_token_id])
    model.get_layer("logits").kernel.assign(direction.astype("float32").reshape(-1, 1))
