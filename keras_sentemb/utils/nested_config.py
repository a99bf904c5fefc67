"""get_config/from_config helpers for models that hold other Keras objects (backbone,
tokenizer, encoder, head): serialised inside the model's config, rebuilt on load."""

import keras


def serialize_nested(obj):
    """The Keras config of a nested object, or None for an absent one (no tokenizer)."""
    return None if obj is None else keras.saving.serialize_keras_object(obj)


def deserialize_nested(config, keys):
    """A copy of `config` with the nested objects under `keys` rebuilt (None stays None)."""
    config = dict(config)
    for key in keys:
        if config.get(key) is not None:
            config[key] = keras.saving.deserialize_keras_object(config[key])
    return config
