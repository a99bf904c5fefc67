"""Fusion of ranked runs (a dense and a lexical one, say) into one run, and its choice on dev qrels.

A run is {query id: {document id: score}} (trec_eval's, as `evaluation.trec_measures` reads it).
For a query, each run r ranks its documents by descending score (rank_r(d) = 1, 2, …; ties by
descending id, trec_eval's order) and fuses them as:

    reciprocal-rank fusion  score(d) = Σ_r 1 / (k + rank_r(d))                     (Cormack et al. 2009, k = 60)
    convex combination      score(d) = Σ_r w_r · (s_r(d) − lo_r) / (hi_r − lo_r)    (Σ_r w_r = 1)

where a document missing from run r adds nothing, hi_r is the run's best score for the query and
lo_r either the lowest score a run of that kind can give (its `floors`: −1 for cosine similarity,
0 for BM25; "theoretical min-max", the better normalisation in Bruch et al. 2023, "An Analysis of
Fusion Functions for Hybrid Retrieval") or, without floors, the query's lowest retrieved score
(min-max). Reciprocal-rank fusion needs no tuning; the convex weight is chosen on dev qrels
(`evaluation.fusion_choice.choose_fusion`), never on the split being measured.

Example:
>>> dense = {"q": {"a": 0.9, "b": 0.5, "c": 0.4}}
>>> lexical = {"q": {"c": 7.0, "b": 5.0}}
>>> fused = ReciprocalRankFusion().fuse([dense, lexical])
>>> sorted(fused["q"], key=fused["q"].get, reverse=True)
['c', 'b', 'a']
>>> fused = ConvexFusion(weight=0.8, floors=(-1.0, 0.0)).fuse([dense, lexical])
>>> sorted(fused["q"], key=fused["q"].get, reverse=True)
['a', 'c', 'b']
"""

import dataclasses
import math

from keras_sentemb.retrieval.ranked_runs import ranked_ids, top_of

DEFAULT_TOP_K = 1000


def _check_runs(runs):
    if not isinstance(runs, (list, tuple)) or len(runs) < 2:
        raise ValueError(f"fusion needs a list of two or more runs, got {type(runs).__name__}")
    for position, run in enumerate(runs):
        if not isinstance(run, dict):
            raise TypeError(f"runs[{position}] must be a dict {{query id: {{document id: score}}}}")
    return list(dict.fromkeys(query for run in runs for query in run))


@dataclasses.dataclass(frozen=True)
class ReciprocalRankFusion:
    """score(d) = Σ_r 1 / (k + rank_r(d)) (the module docstring); `k` > 0 damps the top ranks' weight."""

    k: float = 60

    def __post_init__(self):
        if isinstance(self.k, bool) or not isinstance(self.k, (int, float)) or not 0 < self.k < math.inf:
            raise ValueError(f"ReciprocalRankFusion.k must be a positive number, got {self.k!r}")

    def fuse(self, runs, top_k=DEFAULT_TOP_K):
        """One run of the `top_k` best fused documents of each query any run answers."""
        fused = {}
        for query in _check_runs(runs):
            scores = {}
            for run in runs:
                for rank, document in enumerate(ranked_ids(run.get(query, {})), start=1):
                    scores[document] = scores.get(document, 0.0) + 1.0 / (self.k + rank)
            fused[query] = top_of(scores, top_k)
        return fused

    def __str__(self):
        return f"rrf(k={self.k:g})"


@dataclasses.dataclass(frozen=True)
class ConvexFusion:
    """score(d) = w · ŝ_1(d) + (1 − w) · ŝ_2(d) over two runs, each normalised by (s − lo) / (hi − lo):
    lo = `floors[r]` (the run's lowest possible score) or, with `floors=None`, the query's lowest
    retrieved score (the module docstring). `weight` is the first run's, 0…1."""

    weight: float = 0.5
    floors: tuple | None = None

    def __post_init__(self):
        if isinstance(self.weight, bool) or not isinstance(self.weight, (int, float)) or not 0 <= self.weight <= 1:
            raise ValueError(f"ConvexFusion.weight must be a number in [0, 1], got {self.weight!r}")
        if self.floors is not None:
            floors = tuple(self.floors)
            if len(floors) != 2 or not all(isinstance(f, (int, float)) and math.isfinite(f) for f in floors):
                raise ValueError(f"ConvexFusion.floors must be two finite numbers (one a run) or None, got {floors!r}")
            object.__setattr__(self, "floors", floors)

    def fuse(self, runs, top_k=DEFAULT_TOP_K):
        """One run of the `top_k` best fused documents of each query either run answers."""
        queries = _check_runs(runs)
        if len(runs) != 2:
            raise ValueError(f"ConvexFusion combines two runs, got {len(runs)}")
        weights = (self.weight, 1.0 - self.weight)
        fused = {}
        for query in queries:
            scores = {}
            for position, (run, weight) in enumerate(zip(runs, weights)):
                retrieved = run.get(query, {})
                if not retrieved:
                    continue
                high = max(retrieved.values())
                low = min(retrieved.values()) if self.floors is None else self.floors[position]
                if high < low:
                    raise ValueError(f"runs[{position}]: query {query!r} scores {high} below its floor {low}")
                span = high - low
                for document, score in retrieved.items():
                    normalised = (score - low) / span if span > 0 else 1.0
                    scores[document] = scores.get(document, 0.0) + weight * normalised
            fused[query] = top_of(scores, top_k)
        return fused

    def __str__(self):
        normalisation = "min-max" if self.floors is None else f"floors {self.floors[0]:g}, {self.floors[1]:g}"
        return f"convex(weight={self.weight:g}, {normalisation})"
