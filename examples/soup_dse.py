"""Average DSE runs of one recipe into one student (a model soup) and measure it beside each run.

    python examples/train_dse.py --task stsb ... --seed 0 --output out/dse_seed0   # and --seed 1, …
    python examples/soup_dse.py --model out/dse_seed0/dse.keras --model out/dse_seed1/dse.keras \\
        --lora-rank 32 --lora-targets all --teacher zoo:cross-encoder-mpnet-base-stsb --data DATA

θ_soup = (1/K)·Σ_k θ_k over the runs' weights, LoRA adapters merged (Wortsman et al. 2022;
`keras_sentemb.training.model_soup`). Runs of one recipe that differ only in their seed start
from the same checkpoint and end in one basin; their average costs one model at inference and does
not depend on which seed was drawn (the zoo's DSE v6: 0.18 above its best run on STS-B dev, level
with the runs' mean on test; docs/distillation.md). With `--lora-rank r` the soup is stored as LoRA adapters
of rank r on the pinned checkpoint (`--checkpoint`): the best rank-r approximation of the
averaged update (truncated SVD), so it costs what one run costs in the zoo; the JSON line says how
much of the update's energy the truncation dropped. 0 keeps the averaged kernels whole.

Measures every run and the soup on STS-B dev (pair head and cosine: the soup is chosen on dev,
like the runs' epochs) and the soup on test, and prints one JSON line as train_dse.py does
(`--teacher` adds the teacher's test scores and the ratio). Saves <output>/dse.keras, and
<output>/training_clock.json with the seconds the soup itself took (the runs keep theirs).
"""

import argparse
import json
import os
import time

import keras

from keras_sentemb.data.named_datasets import add_data_argument, read_split
from keras_sentemb.evaluation import sts_spearman
from keras_sentemb.evaluation.pair_scorer_metrics import pair_scorer_metrics
from keras_sentemb.layers.backbone_lora import LORA_TARGETS
from keras_sentemb.models import DSE
from keras_sentemb.training.model_soup import load_soup, soup_weights
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.zoo import load_cross_encoder


def dev_scores(model, dev):
    """The pair head's and the cosine's STS-B dev Spearman × 100, rounded for the report."""
    head = pair_scorer_metrics(model, dev)["spearman"]
    return round(head, 2), round(sts_spearman(model, dev, progress=False), 2)


def rounded(metrics):
    return {name: round(value, 2) for name, value in metrics.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model",
        action="append",
        required=True,
        metavar="DSE_KERAS",
        help="(repeatable, at least two) a dse.keras that train_dse.py saved; all of one architecture",
    )
    parser.add_argument("--checkpoint", default="minilm-l6", help="the pretrained weights the runs started from")
    parser.add_argument(
        "--lora-rank",
        type=int,
        default=0,
        help="store the soup as LoRA adapters of this rank on the checkpoint (0 = whole averaged kernels)",
    )
    parser.add_argument("--lora-targets", choices=sorted(LORA_TARGETS), default="attention")
    parser.add_argument("--teacher", default=None, help="the runs' teacher (zoo:NAME or a .keras): its test scores")
    add_data_argument(parser)
    parser.add_argument(
        "--seed", type=int, default=0, help="accepted as every example does; a soup draws nothing at random"
    )
    parser.add_argument("--output", default=os.path.join("out", "dse_soup"))
    args = parser.parse_args()
    if len(args.model) < 2:
        parser.error(f"--model: a soup needs at least two runs, got {len(args.model)}")
    if args.lora_rank < 0:
        parser.error(f"--lora-rank must be ≥ 0, got {args.lora_rank}")
    dev, test = read_split(args.data, "stsb", "dev"), read_split(args.data, "stsb", "test")

    start = time.perf_counter()
    runs = [keras.saving.load_model(path) for path in args.model]
    for path, run in zip(args.model, runs):
        if not isinstance(run, DSE) or run.psi is None:
            parser.error(f"--model {path}: not a DSE that DSE.from_pretrained built ({type(run).__name__})")
    first = runs[0]
    soup = DSE.from_pretrained(
        args.checkpoint,
        num_labels=first.num_labels,
        alpha=first.alpha,
        cosine_weight=first.cosine_weight,
        unit_features=first.unit_features,
        psi=first.psi,
    )
    if args.lora_rank:
        soup.enable_lora(args.lora_rank, LORA_TARGETS[args.lora_targets])
    dropped = load_soup(soup, soup_weights(runs))
    soup_seconds = time.perf_counter() - start
    rank = f"LoRA rank {args.lora_rank}" if args.lora_rank else "whole kernels"
    print(f"soup of {len(runs)} runs in {soup_seconds:.0f} s, {rank} ({dropped:.1%} of an update's energy dropped)")

    run_dev = []
    for path, run in zip(args.model, runs):
        run_dev.append(dev_scores(run, dev))
        print(f"STS-B dev of {path}: pair head {run_dev[-1][0]}, cosine {run_dev[-1][1]}", flush=True)
    del runs, first
    head_dev, cosine_dev = dev_scores(soup, dev)
    print(f"STS-B dev of the soup: pair head {head_dev}, cosine {cosine_dev}", flush=True)
    student = rounded(pair_scorer_metrics(soup, test))
    student["cosine_spearman"] = round(sts_spearman(soup, test, progress=False), 2)
    teacher = rounded(pair_scorer_metrics(load_cross_encoder(args.teacher), test)) if args.teacher else None

    os.makedirs(args.output, exist_ok=True)
    soup.save(os.path.join(args.output, "dse.keras"))
    with atomic_open(os.path.join(args.output, "training_clock.json"), "w") as f:
        json.dump({"seconds": soup_seconds, "epochs": 0}, f)
    print(
        json.dumps(
            {
                "model": "dse",
                "task": "stsb",
                "soup_of": [
                    {"path": path, "dev_spearman": h, "dev_cosine_spearman": c}
                    for path, (h, c) in zip(args.model, run_dev)
                ],
                "lora_rank": args.lora_rank,
                "truncation_dropped_energy": round(dropped, 4),
                "measured_on": "test",
                "dev_spearman": head_dev,
                "dev_cosine_spearman": cosine_dev,
                "student": student,
                **(
                    {"teacher": teacher, "relative_to_teacher": round(student["spearman"] / teacher["spearman"], 4)}
                    if teacher
                    else {}
                ),
                "fit_s": round(soup_seconds),
            }
        )
    )


if __name__ == "__main__":
    main()
