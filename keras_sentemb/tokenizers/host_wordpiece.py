"""HostWordPiece: the word pieces of printable-ASCII texts on the host, by Hugging Face
`tokenizers` (Rust; a dependency of keras-hub), with the ids of the in-graph tokenizer.

`SentenceTokenizer.content_ids` (TF Text, in-graph) is what a SavedModel runs. For `encode`
on the host the same graph costs ~0.8 ms a call on 2 cores however short the text, more than
OpenVINO needs for the whole model on a short sentence; Hugging Face's WordPiece, configured
as BERT's reference tokenizer (which is what the in-graph one reproduces), takes ~0.02 ms.

Only texts of printable ASCII (U+0020 to U+007E) go this way: on them the two agree by
construction (no accents, no case beyond A-Z, no CJK, no control or exotic white-space
characters, where the two libraries' Unicode tables could differ) and by test
(tests/tokenizers/test_host_wordpiece.py compares them on hypothesis-generated texts). Any
other text returns None here and is tokenised in-graph.

>>> pieces = HostWordPiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "##s", "."], lowercase=True,
...                        special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"], oov_token="[UNK]", max_ids=8)
>>> [None if ids is None else ids.tolist() for ids in pieces.content_ids(["The cats.", "café"])]
[[4, 5, 6, 7], None]
"""

import re

import numpy as np
from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers

_PRINTABLE_ASCII = re.compile(r"[ -~]*")


class HostWordPiece:
    """BERT word pieces for printable-ASCII texts (see the module docstring).

    Args:
        vocabulary: the word pieces, id = position.
        lowercase: lower-case A-Z (uncased models).
        special_tokens: tokens kept whole when written in a text (exact case).
        oov_token: the unknown-word token.
        max_ids: at most this many content ids a text (the tail is dropped).
        max_word_length: a word longer than this many characters is one `oov_token` (TF Text's
            and Hugging Face's default, 100).
    """

    def __init__(self, vocabulary, lowercase, special_tokens, oov_token, max_ids, max_word_length=100):
        vocab = {token: index for index, token in enumerate(vocabulary)}
        tokenizer = Tokenizer(models.WordPiece(vocab, unk_token=oov_token, max_input_chars_per_word=max_word_length))
        tokenizer.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=lowercase
        )
        tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tokenizer.add_special_tokens([AddedToken(token, normalized=False, special=True) for token in special_tokens])
        self._tokenizer = tokenizer
        self._max_ids = max_ids

    def content_ids(self, texts):
        """For each `str` text: NumPy int32 content ids (no [CLS]/[SEP], at most `max_ids`), or
        None where the text is not printable ASCII (tokenise it in-graph)."""
        eligible = [i for i, text in enumerate(texts) if _PRINTABLE_ASCII.fullmatch(text)]
        rows = [None] * len(texts)
        if eligible:
            encodings = self._tokenizer.encode_batch([texts[i] for i in eligible], add_special_tokens=False)
            for i, encoding in zip(eligible, encodings):
                rows[i] = np.asarray(encoding.ids[: self._max_ids], dtype=np.int32)
        return rows
