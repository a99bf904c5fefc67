"""The retrieval fine-tuning anchor: MultipleNegativesRanking fine-tuning of a sentence-transformers
folder on a BEIR folder's train qrels, in plain PyTorch, to choose the recipe on the dev split.

Runs in the throwaway interpreter with PyTorch (`make anchor-venv`), on a GPU when there is one (the
runs in docs/document_search.md ran on a lent H200; on two CPU cores one variant takes hours). It
shares nothing with keras_sentemb but the measures: nDCG@10 is graded, by
keras_sentemb/evaluation/trec_measures.py loaded as a file (plain Python, no TensorFlow).

    python benchmarks/anchors/retrieval_finetune_anchor.py --beir DATA/beir/nfcorpus --stsb DATA/stsb/test.tsv \
        --model MODEL_FOLDER --variants rounds_lr5e-5,pairs_in_batch --out results.json

Each variant starts from the folder's weights: batches of 32, AdamW (weight decay 0.01), warm-up over
10 % of the steps then linear decay, gradient norm clipped at 1, scale 20, bfloat16 autocast on a GPU;
a candidate known relevant to a row's query (any train qrel) is left out of its softmax ("positives"
mask) or only the rows of the same query are ("groups"). Hard negatives: per pair, the query's
non-positive documents ranked range_min … range_max − 1 by the base model, below 95 % of the query's
best positive, handed to its pairs in turn. Dev, test nDCG@10 and STS-B test Spearman are printed
along the way and written to `--out` (every file may be gzip'ed: name.gz is read when name is absent).
"""

import argparse
import gzip
import importlib.util
import json
import os
import time

import numpy as np
import torch
from scipy.stats import spearmanr
from sentence_transformers import SentenceTransformer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
START = time.time()

# name: (hard negatives, rank window, learning rate, epochs, sampling, mask, evaluate at steps)
VARIANTS = {
    "pairs_in_batch": (0, (0, 50), 2e-5, 1, "pairs", "positives", (100, 250, 500, 1000, 2000)),
    "pairs_hard_top50": (1, (0, 50), 2e-5, 1, "pairs", "positives", (100, 250, 500, 1000, 2000)),
    "pairs_hard_ranks30_100": (1, (30, 100), 2e-5, 1, "pairs", "positives", (100, 250, 500, 1000, 2000)),
    "pairs_in_batch_groups_mask": (0, (0, 50), 2e-5, 1, "pairs", "groups", (250, 500, 1000)),
    "rounds_lr2e-5": (0, (0, 50), 2e-5, 6, "rounds", "positives", (100, 250)),
    "rounds_lr5e-5": (0, (0, 50), 5e-5, 6, "rounds", "positives", (100, 250)),
    "rounds_lr2e-5_12_epochs": (0, (0, 50), 2e-5, 12, "rounds", "positives", (100, 250, 500)),
}


def log(*parts):
    print(f"[{time.time() - START:6.0f}s]", *parts, flush=True)


def open_text(path):
    return open(path, encoding="utf-8") if os.path.exists(path) else gzip.open(path + ".gz", "rt", encoding="utf-8")


def trec_measures_module():
    spec = importlib.util.spec_from_file_location(
        "trec_measures", os.path.join(REPO, "keras_sentemb", "evaluation", "trec_measures.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Collection:
    """A BEIR folder's documents (title + " " + text, stripped), queries and qrels of each split."""

    def __init__(self, folder, stsb):
        with open_text(os.path.join(folder, "corpus.jsonl")) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        self.document_ids = [row["_id"] for row in rows]
        self.documents = [(row.get("title", "") + " " + row.get("text", "")).strip() for row in rows]
        self.document_row = {d: i for i, d in enumerate(self.document_ids)}
        with open_text(os.path.join(folder, "queries.jsonl")) as f:
            self.queries = {row["_id"]: row["text"] for row in map(json.loads, filter(str.strip, f))}
        self.qrels = {
            split: self._qrels(os.path.join(folder, "qrels", split + ".tsv")) for split in ("train", "dev", "test")
        }
        with open_text(stsb) as f:
            next(f)
            self.sts = [(float(p[0]), p[1], p[2]) for p in (line.rstrip("\n").split("\t") for line in f)]
        self.positives = {
            q: {self.document_row[d] for d, grade in judged.items() if grade > 0 and d in self.document_row}
            for q, judged in self.qrels["train"].items()
        }
        self.pairs = [(q, d) for q, documents in self.positives.items() for d in sorted(documents)]

    def _qrels(self, path):
        judged = {}
        with open_text(path) as f:
            next(f)
            for line in f:
                query, document, grade = line.rstrip("\n").split("\t")
                if query in self.queries:
                    judged.setdefault(query, {})[document] = int(grade)
        return judged


def load(folder):
    model = SentenceTransformer(folder, device=DEVICE, model_kwargs={"dtype": torch.float32})
    return model.float()


@torch.no_grad()
def encode(model, texts):
    model.eval()
    vectors = model.encode(texts, batch_size=256, convert_to_tensor=True, normalize_embeddings=True)
    return vectors.float()


@torch.no_grad()
def evaluate(model, data, measures):
    documents = encode(model, data.documents)
    result = {}
    for split in ("dev", "test"):
        query_ids = list(data.qrels[split])
        scores, rows = (encode(model, [data.queries[q] for q in query_ids]) @ documents.T).topk(
            min(100, len(documents)), dim=1
        )
        run = {
            q: {data.document_ids[r]: float(s) for s, r in zip(top.tolist(), at.tolist())}
            for q, top, at in zip(query_ids, scores, rows)
        }
        per_query = measures.trec_measures(run, data.qrels[split], ("ndcg@10",))
        result[split] = round(100 * measures.mean_measures(per_query)["ndcg@10"], 2)
    first, second = encode(model, [s[1] for s in data.sts]), encode(model, [s[2] for s in data.sts])
    result["stsb"] = round(
        100 * float(spearmanr((first * second).sum(1).cpu().numpy(), [s[0] for s in data.sts])[0]), 2
    )
    return result


def mine(model, data, range_min, range_max, relative_margin=0.05):
    documents = encode(model, data.documents)
    query_ids = sorted(data.positives)
    similarity = (encode(model, [data.queries[q] for q in query_ids]) @ documents.T).cpu().numpy()
    candidates = {}
    for i, q in enumerate(query_ids):
        ranked = [r for r in np.argsort(-similarity[i]) if r not in data.positives[q]][range_min:range_max]
        best = max(similarity[i][r] for r in data.positives[q])
        candidates[q] = [r for r in ranked if similarity[i][r] < best * (1 - relative_margin)]
    turn, negatives = {}, []
    for q, _ in data.pairs:
        k = turn.get(q, 0)
        turn[q] = k + 1
        negatives.append(candidates[q][k % len(candidates[q])] if candidates[q] else None)
    return negatives


def batches(data, negatives, sampling, epochs, rng, batch_size=32):
    """Yields (pairs, negatives or None) batches: every pair each epoch, or one pair a query each epoch."""
    index_by_query = {}
    for i, (q, _) in enumerate(data.pairs):
        index_by_query.setdefault(q, []).append(i)
    for _ in range(epochs):
        chosen = (
            np.arange(len(data.pairs))
            if sampling == "pairs"
            else np.array([int(rng.choice(rows)) for rows in index_by_query.values()])
        )
        order = chosen[rng.permutation(len(chosen))]
        for start in range(0, len(order) - batch_size + 1, batch_size):
            rows = order[start : start + batch_size]
            yield [data.pairs[i] for i in rows], (None if negatives is None else [negatives[i] for i in rows])


def fine_tune(name, data, model_folder, measures, seed=0, max_seconds=None, batch_size=32):
    hard, (range_min, range_max), learning_rate, epochs, sampling, mask, evaluate_at = VARIANTS[name]
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = load(model_folder)
    negatives = mine(model, data, range_min, range_max) if hard else None
    per_epoch = max(1, (len(data.pairs) if sampling == "pairs" else len(data.positives)) // batch_size)
    total = epochs * per_epoch
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)
    warmup = max(1, int(0.1 * total))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup)))
    )
    log(
        f"== {name}: {total} steps of 32, {sampling}, hard negatives {hard} {range_min}–{range_max}, lr {learning_rate}"
    )
    curve, step, start = [], 0, time.time()
    for pairs, hard_negatives in batches(data, negatives, sampling, epochs, rng, batch_size):
        model.train()
        columns = [d for _, d in pairs]
        if hard_negatives is not None:
            columns += [n if n is not None else int(rng.integers(len(data.documents))) for n in hard_negatives]
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=DEVICE == "cuda"):
            features = [
                model.tokenize(texts)
                for texts in ([data.queries[q] for q, _ in pairs], [data.documents[c] for c in columns])
            ]
            features = [{k: (v.to(DEVICE) if torch.is_tensor(v) else v) for k, v in f.items()} for f in features]
            queries, documents = (
                torch.nn.functional.normalize(model(f)["sentence_embedding"].float(), dim=-1) for f in features
            )
        logits = 20.0 * queries @ documents.T
        known = torch.zeros_like(logits, dtype=torch.bool)
        for i, (q, _) in enumerate(pairs):
            for j, c in enumerate(columns[: len(pairs)]):
                if j != i and (c in data.positives[q] if mask == "positives" else pairs[j][0] == q):
                    known[i, j] = True
        loss = torch.nn.functional.cross_entropy(
            logits.masked_fill(known, -1e4), torch.arange(len(pairs), device=DEVICE)
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        step += 1
        capped = max_seconds is not None and time.time() - start > max_seconds
        if step in evaluate_at or step % per_epoch == 0 or step == total or capped:
            point = {**evaluate(model, data, measures), "step": step, "seconds": round(time.time() - start, 1)}
            curve.append(point)
            log(name, point)
        if capped or step == total:
            break
    return {
        "name": name,
        "hard_negatives": hard,
        "range": [range_min, range_max],
        "learning_rate": learning_rate,
        "epochs": epochs,
        "sampling": sampling,
        "mask": mask,
        "total_steps": total,
        "curve": curve,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", required=True)
    parser.add_argument("--stsb", required=True, help="STS-B test TSV (score, sentence1, sentence2 first)")
    parser.add_argument("--model", required=True, help="a sentence-transformers folder")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-seconds", type=float, default=None, help="stop each variant after this long")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    measures = trec_measures_module()
    data = Collection(args.beir, args.stsb)
    log("device", DEVICE, torch.cuda.get_device_name() if DEVICE == "cuda" else "", torch.__version__)
    results = [{"name": "base", "curve": [evaluate(load(args.model), data, measures)]}]
    log("base", results[0]["curve"][0])
    for name in args.variants.split(","):
        results.append(
            fine_tune(name, data, args.model, measures, max_seconds=args.max_seconds, batch_size=args.batch_size)
        )
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"device": DEVICE, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
