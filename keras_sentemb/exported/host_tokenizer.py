"""HostTokenizer: an exported folder's tokenizer on the host — Hugging Face `tokenizers` for the content ids,
and the packing its model was traced with (`start ids end`, padded on its side), without TensorFlow.

The ids are those of `SentenceEncoder.encode`: it tokenises on the host with the same `Tokenizer`
(`content_id_rows`), which tests/tokenizers compare with the in-graph pipeline and the model's own
tokenizer.json on hostile texts.
"""

import os

from tokenizers import Tokenizer

from keras_sentemb.data.length_buckets import pack_rows
from keras_sentemb.tokenizers.host_wordpiece import ids_with_offsets, leading_ids
from keras_sentemb.tokenizers.special_token_counts import SpecialTokenCounts
from keras_sentemb.utils.checked_files import open_regular_file

MAX_TOKENIZER_BYTES = 64 * 2**20  # Qwen3's tokenizer.json is 11 MB; Gemma 3's 33 MB


class HostTokenizer(SpecialTokenCounts):
    """Texts → content-id rows → packed model inputs, as the exported model expects them.

    Args:
        tokenizer: a Hugging Face `Tokenizer` that adds no special tokens.
        start_ids / end_ids: the ids framing every text (`[CLS]` / `[SEP]`; none / `<|endoftext|>` for Qwen3).
        pad_token_id / padding_side: how a batch is padded ("right", or "left" as Qwen3-Embedding pads).
        max_length: the most tokens a packed text has (special tokens included).

    Example:
    >>> from tokenizers import Tokenizer, models, pre_tokenizers
    >>> hf = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1, "cat": 2}, unk_token="[UNK]"))
    >>> hf.pre_tokenizer = pre_tokenizers.Whitespace()
    >>> tokenizer = HostTokenizer(hf, start_ids=[7], end_ids=[8], pad_token_id=0, max_length=4)
    >>> rows = tokenizer.content_id_rows(["a cat", b"a dog cat"])
    >>> [row.tolist() for row in rows], tokenizer.pack_batch(rows, 4)[0].tolist()
    ([[1, 2], [1, 0]], [[7, 1, 2, 8], [7, 1, 0, 8]])
    """

    def __init__(self, tokenizer, start_ids, end_ids, pad_token_id, max_length, padding_side="right"):
        self.tokenizer = tokenizer
        self.start_ids, self.end_ids = tuple(start_ids), tuple(end_ids)
        self.pad_token_id, self.padding_side, self.max_length = pad_token_id, padding_side, int(max_length)

    @classmethod
    def from_file(cls, path, **packing):
        """The tokenizer of a `tokenizer.json` (a regular file of at most 64 MiB; errors name it) with `packing`."""
        path = os.fspath(path)
        with open_regular_file(path) as f:
            data = f.read(MAX_TOKENIZER_BYTES + 1)
        return cls.from_bytes(data, path, **packing)

    @classmethod
    def from_bytes(cls, data, source, **packing):
        """The tokenizer of a tokenizer.json's bytes (at most 64 MiB; errors name `source`) with `packing`."""
        if len(data) > MAX_TOKENIZER_BYTES:
            raise ValueError(f"{source}: more than the {MAX_TOKENIZER_BYTES} bytes a tokenizer.json may have")
        try:
            tokenizer = Tokenizer.from_str(data.decode("utf-8"))
        except Exception as error:  # invalid UTF-8, or tokenizers' bare Exception on a bad document
            raise ValueError(f"{source}: not a Hugging Face tokenizer.json ({str(error)[:200]})") from None
        return cls(tokenizer, **packing)

    def content_id_rows(self, texts):
        """NumPy int32 content ids of each text (str, or UTF-8 bytes: invalid bytes become U+FFFD), at most
        `content_limit` a row (the end of a long text is dropped, as sentence-transformers truncates)."""
        texts = [t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in texts]
        return leading_ids(self.tokenizer, texts, self.content_limit)

    def content_ids_with_offsets(self, texts):
        """For each `str`: its content ids untruncated (int32 [L]) and their character spans (int64 [L, 2])."""
        return ids_with_offsets(self.tokenizer, texts)

    def pack_batch(self, rows, length):
        """int32 `token_ids`, `padding_mask` [len(rows), length]: `start row end`, padded on `padding_side`."""
        return pack_rows(rows, length, self.start_ids, self.end_ids, self.pad_token_id, self.padding_side)
