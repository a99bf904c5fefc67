"""SentenceClassifier: an MLP on a word encoder, cross-entropy or KD fine-tuning, saving."""

import keras
import numpy as np
import pytest

from keras_sentemb.data.examples import LabeledSentences
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.losses import DistillationLoss
from keras_sentemb.models import BiLSTMSRA, SentenceClassifier
from tests.conftest import make_tiny_word_vectors, packed_tokens
from tests.layer_test_case import run_model_test

TRAIN = LabeledSentences(["the cat sat", "a dog ran fast", "the mat", "dog"], [0, 1, 0, 1])


def tiny_classifier(**kwargs):
    keras.utils.set_random_seed(0)
    encoder = BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(), teacher_dim=5, units=4)
    return SentenceClassifier(encoder, num_classes=2, hidden_units=(6,), dropout=0.0, **kwargs)


def test_logits_are_an_mlp_of_the_sentence_vector():
    classifier = tiny_classifier()
    vectors = classifier.encoder.encode(TRAIN.sentences, normalize=False)
    w1, b1 = (np.asarray(w) for w in classifier.hidden[0].weights)
    w2, b2 = (np.asarray(w) for w in classifier.logits.weights)
    expected = np.maximum(vectors @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(classifier.predict_texts(TRAIN.sentences), expected, rtol=1e-4, atol=1e-5)


def test_fine_tuning_fits_the_labels_and_trains_the_encoder():
    classifier = tiny_classifier()
    classifier.compile(optimizer=keras.optimizers.Adam(3e-2))
    encoder_before = [w.numpy().copy() for w in classifier.encoder.trainable_weights]
    data = examples_dataset(TRAIN, classifier.encoder.tokenizer, batch_size=4, bucketing=False)
    # one tf.data iterator for all epochs (a new one per epoch costs ~1 s of tf.data setup)
    classifier.fit(data.repeat(), steps_per_epoch=len(data), epochs=30, verbose=0)
    assert (classifier.predict_texts(TRAIN.sentences).argmax(-1) == TRAIN.labels).all()
    assert any(not np.allclose(b, w.numpy()) for b, w in zip(encoder_before, classifier.encoder.trainable_weights))


def test_knowledge_distillation_uses_the_teacher_logits():
    classifier = tiny_classifier()
    classifier.compile(optimizer="adam", distillation_alpha=1.0)
    assert isinstance(classifier.loss, DistillationLoss) and classifier.loss.alpha == 1.0
    teacher = np.array([[2.0, -1.0], [0.0, 1.0], [1.0, 0.0], [-1.0, 3.0]], "float32")
    batch = next(
        iter(
            examples_dataset(
                TRAIN,
                classifier.encoder.tokenizer,
                batch_size=4,
                bucketing=False,
                shuffle=False,
                labels=np.column_stack([TRAIN.labels, teacher]),
            )
        )
    )
    logits = np.asarray(classifier(batch[0]))
    expected = np.mean(np.sum((logits - teacher) ** 2, axis=1))
    np.testing.assert_allclose(float(classifier.loss(batch[1], logits)), expected, rtol=1e-5)


def test_passes_the_shared_model_checks(tmp_path):
    classifier = tiny_classifier()
    inputs = {"sentence": packed_tokens(classifier.encoder.tokenizer, TRAIN.sentences)}
    run_model_test(classifier, inputs, (4, 2), tmp_path)


def test_save_load_round_trip(tmp_path):
    classifier = tiny_classifier()
    path = str(tmp_path / "classifier.keras")
    classifier.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded, SentenceClassifier) and isinstance(loaded.encoder, BiLSTMSRA)
    np.testing.assert_allclose(
        loaded.predict_texts(TRAIN.sentences), classifier.predict_texts(TRAIN.sentences), rtol=1e-6, atol=1e-6
    )


def test_rejects_fewer_than_two_classes():
    with pytest.raises(ValueError, match="num_classes"):
        SentenceClassifier(None, num_classes=1)
