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


def sparse_run(collection, sparse):
    index = SparseIndex(sparse.encode_document(collection.documents))
    ids, scores = index.search(sparse.encode_query(collection.queries), 1000)
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


def test_what_it_refuses(sparse):
    with pytest.raises(ValueError, match="give the dense encoder as encoder"):
        evaluate_beir(sparse, TINY, sparse=sparse)
    with pytest.raises(TypeError, match="sparse must be a SparseEncoder"):
        evaluate_beir(None, TINY, sparse=CharacterTrigramEncoder())
