"""SpladeRegularizerWarmup: the FLOPS regularisers of a SpladeLoss grow from 0 to their weights over the first
steps, quadratically by default, as sentence-transformers' trainer schedules them."""

import os

import keras
import pytest

from keras_sentemb.data.examples import TextPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.losses import SpladeLoss
from keras_sentemb.models import SBERT, SparseEncoder
from keras_sentemb.training import SpladeRegularizerWarmup

FOLDER = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "sparse_folders", "bert_splade_max")


def test_the_scale_is_quadratic_then_one_and_linear_when_asked():
    quadratic = SpladeRegularizerWarmup(SpladeLoss(), total_steps=30)  # W = 10
    assert [quadratic.scale(step) for step in (0, 5, 10, 11, 30)] == [0.0, 0.25, 1.0, 1.0, 1.0]
    linear = SpladeRegularizerWarmup(SpladeLoss(), warmup_ratio=0.5, schedule="linear", total_steps=8)
    assert [linear.scale(step) for step in (0, 1, 2, 4, 5)] == [0.0, 0.25, 0.5, 1.0, 1.0]


def test_a_fit_raises_the_regularizers_from_zero():
    keras.utils.set_random_seed(0)
    encoder = SparseEncoder.from_pretrained(FOLDER)
    pairs = TextPairs(["a cat", "rain today", "fresh bread", "a dog"] * 2, ["the cat", "storm", "bread", "dog"] * 2)
    loss = SpladeLoss()
    sbert = SBERT(encoder, "mnrl", one_pass=False)
    sbert.compile(optimizer=keras.optimizers.AdamW(1e-4), loss=loss)
    warmup = SpladeRegularizerWarmup(loss, warmup_ratio=0.5)  # 2 steps an epoch, 2 epochs: W = 2
    data = examples_dataset(pairs, encoder.tokenizer, batch_size=4, seed=0)
    history = sbert.fit(data, epochs=2, verbose=0, callbacks=[warmup])
    assert history.history["regularizer_scale"] == [0.25, 1.0]  # set before steps 1 and 3: (1/2)², then 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"loss": keras.losses.MeanSquaredError()}, "drives a SpladeLoss"),
        ({"warmup_ratio": 0}, "warmup_ratio must be in"),
        ({"warmup_ratio": 1.5}, "warmup_ratio must be in"),
        ({"schedule": "cosine"}, "schedule must be one of"),
        ({"total_steps": 0}, "total_steps must be a positive int"),
    ],
)
def test_bad_arguments_are_refused_by_name(arguments, message):
    options = {"loss": SpladeLoss(), **arguments}
    with pytest.raises((TypeError, ValueError), match=message):
        SpladeRegularizerWarmup(**options)
