"""Nested 512-bit codes: how much of the float STS-B test Spearman each prefix keeps, beside the
codes a user has without one (measured in the same run).

    python benchmarks/nested_codes.py     # 2 CPU cores: ~1 min (two zoo models, 2,552 sentences)

Rows, all on all-MiniLM-L6-v2 and the STS-B test pairs (sentences no code saw in training):
  - nested: `zoo:minilm-l6-hash512-nested` (`distill_hashed_encoder(bits=512, nested_bits=(64, 128,
    256, 512))`), each prefix read with `hash_embeddings(bits=m)`;
  - separate: the zoo's separately trained 256-bit code (`minilm-l6-hash256`);
  - sign (sentence-transformers' `quantize_embeddings(x, "ubinary")`: bit = 1 where x > 0) of the
    384-d vector, and its first m bits — what truncating a binary-quantised non-Matryoshka
    embedding gives;
  - LSH: the sign of m seeded random projections (`sign_threshold_codes(bits=m)`), trained on nothing.
Score: Spearman × 100 of Hamming similarity against the gold scores, and its share of the float
cosine's. Writes a JSON report and docs/nested_codes.png.
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, SHARED_DATA, cpu_flags, machine_description, save_figure  # noqa: E402

from keras_sentemb import zoo  # noqa: E402
from keras_sentemb.data.named_datasets import read_split  # noqa: E402
from keras_sentemb.evaluation.sts import correlations  # noqa: E402
from keras_sentemb.retrieval import sign_threshold_codes  # noqa: E402
from keras_sentemb.utils.atomic_files import atomic_open  # noqa: E402

LADDER = (64, 128, 256, 512)


def hamming_spearman(codes1, codes2, gold):
    distances = np.bitwise_count(codes1 ^ codes2).sum(axis=1, dtype=np.int64)
    return correlations(-distances, gold)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA)
    parser.add_argument("--model", default="minilm-l6-hash512-nested", help="a zoo name")
    parser.add_argument("--separate", default="minilm-l6-hash256", help="a separately trained zoo code")
    parser.add_argument("--report", default=os.path.join("out", "nested_codes.json"))
    parser.add_argument("--plot", default=os.path.join(REPO, "docs", "nested_codes.png"))
    args = parser.parse_args()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")

    pairs = read_split(args.data, "stsb", "test")
    gold = np.asarray(pairs.scores, np.float64)
    nested = zoo.load(args.model)
    ladder = tuple(nested.hashing.nested_bits or (nested.bits,))
    first, second = (nested.encode(texts, progress=False) for texts in (pairs.sentences1, pairs.sentences2))
    float_spearman = correlations((first * second).sum(axis=1), gold)[0]
    rows = {"float cosine (384 × float32)": {"bits": None, "spearman": float_spearman}}
    for bits in ladder:
        codes = [nested.hash_embeddings(x, bits=bits) for x in (first, second)]
        rows[f"nested {nested.bits}, first {bits} bits"] = {"bits": bits, "spearman": hamming_spearman(*codes, gold)}
    separate = zoo.load(args.separate)
    codes = [separate.hash_embeddings(x) for x in (first, second)]
    rows[f"separate {separate.bits}-bit code ({args.separate})"] = {
        "bits": separate.bits,
        "spearman": hamming_spearman(*codes, gold),
    }
    signs = [sign_threshold_codes(x) for x in (first, second)]
    for bits in (64, 128, 256, 384):
        rows[f"sign of the float vector (ST ubinary), first {bits} bits"] = {
            "bits": bits,
            "spearman": hamming_spearman(signs[0][:, : bits // 8], signs[1][:, : bits // 8], gold),
        }
    for bits in LADDER:
        codes = [sign_threshold_codes(x, bits=bits, seed=0) for x in (first, second)]
        rows[f"random-projection LSH, {bits} bits"] = {"bits": bits, "spearman": hamming_spearman(*codes, gold)}

    print(f"\nSTS-B test, {len(gold)} pairs; Spearman × 100 and its share of the float cosine's")
    print(f"{'code':<62}{'Spearman':>10}{'of float':>10}")
    for name, row in rows.items():
        row["share_of_float"] = row["spearman"] / float_spearman
        print(f"{name:<62}{row['spearman']:>10.2f}{100 * row['share_of_float']:>9.1f}%")
    report = {"machine": machine_description(), "cpu_flags": cpu_flags(), "model": args.model, "rows": rows}
    os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
    with atomic_open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    plot(rows, float_spearman, args.plot)
    print(f"\nwrote {args.report} and {args.plot}")


def plot(rows, float_spearman, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for prefix, style, label in (
        ("nested", "-o", "nested 512-bit code, its prefixes"),
        ("sign", "--s", "sign of the float vector (ST ubinary), its prefixes"),
        ("random", ":^", "random-projection LSH"),
    ):
        points = sorted(
            (row["bits"], 100 * row["share_of_float"]) for name, row in rows.items() if name.startswith(prefix)
        )
        ax.plot([b for b, _ in points], [s for _, s in points], style, label=label)
    for name, row in rows.items():
        if name.startswith("separate"):
            ax.plot(
                [row["bits"]], [100 * row["share_of_float"]], "D", color="black", label="separately trained 256-bit"
            )
    ax.axhline(100, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks([64, 128, 256, 384, 512], ["64", "128", "256", "384", "512"])
    ax.set_xlabel("bits compared")
    ax.set_ylabel("% of the float cosine's STS-B test Spearman")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(f"all-MiniLM-L6-v2 (float Spearman {float_spearman:.2f}), STS-B test", fontsize=9)
    save_figure(fig, path)


if __name__ == "__main__":
    main()
