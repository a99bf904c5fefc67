"""The generated character tables are package data that the builders rebuild byte for byte from the
installed `tokenizers` (every code point: ~25 s, make test-slow), and load as the tuples the tokenizers read."""

from importlib import resources

from keras_sentemb.tokenizers import bert_character_table_builder, byte_level_character_table_builder
from keras_sentemb.tokenizers import bert_character_tables as bert
from keras_sentemb.tokenizers.character_tables import load_character_tables, render_character_tables


def committed(name):
    return resources.files("keras_sentemb.tokenizers").joinpath(name).read_text(encoding="utf-8")


def test_a_fresh_build_of_the_bert_tables_is_the_committed_file():
    assert bert_character_table_builder.render_tables(*bert_character_table_builder.probe_tables()) == committed(
        "bert_character_tables.json"
    )


def test_a_fresh_build_of_the_byte_level_tables_is_the_committed_file():
    rebuilt = byte_level_character_table_builder.render_tables(byte_level_character_table_builder.probe_tables())
    assert rebuilt == committed("byte_level_character_tables.json")


def test_a_file_renders_back_to_itself_and_loads_as_tuples():
    tables = load_character_tables("bert_character_tables.json")
    text = render_character_tables(tables.tokenizers_version, tables.ranges, tables.mapping, tables.expansions)
    assert text == committed("bert_character_tables.json")
    assert bert.DELETED is tables.ranges["deleted"] and all(type(run) is tuple for run in bert.PUNCTUATION)
