"""How encoders whose tokenizer frames a text as `[CLS] ids [SEP]` pack a batch for `encode`."""

from keras_sentemb.data.length_buckets import pack_rows


class SpecialTokenPacking:
    """`EmbeddingModel`'s packing hooks for a `SentenceTokenizer`-style tokenizer: a row of content
    ids becomes `[CLS] ids [SEP]`, right-padded with `[PAD]` to the batch's length (the tokenizer's
    own start, end and padding ids, so `<s> … </s>` for MPNet)."""

    tokenizer_hint = "SentenceTokenizer(...)"

    def packed_length(self, row):
        """`[CLS] row [SEP]`: the row and two special tokens."""
        return len(row) + 2

    def pack_batch(self, rows, length):
        tokenizer = self.tokenizer
        return pack_rows(rows, length, tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id)
