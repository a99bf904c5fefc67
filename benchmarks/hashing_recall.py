"""Learned 64…1024-bit codes vs sign-threshold codes: neighbour recall and STS-B.

    python benchmarks/hashing_recall.py            # 2 CPU cores: ~13 min, plus ~6 min of encoding on the first run
    python benchmarks/hashing_recall.py --select --bits 256 --distill '{"pair_weight": 0.2}'

Corpus: every distinct sentence of ../shared/data except the STS-B test set (so the STS-B
figures use sentences no code ever saw), shuffled with a fixed seed; the first 1,000 are
held apart as queries, the rest (≈162k) is the corpus. Embeddings of the default model
(all-MiniLM-L6-v2) are cached in benchmarks/.cache, verified by content hash.

For each code length the learned codes (`distill_hashed_encoder` on the corpus
embeddings; at 256 bits also jointly with a pair task: the STS-B train pairs that share no
sentence with STS-B test or the queries) and the training-free sign-threshold
codes (`sign_threshold_codes`: random hyperplanes, i.e. sentence-transformers'
`quantize_embeddings` after a random projection; at 384 bits also the plain sign of the
embedding) are scored by
  (a) recall@10 of the true float-cosine top-10 in the Hamming top-10;
  (b) recall@10 after re-ranking the Hamming top-100 with the float vectors;
  STS-B test Spearman × 100 of Hamming similarity, next to the float cosine's.
`distill`'s defaults were chosen with `--select`: the same measures on 1,000 validation
queries (the next 1,000 sentences, taken out of the corpus) and on STS-B dev, so the
figures above are measured on queries and pairs no choice looked at.
Writes a JSON report and a PNG of the recall curves.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, SHARED_DATA, machine_description, save_figure  # noqa: E402

from keras_sentemb import SentenceEncoder  # noqa: E402
from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.data.sentence_corpus import collect_sentences  # noqa: E402
from keras_sentemb.evaluation import neighbour_recall  # noqa: E402
from keras_sentemb.retrieval import BinaryIndex, semantic_search, sign_threshold_codes  # noqa: E402
from keras_sentemb.training import distill_hashed_encoder
from keras_sentemb.training.code_distillation import corpus_pairs  # noqa: E402
from keras_sentemb.utils.array_cache import cached_array, fingerprint, fingerprint_texts, fingerprint_weights  # noqa: E402
from keras_sentemb.utils.atomic_files import atomic_open  # noqa: E402


def hamming_spearman(codes1, codes2, gold):
    distances = np.bitwise_count(codes1 ^ codes2).sum(axis=1, dtype=np.int64)
    return float(spearmanr(-distances, gold).statistic * 100)


def score_codes(bits, corpus_codes, query_codes, corpus_emb, query_emb, true_top10, sts_codes, gold):
    index = BinaryIndex(bits)
    index.add(corpus_codes)
    _, hamming_top10 = index.search(query_codes, 10)
    _, reranked_top10 = index.search_and_rerank(query_codes, query_emb, corpus_emb, 10, factor=10)
    return {
        "recall_hamming": neighbour_recall(hamming_top10, true_top10),
        "recall_rerank100": neighbour_recall(reranked_top10, true_top10),
        "stsb_spearman": hamming_spearman(*sts_codes, gold),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA)
    parser.add_argument("--bits", default="64,128,256,512,1024")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--distill",
        type=json.loads,
        default={},
        help="distill_hashed_encoder keyword arguments as JSON, e.g. '{\"pair_weight\": 0.2}'",
    )
    parser.add_argument(
        "--select",
        action="store_true",
        help="model-selection protocol: the next --queries sentences as validation "
        "queries (out of the corpus) and STS-B dev instead of test; no plot",
    )
    parser.add_argument("--cache", default=os.path.join(REPO, "benchmarks", ".cache"))
    parser.add_argument("--plot", default=os.path.join(REPO, "docs", "hashing_recall.png"))
    parser.add_argument("--report", default=os.path.join("out", "hashing_recall.json"))
    args = parser.parse_args()
    bit_counts = [int(b) for b in args.bits.split(",")]
    print(f"machine: {machine_description()}")

    sentences = collect_sentences(args.data, exclude_files=["stsb/test.tsv"])
    order = np.random.default_rng(args.seed).permutation(len(sentences))
    sentences = [sentences[i] for i in order]
    held_out = 2 * args.queries if args.select else args.queries
    queries, corpus = sentences[held_out - args.queries : held_out], sentences[held_out:]
    sts_split = "dev" if args.select else "test"
    sts = read_scored_pairs(os.path.join(args.data, "stsb", f"{sts_split}.tsv"))
    train_pairs = read_scored_pairs(os.path.join(args.data, "stsb", "train.tsv"))

    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    weights = fingerprint_weights(encoder)

    def embed(name, texts):
        key = fingerprint(name, fingerprint_texts(texts), weights)
        return cached_array(args.cache, name, key, lambda: encoder.encode(texts, progress=True))

    start = time.perf_counter()
    all_emb = embed("minilm-l6-shared-sentences", sentences)
    query_emb, corpus_emb = all_emb[held_out - args.queries : held_out], all_emb[held_out:]
    sts1 = embed(f"minilm-l6-stsb-{sts_split}-1", sts.sentences1)
    sts2 = embed(f"minilm-l6-stsb-{sts_split}-2", sts.sentences2)
    pairs = corpus_pairs(train_pairs, corpus, corpus_emb)
    print(f"embeddings ready in {time.perf_counter() - start:.0f} s")
    print(
        f"corpus {len(corpus):,} sentences, {len(queries):,} held-apart "
        f"{'validation ' if args.select else ''}queries, STS-B {sts_split} {len(sts)} pairs; "
        f"pair task: {len(pairs[2]):,} of {len(train_pairs):,} STS-B train pairs (the others share "
        "a sentence with STS-B test or the queries)"
    )
    true_top10, _ = semantic_search(query_emb, corpus_emb, top_k=10)
    float_spearman = float(spearmanr(np.sum(sts1 * sts2, axis=1), sts.scores).statistic * 100)

    def learned(bits, **options):
        start = time.perf_counter()
        hashed = distill_hashed_encoder(
            encoder, corpus_emb, bits, **{"seed": args.seed, "verbose": 0, **args.distill, **options}
        )
        seconds = time.perf_counter() - start
        learn = hashed.hash_embeddings
        return {
            **score_codes(
                bits,
                learn(corpus_emb),
                learn(query_emb),
                corpus_emb,
                query_emb,
                true_top10,
                (learn(sts1), learn(sts2)),
                sts.scores,
            ),
            "train_seconds": seconds,
        }

    results = {"float": {"stsb_spearman": float_spearman}, "learned": {}, "sign": {}, "learned + pair task": {}}
    for bits in bit_counts + [384]:

        def sign(x, bits=bits):
            return sign_threshold_codes(x, None if bits == 384 else bits, seed=args.seed)

        results["sign"][bits] = score_codes(
            bits,
            sign(corpus_emb),
            sign(query_emb),
            corpus_emb,
            query_emb,
            true_top10,
            (sign(sts1), sign(sts2)),
            sts.scores,
        )
        if bits == 384:
            continue
        results["learned"][bits] = learned(bits)
        if bits == 256:
            results["learned + pair task"][bits] = learned(bits, pairs=pairs)
        print(f"{bits:5d} bits: learned {results['learned'][bits]}, sign {results['sign'][bits]}", flush=True)

    print(f"\nSTS-B {sts_split} Spearman×100, float cosine: {float_spearman:.2f}")
    print(f"{'bits':>5} {'codes':<20} {'R@10 Hamming':>13} {'R@10 rerank100':>15} {'STS-B ρ':>8} {'% of float':>10}")
    for bits in bit_counts + [384]:
        for method in ("learned", "learned + pair task", "sign"):
            row = results[method].get(bits)
            if row is None:
                continue
            print(
                f"{bits:5d} {method:<20} {row['recall_hamming']:13.3f} {row['recall_rerank100']:15.3f} "
                f"{row['stsb_spearman']:8.2f} {100 * row['stsb_spearman'] / float_spearman:9.1f}%"
            )
    ratio_bits = 256 if 256 in bit_counts else bit_counts[0]
    learned_row, sign_row = results["learned"][ratio_bits], results["sign"][ratio_bits]
    print(
        f"\n{ratio_bits} bits, learned / sign-threshold: R@10 Hamming "
        f"{learned_row['recall_hamming'] / sign_row['recall_hamming']:.2f}×, rerank "
        f"{learned_row['recall_rerank100'] / sign_row['recall_rerank100']:.2f}×, STS-B "
        f"{learned_row['stsb_spearman'] / sign_row['stsb_spearman']:.3f}×"
    )

    with atomic_open(args.report, "w") as f:
        json.dump(
            {
                "machine": machine_description(),
                "protocol": "select" if args.select else "test",
                "distill": args.distill,
                "corpus": len(corpus),
                "queries": len(queries),
                "pair_task_pairs": len(pairs[2]),
                **results,
            },
            f,
            indent=1,
        )
    if not args.select:
        plot(results, bit_counts, args.plot)
    print(f"wrote {args.report}" + ("" if args.select else f" and {args.plot}"))


def plot(results, bit_counts, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for method, colour in (("learned", "tab:blue"), ("sign", "tab:orange")):
        xs = [b for b in bit_counts if b in results[method]]
        for key, style, label in (
            ("recall_rerank100", "-o", "Hamming top-100 + float re-rank"),
            ("recall_hamming", "--s", "Hamming alone"),
        ):
            ax.plot(xs, [results[method][b][key] for b in xs], style, color=colour, label=f"{method}: {label}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(bit_counts, [str(b) for b in bit_counts])
    ax.set_xlabel("code length (bits)")
    ax.set_ylabel("recall@10 of the float top-10")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("all-MiniLM-L6-v2 codes, 1,000 queries vs ≈162k sentences", fontsize=9)
    save_figure(fig, path)


if __name__ == "__main__":
    main()
