"""SiamesePooler: the pooling formulas, masking, layer selection and serialization."""

import keras
import numpy as np
import pytest

from keras_sentemb.layers import SiamesePooler
from tests.layer_test_case import run_layer_test

STATES = np.array(
    [
        [[1.0, -2.0], [3.0, 4.0], [5.0, 0.0], [100.0, 100.0]],
        [[2.0, 2.0], [-4.0, 6.0], [7.0, 7.0], [7.0, 7.0]],
    ],
    dtype="float32",
)
MASK = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], dtype="int32")


def pool(mode, states=STATES, mask=MASK, **kwargs):
    return np.asarray(SiamesePooler(mode, **kwargs)(states, padding_mask=mask))


def test_mean_averages_only_real_tokens():
    np.testing.assert_allclose(pool("mean"), [[3.0, 2 / 3], [-1.0, 4.0]], rtol=1e-6)


def test_max_ignores_padding_even_when_padding_is_larger():
    np.testing.assert_allclose(pool("max"), [[5.0, 4.0], [2.0, 6.0]])


def test_cls_takes_the_first_position():
    np.testing.assert_allclose(pool("cls"), STATES[:, 0])


def test_mean_sqrt_len_divides_the_sum_by_the_root_of_the_count():
    expected = [[9 / np.sqrt(3), 2 / np.sqrt(3)], [-2 / np.sqrt(2), 8 / np.sqrt(2)]]
    np.testing.assert_allclose(pool("mean_sqrt_len"), expected, rtol=1e-6)


def test_weighted_mean_weighs_position_t_by_t_plus_one():
    expected = [[(1 * 1 + 2 * 3 + 3 * 5) / 6, (1 * -2 + 2 * 4 + 0) / 6], [(2 - 8) / 3, (2 + 12) / 3]]
    np.testing.assert_allclose(pool("weighted_mean"), expected, rtol=1e-6)


def test_last_token_takes_the_last_real_position():
    np.testing.assert_allclose(pool("last_token"), [STATES[0, 2], STATES[1, 1]])


def test_last_token_takes_the_last_position_under_left_padding():
    """Qwen3-Embedding's tokenizer pads on the left: the last real token is the last position."""
    left = np.array([[0, 1, 1, 1], [0, 0, 1, 1]], dtype="int32")
    np.testing.assert_allclose(pool("last_token", mask=left), [STATES[0, 3], STATES[1, 3]])


def test_several_modes_are_concatenated_in_the_order_given():
    np.testing.assert_allclose(pool(("max", "cls")), np.concatenate([pool("max"), pool("cls")], axis=1))
    assert SiamesePooler(["cls", "mean"]).get_config()["mode"] == ["cls", "mean"]


@pytest.mark.parametrize("mode", ["mean", "max", "cls", "mean_sqrt_len", "weighted_mean", "last_token"])
def test_padding_never_changes_an_embedding(mode):
    rng = np.random.default_rng(0)
    states = rng.normal(size=(1, 5, 3)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0]])
    short = pool(mode, states[:, :3], mask[:, :3])
    padded = states.copy()
    padded[:, 3:] = rng.normal(size=(1, 2, 3)) * 1e3  # garbage in the padded slots
    np.testing.assert_allclose(pool(mode, padded, mask), short, rtol=1e-6)


def test_exclude_special_tokens_drops_first_and_last_real_token():
    # row 0: real tokens 0,1,2 -> keeps only position 1; row 1: real 0,1 -> keeps nothing
    out = pool("mean", exclude_special_tokens=True)
    np.testing.assert_allclose(out, [[3.0, 4.0], [0.0, 0.0]])
    out_max = pool("max", exclude_special_tokens=True)
    np.testing.assert_allclose(out_max, [[3.0, 4.0], [0.0, 0.0]])


def test_pools_chosen_layers_and_concatenates_them_in_order():
    layers = [STATES * k for k in (1.0, 10.0, 100.0, 1000.0)]
    out = np.asarray(SiamesePooler("mean", layer_indices=(-2, -1))(layers, padding_mask=MASK))
    mean = pool("mean")
    np.testing.assert_allclose(out, np.concatenate([mean * 100, mean * 1000], -1), rtol=1e-6)
    assert SiamesePooler("mean", layer_indices=(0, 1, 2, 3)).compute_output_shape([(None, 4, 2)] * 4) == (None, 8)


def test_uses_the_keras_mask_when_no_padding_mask_is_given():
    token_ids = keras.Input((None,), dtype="int32")
    embedded = keras.layers.Embedding(10, 2, mask_zero=True)(token_ids)
    model = keras.Model(token_ids, SiamesePooler("mean")(embedded))
    table = np.asarray(model.layers[1].embeddings)
    ids = np.array([[3, 4, 0, 0]])
    np.testing.assert_allclose(model(ids), [(table[3] + table[4]) / 2], rtol=1e-6)


def test_output_is_float32_even_for_bfloat16_states():
    out = SiamesePooler("mean")(keras.ops.cast(STATES, "bfloat16"), padding_mask=MASK)
    assert keras.backend.standardize_dtype(out.dtype) == "float32"


def test_config_round_trip_and_saving():
    layer = SiamesePooler("max", layer_indices=(-4, -1), exclude_special_tokens=True)
    clone = SiamesePooler.from_config(layer.get_config())
    assert (clone.mode, clone.layer_indices, clone.exclude_special_tokens) == ("max", (-4, -1), True)
    revived = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert isinstance(revived, SiamesePooler) and revived.get_config() == layer.get_config()


def test_compute_output_shape_matches_the_call():
    layer = SiamesePooler("mean")
    assert layer.compute_output_shape((2, 4, 2)) == (2, 2)
    assert layer(STATES, padding_mask=MASK).shape == (2, 2)


def test_the_output_carries_no_mask():
    assert SiamesePooler().compute_mask(STATES, MASK) is None


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mode": "median"}, "unknown mode"),
        ({"mode": ()}, "unknown mode"),
        ({"mode": ("mean", "median")}, "unknown mode"),
        ({"layer_indices": ()}, "non-empty"),
        ({"layer_indices": (1.5,)}, "ints"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SiamesePooler(**kwargs)


def test_rejects_a_layer_index_out_of_range():
    with pytest.raises(ValueError, match="out of range"):
        SiamesePooler(layer_indices=(-3,))([STATES, STATES], padding_mask=MASK)


@pytest.mark.parametrize("mode", ["mean", "max", "cls", "mean_sqrt_len", "weighted_mean", "last_token"])
def test_passes_the_shared_layer_checks(mode, tmp_path):
    run_layer_test(SiamesePooler, {"mode": mode}, STATES, (2, 2), tmp_path, call_kwargs={"padding_mask": MASK})


def test_a_mode_sequence_passes_the_shared_layer_checks(tmp_path):
    run_layer_test(
        SiamesePooler, {"mode": ["cls", "mean"]}, STATES, (2, 4), tmp_path, call_kwargs={"padding_mask": MASK}
    )
