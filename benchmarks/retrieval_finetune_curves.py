"""Retrieval fine-tuning on NFCorpus: the dev-split choices of the PyTorch anchor beside our run of the chosen recipe.

    python benchmarks/retrieval_finetune_curves.py --anchor docs/retrieval_finetune_anchor.json \
        --ours out/train_retrieval_minilm/report.json [--also out/train_retrieval_mpnet/report.json] \
        [--plot docs/retrieval_finetune.png]

`--anchor`: the JSON written by benchmarks/anchors/retrieval_finetune_anchor.py (each variant's dev / test
nDCG@10 and STS-B test Spearman along its steps). `--ours`: the report of examples/train_retrieval.py
(nDCG@10 on dev after each epoch, test before and after, STS-B before and after). Prints one row per
variant (its best dev point, the test and STS-B there), then ours beside the anchor variant of the same
recipe, as differences; `--also`: other models' reports of the same recipe (all-mpnet-base-v2's: the anchor
ran MiniLM only), before → after; `--plot` draws dev nDCG@10 against the training examples seen.
"""

import argparse
import json


def best_point(curve):
    return max(curve, key=lambda point: point["dev"])


def dev_curve(report):
    """(training examples seen, dev nDCG@10) of an examples/train_retrieval.py report: before training, then
    after each epoch."""
    per_epoch = report["steps_per_epoch"] * report["batch_size"]
    by_epoch = report["dev_ndcg_at_10_by_epoch"]
    return [0] + [per_epoch * (e + 1) for e in range(len(by_epoch))], [report["dev_ndcg_at_10_before"]] + by_epoch


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor", required=True)
    parser.add_argument("--ours", required=True)
    parser.add_argument("--recipe", default="rounds_lr5e-5", help="the anchor variant our run follows")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--also", nargs="*", default=[], help="reports of other models run with the same recipe (no anchor)"
    )
    parser.add_argument("--plot", default=None)
    args = parser.parse_args()
    with open(args.anchor, encoding="utf-8") as f:
        anchor = json.load(f)
    with open(args.ours, encoding="utf-8") as f:
        ours = json.load(f)
    base = anchor["results"][0]["curve"][0]
    print(f"anchor: {anchor['device']}\n{anchor['model']}\n")
    print(f"{'variant':<30}{'steps':>7}{'best dev':>10}{'at step':>9}{'test':>8}{'STS-B':>8}")
    print(f"{'base':<30}{0:>7}{base['dev']:>10.2f}{'':>9}{base['test']:>8.2f}{base['stsb']:>8.2f}")
    variants = [r for r in anchor["results"] if r["name"] != "base"]
    for result in variants:
        point = best_point(result["curve"])
        steps = result["curve"][-1]["step"]
        capped = "*" if result["curve"][-1].get("capped") else ""
        print(
            f"{result['name']:<30}{str(steps) + capped:>7}{point['dev']:>10.2f}{point['step']:>9}"
            f"{point['test']:>8.2f}{point['stsb']:>8.2f}"
        )
    print("(* stopped early: 100 s of training)\n")

    recipe = next(r for r in variants if r["name"] == args.recipe)
    chosen = recipe["curve"][-1]
    by_epoch = ours["dev_ndcg_at_10_by_epoch"]
    rows = [
        ("dev nDCG@10 before", base["dev"], ours["dev_ndcg_at_10_before"]),
        ("dev nDCG@10 after (best epoch)", best_point(recipe["curve"])["dev"], ours["dev_ndcg_at_10"]),
        ("test nDCG@10 before", base["test"], ours["test_before"]["ndcg@10"]),
        ("test nDCG@10 after", chosen["test"], ours["test_after"]["ndcg@10"]),
        ("STS-B test before", base["stsb"], ours["stsb_test_before"]),
        ("STS-B test after", chosen["stsb"], ours["stsb_test_after"]),
    ]
    print(f"the recipe {args.recipe}: ours (keras_sentemb, examples/train_retrieval.py) beside the anchor")
    print(f"{'':<32}{'anchor':>8}{'ours':>8}{'ours − anchor':>15}")
    for name, theirs, mine in rows:
        print(f"{name:<32}{theirs:>8.2f}{mine:>8.2f}{mine - theirs:>+15.2f}")
    print(f"ours, dev nDCG@10 by epoch: {by_epoch}; fit {ours['fit_s']} s")
    gain = ours["test_after"]["ndcg@10"] - ours["test_before"]["ndcg@10"]
    print(
        json.dumps({"model": ours["model"], "recipe": args.recipe, "test_gain": round(gain, 2), **ours["test_after"]})
    )

    others = []
    for path in args.also:
        with open(path, encoding="utf-8") as f:
            others.append(json.load(f))
    for other in others:
        print(f"\n{other['model']}, the same recipe (no anchor run):")
        for name, before, after in (
            ("dev nDCG@10 (best epoch)", other["dev_ndcg_at_10_before"], other["dev_ndcg_at_10"]),
            ("test nDCG@10", other["test_before"]["ndcg@10"], other["test_after"]["ndcg@10"]),
            ("STS-B test", other["stsb_test_before"], other["stsb_test_after"]),
        ):
            print(f"  {name:<28}{before:>8.2f} -> {after:>6.2f}{after - before:>+8.2f}")
        print(f"  dev nDCG@10 by epoch: {other['dev_ndcg_at_10_by_epoch']}; best epoch {other['best_epoch']}")

    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axis = plt.subplots(figsize=(8, 4.5))
        for result in variants:
            steps = [0] + [p["step"] for p in result["curve"]]
            dev = [base["dev"]] + [p["dev"] for p in result["curve"]]
            style = "-" if result["sampling"] == "rounds" else "--"
            axis.plot([s * args.batch_size for s in steps], dev, style, marker=".", label=f"anchor {result['name']}")
        axis.plot(*dev_curve(ours), "k-o", linewidth=2, label=f"ours ({args.recipe}, TensorFlow, CPU)")
        for other in others:
            label = f"ours, {other['model']} ({args.recipe}, TensorFlow, CPU; no anchor)"
            axis.plot(*dev_curve(other), "k--s", linewidth=2, label=label)
        axis.set_xlabel("training examples seen (query, relevant document)")
        axis.set_ylabel("NFCorpus dev nDCG@10")
        models = " and ".join([ours["model"], *(other["model"] for other in others)])
        axis.set_title(f"Retrieval fine-tuning of {models} on NFCorpus train")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7, loc="lower right")
        figure.tight_layout()
        figure.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
