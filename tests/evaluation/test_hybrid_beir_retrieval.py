"""evaluate_beir with `lexical`: BM25 alone, or fused with the dense run by the fusion chosen on the
dev qrels (never on the split it reports), each stage measured and timed."""

import os
import shutil
from pathlib import Path

import pytest

from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation.beir_retrieval import BeirRetrievalTask, dense_run, evaluate_beir, measure_run
from keras_sentemb.evaluation.embedding_memo import EmbeddingMemo
from keras_sentemb.evaluation.fusion_choice import choose_fusion, fusion_candidates
from keras_sentemb.evaluation.trec_measures import mean_measures
from keras_sentemb.retrieval.lexical_index import Bm25, LexicalIndex
from keras_sentemb.retrieval.ranked_runs import run_of
from keras_sentemb.retrieval.run_fusion import ConvexFusion, ReciprocalRankFusion
from tests.evaluation.fake_encoders import CharacterTrigramEncoder

TINY = Path(__file__).parents[1] / "fixtures" / "beir_tiny"


def runs_of(collection, encoder):
    """The dense and the BM25 run of `collection`, built here the long way."""
    documents = encoder.encode(read_beir_folder(TINY).documents)
    dense = dense_run(collection, encoder.encode(collection.queries), documents)
    ids, scores = LexicalIndex(collection.documents, Bm25()).search(collection.queries, 1000)
    return dense, run_of(collection.query_ids, collection.document_ids, ids, scores)


def test_lexical_alone_is_the_bm25_run_measured():
    test = read_beir_folder(TINY)
    _, lexical = runs_of(test, CharacterTrigramEncoder())
    result = evaluate_beir(None, TINY, lexical=True)
    assert list(result.stages) == ["lexical"] and result.fusion is None
    assert result.metrics == pytest.approx(mean_measures(measure_run(lexical, test.qrels)))


def test_the_hybrid_fuses_by_the_choice_on_dev_and_reports_every_stage():
    encoder = CharacterTrigramEncoder()
    test, dev = read_beir_folder(TINY), read_beir_folder(TINY, split="dev")
    best, scores = choose_fusion(list(runs_of(dev, encoder)), dev.qrels, fusion_candidates(floors=(-1.0, 0.0)))
    result = evaluate_beir(encoder, TINY, lexical=True)
    assert result.fusion == str(best) and result.fusion_choice == pytest.approx(scores)
    dense, lexical = runs_of(test, encoder)
    assert list(result.stages) == ["dense", "lexical", "hybrid"]
    assert result.stages["dense"] == pytest.approx(mean_measures(measure_run(dense, test.qrels)))
    assert result.metrics == pytest.approx(mean_measures(measure_run(best.fuse([dense, lexical]), test.qrels)))
    assert {"documents dense", "documents lexical", "dense", "lexical", "dense (dev)", "hybrid"} <= set(
        result.seconds_of
    )


def test_a_given_fusion_is_used_as_given():
    encoder = CharacterTrigramEncoder()
    test = read_beir_folder(TINY)
    dense, lexical = runs_of(test, encoder)
    fusion = ConvexFusion(weight=0.3, floors=(-1.0, 0.0))
    result = evaluate_beir(encoder, test, lexical=True, fusion=fusion)
    assert result.fusion == str(fusion) and result.fusion_choice == {}
    assert result.metrics == pytest.approx(mean_measures(measure_run(fusion.fuse([dense, lexical]), test.qrels)))
    assert evaluate_beir(encoder, test, lexical=True, fusion="rrf").fusion == str(ReciprocalRankFusion())


def test_a_folder_without_dev_qrels_fuses_by_reciprocal_rank(tmp_path):
    folder = shutil.copytree(TINY, tmp_path / "tiny")
    os.remove(folder / "qrels" / "dev.tsv")
    assert evaluate_beir(CharacterTrigramEncoder(), folder, lexical=True).fusion == "rrf(k=60)"


def test_the_fusion_is_never_chosen_on_the_split_it_reports():
    with pytest.raises(ValueError, match="chosen on the split it is measured on"):
        evaluate_beir(CharacterTrigramEncoder(), TINY, split="dev", lexical=True)
    dev = read_beir_folder(TINY, split="dev")
    with pytest.raises(ValueError, match="chosen on the split it is measured on"):
        evaluate_beir(CharacterTrigramEncoder(), dev, lexical=True, fusion_split=dev)


def test_a_collection_without_its_folder_needs_a_dev_collection_or_a_fusion():
    test, dev = read_beir_folder(TINY), read_beir_folder(TINY, split="dev")
    with pytest.raises(ValueError, match="pass fusion_split=read_beir_folder"):
        evaluate_beir(CharacterTrigramEncoder(), test, lexical=True)
    chosen = evaluate_beir(CharacterTrigramEncoder(), test, lexical=True, fusion_split=dev)
    assert chosen.fusion == evaluate_beir(CharacterTrigramEncoder(), TINY, lexical=True).fusion


@pytest.mark.parametrize(
    "arguments, error, words",
    [
        (dict(encoder=None), ValueError, "nothing to evaluate"),
        (dict(lexical="yes"), TypeError, "lexical must be True, a Bm25 or None"),
        (dict(lexical=True, fusion="max"), ValueError, "fusion must be 'dev', 'rrf'"),
    ],
)
def test_bad_arguments_are_refused_before_any_encoding(arguments, error, words):
    encoder = CharacterTrigramEncoder()
    with pytest.raises(error, match=words):
        evaluate_beir(arguments.pop("encoder", encoder), TINY, **arguments)
    assert encoder.encoded == []


def test_a_hybrid_task_reports_each_stages_metrics():
    task = BeirRetrievalTask("tiny", TINY, lexical=True)
    result = task.run(EmbeddingMemo(CharacterTrigramEncoder()))
    assert {"ndcg@10", "dense ndcg@10", "lexical ndcg@10", "hybrid ndcg@10"} <= set(result.metrics)
    assert result.metrics["ndcg@10"] == result.metrics["hybrid ndcg@10"]
    assert result.details["fusion"] and len(result.details["fusion_choice"]) == 10
