"""SentencePieceBpeTokenizer: raw strings to the ids of a SentencePiece-style BPE tokenizer.json (Gemma's,
EmbeddingGemma's: spaces written "▁", no pre-tokenisation, byte fallback), in-graph."""

import keras
import keras_hub
import tensorflow as tf

from keras_sentemb.tokenizers.added_tokens import alternatives, ids_in_word_order, longest_first, split_keeping_specials
from keras_sentemb.tokenizers.bert_text_splitter import character_class
from keras_sentemb.tokenizers.byte_level_character_tables import STRIPPED_SPACES
from keras_sentemb.tokenizers.byte_pair_merges import BytePairMerges
from keras_sentemb.tokenizers.host_tokenizer_rows import HostTokenizerRows, host_tokenizer_from_spec
from keras_sentemb.tokenizers.keras_hub_adapter import declare_special_token
from keras_sentemb.tokenizers.sequence_packing import SequencePacking, checked_pair_separators
from keras_sentemb.tokenizers.unicode_lowercase import UnicodeLowercase
from keras_sentemb.tokenizers.unicode_normalization import HuggingFaceNormalization
from keras_sentemb.tokenizers.utf8_text import regex_pieces, valid_utf8

_STRIPPED_SPACE = character_class(STRIPPED_SPACES)


def normalizer_steps(spec):
    """The steps of a tokenizer.json normaliser (None, one, or a `Sequence`) as callables on 1-D strings:
    `Replace` of a plain string, `Prepend`, `NFC` (`HuggingFaceNormalization`), `Lowercase`
    (`UnicodeLowercase`). ValueError naming any other (NFKC: see `unicode_normalization`)."""
    if spec is None:
        return []
    kind = spec.get("type") if isinstance(spec, dict) else spec
    if kind == "Sequence":
        return [step for item in spec.get("normalizers", []) for step in normalizer_steps(item)]
    if kind == "Replace" and "String" in (spec.get("pattern") or {}):
        old, new = spec["pattern"]["String"], spec.get("content", "")
        if not old:
            raise ValueError("normalizer Replace of the empty string is not supported")
        return [lambda texts: tf.strings.regex_replace(texts, _literal(old), new.replace("\\", "\\\\"))]
    if kind == "Prepend":
        prefix = spec.get("prepend", "")
        # Hugging Face prepends to a non-empty text only.
        return [lambda texts: tf.where(texts == "", texts, tf.strings.join([prefix, texts]))]
    if kind == "NFC":
        return [HuggingFaceNormalization("NFC")]
    if kind == "Lowercase":
        return [UnicodeLowercase()]
    raise ValueError(
        f"normalizer {kind!r} is not supported before a SentencePiece BPE (Replace, Prepend, NFC, Lowercase)"
    )


def _literal(text):
    """An RE2 pattern matching `text` literally."""
    return "".join(f"\\x{{{ord(char):X}}}" for char in text)


def metaspace_of(pre_tokenizer):
    """`(replacement, scheme, split)` of a `Metaspace` pre-tokeniser (Llama's and Mistral's: "first", no
    split), or None when `pre_tokenizer` is something else."""
    if not isinstance(pre_tokenizer, dict) or pre_tokenizer.get("type") != "Metaspace":
        return None
    scheme = pre_tokenizer.get("prepend_scheme")
    if scheme is None:
        scheme = "always" if pre_tokenizer.get("add_prefix_space", True) else "never"
    replacement = pre_tokenizer.get("replacement", "▁")
    if scheme not in ("always", "first", "never") or not isinstance(replacement, str) or len(replacement) != 1:
        raise ValueError(f"Metaspace {pre_tokenizer!r} is not supported (one character; always, first or never)")
    return replacement, scheme, bool(pre_tokenizer.get("split", True))


def split_settings(pre_tokenizer, normalizer_replaces):
    """The pre-tokeniser a SentencePiece BPE tokenizer.json may carry: none, `Metaspace` (see `metaspace_of`),
    or `Split` on a single character "merged_with_previous" (Gemma's on " ", which its normaliser has
    already replaced by "▁": then it splits nothing). Returns the character to split after, or None."""
    if pre_tokenizer is None or metaspace_of(pre_tokenizer) is not None:
        return None
    pattern = (pre_tokenizer.get("pattern") or {}).get("String") if isinstance(pre_tokenizer, dict) else None
    behavior = str(pre_tokenizer.get("behavior", "")).lower() if isinstance(pre_tokenizer, dict) else ""
    if (
        isinstance(pre_tokenizer, dict)
        and pre_tokenizer.get("type") == "Split"
        and isinstance(pattern, str)
        and len(pattern) == 1
        and behavior in ("mergedwithprevious", "merged_with_previous")
        and not pre_tokenizer.get("invert", False)
    ):
        return None if pattern in normalizer_replaces else pattern
    kind = pre_tokenizer.get("type") if isinstance(pre_tokenizer, dict) else pre_tokenizer
    raise ValueError(
        f"pre-tokenizer {kind!r} is not supported before a SentencePiece BPE (none, or Split on one character "
        "merged with the previous piece, or Metaspace)"
    )


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SentencePieceBpeTokenizer(HostTokenizerRows, SequencePacking, keras_hub.tokenizers.Tokenizer):
    """A SentencePiece-converted BPE model's tokenizer.json (Gemma, EmbeddingGemma) reproduced in TF ops:

    1. added tokens written in the raw text are cut out first and kept whole;
    2. each stretch between them is normalised (Gemma: " " → "▁") and, with no pre-tokeniser, is one
       word (a `Split` on one character, merged with the piece before it, cuts it after that character;
       `Metaspace` writes spaces "▁", prepends one — to the stretch that begins the text only, with
       the "first" scheme of Llama's and Mistral's files — and splits before each with `split`);
    3. a word's characters are looked up in the vocabulary; one that is not there becomes the pieces of its
       UTF-8 bytes, "<0xAB>" (`byte_fallback`), else the unknown token (consecutive ones fused with
       `fuse_unk`);
    4. `BytePairMerges` merges the symbols by the rules' ranks, as Hugging Face's BPE does.
    A text is packed with the tokenizer.json template (`start_tokens ids end_tokens`: EmbeddingGemma's
    `<bos> … <eos>`). `content_id_rows` and `content_ids_with_offsets` run Hugging Face `tokenizers` on
    the same parts, for the host.

    Args:
        tokenizer_spec: tokenizer.json's `normalizer`, `pre_tokenizer`, `model` (BPE: `vocab`, `merges`,
            `byte_fallback`, `unk_token`, `fuse_unk`) and `added_tokens`.
        max_length: the longest packed sequence, special tokens included.
        start_tokens, end_tokens: the template's tokens around a text.
        pad_token: the padding token.
        padding_side: "right" or "left".

    Example:
    >>> vocab = {"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 3, "▁": 4, "c": 5, "a": 6, "t": 7, "ca": 8, "cat": 9,
    ...          "▁cat": 10, **{f"<0x{b:02X}>": 11 + b for b in range(256)}}
    >>> spec = {"normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    ...         "pre_tokenizer": None, "model": {"type": "BPE", "vocab": vocab, "byte_fallback": True,
    ...         "unk_token": "<unk>", "merges": ["c a", "ca t", "▁ cat"]},
    ...         "added_tokens": [{"id": i, "content": t} for i, t in [(0, "<pad>"), (1, "<bos>"), (2, "<eos>")]]}
    >>> tokenizer = SentencePieceBpeTokenizer(spec, max_length=8, start_tokens=["<bos>"], end_tokens=["<eos>"])
    >>> tokenizer.add_special_tokens(tokenizer.content_ids(tf.constant(["cat cat!"]))).to_list()
    [[1, 9, 10, 44, 2]]
    """

    def __init__(
        self,
        tokenizer_spec=None,
        max_length=512,
        start_tokens=(),
        end_tokens=(),
        pad_token="<pad>",
        padding_side="right",
        **kwargs,
    ):
        self.pair_separators = checked_pair_separators(kwargs.pop("pair_separators", 1), "SentencePieceBpeTokenizer")
        super().__init__(**kwargs)
        model = tokenizer_spec["model"]
        if model.get("type") != "BPE":
            raise ValueError(f"SentencePieceBpeTokenizer: model {model.get('type')!r} is not BPE")
        for key in ("dropout", "continuing_subword_prefix", "end_of_word_suffix"):
            if model.get(key):
                raise ValueError(f"SentencePieceBpeTokenizer: BPE {key}={model[key]!r} is not supported")
        if model.get("ignore_merges"):
            raise ValueError("SentencePieceBpeTokenizer: BPE ignore_merges is not supported")
        if padding_side not in ("right", "left"):
            raise ValueError(f"SentencePieceBpeTokenizer: padding_side must be 'right' or 'left', got {padding_side!r}")
        self.tokenizer_spec = tokenizer_spec
        self.max_length = max_length
        self.start_tokens, self.end_tokens = tuple(start_tokens), tuple(end_tokens)
        self.padding_side = padding_side
        added = tokenizer_spec.get("added_tokens", [])
        if any(token.get("single_word") for token in added):
            raise ValueError("SentencePieceBpeTokenizer: added tokens with single_word are not supported")
        self._ids = dict(model["vocab"])
        for token in added:
            self._ids[token["content"]] = token["id"]
        self.vocabulary = [None] * (max(self._ids.values()) + 1)
        for piece, index in self._ids.items():
            self.vocabulary[index] = piece
        unk = model.get("unk_token")
        for name, token in (
            ("pad_token", pad_token),
            ("cls_token", self.start_tokens[0] if self.start_tokens else pad_token),
            ("sep_token", self.end_tokens[-1] if self.end_tokens else pad_token),
        ):
            if token not in self._ids:
                raise ValueError(
                    f"SentencePieceBpeTokenizer: the special token {token!r} ({name}) is not in the vocabulary"
                )
            declare_special_token(self, token, name)
        # A tf.Module attribute list, so that the lookup tables of a Lowercase step go into SavedModels.
        self._steps = normalizer_steps(tokenizer_spec.get("normalizer"))
        replaced = {
            spec["pattern"]["String"]
            for spec in _flat_normalizers(tokenizer_spec.get("normalizer"))
            if spec.get("type") == "Replace" and "String" in (spec.get("pattern") or {})
        }
        self._split_after = split_settings(tokenizer_spec.get("pre_tokenizer"), replaced)
        self._metaspace = metaspace_of(tokenizer_spec.get("pre_tokenizer"))
        self.added_token_texts = longest_first([token["content"] for token in added])
        self._special_pattern = alternatives(
            self.added_token_texts,
            [token["content"] for token in added if token.get("lstrip")],
            [token["content"] for token in added if token.get("rstrip")],
            _STRIPPED_SPACE,
        )
        self.byte_fallback = bool(model.get("byte_fallback"))
        self.fuse_unk = bool(model.get("fuse_unk"))
        self._unk_id = self._ids.get(unk, -1) if unk is not None else -1
        byte_ids = [self._ids.get(f"<0x{byte:02X}>", -1) for byte in range(256)]
        if self.byte_fallback and min(byte_ids) < 0 and self._unk_id < 0:
            raise ValueError("SentencePieceBpeTokenizer: byte_fallback without every <0xAB> piece needs an unk_token")
        self._byte_ids = tf.constant(byte_ids, tf.int32)
        pieces = [piece for piece in self._ids if piece is not None]
        self._piece_ids = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(pieces), tf.constant([self._ids[p] for p in pieces], tf.int32)
            ),
            default_value=-1,
        )
        merges = [rule if isinstance(rule, str) else " ".join(rule) for rule in model.get("merges", [])]
        self.byte_pair_merges = BytePairMerges(self._ids, merges)

    # keras-hub's Tokenizer interface.
    def get_vocabulary(self):
        return list(self.vocabulary)

    def vocabulary_size(self):
        return len(self.vocabulary)

    def id_to_token(self, id):
        return self.vocabulary[id]

    def token_to_id(self, token):
        if token not in self._ids:
            raise ValueError(f"Token '{token}' is not in the vocabulary.")
        return self._ids[token]

    def tokenize(self, inputs):
        """The ids of `content_ids`, untruncated, for a string or a 1-D string tensor."""
        inputs = tf.convert_to_tensor(inputs, dtype=tf.string)
        if inputs.shape.rank == 0:
            return self._bpe_ids(inputs[tf.newaxis])[0]
        return self._bpe_ids(inputs)

    def _words(self, texts, at_start):
        for step in self._steps:
            texts = step(texts)
        if self._metaspace is not None:
            replacement, scheme, split = self._metaspace
            texts = tf.strings.regex_replace(texts, " ", replacement)
            if scheme != "never":
                starts_with = tf.strings.substr(texts, 0, len(replacement.encode())) == replacement
                prepend = ~starts_with & (texts != "")
                if scheme == "first":  # the piece that begins the text only
                    prepend = prepend & at_start
                texts = tf.where(prepend, tf.strings.join([replacement, texts]), texts)
            if split:
                marker = _literal(replacement)
                return regex_pieces(texts, f"{marker}[^{marker}]*|[^{marker}]+")
        if self._split_after is None:
            return tf.RaggedTensor.from_tensor(texts[:, None])
        marker = _literal(self._split_after)
        return regex_pieces(texts, f"[^{marker}]*{marker}")

    def _symbols(self, words):
        """Each word's characters as vocabulary ids, an unknown character as its byte pieces (or unk)."""
        characters = tf.strings.unicode_split(words, "UTF-8")
        flat = characters.flat_values
        ids = self._piece_ids.lookup(flat)
        known = ids >= 0
        as_bytes = tf.strings.bytes_split(flat)
        byte_values = tf.cast(tf.reshape(tf.io.decode_raw(as_bytes.flat_values, tf.uint8), [-1]), tf.int32)
        fallback = as_bytes.with_flat_values(tf.gather(self._byte_ids, byte_values))
        # a character with no piece of its own: its bytes' pieces when every one exists (byte_fallback)
        usable = tf.logical_and(tf.constant(self.byte_fallback), tf.reduce_all(fallback >= 0, axis=1))
        by_bytes = ~known & usable
        fallback_rows = tf.ragged.boolean_mask(
            fallback, fallback.with_flat_values(tf.repeat(by_bytes, fallback.row_lengths()))
        )
        single_rows = tf.RaggedTensor.from_row_lengths(
            tf.boolean_mask(tf.where(known, ids, self._unk_id), ~by_bytes), tf.cast(~by_bytes, tf.int64), validate=False
        )
        symbols = tf.concat([single_rows, fallback_rows], axis=1)  # one of the two is empty for each character
        per_word = characters.with_flat_values(symbols).merge_dims(1, 2)
        if self.fuse_unk and self._unk_id >= 0:
            # consecutive unknowns within a word become one
            values = per_word.flat_values
            before = tf.concat([[-2], values[:-1]], axis=0)[: tf.size(values)]
            first = tf.scatter_nd(
                tf.expand_dims(per_word.row_starts()[per_word.row_lengths() > 0], 1),
                tf.ones_like(per_word.row_starts()[per_word.row_lengths() > 0], tf.bool),
                tf.shape(values, out_type=tf.int64),
            )
            repeated = (values == self._unk_id) & (before == self._unk_id) & ~first
            per_word = tf.ragged.boolean_mask(per_word, per_word.with_flat_values(~repeated))
        return per_word

    def _bpe_ids(self, texts):
        texts = valid_utf8(tf.convert_to_tensor(texts, dtype=tf.string))
        words, special = split_keeping_specials(texts, self._special_pattern, self._words, regex_pieces, starts=True)
        flat, is_special = words.flat_values, special.flat_values
        distinct, where = tf.unique(tf.boolean_mask(flat, ~is_special))
        pieces = tf.gather(self.byte_pair_merges.pieces(self._symbols(distinct)), where)
        stripped = tf.strings.regex_replace(flat, f"^{_STRIPPED_SPACE}+|{_STRIPPED_SPACE}+$", "")
        as_is = self._piece_ids.lookup(flat)
        special_ids = tf.where(as_is >= 0, as_is, self._piece_ids.lookup(stripped))
        return ids_in_word_order(words, special, pieces, special_ids)

    def untruncated_ids(self, texts):
        return self._bpe_ids(texts)

    def _content_ids_graph(self, texts):
        return self._bpe_ids(texts)[:, : self.content_limit]

    def _host(self):
        host = getattr(self, "_host_tokenizer", None)
        if host is None:
            host = host_tokenizer_from_spec(self.tokenizer_spec)
            object.__setattr__(self, "_host_tokenizer", host)  # a cache, not state to save
        return host

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "tokenizer_spec": self.tokenizer_spec,
                "max_length": self.max_length,
                "start_tokens": list(self.start_tokens),
                "end_tokens": list(self.end_tokens),
                "pad_token": self.pad_token,
                "padding_side": self.padding_side,
            }
        )
        if self.pair_separators != 1:
            config["pair_separators"] = self.pair_separators
        return config


def _flat_normalizers(spec):
    if spec is None:
        return []
    if spec.get("type") == "Sequence":
        return [step for item in spec.get("normalizers", []) for step in _flat_normalizers(item)]
    return [spec]
