"""The classes of Hugging Face's ByteLevel pre-tokeniser expression and the white space its added tokens
strip: the package data file `byte_level_character_tables.json`, written by `python -m
keras_sentemb.tokenizers.byte_level_character_table_builder` (its docstring says how each is probed).
Each is a tuple of inclusive `(first, last)` code-point runs.

>>> (0x41, 0x5A) in LETTERS, (0x20, 0x20) in SPACES
(True, True)
"""

from keras_sentemb.tokenizers.character_tables import load_character_tables

_TABLES = load_character_tables("byte_level_character_tables.json")

TOKENIZERS_VERSION = _TABLES.tokenizers_version
LETTERS = _TABLES.ranges["letters"]
NUMBERS = _TABLES.ranges["numbers"]
SPACES = _TABLES.ranges["spaces"]
STRIPPED_SPACES = _TABLES.ranges["stripped_spaces"]
