"""The model zoo: small, verified artifacts of trained models, loaded offline.

    from keras_sentemb import zoo
    zoo.list()                                   # names, versions, metrics, sizes
    model = zoo.load("sbert-minilm-l6-stsb")     # a Keras model with encode()
    print(zoo.card("sbert-minilm-l6-stsb"))
    zoo.export("sbert-minilm-l6-stsb", "serving/sbert", version=1)
    zoo.publish("sbert-minilm-l6-stsb", "gs://bucket/zoo")      # or a folder / file:// URL
    zoo.fetch("sbert-minilm-l6-stsb", "https://example.org/zoo")

Models are looked up in a local zoo folder — `$KERAS_SENTEMB_ZOO` when it names one (a
checkout's `zoo/`, or a folder a store was mirrored to), else the companion distribution
`keras-sentemb-zoo` when it is installed — then in the fetch cache (`$KERAS_SENTEMB_HOME/zoo`). Nothing touches the network unless a `store` is named. The
library never guesses where a checkout is: `zoo_dir()` is the one place that decides.
"""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.zoo.loading import (
    load_any_encoder,
    load_cross_encoder,
    load_dse,
    load_pair_scorer,
    load_sentence_encoder,
)
from keras_sentemb.zoo.local_zoo import (
    card,
    export,
    fetch,
    list_models,
    load,
    model_dir,
    publish,
    publish_all,
    searched_places,
    store_bytes,
    zoo_dir,
)
from keras_sentemb.zoo.model_store import zoo_home

# `zoo.list()` as users expect it (the builtin is not used in this module).
list = list_models  # noqa: A001

__all__ = [
    "card",
    "export",
    "fetch",
    "list",
    "list_models",
    "load",
    "load_any_encoder",
    "load_cross_encoder",
    "load_dse",
    "load_pair_scorer",
    "load_sentence_encoder",
    "model_dir",
    "publish",
    "publish_all",
    "searched_places",
    "store_bytes",
    "zoo_dir",
    "zoo_home",
]
