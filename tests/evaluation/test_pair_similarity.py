"""Registered pair similarities equal their formulas (SciPy distances for the metric ones)."""

import numpy as np
import pytest
from scipy.spatial.distance import cityblock, cosine, euclidean

from keras_sentemb.evaluation.pair_similarity import SIMILARITIES, pair_similarity
from keras_sentemb.retrieval.binary_codes import pack_bits

RNG = np.random.default_rng(0)
U, V = RNG.normal(size=(6, 5)), RNG.normal(size=(6, 5))


@pytest.mark.parametrize(
    "name, reference",
    [
        ("cosine", lambda u, v: 1 - cosine(u, v)),
        ("dot", np.dot),
        ("euclidean", lambda u, v: -euclidean(u, v)),
        ("manhattan", lambda u, v: -cityblock(u, v)),
    ],
)
def test_float_similarities_match_scipy(name, reference):
    expected = [reference(u, v) for u, v in zip(U, V)]
    np.testing.assert_allclose(pair_similarity(name, U, V), expected, rtol=1e-10)


def test_hamming_similarity_counts_differing_bits_of_packed_codes():
    bits_u, bits_v = RNG.integers(0, 2, size=(4, 64)), RNG.integers(0, 2, size=(4, 64))
    got = pair_similarity("hamming", pack_bits(bits_u), pack_bits(bits_v))
    np.testing.assert_array_equal(got, -(bits_u != bits_v).sum(axis=1))


def test_unknown_names_and_ragged_pairs_are_refused():
    assert set(SIMILARITIES) == {"cosine", "dot", "euclidean", "manhattan", "hamming"}
    with pytest.raises(ValueError, match="unknown similarity 'jaccard'"):
        pair_similarity("jaccard", U, V)
    with pytest.raises(ValueError, match="one shape"):
        pair_similarity("cosine", U, V[:3])
