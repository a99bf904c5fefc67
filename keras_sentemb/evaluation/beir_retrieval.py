"""Retrieval evaluation the MTEB way, on a BEIR-layout folder: dense, lexical (BM25), learned sparse (SPLADE), late
interaction (ColBERT) and their hybrid.

    result = evaluate_beir(encoder, "data/beir/nfcorpus", split="test")
    result.metrics["ndcg@10"]          # × 100, as MTEB's leaderboard shows it
    hybrid = evaluate_beir(encoder, "data/beir/nfcorpus", lexical=True)
    hybrid.stages["dense"], hybrid.stages["lexical"], hybrid.stages["hybrid"], hybrid.fusion

Documents (title + " " + text, stripped: `read_beir_folder`) go through the encoder's document
prompt (`encode_document`) and queries through its query prompt (`encode_query`), where it has
them; every document is scored by exact cosine similarity (a document encoded as chunks,
`Chunking(pooling=None)`, by its best chunk) and the `top_k` best (1,000, as MTEB) form the dense
run; a hashed model's binary codes add a stage per `CodeSearch` (`codes`, `code_retrieval`). With
`lexical` (a `Bm25`, or True for BEIR's parameters) the same documents are indexed by BM25
(`retrieval.LexicalIndex`, on bm25s) for a lexical run, and with an encoder too the two runs are
fused (`retrieval.run_fusion`): by the fusion chosen on the collection's dev qrels (`fusion="dev"`,
the default: reciprocal-rank fusion or a convex combination, `fusion_choice`), or by the one given. A
`SparseEncoder` (as `encoder`, or as `sparse` beside a dense one) adds the "sparse" stage: its document vectors in a
`retrieval.SparseIndex` (exact, or Seismic's with `sparse_engine="seismic"`), its query vectors searched there; the
hybrid fuses whichever two of the dense, lexical and sparse runs there are as above, and all three by reciprocal rank.
A `MultiVectorEncoder` (as `encoder`, or as `multi_vector` beside the others) adds the "multi-vector" stage: its
documents' token vectors in a `retrieval.MultiVectorIndex` (exact MaxSim, or FAISS's candidates with
`multi_vector_engine="faiss"`), its queries' searched there; it joins the hybrid as the others do (a convex fusion with
it normalises each query's scores min-max: MaxSim has no fixed floor).
Every run is measured with trec_eval's formulas (`trec_measures`): nDCG@10 over graded judgements,
recall@100, MRR@10, MAP@100; `metrics` and each query's scores are the main run's (the reranked run,
else the hybrid, else the dense run, else BM25's), `stages` every stage's. With `rerank` (a
cross-encoder), each query's best `rerank_top` documents of that run are re-ordered by its score.
"""

import dataclasses
import os
import time

import numpy as np

from keras_sentemb.chunking.chunked_embeddings import ChunkedEmbeddings
from keras_sentemb.data.beir_folder import BeirCollection, read_beir_folder
from keras_sentemb.evaluation.code_retrieval import CodeSearch, code_run
from keras_sentemb.evaluation.fusion_choice import choose_fusion, fusion_candidates
from keras_sentemb.evaluation.tasks import EvaluationTask, TaskResult
from keras_sentemb.evaluation.trec_measures import mean_measures, trec_measures
from keras_sentemb.models.multi_vector_encoder import MultiVectorEncoder
from keras_sentemb.models.sparse_encoder import SparseEncoder
from keras_sentemb.retrieval.best_chunk_search import best_chunk_search
from keras_sentemb.retrieval.lexical_index import LexicalIndex, lexical_options
from keras_sentemb.retrieval.multi_vector_index import MultiVectorIndex
from keras_sentemb.retrieval.ranked_runs import rank_scored, ranked_ids, reranker_scores, run_of
from keras_sentemb.retrieval.run_fusion import ConvexFusion, ReciprocalRankFusion
from keras_sentemb.retrieval.semantic_search import semantic_search
from keras_sentemb.retrieval.sparse_index import SparseIndex
from keras_sentemb.utils.argument_checks import positive_int
from keras_sentemb.utils.atomic_files import atomic_open

RETRIEVAL_MEASURES = ("ndcg@10", "recall@100", "mrr@10", "map@100")
# the lowest score each run can give (cosine similarity, BM25): the convex fusion's floors
RUN_FLOORS = (-1.0, 0.0)
# each stage's lowest score (the convex fusion's floors) and the order runs are fused in
STAGE_FLOORS = {"dense": -1.0, "lexical": 0.0, "sparse": 0.0, "multi-vector": None}


@dataclasses.dataclass
class RetrievalResult:
    """`metrics`: the mean of each measure over the judged queries, × 100, of the main run (the
    reranked run, else the hybrid, else the dense run, else BM25's); `per_query`: {query id: {measure: value × 100}} of it; the collection's sizes and the
    seconds spent. `stages`: {"dense" | "lexical" | "hybrid": metrics} of each stage run;
    `seconds_of`: {stage: seconds} (the stage's queries alone; "documents dense" / "documents
    lexical" the documents' encoding and indexing); `fusion`: how the hybrid fused (its `str`),
    `fusion_choice`: each candidate's score on the dev split it was chosen on; `bytes_per_document`:
    {"dense" | code search stage: bytes an index holds a document (its float32 rows, or codes and
    rescoring rows)}."""

    metrics: dict
    per_query: dict
    queries: int
    documents: int
    seconds: float
    stages: dict = dataclasses.field(default_factory=dict)
    seconds_of: dict = dataclasses.field(default_factory=dict)
    fusion: str | None = None
    fusion_choice: dict = dataclasses.field(default_factory=dict)
    bytes_per_document: dict = dataclasses.field(default_factory=dict)

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


def dense_run(collection, query_vectors, document_vectors, top_k=1000):
    """The exact cosine run of `query_vectors` [Q, d] (rows in `collection.query_ids` order)
    against `document_vectors`: [D, d] rows in `collection.document_ids` order, or a
    `ChunkedEmbeddings` of the documents (a document scores as its best chunk)."""
    if isinstance(document_vectors, ChunkedEmbeddings):
        indices, scores = best_chunk_search(query_vectors, document_vectors.vectors, document_vectors.document, top_k)
    else:
        indices, scores = semantic_search(query_vectors, document_vectors, top_k=top_k)
    return run_of(collection.query_ids, collection.document_ids, indices, scores)


def measure_run(run, qrels, measures=RETRIEVAL_MEASURES):
    """{query id: {measure: value × 100}} of `run` on `qrels` (trec_eval's formulas)."""
    return {
        query: {name: 100.0 * value for name, value in values.items()}
        for query, values in trec_measures(run, qrels, measures).items()
    }


def measure_retrieval(collection, query_vectors, document_vectors, top_k=1000, measures=RETRIEVAL_MEASURES):
    """{query id: {measure: value × 100}} of the exact dense run (`dense_run`) on the collection's qrels."""
    return measure_run(dense_run(collection, query_vectors, document_vectors, top_k), collection.qrels, measures)


def reranker_head_scores(collection, run, reranker, top, batch_size=64, progress=None):
    """{query: {document: score}}: `reranker.predict_pairs` of (query text, document text) for each query's
    best `top` documents of `run`."""
    texts = dict(zip(collection.document_ids, collection.documents))
    queries = dict(zip(collection.query_ids, collection.queries))
    pairs = [(query, document) for query, scores in run.items() for document in ranked_ids(scores)[:top]]
    scores = reranker_scores(
        reranker,
        [queries[query] for query, _ in pairs],
        [texts[document] for _, document in pairs],
        batch_size,
        progress,
    )
    scored = {query: {} for query in run}
    for (query, document), score in zip(pairs, scores):
        scored[query][document] = score
    return scored


def reordered_run(run, scored, top):
    """`run` with each query's best `top` documents re-ordered by `scored` (ties by `run`'s order) and the rest
    after them in `run`'s order; scored by rank (the first −0, the next −1, …) so that the measures read exactly
    this order."""
    reordered = {}
    for query, scores in run.items():
        ranked = ranked_ids(scores)
        head = ranked[:top]
        by_score = sorted(range(len(head)), key=lambda i: (-scored[query][head[i]], i))
        reordered[query] = rank_scored([head[i] for i in by_score] + ranked[top:])
    return reordered


def reranked_run(collection, run, reranker, top, batch_size=64, progress=None):
    """`run` with each query's best `top` documents re-ordered by the reranker's score of (query, document)
    (`reranker_head_scores`, `reordered_run`)."""
    return reordered_run(run, reranker_head_scores(collection, run, reranker, top, batch_size, progress), top)


def check_fusion(fusion):
    """`fusion` as evaluate_beir takes it: "dev", "rrf", or a ReciprocalRankFusion / ConvexFusion."""
    if fusion == "rrf":
        return ReciprocalRankFusion()
    if fusion == "dev" or isinstance(fusion, (ReciprocalRankFusion, ConvexFusion)):
        return fusion
    raise ValueError(f"fusion must be 'dev', 'rrf', a ReciprocalRankFusion or a ConvexFusion, got {fusion!r}")


def _fusion_collection(collection, folder, split, fusion_split):
    """The collection whose qrels choose the fusion, or None when there is none (no dev qrels)."""
    if isinstance(fusion_split, BeirCollection):
        chosen_on = fusion_split
    elif folder is None:
        raise ValueError(
            "fusion='dev' chooses on dev qrels: with a BeirCollection, pass fusion_split=read_beir_folder(folder, "
            "split='dev') or give the fusion (fusion='rrf', ConvexFusion(weight=…))"
        )
    elif not os.path.isfile(os.path.join(os.fspath(folder), "qrels", f"{fusion_split}.tsv")):
        return None
    else:
        chosen_on = read_beir_folder(folder, split=fusion_split)
    if chosen_on.split == split or (
        chosen_on.query_ids == collection.query_ids and chosen_on.qrels == collection.qrels
    ):
        raise ValueError(
            f"the fusion would be chosen on the split it is measured on ({split!r}): choose it on another "
            "(fusion_split='dev') or give it"
        )
    if chosen_on.document_ids != collection.document_ids:
        raise ValueError(f"the {chosen_on.split!r} collection holds other documents than the {split!r} one")
    return chosen_on


class _Stages:
    """The runs of one evaluation, each stage timed (`seconds_of`)."""

    def __init__(
        self,
        encoder,
        collection,
        batch_size,
        progress,
        top_k,
        options,
        document_options,
        bm25,
        sparse=None,
        engine=None,
        multi_vector=None,
        multi_vector_engine="exact",
        multi_vector_options=((), ()),
        sparse_options=((), ()),
    ):
        self.encoder, self.collection, self.top_k = encoder, collection, top_k
        self.multi_vector_query_options, multi_vector_document_options = (dict(o) for o in multi_vector_options)
        self.sparse_query_options, sparse_document_options = (dict(o) for o in sparse_options)
        self.batch_size, self.progress, self.options = batch_size, progress, options
        self.seconds_of, self.bytes_per_document = {}, {}
        self.document_vectors = self.index = self.sparse_index = None
        self.sparse, self.multi_vector, self.multi_vector_index = sparse, multi_vector, None
        if bm25 is not None:  # first: documents without a word to index fail before any encoding
            self.index = self.timed("documents lexical", lambda: LexicalIndex(collection.documents, bm25, progress))
        if sparse is not None:
            self.sparse_index = self.timed(
                "documents sparse",
                lambda: SparseIndex(
                    sparse.encode_document(
                        collection.documents, batch_size=batch_size, progress=progress, **sparse_document_options
                    ),
                    engine=engine,
                ),
            )
            self.bytes_per_document["sparse"] = self.sparse_index.bytes_per_document
        if multi_vector is not None:
            self.multi_vector_index = self.timed(
                "documents multi-vector",
                lambda: MultiVectorIndex(
                    multi_vector.encode_document(
                        collection.documents, batch_size=batch_size, progress=progress, **multi_vector_document_options
                    ),
                    engine=multi_vector_engine,
                    length_normalize=multi_vector.similarity_fn_name == "meanmaxsim",
                ),
            )
            self.bytes_per_document["multi-vector"] = self.multi_vector_index.bytes_per_document
        if encoder is not None:
            self.document_vectors = self.timed(
                "documents dense",
                lambda: encode_for_retrieval(
                    encoder,
                    "encode_document",
                    collection.documents,
                    batch_size,
                    progress,
                    **{**options, **document_options},
                ),
            )

    def timed(self, stage, work):
        start = time.perf_counter()
        result = work()
        self.seconds_of[stage] = self.seconds_of.get(stage, 0.0) + time.perf_counter() - start
        return result

    def runs(self, queries, stage_suffix="", codes=()):
        """{"dense": run, "lexical": run, str(code search): run …} of `queries` (a collection of the
        same documents); the code searches' bytes a document in `bytes_per_document`."""
        runs = {}
        if self.encoder is not None:
            start = time.perf_counter()
            vectors = encode_for_retrieval(
                self.encoder, "encode_query", queries.queries, self.batch_size, self.progress, **self.options
            )
            encoding = time.perf_counter() - start  # each stage that reads the vectors counts it
            self.seconds_of["dense" + stage_suffix] = encoding
            runs["dense"] = self.timed(
                "dense" + stage_suffix, lambda: dense_run(queries, vectors, self.document_vectors, self.top_k)
            )
            rows = getattr(self.document_vectors, "vectors", self.document_vectors)
            self.bytes_per_document["dense"] = rows.nbytes / len(queries.document_ids)  # float32 rows
            for search in codes:
                self.seconds_of[str(search)] = encoding
                runs[str(search)], self.bytes_per_document[str(search)] = self.timed(
                    str(search),
                    lambda search=search: code_run(
                        queries, self.encoder, vectors, self.document_vectors, search, self.top_k
                    ),
                )
        if self.index is not None:

            def lexical():
                ids, scores = self.index.search(queries.queries, self.top_k)
                return run_of(queries.query_ids, queries.document_ids, ids, scores)

            runs["lexical"] = self.timed("lexical" + stage_suffix, lexical)
        if self.sparse_index is not None:

            def sparse():
                vectors = self.sparse.encode_query(
                    queries.queries, batch_size=self.batch_size, progress=self.progress, **self.sparse_query_options
                )
                ids, scores = self.sparse_index.search(vectors, self.top_k)
                return run_of(queries.query_ids, queries.document_ids, ids, scores)

            runs["sparse"] = self.timed("sparse" + stage_suffix, sparse)
        if self.multi_vector_index is not None:

            def multi_vector():
                vectors = self.multi_vector.encode_query(
                    queries.queries,
                    batch_size=self.batch_size,
                    progress=self.progress,
                    **self.multi_vector_query_options,
                )
                ids, scores = self.multi_vector_index.search(vectors, self.top_k)
                return run_of(queries.query_ids, queries.document_ids, ids, scores)

            runs["multi-vector"] = self.timed("multi-vector" + stage_suffix, multi_vector)
        return runs


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
    lexical=None,
    fusion="dev",
    fusion_split="dev",
    codes=(),
    rerank=None,
    rerank_top=100,
    sparse=None,
    sparse_engine="exact",
    multi_vector=None,
    multi_vector_engine="exact",
    multi_vector_options=None,
    sparse_options=None,
):
    """Measures `encoder`, BM25, a sparse encoder, a multi-vector encoder, or their hybrid on a BEIR collection (a folder, read by
    `read_beir_folder`, or a `BeirCollection`): see the module docstring.

    Args:
        encoder: anything with `encode(texts, batch_size=, normalize=, progress=)` (and, when it
            has them, `encode_query` / `encode_document`, which add its prompts), or a `SparseEncoder` (the sparse
            stage alone); None for BM25 alone.
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
        lexical: a `Bm25` (or True for BEIR's parameters: k1 1.2, b 0.75, English stemming and stop
            words) adds the BM25 stage; None (default) for dense retrieval alone.
        fusion: with an encoder and `lexical`, how the hybrid fuses the two runs: "dev" (default)
            chooses among reciprocal-rank fusion and the convex combinations (`fusion_choice`) on
            `fusion_split`'s qrels, or reciprocal-rank fusion where the folder has none; "rrf"; or
            a `ReciprocalRankFusion` / `ConvexFusion` (runs in the order dense, lexical).
        fusion_split: the split the fusion is chosen on (a folder's qrels split, or a
            `BeirCollection` of the same documents); never `split` itself.
        rerank: a reranker (a `CrossEncoder` of one label, or anything with `predict_pairs(queries,
            documents, batch_size=, progress=)` → one score a pair): the main run's best `rerank_top`
            documents of each query are re-ordered by its score of (query, document), the rest keep
            their order below them; the "rerank" stage, then the main run.
        rerank_top: the documents a query's reranker reads (100, as MTEB's reranking tasks).
        sparse: a `SparseEncoder` beside a dense `encoder`: the "sparse" stage (and its part of the hybrid).
        sparse_engine: "exact" (default) or "seismic": how the sparse stage searches (`retrieval.SparseIndex`).
        sparse_options: more keyword arguments for the sparse encoder's documents (for example
            `{"backend": "openvino", "precision": "bfloat16"}` or `{"max_active_dims": 256}`). A `SparseEncoder`
            given as `encoder` takes `encode_options` (both sides) and `document_options` (its documents) as a dense
            one does.
        multi_vector: a `MultiVectorEncoder` (ColBERT) beside the others: the "multi-vector" stage (and its part of
            the hybrid); a `MultiVectorEncoder` given as `encoder` is this.
        multi_vector_engine: "exact" (default: MaxSim over every document) or "faiss" (`retrieval.MultiVectorIndex`).
        multi_vector_options: more keyword arguments for the multi-vector encoder's documents (for example
            `{"chunking": Chunking(size=256, overlap=32)}`: a long document's windows' token vectors joined, so MaxSim
            reads all of it; `{"backend": "openvino"}`). A `MultiVectorEncoder` given as `encoder` takes
            `encode_options` (both sides) and `document_options` (its documents) as a dense one does.
        codes: `CodeSearch`es (or one) of a `HashedEncoder`'s binary codes, each a stage of its
            own named `str(search)` ("codes 64", "codes 512 + float@100"; `code_retrieval`), beside
            the dense stage of its float vectors.

    Returns:
        a `RetrievalResult`.

    Raises:
        ValueError: no encoder and no `lexical`; a fusion to be chosen on the split measured.
        TypeError: `codes` for an encoder without binary codes (checked before any encoding).
    """
    start = time.perf_counter()
    bm25 = lexical_options(lexical)
    sparse_sides = stage_options(sparse_options)
    if isinstance(encoder, SparseEncoder):
        if sparse is not None:
            raise ValueError("a SparseEncoder as encoder, and sparse= too: give the dense encoder as encoder")
        encoder, sparse = None, encoder
        sparse_sides = stage_options(sparse_options, encode_options, document_options)
    multi_vector_sides = stage_options(multi_vector_options)
    if isinstance(encoder, MultiVectorEncoder):
        if multi_vector is not None:
            raise ValueError("a MultiVectorEncoder as encoder, and multi_vector= too: give one of them")
        encoder, multi_vector = None, encoder
        multi_vector_sides = stage_options(multi_vector_options, encode_options, document_options)
    if sparse is not None and not isinstance(sparse, SparseEncoder):
        raise TypeError(f"sparse must be a SparseEncoder, got {type(sparse).__name__}")
    if multi_vector is not None and not isinstance(multi_vector, MultiVectorEncoder):
        raise TypeError(f"multi_vector must be a MultiVectorEncoder, got {type(multi_vector).__name__}")
    if multi_vector_options and multi_vector is None:
        raise ValueError("multi_vector_options are for a multi-vector encoder, and none is given")
    if sparse_options and sparse is None:
        raise ValueError("sparse_options are for a sparse encoder, and none is given")
    if encoder is None and bm25 is None and sparse is None and multi_vector is None:
        raise ValueError(
            "nothing to evaluate: give an encoder, lexical=True (BM25), a sparse or multi-vector encoder, or several"
        )
    fusion = check_fusion(fusion)
    folder = None
    if not isinstance(collection, BeirCollection):
        folder = collection
        collection = read_beir_folder(collection, split=split)
    else:
        split = collection.split
    codes = [codes] if isinstance(codes, CodeSearch) else list(codes)
    if codes and not hasattr(encoder, "hash_embeddings"):
        raise TypeError(f"codes= needs a HashedEncoder (binary codes), got {type(encoder).__name__}")
    if any(not isinstance(search, CodeSearch) for search in codes):
        raise TypeError(f"codes must be CodeSearch objects, got {codes!r:.80}")
    if rerank is not None and not callable(getattr(rerank, "predict_pairs", None)):
        raise TypeError(f"rerank must have predict_pairs (a CrossEncoder), got {type(rerank).__name__}")
    rerank_top = positive_int(rerank_top, "rerank_top")
    chosen_on = None
    given_kinds = (("dense", encoder), ("lexical", bm25), ("sparse", sparse), ("multi-vector", multi_vector))
    kinds = [kind for kind, given in given_kinds if given is not None]
    if len(kinds) == 2 and fusion == "dev":
        chosen_on = _fusion_collection(collection, folder, split, fusion_split)
    stages = _Stages(
        encoder,
        collection,
        batch_size,
        progress,
        top_k,
        dict(encode_options or {}),
        dict(document_options or {}),
        bm25,
        sparse,
        sparse_engine,
        multi_vector,
        multi_vector_engine,
        multi_vector_sides,
        sparse_sides,
    )
    runs = stages.runs(collection, codes=codes)
    choice = {}
    fused = [kind for kind in STAGE_FLOORS if kind in runs]
    if len(fused) >= 2:
        if fusion == "dev":
            fusion = ReciprocalRankFusion()
            if chosen_on is not None:
                dev_runs = stages.runs(chosen_on, stage_suffix=f" ({chosen_on.split})")
                fusion, choice = choose_fusion(
                    [dev_runs[kind] for kind in fused],
                    chosen_on.qrels,
                    fusion_candidates(floors=_floors(fused)),
                    top_k=top_k,
                )
        runs["hybrid"] = stages.timed("hybrid", lambda: fusion.fuse([runs[kind] for kind in fused], top_k))
    if rerank is not None:
        first = runs[next(stage for stage in ("hybrid", "dense", "multi-vector", "sparse", "lexical") if stage in runs)]
        runs["rerank"] = stages.timed(
            "rerank", lambda: reranked_run(collection, first, rerank, rerank_top, batch_size, progress)
        )
    per_stage = {stage: measure_run(run, collection.qrels, measures) for stage, run in runs.items()}
    main = next(
        stage for stage in ("rerank", "hybrid", "dense", "multi-vector", "sparse", "lexical") if stage in per_stage
    )
    return RetrievalResult(
        metrics=mean_measures(per_stage[main]),
        per_query=per_stage[main],
        queries=len(collection.queries),
        documents=len(collection.documents),
        seconds=time.perf_counter() - start,
        stages={stage: mean_measures(per_query) for stage, per_query in per_stage.items()},
        seconds_of=stages.seconds_of,
        fusion=str(fusion) if "hybrid" in runs else None,
        fusion_choice=choice,
        bytes_per_document=stages.bytes_per_document,
    )


def stage_options(own, encode_options=None, document_options=None):
    """(query options, document options) of a sparse or multi-vector stage: `own` (`sparse_options` /
    `multi_vector_options`) for its documents, over `document_options`, over `encode_options` for both sides (the
    last two given only when the model came as `encoder`).

    >>> stage_options({"max_active_dims": 64}, {"backend": "openvino"}, {"precision": "bfloat16"})
    ({'backend': 'openvino'}, {'backend': 'openvino', 'precision': 'bfloat16', 'max_active_dims': 64})
    """
    both = dict(encode_options or {})
    return both, {**both, **dict(document_options or {}), **dict(own or {})}


def _floors(kinds):
    """The fused stages' lowest possible scores for a convex fusion, or None (min-max a query) when one has none."""
    floors = tuple(STAGE_FLOORS[kind] for kind in kinds)
    return None if None in floors else floors


class BeirRetrievalTask(EvaluationTask):
    """`evaluate_beir` as a task of an evaluation report (`keras-sentemb evaluate --beir FOLDER
    [--lexical] [--rerank MODEL] [--chunk-size N]`): metrics nDCG@10 (main), recall@100, MRR@10, MAP@100 × 100 of
    the main run (the reranked or hybrid one, and each stage's as "dense ndcg@10", "lexical ndcg@10", …); the
    per-query scores, the fusion, each stage's seconds and the `document_options` (`evaluate_beir`'s: a
    `{"chunking": Chunking(...)}`) in the report's details. The folder is read (and checked) when the task is
    built. The model may be a dense encoder, a `SparseEncoder` or a `MultiVectorEncoder`."""

    kind = "retrieval"

    def __init__(
        self, name, folder, split="test", lexical=None, fusion="dev", rerank=None, rerank_top=100, document_options=None
    ):
        super().__init__(name)
        self.folder = folder
        self.collection = read_beir_folder(folder, split=split)
        self.lexical, self.fusion = lexical_options(lexical), check_fusion(fusion)
        self.rerank, self.rerank_top = rerank, positive_int(rerank_top, "rerank_top")
        self.document_options = dict(document_options or {})

    def measure(self, memo):
        result = evaluate_beir(
            memo.encoder,
            self.folder if self.lexical is not None else self.collection,
            split=self.collection.split,
            batch_size=memo.batch_size,
            progress=memo.progress,
            lexical=self.lexical,
            fusion=self.fusion,
            rerank=self.rerank,
            rerank_top=self.rerank_top,
            document_options=self.document_options,
        )
        metrics = dict(result.metrics)
        if len(result.stages) > 1:
            metrics.update(
                {f"{stage} {name}": value for stage, values in result.stages.items() for name, value in values.items()}
            )
        details = {
            "source": str(self.folder),
            "split": self.collection.split,
            "documents": result.documents,
            "per_query": result.per_query,
        }
        if self.document_options:
            details["document_options"] = {name: repr(value) for name, value in self.document_options.items()}
        if result.fusion is not None:
            details.update(fusion=result.fusion, fusion_choice=result.fusion_choice, seconds_of=result.seconds_of)
        return TaskResult(self.name, self.kind, metrics, "ndcg@10", result.queries, details=details)
