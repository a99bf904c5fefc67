"""Retrieval evaluation the MTEB way, on a BEIR-layout folder.

    result = evaluate_beir(encoder, "data/beir/nfcorpus", split="test")
    result.metrics["ndcg@10"]          # × 100, as MTEB's leaderboard shows it

Documents (title + " " + text, stripped: `read_beir_folder`) go through the encoder's document
prompt (`encode_document`) and queries through its query prompt (`encode_query`), where it has
them; every document is scored by exact cosine similarity (a document encoded as chunks,
`Chunking(pooling=None)`, by its best chunk), the `top_k` best (1,000, as MTEB) form the run, and the run is measured with trec_eval's formulas (`trec_measures`): nDCG@10 over
graded judgements, recall@100, MRR@10, MAP@100. Each query's scores are kept in the result.
"""

import dataclasses
import time

import numpy as np

from keras_sentemb.chunking.chunked_embeddings import ChunkedEmbeddings
from keras_sentemb.data.beir_folder import BeirCollection, read_beir_folder
from keras_sentemb.evaluation.tasks import EvaluationTask, TaskResult
from keras_sentemb.evaluation.trec_measures import mean_measures, trec_measures
from keras_sentemb.retrieval.best_chunk_search import best_chunk_search
from keras_sentemb.retrieval.semantic_search import semantic_search
from keras_sentemb.utils.atomic_files import atomic_open

RETRIEVAL_MEASURES = ("ndcg@10", "recall@100", "mrr@10", "map@100")


@dataclasses.dataclass
class RetrievalResult:
    """`metrics`: the mean of each measure over the judged queries, × 100; `per_query`:
    {query id: {measure: value × 100}}; the collection's sizes and the seconds spent."""

    metrics: dict
    per_query: dict
    queries: int
    documents: int
    seconds: float

    def write_per_query(self, path):
        """Writes `query-id <TAB> measure …` (one line a query, values × 100) atomically."""
        names = list(self.metrics)
        lines = ["query-id\t" + "\t".join(names)]
        lines += [
            query + "\t" + "\t".join(f"{scores[n]:.4f}" for n in names) for query, scores in self.per_query.items()
        ]
        with atomic_open(path, "wb") as f:
            f.write(("\n".join(lines) + "\n").encode("utf-8"))


def encode_for_retrieval(encoder, method, texts, batch_size=64, progress=None, **options):
    """`encoder.encode_query` / `encode_document` (`method`) where the encoder has them, else
    `encode`: the model's query / document prompts; float32 unit rows (or the `ChunkedEmbeddings`
    of `Chunking(pooling=None)`). The evaluation and the hard-negative miner both encode this way."""
    encode = getattr(encoder, method, encoder.encode)
    vectors = encode(texts, batch_size=batch_size, normalize=True, progress=progress, **options)
    return vectors if isinstance(vectors, ChunkedEmbeddings) else np.asarray(vectors, np.float32)


def measure_retrieval(collection, query_vectors, document_vectors, top_k=1000, measures=RETRIEVAL_MEASURES):
    """{query id: {measure: value × 100}} of the exact run of `query_vectors` [Q, d] (rows in
    `collection.query_ids` order) against `document_vectors`: [D, d] rows in
    `collection.document_ids` order, or a `ChunkedEmbeddings` of the documents (best chunk)."""
    if isinstance(document_vectors, ChunkedEmbeddings):
        indices, scores = best_chunk_search(query_vectors, document_vectors.vectors, document_vectors.document, top_k)
    else:
        indices, scores = semantic_search(query_vectors, document_vectors, top_k=top_k)
    run = {
        query: {collection.document_ids[i]: float(s) for i, s in zip(row_indices, row_scores)}
        for query, row_indices, row_scores in zip(collection.query_ids, indices, scores)
    }
    return {
        query: {name: 100.0 * value for name, value in values.items()}
        for query, values in trec_measures(run, collection.qrels, measures).items()
    }


def evaluate_beir(
    encoder,
    collection,
    split="test",
    batch_size=64,
    progress=None,
    top_k=1000,
    measures=RETRIEVAL_MEASURES,
    encode_options=None,
    document_options=None,
):
    """Measures `encoder` on a BEIR collection (a folder, read by `read_beir_folder`, or a
    `BeirCollection`): see the module docstring.

    Args:
        encoder: anything with `encode(texts, batch_size=, normalize=, progress=)` (and, when it
            has them, `encode_query` / `encode_document`, which add its prompts).
        collection: a BEIR folder or a `BeirCollection`.
        split: the qrels split when `collection` is a folder.
        progress: progress bars while encoding (None: from 2,048 texts on).
        top_k: documents retrieved per query (the run the measures read; MTEB keeps 1,000).
        measures: names such as "ndcg@10" (`trec_measures`).
        encode_options: more keyword arguments for every `encode` call (for example
            `{"backend": "openvino"}`).
        document_options: more keyword arguments for the documents' only (for example
            `{"chunking": Chunking(size=128)}`; with `Chunking(pooling=None)` a document scores
            as its best chunk).

    Returns:
        a `RetrievalResult`.
    """
    start = time.perf_counter()
    if not isinstance(collection, BeirCollection):
        collection = read_beir_folder(collection, split=split)
    options = dict(encode_options or {})
    query_vectors = encode_for_retrieval(encoder, "encode_query", collection.queries, batch_size, progress, **options)
    options.update(document_options or {})
    document_vectors = encode_for_retrieval(
        encoder, "encode_document", collection.documents, batch_size, progress, **options
    )
    per_query = measure_retrieval(collection, query_vectors, document_vectors, top_k, measures)
    return RetrievalResult(
        metrics=mean_measures(per_query),
        per_query=per_query,
        queries=len(collection.queries),
        documents=len(collection.documents),
        seconds=time.perf_counter() - start,
    )


class BeirRetrievalTask(EvaluationTask):
    """`evaluate_beir` as a task of an evaluation report (`keras-sentemb evaluate --beir FOLDER`):
    metrics nDCG@10 (main), recall@100, MRR@10, MAP@100 × 100; the per-query scores in the
    report's details. The folder is read (and checked) when the task is built."""

    kind = "retrieval"

    def __init__(self, name, folder, split="test"):
        super().__init__(name)
        self.folder = folder
        self.collection = read_beir_folder(folder, split=split)

    def measure(self, memo):
        result = evaluate_beir(memo.encoder, self.collection, batch_size=memo.batch_size, progress=memo.progress)
        details = {
            "source": str(self.folder),
            "split": self.collection.split,
            "documents": result.documents,
            "per_query": result.per_query,
        }
        return TaskResult(self.name, self.kind, result.metrics, "ndcg@10", result.queries, details=details)
