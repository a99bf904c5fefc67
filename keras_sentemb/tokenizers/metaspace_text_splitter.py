"""MetaspaceTextSplitter: raw strings to the words a SentencePiece-converted model's Unigram reads (XLM-RoBERTa,
mBART, T5 …), in TF ops, exactly as its `tokenizer.json` (Hugging Face) normalises and splits them.

    normaliser   Sequence of Precompiled (SentencePiece's nmt_nfkc map, applied per grapheme cluster as
                 Hugging Face applies it), Strip, Replace
    pre-tokens   Metaspace: " " → "▁", "▁" prepended, split before every "▁"; or, as transformers 5 writes
                 XLM-RoBERTa's, `Sequence[WhitespaceSplit, Metaspace]`: the text cut at runs of white
                 space (Rust's `char::is_whitespace`, which are dropped), then Metaspace on each piece
                 (a piece that starts with "▁" gets none prepended)

Hugging Face's `Precompiled` looks each grapheme cluster of fewer than six bytes up whole — its shortest
prefix that is a rule replaces the whole cluster — and any other cluster character by character
(`grapheme_clusters`, `precompiled_charsmap`). Added tokens written in the raw text are cut out first.

Example (a normaliser that only collapses spaces):
>>> splitter = MetaspaceTextSplitter([{"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}],
...                                  special_tokens=["</s>"])
>>> words, special = splitter.words(tf.constant(["Hello  world</s>"]))
>>> [w.decode() for w in words.to_list()[0]], special.to_list()[0]
(['▁Hello', '▁world', '</s>'], [False, False, True])
"""

import base64
import re

import tensorflow as tf

from keras_sentemb.tokenizers import byte_level_character_tables as spaces
from keras_sentemb.tokenizers.added_tokens import alternatives, longest_first, split_keeping_specials
from keras_sentemb.tokenizers.bert_text_splitter import character_class
from keras_sentemb.tokenizers.grapheme_clusters import grapheme_clusters
from keras_sentemb.tokenizers.precompiled_charsmap import charsmap_rules
from keras_sentemb.tokenizers.utf8_text import regex_pieces, valid_utf8

# Rust's `char::is_whitespace`, which Strip and added tokens' lstrip/rstrip take away.
_SPACE = character_class(spaces.STRIPPED_SPACES)
_MISSING = b"\xff"  # no rule (a rule may map to the empty string)
# Hugging Face looks a cluster up whole below this many bytes.
_WHOLE_CLUSTER_BYTES = 6
# Replace patterns RE2 runs as Oniguruma does: plain characters, classes of them, repetition.
_PLAIN_PATTERN = re.compile(r"^(?:[^\\()|]|\\[sS.*+?{}()\[\]|^$\\])*$")


class PrecompiledNormalizer(tf.Module):
    """Hugging Face's `Precompiled` normaliser on a 1-D `tf.string` tensor (see the module docstring)."""

    def __init__(self, charsmap):
        super().__init__(name="precompiled_normalizer")
        rules = charsmap_rules(charsmap)
        # Only a rule of one character, or of fewer than six bytes, can ever apply.
        kept = {key: value for key, value in rules.items() if len(key) == 1 or len(key.encode()) < _WHOLE_CLUSTER_BYTES}
        self._rules = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant(list(kept)), tf.constant(list(kept.values()))),
            default_value=_MISSING,
        )
        self._longest = max([len(key) for key in kept] + [1])

    def __call__(self, texts):
        clusters = grapheme_clusters(texts)
        flat = clusters.flat_values
        chars = tf.strings.length(flat, unit="UTF8_CHAR")
        small = tf.strings.length(flat) < _WHOLE_CLUSTER_BYTES
        whole = tf.fill(tf.shape(flat), _MISSING)
        for length in range(self._longest, 0, -1):  # the shortest hit is written last
            prefix = tf.strings.substr(flat, tf.zeros_like(chars), tf.fill(tf.shape(chars), length), unit="UTF8_CHAR")
            value = self._rules.lookup(prefix)
            whole = tf.where(small & (chars >= length) & (value != _MISSING), value, whole)
        characters = tf.strings.unicode_split(flat, "UTF-8")
        mapped = self._rules.lookup(characters.flat_values)
        mapped = tf.where(mapped == _MISSING, characters.flat_values, mapped)
        by_character = tf.strings.reduce_join(characters.with_flat_values(mapped), axis=1)
        normalized = tf.where(whole != _MISSING, whole, by_character)
        return tf.strings.reduce_join(clusters.with_flat_values(normalized), axis=1)


def _normalizer_steps(spec):
    """The steps of a tokenizer.json normaliser (None, one, or a Sequence) as callables on 1-D strings."""
    if spec is None:
        return []
    if spec.get("type") == "Sequence":
        return [step for item in spec.get("normalizers", []) for step in _normalizer_steps(item)]
    kind = spec.get("type")
    if kind == "Precompiled":
        charsmap = spec.get("precompiled_charsmap")
        if not charsmap:
            return []
        return [PrecompiledNormalizer(base64.b64decode(charsmap) if isinstance(charsmap, str) else bytes(charsmap))]
    if kind == "Strip":
        patterns = []
        if spec.get("strip_left", spec.get("left", True)):
            patterns.append(f"^{_SPACE}+")
        if spec.get("strip_right", spec.get("right", True)):
            patterns.append(f"{_SPACE}+$")
        pattern = "|".join(patterns)
        return [lambda texts: tf.strings.regex_replace(texts, pattern, "")] if pattern else []
    if kind == "Replace":
        pattern = spec.get("pattern", {})
        if "String" in pattern:
            regex = re.escape(pattern["String"])
        elif "Regex" in pattern and _PLAIN_PATTERN.match(pattern["Regex"]):
            regex = pattern["Regex"]
        else:
            raise ValueError(f"normalizer Replace pattern {pattern!r} is not supported (plain patterns only)")
        content = spec.get("content", "").replace("\\", "\\\\")
        return [lambda texts: tf.strings.regex_replace(texts, regex, content)]
    raise ValueError(
        f"normalizer {kind!r} is not supported (the in-graph tokenizer reproduces Precompiled, Strip, Replace)"
    )


class MetaspaceTextSplitter(tf.Module):
    """Splits texts into the words of a Metaspace / Unigram model's reference tokenizer, in-graph.

    Args:
        normalizer: tokenizer.json's `normalizer` (a dict, a list of its steps, or None).
        special_tokens: the added tokens, kept whole where the raw text holds them.
        lstrip_tokens, rstrip_tokens: those that take the white space beside them.
        replacement: Metaspace's replacement character ("▁").
        prepend: Metaspace prepends it to every stretch (True: "always"), never (False), or only to the
            stretch that begins the text ("first": not after an added token).
        split: Metaspace splits before every replacement character.
        whitespace_split: a `WhitespaceSplit` pre-tokeniser runs before Metaspace.
    """

    def __init__(
        self,
        normalizer,
        special_tokens=(),
        lstrip_tokens=(),
        rstrip_tokens=(),
        replacement="▁",
        prepend=True,
        split=True,
        whitespace_split=False,
    ):
        super().__init__(name="metaspace_text_splitter")
        if isinstance(normalizer, list):
            normalizer = {"type": "Sequence", "normalizers": normalizer}
        # A tf.Module, so that the lookup tables of its Precompiled step go into SavedModels.
        self._steps = _normalizer_steps(normalizer)
        self.special_tokens = longest_first(special_tokens)
        self._special_pattern = alternatives(self.special_tokens, lstrip_tokens, rstrip_tokens, _SPACE)
        if len(replacement) != 1:
            raise ValueError(f"Metaspace replacement {replacement!r} is not one character")
        self.replacement = replacement
        self.prepend = prepend if prepend == "first" else bool(prepend)
        self.split = bool(split)
        self.whitespace_split = bool(whitespace_split)
        marker = re.escape(replacement)
        self._word = f"{marker}[^{marker}]*|[^{marker}]+"

    def normalize(self, texts):
        """The normaliser's steps on a 1-D `tf.string` tensor of valid UTF-8."""
        for step in self._steps:
            texts = step(texts)
        return texts

    def words(self, texts):
        """`(words, is_special)`: two `tf.RaggedTensor`s [batch, (words)], the words (UTF-8) and whether
        each is an added token."""
        texts = valid_utf8(tf.convert_to_tensor(texts, dtype=tf.string))
        return split_keeping_specials(texts, self._special_pattern, self._pre_tokens, regex_pieces, starts=True)

    def _pre_tokens(self, texts, at_start):
        texts = self.normalize(texts)
        if not self.whitespace_split:
            return self._metaspace(texts, at_start)
        pieces = regex_pieces(texts, f"{_SPACE}+")
        pieces = tf.ragged.boolean_mask(
            pieces, pieces.with_flat_values(~tf.strings.regex_full_match(pieces.flat_values, f"{_SPACE}+"))
        )
        return pieces.with_flat_values(self._metaspace(pieces.flat_values, None)).merge_dims(1, 2)

    def _metaspace(self, texts, at_start):
        """Metaspace on each of a 1-D string tensor: ragged [texts, (words)]."""
        texts = tf.strings.regex_replace(texts, " ", self.replacement)
        if self.prepend:
            starts = tf.strings.substr(texts, 0, len(self.replacement.encode()))
            keep = (starts == self.replacement) | (texts == "")
            if self.prepend == "first":
                keep = keep | ~at_start
            texts = tf.where(keep, texts, tf.strings.join([self.replacement, texts]))
        if not self.split:
            return tf.RaggedTensor.from_tensor(texts[:, None])
        return regex_pieces(texts, self._word)

    @staticmethod
    def special_token(word):
        """An added token's own text, from the word that holds it (its stripped white space removed)."""
        return tf.strings.regex_replace(word, f"^{_SPACE}+|{_SPACE}+$", "")
