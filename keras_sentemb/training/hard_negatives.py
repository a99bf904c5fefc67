"""Hard negatives mined by the model itself, for retrieval fine-tuning with
`MultipleNegativesRankingLoss` (anchor, positive, negative)."""

import dataclasses

import numpy as np

from keras_sentemb.data.examples import Triplets
from keras_sentemb.evaluation.beir_retrieval import encode_for_retrieval


@dataclasses.dataclass
class MinedTriplets:
    """`triplets` (query, relevant document, hard negative) and, per triplet, its query's index
    (`groups`: the `y_true` of `MultipleNegativesRankingLoss(same_anchor_groups=True)`);
    `skipped`: (query, document) pairs for which no candidate passed the filters; `ids` [N, 3]:
    each triplet's (query, document, negative) indices (the `y_true` of
    `MultipleNegativesRankingLoss(relevant_pairs=…)`)."""

    triplets: Triplets
    groups: np.ndarray
    skipped: int
    ids: np.ndarray


def mine_hard_negatives(
    encoder,
    queries,
    documents,
    positives,
    num_negatives=1,
    range_min=0,
    range_max=50,
    margin=None,
    relative_margin=0.05,
    sampling="top",
    relative_to="pair",
    known_positives=None,
    seed=0,
    batch_size=64,
    progress=None,
):
    """For each relevant (query, document) pair, `num_negatives` documents the model ranks high
    for the query but that are not known to be relevant to it:

        candidates(q) = the documents not judged relevant to q, ranked by cos(q, ·): those at
                        ranks range_min … range_max − 1 of that list
        keep c when   cos(q, c) < cos(q, p) − margin               (margin: absolute, optional)
                 and  cos(q, c) < cos(q, p) · (1 − relative_margin) (positive-aware: a candidate
                      almost as close as the positive is likely an unjudged relevant one)

    then the best `num_negatives` of them (`sampling="top"`) or a seeded random draw
    (`"random"`), as sentence-transformers' `mine_hard_negatives` and NV-Retriever's
    "TopK-PercPos" do. Each negative makes one triplet.

    `relative_to="query"` measures the margins against the query's best-scoring positive instead
    of each pair's own, and hands a query's pairs its candidates in turn (its k-th pair starts at
    the k-th candidate): for collections where a query has dozens of graded-relevant documents
    (NFCorpus: 42 on average), most of them ranked below the query's unjudged top documents, the
    per-pair rule leaves most pairs without any negative.

    Args:
        encoder: a `SentenceEncoder` (its query / document prompts are used where it has them).
        queries, documents: lists of texts.
        positives: (query index, document index) pairs, the relevant ones.
        range_min, range_max: the rank window candidates come from, counted among the documents
            not judged relevant (skip the top range_min): a query with 300 relevant documents still
            gets candidates.
        margin, relative_margin: the false-negative filters above (None: off).
        relative_to: "pair" (each pair's positive, sentence-transformers' rule) or "query" (see above).
        known_positives: every (query, document) pair known relevant, when `positives` are a sample
            of them (`query_rounds`): no candidate is one of them. Default: `positives`.

    Returns:
        a `MinedTriplets`.

    (Not run as a doctest: it loads a model and a corpus.)
        mined = mine_hard_negatives(encoder, nfcorpus.queries, nfcorpus.documents, pairs)
        train = examples_dataset(mined.triplets, encoder.tokenizer, labels=mined.groups)
    """
    if sampling not in ("top", "random"):
        raise ValueError(f"sampling must be 'top' or 'random', got {sampling!r}")
    if relative_to not in ("pair", "query"):
        raise ValueError(f"relative_to must be 'pair' or 'query', got {relative_to!r}")
    if not 0 <= range_min < range_max:
        raise ValueError(f"need 0 ≤ range_min < range_max, got {range_min} and {range_max}")
    positives = np.asarray(positives, np.int64).reshape(-1, 2)
    if len(positives) and (
        positives.min() < 0 or positives[:, 0].max() >= len(queries) or positives[:, 1].max() >= len(documents)
    ):
        raise ValueError("positives hold a query or document index out of range")
    relevant = {}
    known = positives if known_positives is None else np.asarray(known_positives, np.int64).reshape(-1, 2)
    for query, document in np.concatenate([known, positives]):
        relevant.setdefault(int(query), set()).add(int(document))
    query_vectors = encode_for_retrieval(encoder, "encode_query", queries, batch_size, progress)
    document_vectors = encode_for_retrieval(encoder, "encode_document", documents, batch_size, progress)
    rng = np.random.default_rng(seed)
    ranked = {}
    anchors, positive_texts, negative_texts, ids, skipped = [], [], [], [], 0
    turn = {}
    for query, document in positives:
        query, document = int(query), int(document)
        if query not in ranked:
            scores = document_vectors @ query_vectors[query]
            window = min(range_max + len(relevant[query]), len(scores))
            top = np.argpartition(-scores, window - 1)[:window] if window < len(scores) else np.arange(len(scores))
            top = top[np.argsort(-scores[top], kind="stable")]
            ranked[query] = (scores, [c for c in top if int(c) not in relevant[query]][range_min:range_max])
        scores, candidates = ranked[query]
        if relative_to == "query":
            positive_score = max(scores[d] for d in relevant[query])
        else:
            positive_score = scores[document]
        keep = [
            c
            for c in candidates
            if (margin is None or scores[c] < positive_score - margin)
            and (relative_margin is None or scores[c] < positive_score * (1 - relative_margin))
        ]
        if not keep:
            skipped += 1
            continue
        if sampling == "random":
            chosen = rng.permutation(keep)[:num_negatives]
        elif relative_to == "query":  # the query's pairs take its candidates in turn
            start = turn.get(query, 0)
            chosen = [keep[(start + i) % len(keep)] for i in range(min(num_negatives, len(keep)))]
            turn[query] = start + len(chosen)
        else:
            chosen = keep[:num_negatives]
        for negative in chosen:
            anchors.append(queries[query])
            positive_texts.append(documents[document])
            negative_texts.append(documents[int(negative)])
            ids.append((query, document, int(negative)))
    ids = np.asarray(ids, np.int64).reshape(-1, 3)
    triplets = Triplets(anchors, positive_texts, negative_texts)
    return MinedTriplets(triplets, ids[:, 0].astype(np.float32), skipped, ids)
