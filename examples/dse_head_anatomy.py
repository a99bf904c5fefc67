"""What a DSE's pair head adds to the cosine of its own embeddings, measured on STS-B.

    python examples/dse_head_anatomy.py --model zoo:dse-minilm-l6-stsb --data DATA
    python examples/dse_head_anatomy.py --model out/dse/dse.keras --split dev --blend 0.5 --blend 1 --data DATA
    python examples/dse_head_anatomy.py --model zoo:dse-minilm-l6-stsb --teacher zoo:cross-encoder-mpnet-base-stsb \\
        --silver-pairs 6000 --refit 1 --refit 100 --data DATA
    python examples/dse_head_anatomy.py --teacher zoo:cross-encoder-mpnet-base-stsb --silver-pairs 6000 --seed 7 \\
        --refit-silver-only --refit 100 --data DATA      # teacher labels the embeddings never saw

DSE scores a pair with a linear head on pair features, f(u, v) = W_u·u + W_v·v + W_×·(u∘v) + W_d·|u − v| + b.
With `unit_features` (û = u/‖u‖) the head starts as the cosine, W_× = 1 and the rest zero, and the cosine is one
point of the head's family: f + w·cos(u, v) is the same head with W_× + w. This script measures, on one split
(dev by default: read test only after a choice is made), Spearman × 100 of

- the head f(u, v), and with the pair's order swapped, f(v, u);
- the symmetric head ½·(f(u, v) + f(v, u)), which is the same linear head with W_u and W_v both replaced by
  their mean (a similarity that ignores the order of the pair);
- the cosine cos(u, v) of the embeddings (`encode`);
- the head plus w·cosine for each `--blend w`;

and, for each `--refit λ`, the head refitted to the training targets on the frozen embeddings: ridge
regression towards the trained head W_0,

    W_λ = argmin_W Σ_i (x_i·W + b − t_i)² + λ·‖W − W_0‖²,   x = the head's pair features, b free,

with t = α·T + (1 − α)·y/5 the model's own distillation target (STS-B train, T from `--teacher`, cached; plus the
`--silver-pairs` of `--seed`, y = T for them, as train_dse.py draws them). λ → ∞ keeps the trained head; small λ
gives the head that fits the teacher best where the embeddings were trained. `--refit-silver-only` refits on
the silver pairs alone, t = T: with a `--seed` that no training run drew, on teacher labels of pairs the
embeddings were not trained on. Then the head's anatomy: the norms of W_u, W_v, W_×, W_d, the mean and spread of W_×, and the Pearson
correlation of the head's scores with the cosine's on the split. A head whose W_× stays near 1 and whose
other blocks stay near 0 is a per-dimension re-weighting of the cosine: it cannot score far from the
embeddings it reads. Prints one JSON line.
"""

import argparse
import json
import os

import keras
import numpy as np

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.data.named_datasets import add_data_argument, read_split
from keras_sentemb.evaluation.sts import correlations
from keras_sentemb.training.silver_pairs import add_silver_arguments, silver_training_pairs
from keras_sentemb.training.teacher_logits import cached_teacher_logits
from keras_sentemb.zoo import load_cross_encoder, load_dse


def load_one_score_dse(spec):
    """A DSE (zoo:NAME or a .keras file, `zoo.load_dse`) whose head gives one STS score."""
    dse = load_dse(spec)
    if dse.num_labels != 1:
        raise ValueError(f"{spec}: the head has {dse.num_labels} logits; this script reads a one-score STS head")
    return dse


def head_anatomy(dse):
    """Norms of the head's four weight blocks, and the mean and standard deviation of W_×."""
    w_u, w_v, w_x, w_d, _ = (np.asarray(w) for w in dse.head_weights())
    norms = {
        name: round(float(np.linalg.norm(w)), 3) for name, w in (("W_u", w_u), ("W_v", w_v), ("W_x", w_x), ("W_d", w_d))
    }
    return {"norms": norms, "W_x_mean": round(float(w_x.mean()), 4), "W_x_std": round(float(w_x.std()), 4)}


def embed_pairs(dse, pairs):
    """ψ of both sides of the pairs, as the head reads it (unit rows with `unit_features`), float64."""
    u, v = (dse.embed(side, progress=False).astype(np.float64) for side in (pairs.sentences1, pairs.sentences2))
    if dse.unit_features:
        u, v = u / np.linalg.norm(u, axis=1, keepdims=True), v / np.linalg.norm(v, axis=1, keepdims=True)
    return u, v


def pair_features(dse, u, v):
    """The head's input features x = [u, v, u∘v, |u − v|] in the order its kernel reads them, float64 [N, 4d]."""
    return np.asarray(keras.ops.convert_to_numpy(dse.head.pair_features(u, v)), np.float64)


def refit_head(dse, features, targets, lambdas):
    """{λ: (W_λ [4d], b_λ)}: the ridge fit towards the trained head's kernel W_0 (module docstring)."""
    w_0 = np.asarray(dse.head.output_layer.kernel, np.float64)[:, 0]
    mean_x, mean_t = features.mean(axis=0), float(np.mean(targets))
    centred = features - mean_x
    gram, moment = centred.T @ centred, centred.T @ (targets - mean_t)
    fits = {}
    for lam in lambdas:
        w = np.linalg.solve(gram + lam * np.eye(len(gram)), moment + lam * w_0)
        fits[lam] = (w, mean_t - mean_x @ w)
    return fits


def training_targets(dse, args):
    """STS-B train (+ silver pairs) and t = α·T + (1 − α)·y/5, as train_dse.py builds them; with
    `--refit-silver-only` the silver pairs alone and t = T."""
    train = read_split(args.data, "stsb", "train")
    teacher = load_cross_encoder(args.teacher)
    logits = cached_teacher_logits(teacher, train.sentences1, train.sentences2, args.cache)[:, 0]
    gold = np.asarray(train.scores, np.float64) / 5.0
    if args.silver_pairs:
        gold_count = len(train)
        train, silver = silver_training_pairs(args, teacher, args.cache, gold=train)
        if args.refit_silver_only:
            silver_only = ScoredPairs(
                train.sentences1[gold_count:], train.sentences2[gold_count:], train.scores[gold_count:]
            )
            return silver_only, silver.logits[:, 0].astype(np.float64)
        gold = np.concatenate([gold, silver.logits[:, 0]])
        logits = np.concatenate([logits, silver.logits[:, 0]])
    return train, dse.alpha * logits + (1.0 - dse.alpha) * gold


def scorer_spearmans(dse, u, v, gold, blends):
    """{scorer: Spearman × 100} against the gold scores, and the head's Pearson r with the cosine."""
    forward, backward = dse.score(u, v), dse.score(v, u)
    unit_u = u / np.linalg.norm(u, axis=1, keepdims=True)
    unit_v = v / np.linalg.norm(v, axis=1, keepdims=True)
    cosine = np.sum(unit_u * unit_v, axis=1)
    scores = {
        "head": forward,
        "head_swapped": backward,
        "head_symmetric": (forward + backward) / 2,
        "cosine": cosine,
        **{f"head_plus_{w:g}_cosine": forward + w * cosine for w in blends},
    }
    spearmans = {name: round(correlations(s, gold)[0], 2) for name, s in scores.items()}
    return spearmans, round(float(np.corrcoef(forward, cosine)[0, 1]), 4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="zoo:dse-minilm-l6-stsb", help="a DSE: zoo:NAME or a .keras file")
    parser.add_argument(
        "--refit",
        type=float,
        action="append",
        default=[],
        metavar="LAMBDA",
        help="(repeatable) refit the head, ridge λ",
    )
    parser.add_argument(
        "--refit-silver-only",
        action="store_true",
        help="refit on the --silver-pairs alone (teacher labels; pick a --seed no training run drew)",
    )
    parser.add_argument("--teacher", default=None, help="the teacher of the refit's targets: zoo:NAME or a .keras")
    parser.add_argument("--cache", default=os.path.join("out", "cache"), help="teacher outputs are cached here")
    parser.add_argument("--seed", type=int, default=0, help="the seed whose silver pairs the refit uses")
    add_silver_arguments(parser)
    parser.add_argument(
        "--split", choices=("dev", "test"), default="dev", help="STS-B split to measure (dev: choose on it)"
    )
    parser.add_argument(
        "--blend",
        type=float,
        action="append",
        metavar="W",
        help="(repeatable) also measure head + W·cosine; 0.5, 1, 2 if none",
    )
    add_data_argument(parser)
    args = parser.parse_args()
    if args.refit and not args.teacher:
        parser.error("--refit needs --teacher: the refit's targets are the teacher's scores")
    if args.refit_silver_only and not (args.refit and args.silver_pairs):
        parser.error("--refit-silver-only needs --refit and --silver-pairs N > 0")
    if any(lam <= 0 for lam in args.refit):
        parser.error(f"--refit λ must be > 0, got {args.refit}")
    try:
        dse = load_one_score_dse(args.model)
    except (TypeError, ValueError, FileNotFoundError) as error:
        parser.error(f"--model: {error}")
    blends = args.blend or [0.5, 1.0, 2.0]
    pairs = read_split(args.data, "stsb", args.split)
    u, v = embed_pairs(dse, pairs)
    spearmans, head_cosine_pearson = scorer_spearmans(dse, u, v, pairs.scores, blends)
    if args.refit:
        train, targets = training_targets(dse, args)
        fits = refit_head(dse, pair_features(dse, *embed_pairs(dse, train)), targets, args.refit)
        features = pair_features(dse, u, v)
        for lam, (w, b) in fits.items():
            spearmans[f"head_refit_{lam:g}"] = round(correlations(features @ w + b, pairs.scores)[0], 2)
    width = max(map(len, spearmans))
    for name, value in spearmans.items():
        print(f"STS-B {args.split} Spearman, {name:<{width}} {value:6.2f}")
    print(
        json.dumps(
            {
                "model": args.model,
                "split": args.split,
                "unit_features": dse.unit_features,
                "spearman": spearmans,
                "head_cosine_pearson": head_cosine_pearson,
                "head": head_anatomy(dse),
            }
        )
    )


if __name__ == "__main__":
    main()
