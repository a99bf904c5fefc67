"""EpochOrder: the shuffled order of epoch e depends on (seed, e) only — not on how many
passes this process made before, nor on Keras' global seed — so a resumed fit replays it."""

import keras
import tensorflow as tf

from keras_sentemb.data.epoch_order import EpochOrder, FollowEpochs

N = 20


def one_pass(order, buffer_size=100):
    return [int(x) for x in order.shuffled(tf.data.Dataset.range(N), buffer_size).as_numpy_iterator()]


def test_the_order_of_an_epoch_does_not_depend_on_earlier_passes():
    fresh = EpochOrder(seed=5)
    fresh.set_epoch(3)
    busy = EpochOrder(seed=5)
    for epoch in (0, 1, 2, 7):
        busy.set_epoch(epoch)
        one_pass(busy)
    busy.set_epoch(3)
    assert one_pass(fresh) == one_pass(busy)
    fresh.set_epoch(4)
    assert one_pass(fresh) != one_pass(busy)
    assert sorted(one_pass(fresh)) == list(range(N))


def test_seeds_differ_and_keras_global_seed_0_is_fine():
    keras.utils.set_random_seed(0)  # Dataset.shuffle with a tensor seed fails after this
    a, b = EpochOrder(seed=1), EpochOrder(seed=2)
    a.set_epoch(0), b.set_epoch(0)
    assert one_pass(a) != one_pass(b)


def test_without_a_callback_every_pass_takes_the_next_epoch():
    order = EpochOrder(seed=9)
    first, second = one_pass(order), one_pass(order)
    assert first != second
    replay = EpochOrder(seed=9)
    replay.set_epoch(1)
    assert one_pass(replay) == second


def test_a_buffer_smaller_than_the_data_still_yields_every_element_once():
    order = EpochOrder(seed=0)
    order.set_epoch(0)
    shuffled = one_pass(order, buffer_size=6)
    assert sorted(shuffled) == list(range(N)) and shuffled != list(range(N))


def test_follow_epochs_sets_the_epoch_fit_begins():
    order = EpochOrder(seed=0)
    callback = order.callback
    assert isinstance(callback, FollowEpochs) and callback.order is order
    callback.on_epoch_begin(6)
    assert order.epoch == 6 and order.followed
