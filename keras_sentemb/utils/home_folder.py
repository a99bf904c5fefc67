"""Where keras-sentemb keeps what it downloads or assembles: one folder for every kind."""

import os


def keras_sentemb_home():
    """`$KERAS_SENTEMB_HOME`, default `~/.cache/keras_sentemb` (the fetch cache of the zoo, assembled
    pretrained folders)."""
    return os.environ.get("KERAS_SENTEMB_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "keras_sentemb")
