"""Search hits as the shell shows them: a block of ranked lines a query, or a JSON line a query."""

import json


def print_hits(queries, ids, scores, corpus, measure, as_json):
    """One block (or JSON line) a query: rank, `measure` value, corpus line number, text. An id may be
    a (line, chunk) pair, `corpus` then maps it to the chunk's text."""
    integer = measure == "hamming"
    for query, row_ids, row_scores in zip(queries, ids, scores):
        hits = [
            {
                "line": int(i[0] if isinstance(i, tuple) else i) + 1,
                measure: int(s) if integer else round(float(s), 4),
                "text": corpus[i],
            }
            for i, s in zip(row_ids, row_scores)
            if (i[0] if isinstance(i, tuple) else i) >= 0  # an approximate index may find fewer lines than asked
        ]
        if as_json:
            print(json.dumps({"query": query, "hits": hits}, ensure_ascii=False))
            continue
        print(f"query: {query}")
        for rank, hit in enumerate(hits, start=1):
            value = hit[measure] if integer else f"{hit[measure]:.4f}"
            label = "" if measure == "score" else f"{measure} "
            print(f"  {rank}. {label}{value}  [line {hit['line']}] {hit['text']}")
