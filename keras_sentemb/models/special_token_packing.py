"""How encoders whose tokenizer frames a text with special tokens (`[CLS] ids [SEP]`, `ids <|endoftext|>` …)
pack a batch for `encode`."""

from keras_sentemb.data.length_buckets import pack_rows


class SpecialTokenPacking:
    """`EmbeddingModel`'s packing hooks for a `SequencePacking` tokenizer: a row of content ids becomes
    `start ids end` (`[CLS] ids [SEP]`; `<s> … </s>` for MPNet; `ids <|endoftext|>` for Qwen3), padded
    with the tokenizer's padding id on its padding side to the batch's length."""

    tokenizer_hint = "SentenceTokenizer(...)"

    def packed_length(self, row):
        """The row and the tokenizer's special tokens (two for `[CLS] row [SEP]`)."""
        return len(row) + self.tokenizer.special_token_count

    def pack_batch(self, rows, length):
        tokenizer = self.tokenizer
        return pack_rows(
            rows,
            length,
            tokenizer.start_ids,
            tokenizer.end_ids,
            tokenizer.pad_token_id,
            padding_side=tokenizer.padding_side,
        )
