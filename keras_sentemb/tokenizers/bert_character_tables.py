"""How Hugging Face `tokenizers`' BERT normaliser and pre-tokeniser treat each code point: the package
data file `bert_character_tables.json`, written by `python -m
keras_sentemb.tokenizers.bert_character_table_builder` (its docstring says how each class is probed).

Ranges are inclusive `(first, last)` code-point runs; `LOWERCASE` maps a code point to its one
lower-case code point, `LOWERCASE_EXPANSIONS` to its lower case where that is several characters.

>>> (0xA0, 0xA0) in WHITESPACE, LOWERCASE_EXPANSIONS[0x130]
(True, 'i̇')
"""

from keras_sentemb.tokenizers.character_tables import load_character_tables

_TABLES = load_character_tables("bert_character_tables.json")

TOKENIZERS_VERSION = _TABLES.tokenizers_version
DELETED = _TABLES.ranges["deleted"]
WHITESPACE = _TABLES.ranges["whitespace"]
CJK = _TABLES.ranges["cjk"]
NONSPACING_MARKS = _TABLES.ranges["nonspacing_marks"]
PUNCTUATION = _TABLES.ranges["punctuation"]
NFD_KEPT = _TABLES.ranges["nfd_kept"]
LOWERCASE = _TABLES.mapping
LOWERCASE_EXPANSIONS = _TABLES.expansions
