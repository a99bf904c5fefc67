"""Nested Keras objects survive a model's config: serialised inside it, rebuilt on load."""

import keras

from keras_sentemb.utils.nested_config import deserialize_nested, serialize_nested


def test_a_nested_layer_round_trips_and_none_stays_none():
    dense = keras.layers.Dense(3, name="head")
    config = {"head": serialize_nested(dense), "tokenizer": serialize_nested(None), "units": 3}
    rebuilt = deserialize_nested(config, ("head", "tokenizer"))
    assert isinstance(rebuilt["head"], keras.layers.Dense) and rebuilt["head"].units == 3
    assert rebuilt["tokenizer"] is None and rebuilt["units"] == 3
    assert isinstance(config["head"], dict)  # the input config is not modified
