"""evaluate_beir with a sparse encoder: the "sparse" stage is the exact dot-product run of encode_query against
encode_document, alone or fused with the dense and BM25 runs."""

import os
from pathlib import Path

import pytest

from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation.beir_retrieval import evaluate_beir, measure_run
from keras_sentemb.evaluation.trec_measures import mean_measures
from keras_sentemb.models import SparseEncoder
from keras_sentemb.retrieval.ranked_runs import run_of
from keras_sentemb.retrieval.run_fusion import ReciprocalRankFusion
from keras_sentemb.retrieval.sparse_index import SparseIndex
from tests.evaluation.fake_encoders import CharacterTrigramEncoder

TINY = Path(__file__).parents[1] / "fixtures" / "beir_tiny"
FOLDERS = Path(__file__).parents[1] / "fixtures" / "sparse_folders"


@pytest.fixture(scope="module")
def sparse():
    return SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_inference_free"))


def sparse_run(collection, sparse, query_options=None, document_options=None):
    index = SparseIndex(sparse.encode_document(collection.documents, **(document_options or {})))
    ids, scores = index.search(sparse.encode_query(collection.queries, **(query_options or {})), 1000)
    return run_of(collection.query_ids, collection.document_ids, ids, scores)


def test_a_sparse_encoder_alone_is_its_exact_run_measured(sparse):
    test = read_beir_folder(TINY)
    result = evaluate_beir(sparse, TINY)
    assert list(result.stages) == ["sparse"] and result.fusion is None
    assert result.metrics == pytest.approx(mean_measures(measure_run(sparse_run(test, sparse), test.qrels)))
    assert result.bytes_per_document["sparse"] > 0 and "documents sparse" in result.seconds_of


def test_seismic_and_exact_agree_on_a_tiny_collection(sparse):
    exact = evaluate_beir(sparse, TINY)
    approximate = evaluate_beir(sparse, TINY, sparse_engine="seismic")
    assert approximate.metrics == pytest.approx(exact.metrics)


def test_three_runs_fuse_by_reciprocal_rank(sparse):
    result = evaluate_beir(CharacterTrigramEncoder(), TINY, lexical=True, sparse=sparse)
    assert list(result.stages) == ["dense", "lexical", "sparse", "hybrid"]
    assert result.fusion == str(ReciprocalRankFusion())


def test_two_of_them_fuse_by_the_choice_on_dev(sparse):
    result = evaluate_beir(None, TINY, lexical=True, sparse=sparse)
    assert list(result.stages) == ["lexical", "sparse", "hybrid"] and result.fusion_choice


def test_options_reach_the_sides_they_name(sparse):
    """sparse_options: the documents of a sparse stage beside others; a SparseEncoder given as encoder takes
    encode_options (both sides) and document_options (its documents) as a dense encoder does."""
    test = read_beir_folder(TINY)
    few = {"max_active_dims": 16}  # of ~270 a document
    documents_cut = mean_measures(measure_run(sparse_run(test, sparse, document_options=few), test.qrels))
    beside = evaluate_beir(None, TINY, lexical=True, sparse=sparse, sparse_options=few)
    alone = evaluate_beir(sparse, TINY, document_options=few)
    assert beside.stages["sparse"] == pytest.approx(documents_cut) and alone.metrics == pytest.approx(documents_cut)
    whole = evaluate_beir(sparse, TINY)
    assert alone.bytes_per_document["sparse"] < whole.bytes_per_document["sparse"]
    assert alone.metrics["ndcg@10"] != pytest.approx(whole.metrics["ndcg@10"])
    both_cut = mean_measures(measure_run(sparse_run(test, sparse, {"max_active_dims": 3}, few), test.qrels))
    both = evaluate_beir(sparse, TINY, encode_options={"max_active_dims": 3}, document_options=few)
    assert both.metrics == pytest.approx(both_cut) and both_cut["ndcg@10"] != pytest.approx(alone.metrics["ndcg@10"])


def test_what_it_refuses(sparse):
    with pytest.raises(ValueError, match="sparse_options are for a sparse encoder, and none is given"):
        evaluate_beir(CharacterTrigramEncoder(), TINY, sparse_options={"max_active_dims": 2})
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        evaluate_beir(None, TINY, sparse=sparse, sparse_options={"max_active_dimensions": 2})
    with pytest.raises(ValueError, match="max_active_dims"):
        evaluate_beir(sparse, TINY, document_options={"max_active_dims": 0})
    with pytest.raises(ValueError, match="give the dense encoder as encoder"):
        evaluate_beir(sparse, TINY, sparse=sparse)
    with pytest.raises(TypeError, match="sparse must be a SparseEncoder"):
        evaluate_beir(None, TINY, sparse=CharacterTrigramEncoder())
