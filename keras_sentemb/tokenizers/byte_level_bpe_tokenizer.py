"""ByteLevelBpeTokenizer: raw strings to the ids of a byte-level BPE model (RoBERTa, GPT-2, Qwen2/Qwen3), in-graph."""

import keras
import keras_hub
import tensorflow as tf
from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers

from keras_sentemb.tokenizers.added_tokens import ids_in_word_order
from keras_sentemb.tokenizers.byte_level_text_splitter import ByteLevelTextSplitter
from keras_sentemb.tokenizers.byte_pair_merges import BytePairMerges
from keras_sentemb.tokenizers.host_tokenizer_rows import HostTokenizerRows
from keras_sentemb.tokenizers.keras_hub_adapter import declare_special_token
from keras_sentemb.tokenizers.qwen_text_splitter import QWEN_EXPRESSION, QwenTextSplitter
from keras_sentemb.tokenizers.sequence_packing import SequencePacking, checked_pair_separators


@keras.saving.register_keras_serializable(package="keras_sentemb")
class ByteLevelBpeTokenizer(HostTokenizerRows, SequencePacking, keras_hub.tokenizers.BytePairTokenizer):
    """keras-hub's `BytePairTokenizer` giving the ids of the model's `tokenizer.json` on every text.

    Each pre-token's UTF-8 bytes become BPE pieces by `BytePairMerges` (integer tables, all words of a
    batch at once); what comes before is Hugging Face's, reproduced in TF ops (`ByteLevelTextSplitter`):
    added tokens ("<s>", "<mask>" with its `lstrip` …) cut out of the raw text first, then GPT-2's
    expression with the Unicode classes of the Hugging Face library (keras-hub's own splitting
    stands a "६" in for a look-ahead and uses RE2's classes, which differ on some texts), or, with
    `pre_tokenizer="qwen"`, Qwen2/Qwen3's: NFC, then Qwen's Split expression (`QwenTextSplitter`). Invalid
    UTF-8 bytes become U+FFFD first. `content_ids`, `pack` and `content_id_rows` are those of every
    sentence tokenizer here (`SequencePacking`); a sequence is `cls ids sep` (`<s> … </s>`), as
    sentence-transformers packs one text for RoBERTa, or the template `start_tokens ids end_tokens`
    (Qwen3-Embedding: `ids <|endoftext|>`, padded on the left).

    Args:
        vocabulary: `{token: id}` (vocab.json with the added tokens).
        merges: the merge rules, "a b" strings, highest priority first.
        max_length: the longest packed sequence, special tokens included (≥ 3).
        cls_token, sep_token, pad_token, mask_token, oov_token: the model's special tokens.
        added_tokens: every token cut out of the raw text (the special tokens and any others).
        lstrip_tokens, rstrip_tokens: those that take the white space on their left / right.
        add_prefix_space: the `ByteLevel` pre-tokeniser's setting.
        pre_tokenizer: "byte_level" (GPT-2's expression inside `ByteLevel`) or "qwen" (`Split` with Qwen's
            expression, then `ByteLevel` without one).
        nfc: an `NFC` normaliser runs first (Qwen's, GPT-NeoX's and ModernBERT's tokenizer.json).
        start_tokens, end_tokens: the tokens around a text's ids (None: `cls_token`, `sep_token`).
        padding_side: "right" or "left".

    Example:
    >>> vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4}
    >>> vocab.update({char: 5 + i for i, char in enumerate(ByteLevelBpeTokenizer.byte_alphabet())})
    >>> vocab.update({"Ġc": 261, "Ġca": 262, "Ġcat": 263})
    >>> tokenizer = ByteLevelBpeTokenizer(vocab, ["Ġ c", "Ġc a", "Ġca t"], max_length=8)
    >>> tokenizer.pack(tokenizer.content_ids(tf.constant(["a cat", ""])))["token_ids"].numpy().tolist()
    [[0, 102, 263, 2], [0, 2, 1, 1]]
    """

    def __init__(
        self,
        vocabulary=None,
        merges=None,
        max_length=512,
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        mask_token="<mask>",
        oov_token="<unk>",
        added_tokens=(),
        lstrip_tokens=("<mask>",),
        rstrip_tokens=(),
        add_prefix_space=False,
        pre_tokenizer="byte_level",
        nfc=False,
        start_tokens=None,
        end_tokens=None,
        padding_side="right",
        **kwargs,
    ):
        self.pair_separators = checked_pair_separators(kwargs.pop("pair_separators", 1), "ByteLevelBpeTokenizer")
        if pre_tokenizer not in ("byte_level", "qwen"):
            raise ValueError(
                f"ByteLevelBpeTokenizer: pre_tokenizer must be 'byte_level' or 'qwen', got {pre_tokenizer!r}"
            )
        if padding_side not in ("right", "left"):
            raise ValueError(f"ByteLevelBpeTokenizer: padding_side must be 'right' or 'left', got {padding_side!r}")
        self.pre_tokenizer = pre_tokenizer
        self.nfc = bool(nfc)
        self.start_tokens = None if start_tokens is None else tuple(start_tokens)
        self.end_tokens = None if end_tokens is None else tuple(end_tokens)
        self.padding_side = padding_side
        for key in ("unsplittable_tokens", "sequence_length"):
            kwargs.pop(key, None)
        names = (
            ("cls_token", cls_token),
            ("sep_token", sep_token),
            ("pad_token", pad_token),
            ("mask_token", mask_token),
            ("oov_token", oov_token),
            ("start_token", cls_token),
            ("end_token", sep_token),
        )
        for name, token in names:
            declare_special_token(self, token, name)
        if not isinstance(max_length, int) or max_length < 3:
            raise ValueError(f"ByteLevelBpeTokenizer: max_length must be an int >= 3, got {max_length!r}.")
        self.max_length = max_length
        template = (self.start_tokens or ()) + (self.end_tokens or ())
        self.added_tokens = tuple(sorted(set(added_tokens) | {token for _, token in names} | set(template)))
        self.lstrip_tokens = tuple(lstrip_tokens)
        self.rstrip_tokens = tuple(rstrip_tokens)
        if isinstance(vocabulary, dict):
            missing = [char for char in self.byte_alphabet() if char not in vocabulary]
            if missing:
                raise ValueError(
                    f"ByteLevelBpeTokenizer: the vocabulary lacks {len(missing)} of the 256 byte characters "
                    f"(e.g. {missing[:3]}): some texts would have no ids"
                )
        # keras-hub's cache and merges see only what the splitter leaves: no unsplittable tokens.
        super().__init__(
            vocabulary=vocabulary,
            merges=merges,
            add_prefix_space=add_prefix_space,
            unsplittable_tokens=[],
            **kwargs,
        )
        if pre_tokenizer == "qwen":
            if add_prefix_space:
                raise ValueError("ByteLevelBpeTokenizer: Qwen's pre-tokeniser with add_prefix_space is not reproduced")
            self.splitter = QwenTextSplitter(
                special_tokens=self.added_tokens,
                lstrip_tokens=self.lstrip_tokens,
                rstrip_tokens=self.rstrip_tokens,
                nfc=self.nfc,
            )
        else:
            self.splitter = ByteLevelTextSplitter(
                special_tokens=self.added_tokens,
                lstrip_tokens=self.lstrip_tokens,
                rstrip_tokens=self.rstrip_tokens,
                add_prefix_space=add_prefix_space,
                nfc=self.nfc,
            )

    @staticmethod
    def byte_alphabet():
        """The 256 characters that stand for the bytes (GPT-2's `bytes_to_unicode`), byte order."""
        return [chr(point) for point in _byte_characters()]

    def _bpe_tables(self):
        """Our TF tables of this vocabulary (the merges, the byte characters' ids, token → id), built on first
        in-graph use, outside any graph being traced: our own, so that no keras-hub release's way of building
        its tables matters here."""
        tables = getattr(self, "bpe_tables", None)
        if tables is None:
            with tf.init_scope():
                tables = ByteLevelTables(self.vocabulary, self._merge_rules(), self.byte_alphabet())
            # Tracked (unlike SentenceTokenizer's untracked cache of constants): the hash tables are resources a
            # SavedModel must capture.
            self.bpe_tables = tables
        return tables

    def tokenize(self, inputs):
        """keras-hub's `tokenize`: the ids of `content_ids`, untruncated, for a string or 1-D strings."""
        inputs = tf.convert_to_tensor(inputs, dtype=tf.string)
        if inputs.shape.rank == 0:
            return self._bpe_ids(inputs[tf.newaxis])[0]
        return self._bpe_ids(inputs)

    def _bpe_ids(self, texts):
        tables = self._bpe_tables()
        words, special = self.splitter.words(texts)
        flat, is_special = words.flat_values, special.flat_values
        # Each ordinary word's bytes → the ids of their byte characters → BPE pieces; an added token is its id.
        # Each distinct word is merged once (a batch repeats "the", ",", " of" …).
        distinct, where = tf.unique(tf.boolean_mask(flat, ~is_special))
        byte_strings = tf.strings.bytes_split(distinct)
        byte_values = tf.cast(tf.reshape(tf.io.decode_raw(byte_strings.flat_values, tf.uint8), [-1]), tf.int32)
        merged = tables.merges.pieces(byte_strings.with_flat_values(tf.gather(tables.byte_ids, byte_values)))
        pieces = tf.gather(merged, where)
        # An added token's word is the token itself, or (lstrip/rstrip) the token with the white space it
        # took: the word is looked up as it is first, so that a token of white space ("  ", GPT-NeoX's
        # and ModernBERT's runs of spaces) is not stripped to nothing.
        as_is = tables.token_ids.lookup(flat)
        special_ids = tf.where(as_is >= 0, as_is, tables.token_ids.lookup(self.splitter.special_token(flat)))
        return ids_in_word_order(words, special, pieces, special_ids)

    def untruncated_ids(self, texts):
        return self._bpe_ids(texts)

    def _content_ids_graph(self, texts):
        return self._bpe_ids(texts)[:, : self.content_limit]

    def _host(self):
        host = getattr(self, "_host_tokenizer", None)
        if host is None:
            host = Tokenizer(models.BPE(dict(self.vocabulary), [tuple(m.split(" ")) for m in self._merge_rules()]))
            if self.pre_tokenizer == "qwen":
                host.pre_tokenizer = pre_tokenizers.Sequence(
                    [
                        pre_tokenizers.Split(Regex(QWEN_EXPRESSION), behavior="isolated", invert=False),
                        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
                    ]
                )
            else:
                host.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=self.add_prefix_space, use_regex=True)
            if self.nfc:
                host.normalizer = normalizers.NFC()
            host.add_special_tokens(
                [
                    AddedToken(
                        token,
                        lstrip=token in self.lstrip_tokens,
                        rstrip=token in self.rstrip_tokens,
                        normalized=False,
                        special=True,
                    )
                    for token in self.added_tokens
                ]
            )
            # A cache, not state to save with the layer.
            object.__setattr__(self, "_host_tokenizer", host)
        return host

    def _merge_rules(self):
        return [merge for merge in self.merges if "#version:" not in merge]

    def get_config(self):
        config = super().get_config()
        for key in ("unsplittable_tokens", "sequence_length"):
            config.pop(key, None)
        config.update(
            {
                "max_length": self.max_length,
                "cls_token": self.cls_token,
                "sep_token": self.sep_token,
                "pad_token": self.pad_token,
                "mask_token": self.mask_token,
                "oov_token": self.oov_token,
                "added_tokens": list(self.added_tokens),
                "lstrip_tokens": list(self.lstrip_tokens),
                "rstrip_tokens": list(self.rstrip_tokens),
                "pre_tokenizer": self.pre_tokenizer,
                "nfc": self.nfc,
                "start_tokens": None if self.start_tokens is None else list(self.start_tokens),
                "end_tokens": None if self.end_tokens is None else list(self.end_tokens),
                "padding_side": self.padding_side,
            }
        )
        if self.pair_separators != 1:
            config["pair_separators"] = self.pair_separators
        return config


class ByteLevelTables(tf.Module):
    """The TF tables a byte-level BPE tokenizer looks up in-graph.

    Args:
        vocabulary: `{token: id}`.
        merges: the merge rules, "a b" strings, highest priority first (no "#version:" line).
        byte_alphabet: the 256 characters that stand for the bytes, byte order.
    """

    def __init__(self, vocabulary, merges, byte_alphabet):
        super().__init__(name="byte_level_tables")
        self.merges = BytePairMerges(vocabulary, merges)
        self.byte_ids = tf.constant([vocabulary[char] for char in byte_alphabet], tf.int32)
        tokens = list(vocabulary)
        self.token_ids = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(tokens, tf.string), tf.constant([vocabulary[token] for token in tokens], tf.int32)
            ),
            default_value=-1,
        )


def _byte_characters():
    """GPT-2's byte → character map as code points in byte order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    points, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            points[byte] = byte
        else:
            points[byte] = 256 + extra
            extra += 1
    return [points[byte] for byte in range(256)]
