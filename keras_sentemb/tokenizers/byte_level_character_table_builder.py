"""Builds `byte_level_character_tables.json`: the character classes of the regular expression with which
Hugging Face's `ByteLevel` pre-tokeniser (GPT-2, RoBERTa) splits text, read from `tokenizers` itself.

The expression is GPT-2's,

    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

run by Oniguruma with its Unicode tables (RE2's `\\s` is ASCII only, and its `\\p{L}`, `\\p{N}` carry
another Unicode version). Each code point is probed in a context that shows its class alone:
- letter: "a<c>" is one piece (`\\p{L}+` spans it);
- number: "1<c>" is one piece;
- white space: neither, and "!<c>" is two pieces (`[^\\s\\p{L}\\p{N}]+` stops before it);
everything else is "other" (`[^\\s\\p{L}\\p{N}]`). The same probe gives the white space that Hugging
Face's added tokens strip with `lstrip`/`rstrip` (Rust's `char::is_whitespace`).

Rebuild after upgrading `tokenizers` (a test compares the committed tables with a fresh probe):

    python -m keras_sentemb.tokenizers.byte_level_character_table_builder \\
        > keras_sentemb/tokenizers/byte_level_character_tables.json
"""

import sys

import tokenizers
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

from keras_sentemb.tokenizers.bert_character_table_builder import code_points, ranges
from keras_sentemb.tokenizers.character_tables import render_character_tables


def _strip_probe():
    """A tokenizer whose only token, "x", strips white space on both sides."""
    tokenizer = Tokenizer(models.WordLevel({"x": 0, "[UNK]": 1}, unk_token="[UNK]"))
    tokenizer.add_special_tokens([AddedToken("x", lstrip=True, rstrip=True, special=True)])
    return tokenizer


def probe_tables(points=None):
    """`{"letters", "numbers", "spaces", "stripped_spaces": sorted code points}` over `points` (default:
    every code point)."""
    split = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    strip = _strip_probe()
    tables = {"letters": [], "numbers": [], "spaces": [], "stripped_spaces": []}
    for point in code_points() if points is None else sorted(points):
        char = chr(point)
        if len(split.pre_tokenize_str("a" + char)) == 1:
            tables["letters"].append(point)
        elif len(split.pre_tokenize_str("1" + char)) == 1:
            tables["numbers"].append(point)
        elif len(split.pre_tokenize_str("!" + char)) == 2:
            tables["spaces"].append(point)
        # "x" absorbs the character on its left when lstrip takes it for white space.
        if strip.encode(char + "x", add_special_tokens=False).offsets[0] == (0, 2):
            tables["stripped_spaces"].append(point)
    return tables


def render_tables(tables):
    """The text of `byte_level_character_tables.json` (`character_tables.render_character_tables`)."""
    return render_character_tables(tokenizers.__version__, {name: ranges(points) for name, points in tables.items()})


if __name__ == "__main__":
    sys.stdout.write(render_tables(probe_tables()))
