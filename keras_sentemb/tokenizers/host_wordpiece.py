"""HostWordPiece: the word pieces of texts on the host, by Hugging Face `tokenizers` (Rust; a
dependency of keras-hub), with the ids of the in-graph tokenizer.

`SentenceTokenizer.content_ids` (TF Text, in-graph) is what a SavedModel runs. For `encode`
on the host the same graph costs ~0.8 ms a call on 2 cores however short the text, more than
OpenVINO needs for the whole model on a short sentence; Hugging Face's WordPiece, configured
as a BERT `tokenizer.json` is (the normaliser and pre-tokeniser the in-graph
`BertTextSplitter` reproduces), takes ~0.02 ms.

The two agree on every text: the in-graph splitter uses Hugging Face's own character tables
(`bert_character_tables`), and tests/tokenizers/test_tokenizer_json_parity.py compares both
with the model's `tokenizer.json` on 12,000 hostile texts (every Unicode space, controls,
accents, Greek, Turkish, CJK, emoji, full-width forms …).

>>> pieces = HostWordPiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "##s", ".", "cafe"],
...                        lowercase=True, strip_accents=True, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"],
...                        oov_token="[UNK]", max_ids=8)
>>> [ids.tolist() for ids in pieces.content_ids(["The cats.", "Café\\u00a0[SEP]"])]
[[4, 5, 6, 7], [8, 3]]
"""

import numpy as np
from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers


class HostWordPiece:
    """BERT word pieces on the host (see the module docstring).

    Args:
        vocabulary: the word pieces, id = position.
        lowercase: lower-case the text (uncased models).
        strip_accents: NFD and delete non-spacing marks.
        special_tokens: tokens kept whole when written in a text (exact case).
        oov_token: the unknown-word token.
        max_ids: at most this many content ids a text (the tail is dropped).
        max_word_length: a word longer than this many characters is one `oov_token` (Hugging
            Face's default, 100).
        normalized_special_tokens: tokens kept whole where the normalised text holds them.
    """

    def __init__(
        self,
        vocabulary,
        lowercase,
        strip_accents,
        special_tokens,
        oov_token,
        max_ids,
        max_word_length=100,
        normalized_special_tokens=(),
    ):
        vocab = {token: index for index, token in enumerate(vocabulary)}
        tokenizer = Tokenizer(models.WordPiece(vocab, unk_token=oov_token, max_input_chars_per_word=max_word_length))
        tokenizer.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents, lowercase=lowercase
        )
        tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tokenizer.add_special_tokens(
            [AddedToken(token, normalized=False, special=True) for token in special_tokens]
            + [AddedToken(token, normalized=True, special=True) for token in normalized_special_tokens]
        )
        self._tokenizer = tokenizer
        self._max_ids = max_ids

    @property
    def tokenizer(self):
        """The Hugging Face `Tokenizer` (no special tokens added, nothing truncated): what an exported folder
        saves as its `tokenizer.json`."""
        return self._tokenizer

    def content_ids(self, texts):
        """For each `str` text: NumPy int32 content ids (no [CLS]/[SEP], at most `max_ids`)."""
        return leading_ids(self._tokenizer, texts, self._max_ids)

    def content_ids_with_offsets(self, texts):
        """For each `str` text: all its content ids (untruncated, int32 [L]) and each one's
        character span in the text (int64 [L, 2], start and end)."""
        return ids_with_offsets(self._tokenizer, texts)


def ids_with_offsets(tokenizer, texts):
    """(ids int32 [L], offsets int64 [L, 2]) of each text by a Hugging Face `Tokenizer`, no
    special tokens added, nothing truncated (the host side of chunking)."""
    encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
    return [
        (np.asarray(e.ids, dtype=np.int32), np.asarray(e.offsets, dtype=np.int64).reshape(-1, 2)) for e in encodings
    ]


# A text longer than this many characters a kept id is tokenised from its start only (`leading_ids`).
PREFIX_CHARACTERS_AN_ID = 32
# The ids kept must end this far before the cut: a cut can change only the pieces next to it.
MARGIN_IDS, MARGIN_CHARACTERS = 16, 256


def leading_ids(tokenizer, texts, limit):
    """The first `limit` content ids (int32) of each `str` text by a Hugging Face `Tokenizer`: the ids
    its whole text gives, truncated, at a cost that does not grow with a long text's length.

    A text of more than `limit · PREFIX_CHARACTERS_AN_ID` characters is tokenised from a prefix,
    four times longer each try, until its first `limit + MARGIN_IDS` ids end at least
    `MARGIN_CHARACTERS` before the cut (or the prefix is the whole text). Normalisers, pre-tokenisers
    and merges change only the pieces next to a cut, so the kept ids are the whole text's
    (tests/tokenizers/test_leading_ids.py: every pipeline, long hostile texts). Tokenising a 10 MB text
    whole took 11.5 s and 1.2 GB for the 254 ids MiniLM keeps.
    """
    texts = list(texts)
    start = max(4096, limit * PREFIX_CHARACTERS_AN_ID)
    rows = [None] * len(texts)
    short = [i for i, text in enumerate(texts) if len(text) <= start]
    for i, encoding in zip(short, tokenizer.encode_batch([texts[i] for i in short], add_special_tokens=False)):
        rows[i] = np.asarray(encoding.ids[:limit], dtype=np.int32)
    for i in (i for i, text in enumerate(texts) if len(text) > start):
        text, length = texts[i], start
        while True:
            encoding = tokenizer.encode(text[:length], add_special_tokens=False)
            last = limit + MARGIN_IDS - 1
            if length >= len(text) or (
                len(encoding.ids) > last and encoding.offsets[last][1] <= length - MARGIN_CHARACTERS
            ):
                break
            length *= 4
        rows[i] = np.asarray(encoding.ids[:limit], dtype=np.int32)
    return rows
