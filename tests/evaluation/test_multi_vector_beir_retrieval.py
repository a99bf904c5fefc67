"""evaluate_beir with a multi-vector encoder: the "multi-vector" stage is MaxSim's run of encode_query against
encode_document (exact, or over FAISS's candidates), alone or fused with the dense, BM25 and sparse runs."""

import os
from pathlib import Path

import pytest

from keras_sentemb.chunking import Chunking
from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation.beir_retrieval import evaluate_beir, measure_run
from keras_sentemb.evaluation.trec_measures import mean_measures
from keras_sentemb.models import MultiVectorEncoder
from keras_sentemb.retrieval.multi_vector_index import MultiVectorIndex
from keras_sentemb.retrieval.ranked_runs import run_of
from keras_sentemb.retrieval.run_fusion import ReciprocalRankFusion
from tests.evaluation.fake_encoders import CharacterTrigramEncoder

TINY = Path(__file__).parents[1] / "fixtures" / "beir_tiny"
FOLDERS = Path(__file__).parents[1] / "fixtures" / "multi_vector_folders"


@pytest.fixture(scope="module")
def colbert():
    return MultiVectorEncoder.from_pretrained(os.path.join(FOLDERS, "bert_colbert"))


def maxsim_run(collection, colbert):
    index = MultiVectorIndex(colbert.encode_document(collection.documents))
    ids, scores = index.search(colbert.encode_query(collection.queries), 1000)
    return run_of(collection.query_ids, collection.document_ids, ids, scores)


def test_a_multi_vector_encoder_alone_is_its_maxsim_run_measured(colbert):
    test = read_beir_folder(TINY)
    result = evaluate_beir(colbert, TINY)
    assert list(result.stages) == ["multi-vector"] and result.fusion is None
    assert result.metrics == pytest.approx(mean_measures(measure_run(maxsim_run(test, colbert), test.qrels)))
    assert result.bytes_per_document["multi-vector"] > 0 and "documents multi-vector" in result.seconds_of


def test_faiss_and_exact_agree_on_a_tiny_collection(colbert):
    exact = evaluate_beir(colbert, TINY)
    assert evaluate_beir(colbert, TINY, multi_vector_engine="faiss").metrics["ndcg@10"] == pytest.approx(
        exact.metrics["ndcg@10"]
    )


def test_it_fuses_with_the_other_runs(colbert):
    three = evaluate_beir(CharacterTrigramEncoder(), TINY, lexical=True, multi_vector=colbert)
    assert list(three.stages) == ["dense", "lexical", "multi-vector", "hybrid"]
    assert three.fusion == str(ReciprocalRankFusion())
    two = evaluate_beir(None, TINY, lexical=True, multi_vector=colbert)
    assert list(two.stages) == ["lexical", "multi-vector", "hybrid"] and two.fusion_choice
    assert any("min-max" in name for name in two.fusion_choice)  # MaxSim has no floor: min-max a query


def test_chunking_options_reach_the_documents_encoding(colbert):
    """A chunked document keeps its windows' vectors: more of a long document is stored and scored."""
    chunking = Chunking(size=6, overlap=2)
    test = read_beir_folder(TINY)
    chunked = colbert.encode_document(test.documents, chunking=chunking)
    assert sum(map(len, chunked)) > sum(map(len, colbert.encode_document(test.documents)))
    index = MultiVectorIndex(chunked)
    ids, scores = index.search(colbert.encode_query(test.queries), 1000)
    expected = mean_measures(measure_run(run_of(test.query_ids, test.document_ids, ids, scores), test.qrels))
    beside = evaluate_beir(None, TINY, multi_vector=colbert, multi_vector_options={"chunking": chunking})
    alone = evaluate_beir(colbert, TINY, document_options={"chunking": chunking})
    assert beside.metrics == pytest.approx(expected) and alone.metrics == pytest.approx(expected)
    assert beside.bytes_per_document["multi-vector"] == pytest.approx(index.bytes_per_document)


def test_what_it_refuses(colbert):
    with pytest.raises(ValueError, match="multi_vector_options are for a multi-vector encoder"):
        evaluate_beir(CharacterTrigramEncoder(), TINY, multi_vector_options={"chunking": Chunking()})
    with pytest.raises(ValueError, match="queries are not chunked"):
        evaluate_beir(colbert, TINY, encode_options={"chunking": Chunking()})
    with pytest.raises(ValueError, match="and multi_vector= too"):
        evaluate_beir(colbert, TINY, multi_vector=colbert)
    with pytest.raises(TypeError, match="multi_vector must be a MultiVectorEncoder"):
        evaluate_beir(None, TINY, multi_vector=CharacterTrigramEncoder())
