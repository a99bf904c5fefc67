"""evaluate_beir over a hashed model's binary codes ranks documents by Hamming distance of the
codes (or their prefixes), re-ranks the Hamming candidates by cosine with the float or int8 rows,
scores a chunked document by its best chunk, and says what a document costs in bytes."""

from pathlib import Path

import numpy as np
import pytest

from keras_sentemb.chunking import ChunkedEmbeddings
from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation.beir_retrieval import evaluate_beir
from keras_sentemb.evaluation.code_retrieval import CodeSearch, code_run
from keras_sentemb.retrieval.ranked_runs import ranked_ids
from tests.evaluation.fake_encoders import CharacterTrigramEncoder, SignHashedEncoder

TINY = Path(__file__).parents[1] / "fixtures" / "beir_tiny"


def hamming(a, b):
    return int(np.sum(a != b))


def vectors_of(collection, encoder):
    return encoder.encode(collection.queries), encoder.encode(collection.documents)


def test_without_rescoring_documents_rank_by_the_hamming_distance_of_their_codes_prefix():
    encoder, collection = SignHashedEncoder(), read_beir_folder(TINY)
    queries, documents = vectors_of(collection, encoder)
    for bits in (8, 32):
        run, size = code_run(collection, encoder, queries, documents, CodeSearch(bits=bits))
        assert size == bits / 8
        for query_id, query in zip(collection.query_ids, queries):
            distances = [hamming(query[:bits] > 0, document[:bits] > 0) for document in documents]
            expected = sorted(range(len(documents)), key=lambda d: (distances[d], d))
            assert ranked_ids(run[query_id]) == [collection.document_ids[d] for d in expected]


def test_rescoring_every_candidate_by_its_float_row_is_the_dense_run():
    encoder = SignHashedEncoder()
    search = CodeSearch(bits=8, rescore="float", candidates=100)
    result = evaluate_beir(encoder, TINY, codes=[CodeSearch(bits=16), search])
    assert result.metrics == result.stages["dense"]  # code searches are stages beside the main run
    assert str(search) == "codes 8 + float@100" and result.stages[str(search)] == pytest.approx(result.stages["dense"])
    assert result.bytes_per_document[str(search)] == 1 + 4 * encoder.embedding_dim


def test_rescoring_reranks_only_the_hamming_candidates_and_int8_rows_rank_like_float_ones():
    encoder, collection = SignHashedEncoder(), read_beir_folder(TINY)
    queries, documents = vectors_of(collection, encoder)
    plain, _ = code_run(collection, encoder, queries, documents, CodeSearch(bits=8))
    floats, _ = code_run(collection, encoder, queries, documents, CodeSearch(bits=8, rescore="float", candidates=3))
    int8, size = code_run(collection, encoder, queries, documents, CodeSearch(bits=8, rescore="int8", candidates=3))
    assert size == 1 + encoder.embedding_dim
    for query_id, query in zip(collection.query_ids, queries):
        candidates = ranked_ids(plain[query_id])[:3]
        assert set(floats[query_id]) == set(candidates) == set(int8[query_id])
        cosine = {d: float(documents[collection.document_ids.index(d)] @ query) for d in candidates}
        assert floats[query_id] == pytest.approx(cosine, abs=1e-6)
        assert int8[query_id] == pytest.approx(cosine, abs=0.05)


def test_a_chunked_document_is_its_best_chunk():
    encoder, collection = SignHashedEncoder(), read_beir_folder(TINY)
    queries, documents = vectors_of(collection, encoder)
    reversed_rows = -documents  # each document's second chunk: its opposite
    chunks = ChunkedEmbeddings(
        np.stack([documents, reversed_rows], axis=1).reshape(-1, documents.shape[1]),
        np.repeat(np.arange(len(documents)), 2),
        np.zeros(2 * len(documents), np.int64),
        np.zeros(2 * len(documents), np.int64),
    )
    run, size = code_run(collection, encoder, queries, chunks, CodeSearch(bits=32))
    assert size == 2 * 4
    for query_id, query in zip(collection.query_ids, queries):
        best = [
            min(hamming(query > 0, document > 0), hamming(query > 0, opposite > 0))
            for document, opposite in zip(documents, reversed_rows)
        ]
        order = sorted(range(len(documents)), key=lambda d: (best[d], d))
        assert [best[collection.document_ids.index(d)] for d in ranked_ids(run[query_id])] == [best[d] for d in order]


@pytest.mark.parametrize(
    "make, error, words",
    [
        (lambda: CodeSearch(bits=0), ValueError, "CodeSearch.bits"),
        (lambda: CodeSearch(rescore="fp16"), ValueError, "rescore must be one of"),
        (lambda: CodeSearch(candidates=-1), ValueError, "CodeSearch.candidates"),
    ],
)
def test_what_cannot_search_codes_is_refused(make, error, words):
    with pytest.raises(error, match=words):
        make()


@pytest.mark.parametrize(
    "encoder, codes, words",
    [
        (CharacterTrigramEncoder(), CodeSearch(), "needs a HashedEncoder"),
        (SignHashedEncoder(), [64], "codes must be CodeSearch objects"),
    ],
)
def test_bad_code_searches_are_refused_before_any_encoding(encoder, codes, words):
    with pytest.raises(TypeError, match=words):
        evaluate_beir(encoder, TINY, codes=codes)
    assert encoder.encoded == []
