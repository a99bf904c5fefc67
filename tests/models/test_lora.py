"""LoRA fine-tuning: few trainable weights, a small delta file, exact reload on the base."""

import keras
import numpy as np

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.models import SBERT
from tests.conftest import make_tiny_encoder

PAIRS = ScoredPairs(
    ["the cat sat", "a dog ran", "rain", "hello world"],
    ["a cat", "the dog", "bread in the oven", "world"],
    [4.5, 4.0, 0.0, 3.0],
)
TEXTS = ["the cat sat on the mat", "rain and storm", "hello"]


def test_lora_trains_only_adapters_and_reloads_onto_the_base(tmp_path):
    encoder = make_tiny_encoder(seed=7)
    base_output = encoder.encode(TEXTS)  # traces encode's function before LoRA exists
    full_count = sum(int(np.prod(w.shape)) for w in encoder.trainable_weights)
    encoder.enable_lora(2)
    lora_weights = encoder.trainable_weights
    assert 0 < sum(int(np.prod(w.shape)) for w in lora_weights) < 0.2 * full_count
    assert all("lora" in w.path for w in lora_weights)

    sbert = SBERT(encoder, "regression")
    sbert.compile(optimizer=keras.optimizers.Adam(5e-2))
    data = examples_dataset(PAIRS, encoder.tokenizer, batch_size=4)
    sbert.fit(data.repeat(), steps_per_epoch=len(data), epochs=3, verbose=0)  # one tf.data iterator for all epochs
    tuned = encoder.encode(TEXTS)
    assert not np.allclose(tuned, base_output, atol=1e-4)

    path = str(tmp_path / "delta.lora.h5")
    encoder.save_lora_weights(path)
    fresh = make_tiny_encoder(seed=7)
    fresh.load_lora_weights(path)
    np.testing.assert_allclose(fresh.encode(TEXTS), tuned, atol=1e-5)
