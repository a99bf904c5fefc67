"""The zoo index: a folder without index.json is an empty zoo; an index is read as written."""

import json

from keras_sentemb.zoo.zoo_index import INDEX_FILE, read_zoo_index


def test_a_folder_without_an_index_is_an_empty_zoo(tmp_path):
    assert read_zoo_index(str(tmp_path)) == {"models": {}}


def test_an_index_is_read_as_written(tmp_path):
    index = {"models": {"toy": {"version": 2, "size_bytes": 10}}}
    (tmp_path / INDEX_FILE).write_text(json.dumps(index), encoding="utf-8")
    assert read_zoo_index(str(tmp_path)) == index
