"""WordEmbeddings: K tables looked up by one id tensor, frozen unless asked, serializable."""

import numpy as np

from keras_sentemb.layers import WordEmbeddings
from tests.layer_test_case import run_layer_test

IDS = np.array([[2, 3, 0], [4, 1, 0]], "int32")
RNG = np.random.default_rng(0)
TABLES = {"glove": RNG.normal(size=(6, 4)).astype("float32"), "minilm": RNG.normal(size=(6, 3)).astype("float32")}


def test_passes_the_shared_layer_checks(tmp_path):
    run_layer_test(
        WordEmbeddings,
        {"table_shapes": {"glove": (6, 4), "minilm": (6, 3)}, "tables": TABLES, "trainable_tables": True},
        IDS,
        [(2, 3, 4), (2, 3, 3)],
        tmp_path,
        check_compute_output_shape=False,
    )


def test_tables_are_frozen_by_default():
    layer = WordEmbeddings({"glove": (6, 4)})
    layer(IDS)
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 1
