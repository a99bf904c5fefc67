"""unpadded_mpnet_states: an MPNet backbone run on the batch's real tokens only (its positions and
relative position bias per text), equal to the Keras layers on a padded batch for any order and any
number of attention groups; SentenceEncoder.embed_unpadded over MPNet equal to the model; and the
SavedModel of an MPNet encoder serving requests of one and of many without padding."""

import os

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.export import export_saved_model
from keras_sentemb.layers.backbone_lora import enable_backbone_lora
from keras_sentemb.models import SentenceEncoder
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from keras_sentemb.pretrained.unpadded_mpnet_graph import (
    one_text_mpnet_states,
    supports_unpadded_mpnet_states,
    to_padded,
    unpadded_mpnet_states,
)
from tests.conftest import FIXTURES, make_tiny_mpnet

PAD = 1  # MPNetBackbone's pad id, also its position offset
# Texts of lengths 5, 3, 7, 1, 4 and 5, <s> … </s> included; the last holds the pad id as a token
# (MPNet gives it the pad position, and the graph must too).
SEQUENCES = [[0, 7, 8, 9, 2], [0, 10, 2], [0, 7, 7, 8, 9, 10, 2], [0], [0, 11, 12, 2], [0, 7, PAD, 8, 2]]


def keras_padded_states(backbone, sequences):
    """The Keras layers' block outputs on the texts padded (pad ids after each end, masked), and the real tokens."""
    longest = max(map(len, sequences))
    token_ids = np.array([s + [PAD] * (longest - len(s)) for s in sequences], "int32")
    padding_mask = np.array([[1] * len(s) + [0] * (longest - len(s)) for s in sequences], "int32")
    states = transformer_layer_states(backbone)({"token_ids": token_ids, "padding_mask": padding_mask})
    return states, padding_mask.astype(bool)


@pytest.mark.parametrize("attention_groups", [1, 2, 4, 9])
def test_every_block_output_equals_the_keras_layers_on_real_tokens(attention_groups):
    backbone = make_tiny_mpnet(3)
    ours = unpadded_mpnet_states(backbone, tf.ragged.constant(SEQUENCES), attention_groups=attention_groups)
    reference, real = keras_padded_states(backbone, SEQUENCES)
    assert len(ours) == backbone.num_layers
    for mine, theirs in zip(ours, reference):
        assert mine.shape == (sum(map(len, SEQUENCES)), 8)  # only real tokens, one text after another
        padded = to_padded(mine, [len(s) for s in SEQUENCES]).numpy()
        np.testing.assert_allclose(padded[real], np.asarray(theirs)[real], atol=1e-5)
        assert not padded[~real].any()


def test_sorting_the_texts_only_changes_the_speed_not_the_states():
    backbone = make_tiny_mpnet(4)
    order = np.argsort([-len(s) for s in SEQUENCES], kind="stable")
    lengths = [len(s) for s in SEQUENCES]
    as_given = to_padded(unpadded_mpnet_states(backbone, tf.ragged.constant(SEQUENCES))[-1], lengths)
    longest_first = unpadded_mpnet_states(backbone, tf.ragged.constant([SEQUENCES[i] for i in order]))[-1]
    np.testing.assert_allclose(
        to_padded(longest_first, [lengths[i] for i in order]).numpy(), as_given.numpy()[order], atol=1e-5
    )


@pytest.mark.parametrize("sequence", SEQUENCES, ids=[f"text-{i}-length-{len(s)}" for i, s in enumerate(SEQUENCES)])
def test_a_single_text_without_ragged_bookkeeping_gives_its_unpadded_states(sequence):
    backbone = make_tiny_mpnet(3)
    ours = one_text_mpnet_states(backbone, tf.constant(sequence))
    batched = unpadded_mpnet_states(backbone, tf.ragged.constant(SEQUENCES))
    first = sum(len(s) for s in SEQUENCES[: SEQUENCES.index(sequence)])
    for alone, in_batch in zip(ours, batched):
        np.testing.assert_allclose(alone, in_batch[first : first + len(sequence)], atol=1e-5)


def test_it_reads_the_weights_when_called_so_lora_adapters_count():
    backbone = make_tiny_mpnet(5)
    enable_backbone_lora(backbone, 2)
    for weight in backbone.trainable_weights:  # non-zero adapters: B·A changes the kernels
        weight.assign(np.full(weight.shape, 0.05, "float32"))
    reference, real = keras_padded_states(backbone, SEQUENCES)
    ours = to_padded(unpadded_mpnet_states(backbone, tf.ragged.constant(SEQUENCES))[-1], [len(s) for s in SEQUENCES])
    np.testing.assert_allclose(ours.numpy()[real], np.asarray(reference[-1])[real], atol=1e-5)


def test_only_float32_mpnet_backbones_are_supported():
    assert supports_unpadded_mpnet_states(make_tiny_mpnet(0))
    assert not supports_unpadded_mpnet_states(make_tiny_mpnet(0, dtype="mixed_bfloat16"))


@pytest.fixture(scope="module")
def mpnet_encoder():
    """A sentence-transformers MPNet folder with a Dense head, residual and Normalize (every head mode)."""
    return SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", "mpnet_all_modes_new"))


TEXTS = ["the cat sat on the mat .", "", "a dog", "hello world ! " * 9, "rain"]


def test_an_mpnet_encoder_without_padding_gives_the_vectors_of_the_model(mpnet_encoder):
    assert mpnet_encoder.supports_unpadded()
    content_ids = mpnet_encoder.tokenizer.content_ids(tf.constant(TEXTS))
    expected = mpnet_encoder(mpnet_encoder.tokenizer.pack(content_ids), training=False)
    sequences = mpnet_encoder.tokenizer.add_special_tokens(content_ids)
    np.testing.assert_allclose(mpnet_encoder.embed_unpadded(sequences), expected, atol=1e-5)
    projections = mpnet_encoder.unpadded_projections()
    for row, text in enumerate(TEXTS):
        alone = mpnet_encoder.embed_one_unpadded(sequences[row], projections)
        np.testing.assert_allclose(alone, expected[row : row + 1], atol=1e-5, err_msg=repr(text))


def test_the_savedmodel_of_an_mpnet_encoder_serves_without_padding_as_encode(mpnet_encoder, tmp_path):
    texts = TEXTS * 3
    serve = tf.saved_model.load(export_saved_model(mpnet_encoder, tmp_path / "mpnet", chunk_size=4))
    signature = serve.signatures["serving_default"]
    batched = signature(texts=tf.constant(texts))["embedding"].numpy()
    np.testing.assert_allclose(batched, mpnet_encoder.encode(texts), atol=1e-5)
    alone = np.concatenate([signature(texts=tf.constant([text]))["embedding"].numpy() for text in TEXTS])
    np.testing.assert_allclose(alone, batched[: len(TEXTS)], atol=1e-5)
    assert len(serve.merged_projections) == mpnet_encoder.backbone.num_layers  # the unpadded path's variables
