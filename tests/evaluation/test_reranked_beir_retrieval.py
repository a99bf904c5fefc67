"""evaluate_beir with a reranker re-orders each query's best `rerank_top` documents of the main run by
the reranker's pair score, keeps the rest below them in their order, and reports it as the main run."""

from pathlib import Path

import pytest

from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation.beir_retrieval import dense_run, evaluate_beir, measure_run
from keras_sentemb.evaluation.trec_measures import mean_measures
from keras_sentemb.retrieval.ranked_runs import ranked_ids
from tests.evaluation.fake_encoders import CharacterTrigramEncoder, TrigramPairScorer

TINY = Path(__file__).parents[1] / "fixtures" / "beir_tiny"


def test_the_top_documents_are_reordered_by_the_reranker_and_the_rest_keep_their_order():
    collection = read_beir_folder(TINY)
    encoder, scorer = CharacterTrigramEncoder(dim=16), TrigramPairScorer(dim=64)
    plain = evaluate_beir(encoder, TINY, top_k=10)
    result = evaluate_beir(encoder, TINY, top_k=10, rerank=scorer, rerank_top=4)
    assert list(result.stages) == ["dense", "rerank"] and result.metrics == result.stages["rerank"]
    assert result.stages["dense"] == plain.metrics and "rerank" in result.seconds_of
    documents = dict(zip(collection.document_ids, collection.documents))
    queries = dict(zip(collection.query_ids, collection.queries))
    dense = dense_run(collection, encoder.encode(collection.queries), encoder.encode(collection.documents), 10)
    expected = {}
    for query, scores in dense.items():
        order = ranked_ids(scores)
        head = sorted(
            order[:4],
            key=lambda d: -float(scorer.predict_pairs([queries[query]], [documents[d]])[0]),
        )
        expected[query] = {d: -float(rank) for rank, d in enumerate(head + order[4:])}
    assert result.metrics == pytest.approx(mean_measures(measure_run(expected, collection.qrels)))


def test_reranking_reads_the_hybrid_when_there_is_one():
    result = evaluate_beir(CharacterTrigramEncoder(), TINY, lexical=True, rerank=TrigramPairScorer())
    assert list(result.stages) == ["dense", "lexical", "hybrid", "rerank"]


@pytest.mark.parametrize(
    "arguments, error, words",
    [
        (dict(rerank=CharacterTrigramEncoder()), TypeError, "rerank must have predict_pairs"),
        (dict(rerank=TrigramPairScorer(), rerank_top=0), ValueError, "rerank_top"),
    ],
)
def test_a_bad_reranker_is_refused_before_any_encoding(arguments, error, words):
    encoder = CharacterTrigramEncoder()
    with pytest.raises(error, match=words):
        evaluate_beir(encoder, TINY, **arguments)
    assert encoder.encoded == []


def test_a_reranker_of_several_scores_a_pair_is_refused():
    with pytest.raises(ValueError, match="one score a pair"):
        evaluate_beir(CharacterTrigramEncoder(), TINY, rerank=TrigramPairScorer(labels=2))
