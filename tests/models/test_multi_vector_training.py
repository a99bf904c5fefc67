"""Training a ColBERT model with model.fit: `MultiVectorEncoder.from_sentence_encoder` (a new projection on a dense
model's backbone), `multi_vector_dataset` packing each side as `encode_query` / `encode_document` do, and
`MaxSimRankingLoss` over the stacked token vectors — equal to the cross-entropy of MaxSim's scores."""

import keras
import numpy as np
import pytest

from keras_sentemb.losses import MaxSimRankingLoss
from keras_sentemb.models import MultiVectorEncoder
from keras_sentemb.models.multi_vector_training import MultiVectorTraining, multi_vector_dataset
from keras_sentemb.utils.maxsim import maxsim
from tests.conftest import make_tiny_encoder

QUERIES = ["the cat", "a dog", "rain", "the mat", "a cat ran", "the dog sat", "storm", "hello"]
POSITIVES = ["the cat sat on the mat .", "a dog ran fast", "rain and storm", "on the mat", "the cat ran",
             "a dog sat down", "a storm came", "hello world"]  # fmt: skip
NEGATIVES = POSITIVES[1:] + POSITIVES[:1]


@pytest.fixture
def colbert():
    return MultiVectorEncoder.from_sentence_encoder(make_tiny_encoder(max_length=24), dim=16, query_length=8)


def test_a_dense_model_becomes_colbert_with_a_new_projection(colbert):
    assert colbert.embedding_dim == 16 and colbert.query_expansion["length"] == 8
    assert not colbert.query_expansion["attend"] and colbert.skiplist_ids  # "." and "," of the tiny vocabulary
    assert {len(row) for row in colbert.encode_query(QUERIES)} == {8}
    again = MultiVectorEncoder.from_sentence_encoder(make_tiny_encoder(max_length=24), dim=16, query_length=8)
    for ours, theirs in zip(colbert.encode_document(POSITIVES), again.encode_document(POSITIVES)):
        np.testing.assert_array_equal(ours, theirs)  # the projection is drawn from the seed


def test_the_training_models_rows_are_encodes_token_vectors(colbert):
    data = multi_vector_dataset(colbert, QUERIES, [POSITIVES, NEGATIVES], batch_size=4, shuffle=False)
    inputs, _ = next(iter(data))
    stacked = MultiVectorTraining(colbert)(inputs).numpy()
    assert stacked.shape[:2] == (4, 3) and stacked.shape[3] == 16
    for row in range(4):
        for column, expected in enumerate(
            (colbert.encode_query([QUERIES[row]]), colbert.encode_document([POSITIVES[row]]),
             colbert.encode_document([NEGATIVES[row]]))
        ):  # fmt: skip
            present = stacked[row, column][np.abs(stacked[row, column]).sum(axis=1) > 0]
            np.testing.assert_allclose(present, expected[0], atol=1e-5)


def test_the_loss_is_the_cross_entropy_of_maxsim_scores(colbert):
    data = multi_vector_dataset(colbert, QUERIES, [POSITIVES, NEGATIVES], batch_size=4, shuffle=False)
    inputs, y = next(iter(data))
    loss = float(MaxSimRankingLoss()(y, MultiVectorTraining(colbert)(inputs)))
    queries = colbert.encode_query(QUERIES[:4])
    candidates = colbert.encode_document(POSITIVES[:4] + NEGATIVES[:4])
    scores = maxsim(queries, candidates).astype(np.float64)
    expected = np.mean([np.log(np.exp(row).sum()) - row[i] for i, row in enumerate(scores)])
    assert loss == pytest.approx(expected, rel=1e-4)


def test_known_relevant_candidates_leave_the_softmax(colbert):
    ids = np.array([[i, 100 + i, 100 + (i + 1) % 8] for i in range(8)])  # each negative is the next row's positive
    data = multi_vector_dataset(colbert, QUERIES, [POSITIVES, NEGATIVES], ids=ids, batch_size=4, shuffle=False)
    inputs, y = next(iter(data))
    stacked = MultiVectorTraining(colbert)(inputs)
    plain = float(MaxSimRankingLoss()(y, stacked))
    relevant = np.array([[0, 101]])  # query 0's hard negative is known relevant to it
    assert float(MaxSimRankingLoss(relevant_pairs=relevant)(y, stacked)) < plain


def test_fit_lowers_the_loss_and_the_encoder_keeps_what_it_learned(colbert, tmp_path):
    keras.utils.set_random_seed(0)
    data = multi_vector_dataset(colbert, QUERIES, [POSITIVES, NEGATIVES], batch_size=4, seed=0)
    training = MultiVectorTraining(colbert)
    training.compile(optimizer=keras.optimizers.Adam(1e-3), loss=MaxSimRankingLoss())
    history = training.fit(data, epochs=6, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    colbert.forget_traced_functions()
    colbert.save(tmp_path / "colbert.keras")
    loaded = keras.saving.load_model(tmp_path / "colbert.keras")
    for ours, theirs in zip(loaded.encode_query(QUERIES), colbert.encode_query(QUERIES)):
        np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_rows_that_do_not_line_up_are_refused(colbert):
    with pytest.raises(ValueError, match="columns of 8 texts"):
        multi_vector_dataset(colbert, QUERIES, [POSITIVES[:5]])
    with pytest.raises(ValueError, match=r"ids must be \[8, 2\]"):
        multi_vector_dataset(colbert, QUERIES, [POSITIVES], ids=np.zeros((8, 3)), batch_size=4)
    with pytest.raises(ValueError, match="make no batch of 16"):
        multi_vector_dataset(colbert, QUERIES, [POSITIVES])
