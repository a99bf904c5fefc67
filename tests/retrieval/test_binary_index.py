"""BinaryIndex: exact Hamming top-k, FAISS and NumPy agree, ties by id, clear errors."""

import numpy as np
import pytest

from keras_sentemb.retrieval import BinaryIndex, faiss_available, hamming_distances, semantic_search

BACKENDS = ["numpy"] + (["faiss"] if faiss_available() else [])


def tie_heavy_codes(n=3000, nbytes=8, seed=0):
    """Codes with few distinct distances (only the first byte varies): many ties."""
    rng = np.random.default_rng(seed)
    codes = np.zeros((n, nbytes), np.uint8)
    codes[:, 0] = rng.integers(0, 256, n)
    return codes


def reference_top_k(queries, codes, k):
    distances = hamming_distances(queries, codes)
    order = np.lexsort((np.broadcast_to(np.arange(len(codes)), distances.shape), distances), axis=1)
    order = order[:, :k]
    return np.take_along_axis(distances, order, axis=1), order


@pytest.mark.parametrize("backend", BACKENDS)
def test_search_returns_the_nearest_codes_with_ties_broken_by_id(backend):
    codes = tie_heavy_codes()
    queries = tie_heavy_codes(20, seed=1)
    index = BinaryIndex(64, backend=backend)
    index.add(codes[:1000])
    index.add(codes[1000:])  # two adds: ids continue
    distances, ids = index.search(queries, 25)
    want_distances, want_ids = reference_top_k(queries, codes, 25)
    np.testing.assert_array_equal(distances, want_distances)
    np.testing.assert_array_equal(ids, want_ids)
    assert distances.dtype == np.int32 and ids.dtype == np.int64


@pytest.mark.skipif(not faiss_available(), reason="faiss-cpu is not installed")
def test_faiss_and_numpy_backends_return_the_same_neighbours_on_random_codes():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 256, (70_000, 32), dtype=np.uint8)  # more than one NumPy chunk
    queries = rng.integers(0, 256, (8, 32), dtype=np.uint8)
    results = []
    for backend in ("numpy", "faiss"):
        index = BinaryIndex(256, backend=backend)
        index.add(codes)
        results.append(index.search(queries, 10))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_ids_are_returned_and_memory_is_one_packed_copy(backend):
    codes = tie_heavy_codes(100)
    index = BinaryIndex(64, backend=backend)
    index.add(codes, ids=np.arange(100) * 10 + 7)
    _, ids = index.search(codes[:3], 1)
    assert ids[:, 0].tolist() == [7, 17, 27]
    assert index.memory_bytes == 100 * 8 + 100 * 8  # codes + custom ids
    np.testing.assert_array_equal(index.codes(), codes)
    np.testing.assert_array_equal(index.ids(), np.arange(100) * 10 + 7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_ids_cost_no_memory_and_mixing_in_custom_ids_keeps_both(backend):
    codes = tie_heavy_codes(20)
    index = BinaryIndex(64, backend=backend)
    index.add(codes[:10])
    assert index.memory_bytes == 10 * 8  # one packed copy of the codes, nothing else
    index.add(codes[10:], ids=np.arange(10) + 500)
    assert index.ids().tolist() == list(range(10)) + list(range(500, 510))
    _, ids = index.search(codes[[3, 15]], 1)
    assert ids[:, 0].tolist() == [3, 505]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rerank_returns_the_float_best_among_the_hamming_candidates(backend):
    rng = np.random.default_rng(3)
    embeddings = rng.standard_normal((400, 16)).astype(np.float32)
    codes = np.packbits(embeddings @ rng.standard_normal((16, 64)) > 0, axis=1)
    queries = rng.standard_normal((5, 16)).astype(np.float32)
    query_codes = np.packbits(queries @ rng.standard_normal((16, 64)) > 0, axis=1)
    index = BinaryIndex(64, backend=backend)
    index.add(codes)
    scores, ids = index.search_and_rerank(query_codes, queries, embeddings, k=5, factor=80)
    # factor 80 ⇒ all 400 rows are candidates ⇒ exact float search.
    want_ids, want_scores = semantic_search(queries, embeddings, top_k=5)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_allclose(scores, want_scores, atol=1e-5)


def test_rerank_refuses_a_stored_vector_that_is_not_finite():
    rng = np.random.default_rng(4)
    embeddings = rng.standard_normal((50, 8)).astype(np.float32)
    embeddings[17, 3] = np.nan
    index = BinaryIndex(64)
    index.add(rng.integers(0, 256, (50, 8), dtype=np.uint8), ids=np.arange(50) + 1000)
    with pytest.raises(ValueError, match=r"embeddings row 17 \(id 1017\) is not finite"):
        index.search_and_rerank(index.codes()[:1], embeddings[:1], embeddings, k=3, factor=20)


def test_save_and_load_round_trip(tmp_path):
    codes = tie_heavy_codes(50)
    index = BinaryIndex(64, backend="numpy")
    index.add(codes, ids=np.arange(50) + 100)
    index.save(tmp_path / "index.npz")
    loaded = BinaryIndex.load(tmp_path / "index.npz", backend=BACKENDS[-1])
    assert loaded.bits == 64 and len(loaded) == 50
    for got, want in zip(loaded.search(codes[:4], 3), index.search(codes[:4], 3)):
        np.testing.assert_array_equal(got, want)


def test_load_rejects_a_file_that_is_not_an_index(tmp_path):
    np.savez(tmp_path / "other.npz", something=np.zeros(3))
    with pytest.raises(ValueError, match="not a BinaryIndex file"):
        BinaryIndex.load(tmp_path / "other.npz")
    with pytest.raises(FileNotFoundError):
        BinaryIndex.load(tmp_path / "missing.npz")


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_queries_give_clear_errors(backend):
    index = BinaryIndex(64, backend=backend)
    with pytest.raises(ValueError, match="empty"):
        index.search(np.zeros((1, 8), np.uint8), 1)
    index.add(tie_heavy_codes(10))
    with pytest.raises(ValueError, match="expected 64-bit codes"):
        index.search(np.zeros((1, 16), np.uint8), 1)
    with pytest.raises(TypeError, match="uint8"):
        index.search(np.zeros((1, 8), np.float32), 1)
    with pytest.raises(ValueError, match="positive int"):
        index.search(np.zeros((1, 8), np.uint8), 0)
    with pytest.raises(ValueError, match="larger than the index"):
        index.search(np.zeros((1, 8), np.uint8), 11)
    with pytest.raises(ValueError, match="expected 64-bit codes"):
        index.add(np.zeros((2, 4), np.uint8))
    with pytest.raises(ValueError, match="ids must be"):
        index.add(np.zeros((2, 8), np.uint8), ids=[1])


def test_bits_and_backend_are_validated():
    with pytest.raises(ValueError, match="multiple of 8"):
        BinaryIndex(12)
    with pytest.raises(ValueError, match="backend"):
        BinaryIndex(64, backend="annoy")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_prefix_search_is_the_exact_search_of_the_codes_first_bits(backend):
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 256, size=(2000, 16), dtype=np.uint8)
    queries = rng.integers(0, 256, size=(7, 16), dtype=np.uint8)
    index = BinaryIndex(128, backend=backend)
    index.add(codes[:500], ids=np.arange(500) + 10_000)
    index.add(codes[500:], ids=np.arange(500, 2000) + 10_000)
    memory_before = index.memory_bytes
    for query in (queries, queries[:, :4]):  # whole codes or their prefixes
        distances, ids = index.search(query, 9, bits=32)
        want_distances, want_rows = reference_top_k(queries[:, :4], codes[:, :4], 9)
        np.testing.assert_array_equal(distances, want_distances)
        np.testing.assert_array_equal(ids, want_rows + 10_000)
    assert index.memory_bytes == memory_before + 2000 * 4  # one copy of the 32-bit prefixes
    index.add(codes[:1])  # a new code is found by the next prefix search
    assert index.search(codes[:1], 2, bits=32)[1].tolist() == [[10_000, 2000]]
    with pytest.raises(ValueError, match="bits must be a multiple of 8 from 8 to 128"):
        index.search(queries, 9, bits=12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_cascade_shortlists_by_a_prefix_then_ranks_by_the_whole_code(backend):
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 256, size=(3000, 16), dtype=np.uint8)
    queries = codes[:5].copy()
    queries[:, 10:] ^= 0x11  # near their own code in the first 80 bits, noisy after
    index = BinaryIndex(128, backend=backend)
    index.add(codes)
    distances, ids = index.cascade_search(queries, 3, shortlist_bits=64, shortlist=40)
    # by hand: the 40 nearest by the 64-bit prefix, then the 3 nearest of those by all 128 bits
    _, shortlisted = reference_top_k(queries[:, :8], codes[:, :8], 40)
    for q in range(5):
        rows = np.sort(shortlisted[q])
        full = hamming_distances(queries[q : q + 1], codes[rows])[0]
        order = np.lexsort((rows, full))[:3]
        np.testing.assert_array_equal(ids[q], rows[order])
        np.testing.assert_array_equal(distances[q], full[order])
    assert ids[:, 0].tolist() == list(range(5))
    # with vectors: the shortlist rescored by cosine
    vectors = rng.normal(size=(3000, 6)).astype(np.float32)
    scores, rescored = index.cascade_search(queries, 3, 64, 40, query_embeddings=vectors[:5], embeddings=vectors)
    for q in range(5):
        rows = np.sort(shortlisted[q])
        cosine = semantic_search(vectors[q], vectors[rows], top_k=3)
        np.testing.assert_array_equal(rescored[q], rows[cosine[0][0]])
        np.testing.assert_allclose(scores[q], cosine[1][0], rtol=1e-5)
    with pytest.raises(ValueError, match="shortlist=2 is smaller than k=3"):
        index.cascade_search(queries, 3, 64, shortlist=2)
    with pytest.raises(ValueError, match="rescoring needs both"):
        index.cascade_search(queries, 3, 64, query_embeddings=vectors[:5])


def test_int8_vectors_rescore_like_the_float_ones_at_a_quarter_of_the_memory():
    from keras_sentemb.retrieval import Int8Vectors

    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(2000, 32)).astype(np.float32)
    codes = np.packbits(vectors > 0, axis=1)
    int8 = Int8Vectors.quantize(vectors)
    step = (vectors.max(axis=0) - vectors.min(axis=0)) / 255
    assert (np.abs(int8[np.arange(2000)] - vectors) <= step / 2 + 1e-5).all()
    assert int8.nbytes == 2000 * 32 + 2 * 32 * 4 and int8.nbytes < vectors.nbytes / 3.9
    index = BinaryIndex(32)
    index.add(codes)
    _, float_ids = index.search_and_rerank(codes[:20], vectors[:20], vectors, k=10, factor=10)
    _, int8_ids = index.search_and_rerank(codes[:20], vectors[:20], int8, k=10, factor=10)
    overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(float_ids, int8_ids)])
    assert overlap > 0.95 and (int8_ids[:, 0] == np.arange(20)).all()


def test_int8_vectors_refuse_what_they_cannot_hold():
    from keras_sentemb.retrieval import Int8Vectors

    with pytest.raises(ValueError, match=r"calibration must be \[M ≥ 1, 4\]"):
        Int8Vectors.quantize(np.ones((3, 4)), calibration=np.ones((3, 5)))
    with pytest.raises(ValueError, match="embeddings row 0 holds NaN or infinity"):
        Int8Vectors.quantize(np.array([[np.nan, 1.0]]))
    with pytest.raises(TypeError, match="values must be int8"):
        Int8Vectors(np.zeros((2, 2), np.float32), np.zeros(2), np.ones(2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_queries_give_empty_results_of_the_usual_shape_and_dtype_from_every_search(backend):
    index = BinaryIndex(64, backend=backend)
    index.add(tie_heavy_codes(50))
    none, no_vectors, vectors = np.zeros((0, 8), np.uint8), np.zeros((0, 4), np.float32), np.ones((50, 4), np.float32)
    results = [
        (index.search(none, 3), np.int32),
        (index.search(none, 3, bits=32), np.int32),
        (index.cascade_search(none, 3, shortlist_bits=32), np.int32),
        (index.search_and_rerank(none, no_vectors, vectors, 3), np.float32),
        (index.cascade_search(none, 3, 32, query_embeddings=no_vectors, embeddings=vectors), np.float32),
    ]
    for (scores, ids), score_dtype in results:
        assert scores.shape == ids.shape == (0, 3)
        assert scores.dtype == score_dtype and ids.dtype == np.int64


@pytest.mark.skipif(not faiss_available(), reason="faiss-cpu is not installed")
@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_faiss_searches_on_one_thread_a_query_at_most_and_restores_the_thread_count(kind, monkeypatch):
    import faiss

    from keras_sentemb.retrieval import approximate_binary_search

    codes = np.random.default_rng(0).integers(0, 256, (500, 8), dtype=np.uint8)
    index = BinaryIndex(64, kind=kind)
    index.add(codes)
    seen = []
    original = approximate_binary_search.search_threads

    def recording(queries):
        context = original(queries)

        class Recorded:
            def __enter__(self):
                context.__enter__()
                seen.append((queries, faiss.omp_get_max_threads()))

            def __exit__(self, *exc):
                return context.__exit__(*exc)

        return Recorded()

    monkeypatch.setattr(approximate_binary_search, "search_threads", recording)
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(2)
    try:
        single, _ = index.search(codes[:1], k=3)
        index.search(codes[:5], k=3)
        assert seen == [(1, 1), (5, 2)]
        assert faiss.omp_get_max_threads() == 2  # restored
        faiss.omp_set_num_threads(1)  # the caller's cap holds for batches too
        index.search(codes[:5], k=3)
        assert seen[-1] == (5, 1) and faiss.omp_get_max_threads() == 1
    finally:
        faiss.omp_set_num_threads(before)
    np.testing.assert_array_equal(single, index.search(codes[:5], k=3)[0][:1])
