"""HostTokenizerRows: the host side of a tokenizer whose Hugging Face `Tokenizer` gives the ids of
its in-graph pipeline: id rows for `encode`, ids with character offsets for chunking."""

import json

from tokenizers import Tokenizer

from keras_sentemb.tokenizers.host_wordpiece import ids_with_offsets, leading_ids


class HostTokenizerRows:
    """A mixin for a tokenizer with `content_limit` and `_host()` (its Hugging Face `Tokenizer`, built
    from the same tokenizer.json parts as its in-graph pipeline, no special tokens added)."""

    def content_id_rows(self, texts):
        """`content_ids` for a Python list of texts (str or UTF-8 bytes), as NumPy int32 rows (at most
        `content_limit` ids), tokenised on the host by Hugging Face `tokenizers`: the same ids, far
        faster a call. Invalid UTF-8 bytes become U+FFFD."""
        texts = [t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in texts]
        return leading_ids(self._host(), texts, self.content_limit)

    def content_ids_with_offsets(self, texts):
        """For each `str` of `texts`: its content ids untruncated (int32 [L]) and their character
        spans in it (int64 [L, 2]), on the host: what `encode(chunking=…)` cuts into windows."""
        return ids_with_offsets(self._host(), texts)

    def host_tokenizer(self):
        """The Hugging Face `Tokenizer` of the host side (no special tokens added, nothing truncated): what an
        exported folder saves as its `tokenizer.json`, the same content ids as the in-graph pipeline."""
        return self._host()

    def _host(self):
        raise NotImplementedError


def host_tokenizer_from_spec(tokenizer_spec):
    """A Hugging Face `Tokenizer` from tokenizer.json's `normalizer`, `pre_tokenizer`, `model` and
    `added_tokens` (`tokenizer_spec`), without post-processor, padding or truncation: the content ids
    of the in-graph tokenizers built from the same parts (`UnigramTokenizer`, `SentencePieceBpeTokenizer`)."""
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} | token
            for token in tokenizer_spec.get("added_tokens", [])
        ],
        "normalizer": tokenizer_spec.get("normalizer"),
        "pre_tokenizer": tokenizer_spec.get("pre_tokenizer"),
        "post_processor": None,
        "decoder": None,
        "model": tokenizer_spec["model"],
    }
    return Tokenizer.from_str(json.dumps(spec))
