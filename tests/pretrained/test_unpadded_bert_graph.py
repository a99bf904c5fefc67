"""unpadded_bert_states: a BERT backbone run on the batch's real tokens only, equal to the Keras
layers on a padded batch for any order of texts and any number of attention groups; and
SentenceEncoder.embed_unpadded, the serving graph's path, equal to the model for every pooling."""

import keras
import keras_hub
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.models import SentenceEncoder
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from keras_sentemb.pretrained.unpadded_bert_graph import (
    one_text_bert_states,
    supports_unpadded_bert_states,
    to_padded,
    unpadded_bert_states,
)
from tests.conftest import ENCODER_HEADS, make_tiny_backbone, make_tiny_encoder

# Five texts of lengths 5, 3, 7, 1 and 4, [CLS] … [SEP] included (the one of length 1 is a bare id).
SEQUENCES = [[2, 7, 8, 9, 3], [2, 10, 3], [2, 7, 7, 8, 9, 10, 3], [2], [2, 11, 12, 3]]


def keras_padded_states(backbone, sequences):
    ragged = tf.ragged.constant(sequences, dtype=tf.int32)
    token_ids = ragged.to_tensor()
    padding_mask = tf.sequence_mask(ragged.row_lengths(), tf.shape(token_ids)[1], dtype=tf.int32)
    inputs = {"token_ids": token_ids, "segment_ids": tf.zeros_like(token_ids), "padding_mask": padding_mask}
    return transformer_layer_states(backbone)(inputs), padding_mask.numpy().astype(bool)


@pytest.mark.parametrize("attention_groups", [1, 2, 4, 9])
def test_every_block_output_equals_the_keras_layers_on_real_tokens(attention_groups):
    backbone = make_tiny_backbone(seed=3)
    ours = unpadded_bert_states(backbone, tf.ragged.constant(SEQUENCES), attention_groups=attention_groups)
    reference, real = keras_padded_states(backbone, SEQUENCES)
    assert len(ours) == backbone.num_layers
    for mine, theirs in zip(ours, reference):
        assert mine.shape == (sum(map(len, SEQUENCES)), 16)  # only real tokens, one text after another
        padded = to_padded(mine, [len(s) for s in SEQUENCES]).numpy()
        np.testing.assert_allclose(padded[real], np.asarray(theirs)[real], atol=1e-5)
        assert not padded[~real].any()  # zeros after each text's end


def test_sorting_the_texts_only_changes_the_speed_not_the_states():
    backbone = make_tiny_backbone(seed=4)
    order = np.argsort([-len(s) for s in SEQUENCES], kind="stable")
    as_given = unpadded_bert_states(backbone, tf.ragged.constant(SEQUENCES))[-1]
    longest_first = unpadded_bert_states(backbone, tf.ragged.constant([SEQUENCES[i] for i in order]))[-1]
    lengths = [len(s) for s in SEQUENCES]
    np.testing.assert_allclose(
        to_padded(longest_first, [lengths[i] for i in order]).numpy(),
        to_padded(as_given, lengths).numpy()[order],
        atol=1e-5,
    )


def test_it_reads_the_weights_when_called_so_lora_adapters_count():
    backbone = make_tiny_backbone(seed=5)
    backbone.enable_lora(2)
    for weight in backbone.trainable_weights:  # non-zero adapters: B·A changes the kernels
        weight.assign(np.full(weight.shape, 0.05, "float32"))
    reference, real = keras_padded_states(backbone, SEQUENCES)
    ours = to_padded(unpadded_bert_states(backbone, tf.ragged.constant(SEQUENCES))[-1], [len(s) for s in SEQUENCES])
    np.testing.assert_allclose(ours.numpy()[real], np.asarray(reference[-1])[real], atol=1e-5)


def test_an_empty_batch_gives_empty_states():
    states = unpadded_bert_states(make_tiny_backbone(), tf.ragged.constant([], dtype=tf.int32, ragged_rank=1))
    assert states[-1].shape == (0, 16)
    assert to_padded(states[-1], tf.zeros([0], tf.int64)).shape == (0, 0, 16)


@pytest.mark.parametrize("attention_groups", [0, -1, 1.5, True])
def test_rejects_a_number_of_groups_that_is_not_a_positive_int(attention_groups):
    with pytest.raises(ValueError, match="attention_groups must be a positive int"):
        unpadded_bert_states(make_tiny_backbone(), tf.ragged.constant(SEQUENCES), attention_groups=attention_groups)


@pytest.mark.parametrize("options", list(ENCODER_HEADS.values()), ids=list(ENCODER_HEADS))
def test_an_encoder_without_padding_gives_the_vectors_of_the_model(options):
    encoder = make_tiny_encoder(seed=6, **options)
    texts = tf.constant(["the cat sat on the mat .", "", "a dog", "hello world ! " * 9, "rain"])
    content_ids = encoder.tokenizer.content_ids(texts)
    expected = encoder(encoder.tokenizer.pack(content_ids), training=False)
    ours = encoder.embed_unpadded(encoder.tokenizer.add_special_tokens(content_ids))
    np.testing.assert_allclose(ours, expected, atol=1e-5)


@pytest.mark.parametrize("sequence", SEQUENCES, ids=[f"length-{len(s)}" for s in SEQUENCES])
def test_a_single_text_without_ragged_bookkeeping_gives_its_unpadded_states(sequence):
    backbone = make_tiny_backbone(seed=3)
    ours = one_text_bert_states(backbone, tf.constant(sequence))
    batched = unpadded_bert_states(backbone, tf.ragged.constant(SEQUENCES))
    first = sum(len(s) for s in SEQUENCES[: SEQUENCES.index(sequence)])
    assert len(ours) == len(batched)
    for alone, in_batch in zip(ours, batched):
        np.testing.assert_allclose(alone, in_batch[first : first + len(sequence)], atol=1e-5)


@pytest.mark.parametrize("options", list(ENCODER_HEADS.values()), ids=list(ENCODER_HEADS))
def test_an_encoder_on_one_text_gives_the_vector_of_the_model(options):
    encoder = make_tiny_encoder(seed=6, **options)
    for text in ["the cat sat on the mat .", "", "hello world ! " * 9]:
        content_ids = encoder.tokenizer.content_ids(tf.constant([text]))
        expected = encoder(encoder.tokenizer.pack(content_ids), training=False)
        ours = encoder.embed_one_unpadded(encoder.tokenizer.add_special_tokens(content_ids).flat_values)
        np.testing.assert_allclose(ours, expected, atol=1e-5)


def test_backbones_it_does_not_cover_are_refused_with_the_reason():
    assert supports_unpadded_bert_states(make_tiny_backbone())
    keras.utils.set_random_seed(0)
    roberta = keras_hub.models.RobertaBackbone(
        vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=16
    )
    assert not supports_unpadded_bert_states(roberta)
    bf16 = keras_hub.models.BertBackbone.from_config({**make_tiny_backbone().get_config(), "dtype": "mixed_bfloat16"})
    encoder = SentenceEncoder(bf16)
    assert not encoder.supports_unpadded()
    with pytest.raises(ValueError, match="float32, unquantised BERT or MPNet backbone"):
        encoder.embed_unpadded(tf.ragged.constant(SEQUENCES))
    with pytest.raises(ValueError, match="float32, unquantised BERT or MPNet backbone"):
        encoder.embed_one_unpadded(tf.constant(SEQUENCES[0]))
