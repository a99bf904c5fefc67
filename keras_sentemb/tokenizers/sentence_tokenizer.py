"""SentenceTokenizer: raw strings to BERT word-piece ids, in-graph with TF Text ops."""

import keras
import keras_hub
import tensorflow as tf
import tensorflow_text as tf_text

from keras_sentemb.tokenizers.added_tokens import alternatives
from keras_sentemb.tokenizers.bert_text_splitter import BertTextSplitter
from keras_sentemb.tokenizers.host_wordpiece import HostWordPiece
from keras_sentemb.tokenizers.keras_hub_adapter import declare_special_token
from keras_sentemb.tokenizers.sequence_packing import SequencePacking, checked_pair_separators

# Hugging Face WordPiece's `max_input_chars_per_word`: a longer word is one unknown token.
MAX_WORD_CHARS = 100
# Texts of printable ASCII, tab, newline and carriage return: for them BERT's normaliser is lower-casing
# only and its pre-tokeniser TF Text's (`FastWordpieceTokenizer` end to end), so they take that fast path.
PLAIN_ASCII = "[\\t\\n\\r\\x20-\\x7e]*"


@keras.saving.register_keras_serializable(package="keras_sentemb")
class SentenceTokenizer(SequencePacking, keras_hub.models.BertTokenizer):
    """keras-hub's `BertTokenizer` with BERT's text clean-up, truncation and packing.

    `content_ids(texts)` maps a 1-D `tf.string` tensor to a `tf.RaggedTensor` of word-piece
    ids without special tokens, truncated to `max_length - 2` ids so that
    `[CLS] ids [SEP]` fits in `max_length` (the same truncation as sentence-transformers:
    the end of a long text is dropped). `pack(content_ids)` adds [CLS]/[SEP] and pads to
    the longest row, returning `token_ids` and `padding_mask` [batch, T]. Both run inside
    `tf.function`, `tf.data` and exported SavedModels (TF Text ops, which TF Serving links).

    The ids are those of the model's `tokenizer.json` (Hugging Face `tokenizers`) for every
    text: `BertTextSplitter` reproduces its normaliser and pre-tokeniser in TF ops, with its
    Unicode tables (invalid UTF-8 bytes become U+FFFD, which is deleted; special tokens written
    in the text, "[SEP]", "[UNK]" …, exact case, stay special; control and format characters
    go; every Unicode space is a space; lower-casing is per character, not case folding: "ß"
    stays "ß"; accents go with NFD; punctuation and CJK ideographs are words of their own; a
    word of over 100 characters is "[UNK]"). An empty or whitespace-only text has no content
    ids and packs to `[CLS] [SEP]`.

    The special tokens are BERT's by default; other WordPiece models name theirs (MPNet:
    `cls_token="<s>", sep_token="</s>", pad_token="<pad>", mask_token="<mask>"`, `oov_token="[UNK]"`,
    and "<unk>" among `normalized_special_tokens`, as its tokenizer.json says). A sequence is always
    `cls ids sep`, as sentence-transformers packs one text for BERT, DistilBERT and MPNet alike. A
    pair (`pair_ids`, the cross-encoder input) is `cls a sep b sep` for BERT and
    `cls a sep sep b sep` for MPNet (`pair_separators=2`, tokenizer.json's `RobertaProcessing`).

    Args:
        vocabulary: a `vocab.txt` path or a list of word pieces.
        lowercase: case-fold the text (uncased BERT models).
        strip_accents: remove accent marks (the reference does so for uncased models).
        max_length: the longest packed sequence, special tokens included (≥ 3).
        cls_token, sep_token, pad_token, mask_token, oov_token: the model's special tokens.
        extra_special_tokens: other tokens kept whole where a text holds them (exact case).
        normalized_special_tokens: tokens kept whole where the normalised text holds them
            (tokenizer.json's added tokens with `normalized: true`).
        pair_separators: `sep` tokens between the two texts of a pair (1: BERT, 2: MPNet).

    Example:
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "fox"]
    >>> tokenizer = SentenceTokenizer(vocab, max_length=8)
    >>> packed = tokenizer.pack(tokenizer.content_ids(tf.constant(["The fox", ""])))
    >>> packed["token_ids"].numpy().tolist()
    [[2, 5, 6, 3], [2, 3, 0, 0]]
    """

    def __init__(
        self,
        vocabulary=None,
        lowercase=True,
        strip_accents=True,
        max_length=512,
        cls_token="[CLS]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        mask_token="[MASK]",
        oov_token="[UNK]",
        extra_special_tokens=(),
        normalized_special_tokens=(),
        pair_separators=1,
        **kwargs,
    ):
        self.pair_separators = checked_pair_separators(pair_separators, "SentenceTokenizer")
        # keras-hub case-folds (NFKC_Casefold); the reference lower-cases. So keras-hub
        # gets lowercase=False and the splitter lower-cases, sparing special tokens.
        kwargs.pop("special_tokens_in_strings", None)
        # BertTokenizer.__init__ with the model's own special tokens (it names BERT's).
        for name, token in (
            ("cls_token", cls_token),
            ("sep_token", sep_token),
            ("pad_token", pad_token),
            ("mask_token", mask_token),
            ("start_token", cls_token),
            ("end_token", sep_token),
        ):
            declare_special_token(self, token, name)
        self.extra_special_tokens = tuple(extra_special_tokens)
        self.normalized_special_tokens = tuple(normalized_special_tokens)
        keras_hub.tokenizers.WordPieceTokenizer.__init__(
            self,
            vocabulary=vocabulary,
            lowercase=False,
            strip_accents=strip_accents,
            special_tokens_in_strings=True,
            oov_token=oov_token,
            **kwargs,
        )
        self.lowercase_text = bool(lowercase)
        if not isinstance(max_length, int) or max_length < 3:
            raise ValueError(f"SentenceTokenizer: max_length must be an int >= 3, got {max_length!r}.")
        self.max_length = max_length
        self.splitter = BertTextSplitter(
            lowercase=self.lowercase_text,
            strip_accents=strip_accents,
            special_tokens=self.text_special_tokens,
            oov_token=self.oov_token,
            max_word_chars=MAX_WORD_CHARS,
            normalized_special_tokens=self.normalized_special_tokens,
        )

    @property
    def text_special_tokens(self):
        """The special tokens kept whole where a text holds them ([CLS], [SEP], [PAD], [MASK], [UNK] and
        `extra_special_tokens`)."""
        return sorted(set(self.special_tokens) | {self.oov_token} | set(self.extra_special_tokens))

    def _word_piece_models(self):
        """TF Text's two `FastWordpieceTokenizer`s of this vocabulary (the exact path's and the plain-ASCII
        fast path's), built on first in-graph use, outside any graph being traced, and kept as a cache: our
        own tables, so that no keras-hub release's way of building its own matters here."""
        models = getattr(self, "_word_piece_model_cache", None)
        if models is None:
            with tf.init_scope():
                models = (
                    # TF Text bounds a word in bytes (100 by default), Hugging Face in characters: room for
                    # 100 four-byte characters here; longer words are already `oov_token` (BertTextSplitter).
                    self._fast_word_piece_model(max_bytes_per_word=4 * MAX_WORD_CHARS, no_pretokenization=True),
                    # Plain-ASCII texts: TF Text splits words as BERT does and bounds them in bytes, which
                    # are characters in ASCII.
                    self._fast_word_piece_model(max_bytes_per_word=MAX_WORD_CHARS, no_pretokenization=False),
                )
            object.__setattr__(self, "_word_piece_model_cache", models)
        return models

    def _fast_word_piece_model(self, max_bytes_per_word, no_pretokenization):
        return tf_text.FastWordpieceTokenizer(
            vocab=self.vocabulary,
            token_out_type=self.compute_dtype,
            suffix_indicator=self.suffix_indicator,
            unknown_token=self.oov_token,
            max_bytes_per_word=max_bytes_per_word,
            no_pretokenization=no_pretokenization,
            support_detokenization=False,
        )

    def tokenize(self, inputs):
        """keras-hub's `tokenize` (and so `tokenizer(texts)`): the ids of `content_ids`,
        untruncated, for a string or a 1-D string tensor (keras-hub's own Python and TF paths
        split text differently from the model's tokenizer.json)."""
        inputs = tf.convert_to_tensor(inputs, dtype=tf.string)
        if inputs.shape.rank == 0:
            return self._word_piece_ids(inputs[tf.newaxis])[0]
        return self._word_piece_ids(inputs)

    def _word_piece_ids(self, texts):
        """The ids of each text: texts of plain ASCII (`PLAIN_ASCII`, no special token written in
        them) on the fast path (lower-casing and TF Text's own BERT word splitting: 5x faster on
        STS-B, and the same ids), every other text through `BertTextSplitter`; rows in input order."""
        exact_model, plain_ascii_model = self._word_piece_models()
        plain = tf.strings.regex_full_match(texts, PLAIN_ASCII)
        if self._special_text_pattern:
            plain &= ~tf.strings.regex_full_match(texts, self._special_text_pattern)
        fast_rows = tf.where(plain)[:, 0]
        other_rows = tf.where(~plain)[:, 0]
        fast_texts = tf.gather(texts, fast_rows)
        if self.lowercase_text:
            fast_texts = tf.strings.lower(fast_texts)
        fast = plain_ascii_model.tokenize(fast_texts)
        other_texts = tf.gather(texts, other_rows)
        # The exact splitter costs ~1.5 ms a call even on no text: skipped when every text is plain.
        other = tf.cond(
            tf.size(other_rows) > 0,
            lambda: exact_model.tokenize(self.splitter.wordpiece_words(other_texts)).merge_dims(-2, -1),
            lambda: tf.RaggedTensor.from_row_splits(
                tf.zeros([0], self.compute_dtype), tf.zeros([1], fast.row_splits.dtype), validate=False
            ),
        )
        ids = tf.concat([fast, other], axis=0)
        return tf.gather(ids, tf.math.invert_permutation(tf.concat([fast_rows, other_rows], axis=0)))

    @property
    def _special_text_pattern(self):
        """An RE2 pattern matching a text that holds a special token (the normalised ones in any case),
        or "" when there are none."""
        exact = alternatives(self.text_special_tokens)
        normalized = alternatives(self.normalized_special_tokens)
        parts = [f"(?:{exact})"] if exact else []
        parts += [f"(?i:{normalized})"] if normalized else []
        return f"(?s).*(?:{'|'.join(parts)}).*" if parts else ""

    def content_id_rows(self, texts):
        """`content_ids` for a Python list of texts (str or UTF-8 bytes), as a list of NumPy
        int32 rows, tokenised on the host by `HostWordPiece` (Hugging Face `tokenizers`): the
        same ids as the in-graph `content_ids`, ~40x faster a call, which is what makes
        single-sentence `encode` fast. Invalid UTF-8 bytes are replaced (U+FFFD, then deleted)."""
        return self._host().content_ids([t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in texts])

    def content_ids_with_offsets(self, texts):
        """For each `str` of `texts`: its content ids untruncated (int32 [L]) and their character
        spans in it (int64 [L, 2]), on the host: what `encode(chunking=…)` cuts into windows."""
        return self._host().content_ids_with_offsets(texts)

    def host_tokenizer(self):
        """The Hugging Face `Tokenizer` of `HostWordPiece` (no special tokens added, nothing truncated): what an
        exported folder saves as its `tokenizer.json`, the same content ids as the in-graph pipeline."""
        return self._host().tokenizer

    def _host(self):
        host = getattr(self, "_host_wordpiece", None)
        if host is None:
            host = HostWordPiece(
                self.vocabulary,
                lowercase=self.lowercase_text,
                strip_accents=self.strip_accents,
                special_tokens=self.text_special_tokens,
                oov_token=self.oov_token,
                max_ids=self.max_length - 2,
                max_word_length=MAX_WORD_CHARS,
                normalized_special_tokens=self.normalized_special_tokens,
            )
            # A cache, not state to save with the layer.
            object.__setattr__(self, "_host_wordpiece", host)
        return host

    def untruncated_ids(self, texts):
        return self._word_piece_ids(texts)

    def _content_ids_graph(self, texts):
        return self._word_piece_ids(texts)[:, : self.max_length - 2]

    def get_config(self):
        config = super().get_config()
        config["max_length"] = self.max_length
        config["lowercase"] = self.lowercase_text
        bert = {"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]"}
        for name, default in bert.items():
            if getattr(self, name) != default:
                config[name] = getattr(self, name)
        if self.extra_special_tokens:
            config["extra_special_tokens"] = list(self.extra_special_tokens)
        if self.normalized_special_tokens:
            config["normalized_special_tokens"] = list(self.normalized_special_tokens)
        if self.pair_separators != 1:
            config["pair_separators"] = self.pair_separators
        return config
