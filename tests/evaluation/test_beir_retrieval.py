"""evaluate_beir ranks every document by exact cosine, prompts queries and documents as the
model does, and measures the run as pytrec_eval would."""

from pathlib import Path

import numpy as np
import pytest

from keras_sentemb.chunking import ChunkedEmbeddings
from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.evaluation.beir_retrieval import BeirRetrievalTask, evaluate_beir, measure_retrieval
from keras_sentemb.evaluation.embedding_memo import EmbeddingMemo
from keras_sentemb.evaluation.trec_measures import trec_measures
from tests.evaluation.fake_encoders import CharacterTrigramEncoder

TINY = Path(__file__).parents[1] / "fixtures" / "beir_tiny"


class PromptedEncoder(CharacterTrigramEncoder):
    """Records which texts went through which prompt."""

    def encode_query(self, texts, **kwargs):
        return self.encode(["query: " + t for t in texts], **kwargs)

    def encode_document(self, texts, **kwargs):
        return self.encode(["passage: " + t for t in texts], **kwargs)


def test_the_measures_are_those_of_the_exact_cosine_run():
    encoder = CharacterTrigramEncoder()
    collection = read_beir_folder(TINY)
    result = evaluate_beir(encoder, TINY, top_k=5)
    queries = encoder.encode(collection.queries)
    documents = encoder.encode(collection.documents)
    scores = queries @ documents.T
    run = {}
    for query, row in zip(collection.query_ids, scores):
        best = np.argsort(-row, kind="stable")[:5]
        run[query] = {collection.document_ids[i]: float(row[i]) for i in best}
    expected = trec_measures(run, collection.qrels)
    assert result.queries == 4 and result.documents == 12
    for query in collection.query_ids:
        for name, value in expected[query].items():
            assert result.per_query[query][name] == pytest.approx(100 * value, abs=1e-4)
    assert result.metrics["ndcg@10"] == pytest.approx(np.mean([100 * v["ndcg@10"] for v in expected.values()]))


def test_queries_and_documents_go_through_the_models_prompts():
    encoder = PromptedEncoder()
    evaluate_beir(encoder, TINY)
    assert "query: Treating asthma with diet" in encoder.encoded
    assert any(text.startswith("passage: Statins and breast cancer") for text in encoder.encoded)


def test_a_task_reports_ndcg_at_10_and_keeps_each_querys_scores(tmp_path):
    task = BeirRetrievalTask("nfcorpus-tiny", TINY)
    result = task.run(EmbeddingMemo(CharacterTrigramEncoder()))
    assert result.main_metric == "ndcg@10" and result.size == 4
    assert set(result.details["per_query"]) == {"q1", "q2", "q3", "q4"}
    evaluated = evaluate_beir(CharacterTrigramEncoder(), TINY)
    evaluated.write_per_query(tmp_path / "per_query.tsv")
    lines = (tmp_path / "per_query.tsv").read_text().splitlines()
    assert lines[0] == "query-id\tndcg@10\trecall@100\tmrr@10\tmap@100" and len(lines) == 5


def test_a_document_kept_as_chunks_scores_as_its_best_chunk():
    collection = read_beir_folder(TINY)
    encoder = CharacterTrigramEncoder()
    queries = encoder.encode(collection.queries)
    documents = encoder.encode(collection.documents)
    # every document twice: itself and a useless constant chunk; its best chunk is itself unless
    # the constant one scores higher, exactly what the max-sim rule says
    constant = np.full((1, documents.shape[1]), 1 / np.sqrt(documents.shape[1]), np.float32)
    chunks = ChunkedEmbeddings(
        np.concatenate([np.concatenate([row[None], constant]) for row in documents]),
        np.repeat(np.arange(len(documents)), 2),
        np.zeros(2 * len(documents), np.int64),
        np.zeros(2 * len(documents), np.int64),
    )
    best = np.maximum(queries @ documents.T, queries @ constant.T)
    expected = {}
    for query, row in zip(collection.query_ids, best):
        expected[query] = {collection.document_ids[i]: float(s) for i, s in enumerate(row)}
    reference = trec_measures(expected, collection.qrels)
    measured = measure_retrieval(collection, queries, chunks)
    for query in collection.query_ids:
        assert measured[query]["ndcg@10"] == pytest.approx(100 * reference[query]["ndcg@10"], abs=1e-4)
