"""Train the DSE teacher: a cross-encoder (MiniLM or MPNet) on STS-B (regression) or MRPC (classes).

    python examples/train_cross_encoder.py --task stsb --data DATA     # scores / 5 → MSE, best dev epoch
    python examples/train_cross_encoder.py --task mrpc --data DATA     # 2 classes → cross-entropy
    python examples/train_cross_encoder.py --task glue/stsb --data tfds   # the same from TensorFlow Datasets
    python examples/train_cross_encoder.py --task stsb --model mpnet-base --dtype mixed_bfloat16 \
        --loss bce --data DATA                                         # the MPNet teacher (12 layers)

`DATA` is a folder in the layout of docs/data.md (or `$KERAS_SENTEMB_DATA`). TFDS's GLUE test
sets have no labels: the final metrics are then measured on the validation split and say so.

    python examples/train_cross_encoder.py --task stsb --silver-pairs 8000 \
        --silver-labeller zoo:sbert-minilm-l6-stsb --data DATA

adds pairs mined from the training sentences (`keras_sentemb.training.silver_pairs`, the
`--silver-*` options) labelled with a bi-encoder's cosine (`CosinePairScorer`): the
bi-encoder → cross-encoder step of Trans-Encoder (docs/distillation.md has its measured effect).
`--silver-labeller` repeated labels them with the mean of several scorers, cross-encoders
included (`MeanPairScorer`; `load_pair_scorer` says how each is read):

    python examples/train_cross_encoder.py --task stsb --model mpnet-base --silver-pairs 6000 \
        --silver-labeller zoo:cross-encoder-mpnet-base-stsb --silver-labeller zoo:sbert-mpnet-base-stsb --data DATA

A plain Keras script: read pairs, build the cross-pair tf.data pipeline (each pair is one
sequence `[CLS] a [SEP] b [SEP]`; MPNet: `<s> a </s></s> b </s>`), compile, fit, evaluate on
the test set. Recipe: batch 16, AdamW 2e-5, weight decay 0.01, 10 % warm-up then linear
decay, gradients clipped at norm 1; STS-B: 4 epochs, the dev set picks the best; MRPC (no
dev split here): 3 epochs, the last is kept. `--model` is a preset ("minilm-l6",
"mpnet-base") or a Hugging Face / sentence-transformers folder; `--dtype mixed_bfloat16`
trains the backbone in bfloat16 (1.4x faster on CPUs with AVX512_BF16 or AMX). A killed run
resumes from `<output>/backup` (`ExactBackupAndRestore`: LoRA adapters resume as they were). The model is saved as
`<output>/cross_encoder.keras`.
"""

import argparse
import json
import os
import time

import keras
import numpy as np

from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, named_dataset, read_split
from keras_sentemb.data.pipelines import cross_pairs_dataset
from keras_sentemb.evaluation.pair_scorer_metrics import pair_scorer_metrics
from keras_sentemb.layers.backbone_lora import LORA_TARGETS
from keras_sentemb.models import CrossEncoder
from keras_sentemb.training import LinearWarmupLinearDecay, STSEvaluator
from keras_sentemb.training.mean_pair_scorer import MeanPairScorer
from keras_sentemb.training.resumable_run import ResumableRun
from keras_sentemb.training.silver_pairs import add_silver_arguments, silver_training_pairs
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.zoo.loading import load_pair_scorer

DEFAULT_EPOCHS = {"stsb": 4, "mrpc": 3}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=["stsb", "mrpc", "glue/stsb", "glue/mrpc"], default="stsb")
    add_data_argument(parser)
    parser.add_argument("--model", default="minilm-l6", help="a preset (minilm-l6, mpnet-base) or a folder")
    parser.add_argument("--dtype", default=None, help="the backbone's Keras dtype policy, e.g. mixed_bfloat16")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=None, help="default 2e-5 (5e-4 with --lora-rank)")
    parser.add_argument(
        "--lora-rank",
        type=int,
        default=0,
        help="train LoRA adapters of this rank and the head only (0 = full fine-tuning)",
    )
    parser.add_argument(
        "--lora-targets",
        choices=sorted(LORA_TARGETS),
        default="attention",
        help="LoRA on the attention query/value projections (keras-hub's default) or on every dense layer",
    )
    parser.add_argument(
        "--pooling",
        choices=["pooler", "cls", "mean"],
        default=None,
        help="the head reads BERT's [CLS] pooler (BERT's default), a new dense/tanh layer on the first token "
        "(MPNet's default), or the mean of the pair's token states",
    )
    parser.add_argument(
        "--loss",
        choices=["mse", "bce"],
        default="mse",
        help="STS-B: MSE on score / 5, or binary cross-entropy on the logit (sentence-transformers' default)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=None)
    parser.add_argument(
        "--silver-labeller",
        action="append",
        default=[],
        metavar="SCORER",
        help="STS-B: what labels the silver pairs: a bi-encoder's cosine (zoo:NAME, .keras or a preset) or a "
        "cross-encoder (zoo:NAME, .keras); repeat it to label with the mean of several (MeanPairScorer)",
    )
    parser.add_argument("--cache", default=os.path.join("out", "cache"), help="cache of silver pairs and labels")
    add_silver_arguments(parser)
    args = parser.parse_args()
    args.task = named_dataset(args.task).name
    if args.silver_pairs and not (args.silver_labeller and args.task == "stsb"):
        parser.error("--silver-pairs needs --task stsb and --silver-labeller (what scores them)")
    keras.utils.set_random_seed(args.seed)
    epochs = args.epochs or DEFAULT_EPOCHS[args.task]
    output = args.output or os.path.join("out", f"cross_encoder_{args.task}")
    start = time.perf_counter()

    callbacks = []
    run = ResumableRun(output)  # a killed run resumes from output/backup; fit seconds summed
    final_split = evaluation_split(args.data, args.task)  # "dev" where the test labels are secret (TFDS GLUE)
    train, test = read_split(args.data, args.task, "train"), read_split(args.data, args.task, final_split)
    if args.task == "stsb":
        dev = read_split(args.data, args.task, "dev")
        if args.silver_pairs:  # Trans-Encoder's bi → cross step: the bi-encoder's cosine is the silver label
            scorers = [load_pair_scorer(spec) for spec in args.silver_labeller]
            labeller = scorers[0] if len(scorers) == 1 else MeanPairScorer(scorers)
            train, _ = silver_training_pairs(args, labeller, args.cache, gold=train)
            del labeller
        model = CrossEncoder.from_pretrained(
            args.model,
            num_labels=1,
            pooling=args.pooling,
            dtype=args.dtype,
            score_activation="sigmoid" if args.loss == "bce" else "linear",  # scores on the score / 5 scale
        )
        if args.lora_rank:
            model.enable_lora(args.lora_rank, LORA_TARGETS[args.lora_targets])
        labels = np.asarray(train.scores, np.float32) / 5.0
        callbacks.append(
            STSEvaluator(
                None,
                dev,
                name="stsb_dev",
                score_fn=model.predict_pairs,
                restore_best_weights=True,
                best_weights_path=run.best_weights_path,
            )
        )
    else:
        model = CrossEncoder.from_pretrained(args.model, num_labels=2, pooling=args.pooling, dtype=args.dtype)
        if args.lora_rank:
            model.enable_lora(args.lora_rank, LORA_TARGETS[args.lora_targets])
        labels = None
    data = cross_pairs_dataset(
        train, model.tokenizer, labels=labels, batch_size=args.batch_size, seed=args.seed, input_names=model.input_names
    )
    callbacks += run.callbacks()
    steps = len(data) * epochs
    model.compile(
        optimizer=keras.optimizers.AdamW(
            LinearWarmupLinearDecay(args.learning_rate or (5e-4 if args.lora_rank else 2e-5), steps, 0.1),
            weight_decay=0.01,
            global_clipnorm=1.0,
        ),
        loss=keras.losses.BinaryCrossentropy(from_logits=True) if args.task == "stsb" and args.loss == "bce" else None,
    )
    print(f"{args.task}: {len(train)} training pairs, {steps} steps")
    model.fit(data, epochs=epochs, callbacks=callbacks, verbose=2)

    measured = {final_split: test, **({"dev": dev} if args.task == "stsb" and final_split != "dev" else {})}
    metrics = {
        f"{args.task}_{split}_{name}": round(value, 2)
        for split, pairs in measured.items()
        for name, value in pair_scorer_metrics(model, pairs).items()
    }
    os.makedirs(output, exist_ok=True)
    saved = os.path.join(output, "cross_encoder.keras")
    model.save(saved)
    metrics["fit_s"] = round(run.fit_seconds)  # every epoch's, also when a killed run resumed
    metrics["wall_time_s"] = round(time.perf_counter() - start)
    silver = (
        {"silver_pairs": args.silver_pairs, "silver_labeller": " + ".join(args.silver_labeller)}
        if args.silver_pairs
        else {}
    )
    result = {"model": "cross-encoder", "base": args.model, "task": args.task, "epochs": epochs, **silver, **metrics}
    with atomic_open(os.path.join(output, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))
    print(f"saved {saved}")


if __name__ == "__main__":
    main()
