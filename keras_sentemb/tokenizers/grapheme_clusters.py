"""Grapheme clusters (Unicode's extended grapheme clusters, UAX #29) of texts, in-graph, as one RE2
expression over the break classes of the `regex` library (a keras-hub dependency).

Hugging Face's `Precompiled` normaliser works grapheme by grapheme (`precompiled_normalizer`), so the
in-graph tokenizer must cut text where Rust's `unicode-segmentation` does. The expression follows the
rules of UAX #29 that join characters: CR LF (GB3); Hangul syllable sequences (GB6–GB8); pairs of
regional indicators (GB12/13); an emoji ZWJ sequence (GB11); prepended marks before (GB9b) and
Extend, ZWJ and SpacingMark characters after (GB9, GB9a); a control character stands alone (GB4/5).
The Indic conjunct rule (GB9c) is left out: its clusters are six bytes or more, which the
normaliser treats character by character whatever they are.

Example:
>>> grapheme_clusters(tf.constant(["e\\u0301a\\r\\nb"])).to_list()
[[b'e\\xcc\\x81', b'a', b'\\r\\n', b'b']]
"""

import functools

import regex
import tensorflow as tf

from keras_sentemb.tokenizers.bert_text_splitter import character_class
from keras_sentemb.tokenizers.utf8_text import regex_pieces


@functools.cache
def _all_code_points():
    return "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)


def _code_point(index):
    """The code point at `index` of `_all_code_points()` (which skips the surrogates)."""
    return index if index < 0xD800 else index + 0x800


def _class(prop):
    """The RE2 character class of the code points with `regex` property `prop`."""
    runs = []
    for match in regex.finditer(rf"\p{{{prop}}}+", _all_code_points()):
        start, end = match.span()
        first, last = _code_point(start), _code_point(end - 1)
        if first < 0xD800 <= last:
            runs += [(first, 0xD7FF), (0xE000, last)]
        else:
            runs.append((first, last))
    return character_class(runs)


@functools.cache
def cluster_pattern():
    """The RE2 expression one match of which is one grapheme cluster."""
    control = _class("GCB=Control")
    extend = _class("GCB=Extend")
    zwj = "\\x{200D}"
    mark = f"(?:{extend}|{zwj}|{_class('GCB=SpacingMark')})"
    prepend = _class("GCB=Prepend")
    hangul_l, hangul_v, hangul_t = _class("GCB=L"), _class("GCB=V"), _class("GCB=T")
    hangul_lv, hangul_lvt = _class("GCB=LV"), _class("GCB=LVT")
    hangul = f"{hangul_l}*(?:{hangul_v}+|{hangul_lv}{hangul_v}*|{hangul_lvt}){hangul_t}*|{hangul_l}+|{hangul_t}+"
    pictographic = _class("Extended_Pictographic")
    emoji = f"{pictographic}(?:{extend}*{zwj}{pictographic})*"
    regional = _class("GCB=Regional_Indicator")
    not_control = f"[^\\r\\n{control[1:-1]}]"
    core = f"(?:{hangul}|{regional}{regional}|{emoji}|{not_control})"
    return f"\\r\\n|\\r|\\n|{control}|{prepend}*{core}{mark}*"


def grapheme_clusters(texts):
    """The grapheme clusters of each text of a 1-D `tf.string` tensor of valid UTF-8: a `tf.RaggedTensor`
    [texts, (clusters)] whose clusters joined are the text."""
    return regex_pieces(tf.convert_to_tensor(texts, dtype=tf.string), cluster_pattern())
