"""The zoo folder's `index.json`: one entry per model (version, summary, use, class, size,
metrics), read by `zoo.list()` and written by the zoo build."""

import os

from keras_sentemb.utils.checked_files import read_json, require_keys

INDEX_FILE = "index.json"


def read_zoo_index(zoo_dir):
    """The parsed `index.json` of `zoo_dir`, or an empty index when the folder has none.

    >>> read_zoo_index("/nonexistent")
    {'models': {}}
    """
    path = os.path.join(zoo_dir, INDEX_FILE)
    if not os.path.isfile(path):
        return {"models": {}}
    return require_keys(read_json(path), ["models"], path)
