"""SpecialTokenCounts: how many tokens a packed text's special tokens take, and how many content ids are left —
the arithmetic of `start ids end` shared by the in-graph tokenizers (`SequencePacking`) and an exported model's
host tokenizer (`exported.HostTokenizer`). Imports nothing (no TensorFlow)."""


class SpecialTokenCounts:
    """A mixin for a tokenizer with `start_ids`, `end_ids` and `max_length`.

    >>> class Packed(SpecialTokenCounts):
    ...     start_ids, end_ids, max_length = (101,), (102,), 8
    >>> Packed().special_token_count, Packed().content_limit, Packed().packed_length([7, 8, 9])
    (2, 6, 5)
    """

    @property
    def special_token_count(self):
        """Special tokens a packed text carries (2 for `cls … sep`)."""
        return len(self.start_ids) + len(self.end_ids)

    @property
    def content_limit(self):
        """The most content ids a packed text keeps: `max_length` less its special tokens."""
        return self.max_length - self.special_token_count

    def packed_length(self, row):
        """The tokens a row of content ids takes once packed (`start row end`)."""
        return len(row) + self.special_token_count
