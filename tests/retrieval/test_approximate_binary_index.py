"""BinaryIndex kinds "ivf" and "hnsw": FAISS's sub-linear binary indexes behind the same calls —
they find most exact neighbours, keep ids and codes in order, save and load without rebuilding,
take search parameters, and refuse what they cannot do with a clear error."""

import numpy as np
import pytest

from keras_sentemb.retrieval import BinaryIndex, faiss_available
from keras_sentemb.retrieval.approximate_binary_search import default_nlist, kind_parameters, training_sample

pytestmark = pytest.mark.skipif(not faiss_available(), reason="the approximate kinds are FAISS indexes")
KINDS = [("ivf", {"nprobe": 8}), ("hnsw", {})]


def clustered_codes(n=6000, clusters=60, nbytes=16, flip=0.08, seed=0):
    """Codes around random centres, each bit flipped with probability `flip`: neighbours exist."""
    rng = np.random.default_rng(seed)
    centres = np.unpackbits(rng.integers(0, 256, (clusters, nbytes), dtype=np.uint8), axis=1)
    bits = centres[rng.integers(0, clusters, n)] ^ (rng.random((n, nbytes * 8)) < flip)
    return np.packbits(bits.astype(np.uint8), axis=1)


def recall_of_exact(distances, exact):
    return float(np.mean(np.minimum((distances <= exact[:, -1:]).sum(axis=1), distances.shape[1]) / distances.shape[1]))


@pytest.fixture(scope="module")
def collection():
    drawn = clustered_codes(6050)  # queries: 50 more codes around the same centres
    codes, queries = drawn[:6000], drawn[6000:]
    exact = BinaryIndex(128, backend="faiss")
    exact.add(codes)
    return codes, queries, exact.search(queries, 10)


@pytest.mark.parametrize("kind, parameters", KINDS)
def test_an_approximate_kind_finds_most_of_the_exact_hamming_top_10(collection, kind, parameters):
    codes, queries, (exact_distances, _) = collection
    index = BinaryIndex(128, kind=kind, **parameters)
    index.add(codes)
    distances, ids = index.search(queries, 10)
    assert recall_of_exact(distances, exact_distances) >= 0.9
    assert distances.dtype == np.int32 and ids.dtype == np.int64
    # the distances it returns are the true Hamming distances of the ids it returns
    true = np.bitwise_count(codes[ids] ^ queries[:, None, :]).sum(axis=-1)
    np.testing.assert_array_equal(distances, true)


@pytest.mark.parametrize("kind, parameters", KINDS)
def test_codes_come_back_in_insertion_order_across_adds_and_custom_ids_are_kept(collection, kind, parameters):
    codes = collection[0]
    index = BinaryIndex(128, kind=kind, **parameters)
    index.add(codes[:4000], ids=np.arange(4000) + 1000)
    index.add(codes[4000:], ids=np.arange(4000, len(codes)) + 1000)
    np.testing.assert_array_equal(index.codes(), codes)
    _, ids = index.search(codes[:5], 1)
    np.testing.assert_array_equal(ids[:, 0], np.arange(5) + 1000)  # a stored code finds itself
    assert len(index) == len(codes)
    assert index.memory_bytes > len(codes) * 16  # the codes and the structure (links or lists)


@pytest.mark.parametrize("kind, parameters", KINDS)
def test_a_saved_index_loads_with_its_kind_parameters_and_identical_results(collection, kind, parameters, tmp_path):
    codes, queries, _ = collection
    index = BinaryIndex(128, kind=kind, **parameters)
    index.add(codes, ids=np.arange(len(codes)) * 3)
    path = tmp_path / "index.npz"
    index.save(path)
    loaded = BinaryIndex.load(path)
    assert (loaded.kind, loaded.parameters, len(loaded)) == (kind, index.parameters, len(codes))
    for got, want in zip(loaded.search(queries, 10), index.search(queries, 10)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(loaded.codes(), codes)
    assert [p.name for p in tmp_path.iterdir()] == ["index.npz"]  # no temporary file left


def test_search_parameters_trade_recall_for_work_and_are_saved(collection, tmp_path):
    codes, queries, (exact_distances, _) = collection
    index = BinaryIndex(128, kind="ivf", nlist=64, nprobe=64)
    index.add(codes)
    everything = recall_of_exact(index.search(queries, 10)[0], exact_distances)
    index.set_search_parameters(nprobe=1)
    one_list = recall_of_exact(index.search(queries, 10)[0], exact_distances)
    assert everything == 1.0 and one_list < everything  # nprobe = nlist scans every list: exact
    index.save(tmp_path / "ivf.npz")
    assert BinaryIndex.load(tmp_path / "ivf.npz").parameters == {"nlist": 64, "nprobe": 1}
    with pytest.raises(ValueError, match="no search parameter 'ef_search'"):
        index.set_search_parameters(ef_search=10)
    with pytest.raises(ValueError, match="no search parameter 'nlist'"):
        index.set_search_parameters(nlist=8)


def test_hits_an_approximate_search_did_not_find_are_id_minus_one_and_never_rescored(collection):
    codes = collection[0][:200]
    index = BinaryIndex(128, kind="ivf", nlist=5, nprobe=1)
    index.add(codes)
    distances, ids = index.search(codes[:3], 150)  # one list of ~40 codes cannot hold 150 hits
    missing = ids == -1
    assert missing.any() and (distances[missing] == 129).all() and (distances[~missing] <= 128).all()
    vectors = np.random.default_rng(0).normal(size=(200, 8)).astype(np.float32)
    scores, ids = index.search_and_rerank(codes[:3], vectors[:3], vectors, k=150, factor=1)
    assert np.isneginf(scores[ids == -1]).all() and np.isfinite(scores[ids >= 0]).all()
    assert (ids[:, 0] == np.arange(3)).all()  # each query's own vector is its best rescored hit


def test_prefix_search_and_the_cascade_work_on_an_approximate_index(collection):
    codes, queries, _ = collection
    index = BinaryIndex(128, kind="hnsw")
    index.add(codes)
    exact = BinaryIndex(128, backend="faiss")
    exact.add(codes)
    for got, want in zip(index.search(queries, 5, bits=64), exact.search(queries, 5, bits=64)):
        np.testing.assert_array_equal(got, want)  # prefix searches are exact scans of the prefixes
    for got, want in zip(
        index.cascade_search(queries, 5, shortlist_bits=64), exact.cascade_search(queries, 5, shortlist_bits=64)
    ):
        np.testing.assert_array_equal(got, want)


def test_the_parameters_are_checked_before_anything_is_built():
    assert kind_parameters("ivf", None) == {"nlist": None, "nprobe": 32}
    with pytest.raises(ValueError, match="kind must be one of"):
        BinaryIndex(64, kind="lsh")
    with pytest.raises(ValueError, match="takes no parameter 'nprobe'"):
        BinaryIndex(64, kind="hnsw", nprobe=4)
    with pytest.raises(ValueError, match="takes no parameter 'hnsw_m'"):
        BinaryIndex(64, hnsw_m=4)  # flat takes none
    with pytest.raises(ValueError, match="ef_search must be a positive integer, got 0"):
        BinaryIndex(64, kind="hnsw", ef_search=0)
    with pytest.raises(TypeError, match="nlist must be a positive integer"):
        BinaryIndex(64, kind="ivf", nlist=2.5)
    with pytest.raises(ImportError, match="faiss-cpu"):
        BinaryIndex(64, backend="numpy", kind="hnsw")


def test_an_ivf_needs_at_least_nlist_codes_in_its_first_add():
    index = BinaryIndex(64, kind="ivf", nlist=50)
    with pytest.raises(ValueError, match="add at least 50 codes at once"):
        index.add(np.zeros((10, 8), np.uint8))
    assert len(index) == 0


def test_the_default_nlist_follows_faiss_guidelines_and_training_is_sampled():
    assert default_nlist(1_000_000) == 4000 and default_nlist(10_000_000) == 12649
    assert default_nlist(1000) == 25 and default_nlist(10) == 1  # 39 codes a list at least
    codes = np.arange(100_000, dtype=np.int64).view(np.uint8).reshape(-1, 8)
    sample = training_sample(codes, nlist=10)
    assert len(sample) == 640 and len(np.unique(sample, axis=0)) == 640
    np.testing.assert_array_equal(training_sample(codes[:500], nlist=10), codes[:500])  # few codes: all of them


def test_a_damaged_saved_index_is_refused_with_its_path(collection, tmp_path):
    codes = collection[0]
    index = BinaryIndex(128, kind="hnsw")
    index.add(codes[:500])
    path = tmp_path / "index.npz"
    index.save(path)
    with np.load(path) as data:
        arrays = dict(data)
    arrays["faiss_index"] = arrays["faiss_index"][:100]
    np.savez(tmp_path / "cut.npz", **arrays)
    with pytest.raises(ValueError, match="cut.npz: its FAISS index does not load"):
        BinaryIndex.load(tmp_path / "cut.npz")
    arrays = {**dict(np.load(path)), "ids": np.arange(10)}
    np.savez(tmp_path / "ids.npz", **arrays)
    with pytest.raises(ValueError, match="holds 500 codes of 128 bits, the file says 10 of 128"):
        BinaryIndex.load(tmp_path / "ids.npz")
    with pytest.raises(ImportError, match="faiss-cpu"):
        BinaryIndex.load(path, backend="numpy")


@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_an_empty_index_of_any_kind_saves_and_loads_as_an_empty_index_of_that_kind(kind, tmp_path):
    parameters = {"nlist": 4} if kind == "ivf" else {}
    BinaryIndex(128, backend="faiss", kind=kind, **parameters).save(tmp_path / "empty.npz")
    loaded = BinaryIndex.load(tmp_path / "empty.npz")
    assert (loaded.kind, len(loaded)) == (kind, 0)
    loaded.add(clustered_codes(400, nbytes=16))  # an IVF trains at this first add, as a new one would
    assert loaded.search(clustered_codes(2, nbytes=16, seed=1), 5)[1].shape == (2, 5)
