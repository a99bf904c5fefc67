"""Fine-tune all-MiniLM-L6-v2 (or all-mpnet-base-v2) on STS-B with SBERT's regression objective (cosine MSE) or CoSENT.

A plain Keras script: read the data, build the tf.data pipeline, compile, fit, evaluate.

    python examples/train_sbert_stsb.py --epochs 4 --data DATA                # full fine-tuning
    python examples/train_sbert_stsb.py --epochs 4 --lora-rank 8 --data DATA  # LoRA adapters only
    python examples/train_sbert_stsb.py --epochs 4 --data tfds                # glue/stsb from TFDS
    python examples/train_sbert_stsb.py --teacher zoo:cross-encoder-mpnet-base-stsb --silver-pairs 6000 --data DATA
    python examples/train_sbert_stsb.py --model mpnet-base --dtype mixed_bfloat16 --lora-rank 16 \
        --lora-targets all --learning-rate 3e-4 --data DATA                 # the MPNet SBERT

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`);
TFDS's glue/stsb has no test labels, so from TFDS the final Spearman is the dev set's.

Hyper-parameters follow SBERT: batch 16, AdamW at 2e-5 (LoRA: 5e-4), weight decay 0.01,
gradients clipped at global norm 1, linear warm-up over 10 % of the steps then linear decay. The dev set picks the best epoch; the test
Spearman is printed at the end. A killed run resumes from `<output>/backup`. `--model` is a
preset ("minilm-l6", "mpnet-base") or a sentence-transformers folder; `--dtype mixed_bfloat16`
computes in bfloat16.

`--silver-pairs N --teacher CROSS_ENCODER` adds N pairs mined from the training sentences and
scored by the cross-encoder (AugSBERT; `keras_sentemb.training.silver_pairs`): their score is
5·T, the teacher's output on the score / 5 scale its recipe trains (clipped to [0, 5]).
"""

import argparse
import json
import os
import resource
import time

import keras

from keras_sentemb import SentenceEncoder
from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, read_split
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.evaluation import sts_spearman
from keras_sentemb.layers.backbone_lora import LORA_TARGETS
from keras_sentemb.models import SBERT
from keras_sentemb.training import LinearWarmupLinearDecay, NaNGuard, STSEvaluator
from keras_sentemb.training.resumable_run import ResumableRun
from keras_sentemb.training.silver_pairs import add_silver_arguments, silver_training_pairs
from keras_sentemb.zoo import load_cross_encoder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--model", default="minilm-l6", help="a preset (minilm-l6, mpnet-base) or a folder")
    parser.add_argument("--dtype", default=None, help="the backbone's Keras dtype policy, e.g. mixed_bfloat16")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--warmup", type=float, default=0.1, help="warm-up fraction of steps")
    parser.add_argument(
        "--clip-norm",
        type=float,
        default=1.0,
        help="global gradient-norm clipping (sentence-transformers' default 1.0); 0 = off",
    )
    parser.add_argument(
        "--ema",
        type=float,
        default=0.0,
        help="keep an exponential moving average of the weights with this momentum "
        "(e.g. 0.99) and end with it; 0 = off",
    )
    parser.add_argument("--lora-rank", type=int, default=0, help="0 = full fine-tuning")
    parser.add_argument(
        "--lora-targets",
        choices=sorted(LORA_TARGETS),
        default="attention",
        help="LoRA on the attention query/value projections (keras-hub's default) or on every dense layer",
    )
    parser.add_argument(
        "--objective",
        default="regression",
        choices=["regression", "cosent"],
        help="regression: cosine MSE (SBERT); cosent: CoSENT ranking loss",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "train_sbert_stsb"))
    parser.add_argument(
        "--teacher", default=None, help="the cross-encoder that labels silver pairs (zoo:NAME or .keras)"
    )
    parser.add_argument("--cache", default=os.path.join("out", "cache"), help="cache of silver pairs and labels")
    add_silver_arguments(parser)
    args = parser.parse_args()
    if args.silver_pairs and not args.teacher:
        parser.error("--silver-pairs needs --teacher (the cross-encoder that scores them)")
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()

    final_split = evaluation_split(args.data, "stsb")  # "dev" from TFDS (GLUE keeps test labels secret)
    train, dev = read_split(args.data, "stsb", "train"), read_split(args.data, "stsb", "dev")
    test = read_split(args.data, "stsb", final_split)
    if args.silver_pairs:
        teacher = load_cross_encoder(args.teacher)
        train, _ = silver_training_pairs(args, teacher, args.cache, gold=train)
        del teacher
    encoder = SentenceEncoder.from_pretrained(args.model, dtype=args.dtype)
    before = sts_spearman(encoder, test, progress=False)
    print(f"STS-B {final_split} Spearman before fine-tuning: {before:.2f}")

    if args.lora_rank:
        encoder.enable_lora(args.lora_rank, LORA_TARGETS[args.lora_targets])
    learning_rate = args.learning_rate or (5e-4 if args.lora_rank else 2e-5)
    train_data = examples_dataset(train, encoder.tokenizer, batch_size=args.batch_size, seed=args.seed)
    steps = len(train_data) * args.epochs
    sbert = SBERT(encoder, objective=args.objective)
    sbert.compile(
        optimizer=keras.optimizers.AdamW(
            LinearWarmupLinearDecay(learning_rate, steps, args.warmup),
            weight_decay=0.01,
            global_clipnorm=args.clip_norm or None,
            use_ema=args.ema > 0,
            ema_momentum=args.ema or 0.99,
        )
    )
    trainable = sum(int(keras.ops.size(w)) for w in encoder.trainable_weights)
    print(
        f"{len(train)} training pairs, {steps} steps, learning rate {learning_rate}, {trainable:,} trainable parameters"
    )

    run = ResumableRun(args.output)  # a killed run resumes from output/backup; fit seconds summed
    sbert.fit(
        train_data,
        epochs=args.epochs,
        callbacks=[
            STSEvaluator(
                encoder,
                dev,
                name="stsb_dev",
                restore_best_weights=True,
                best_weights_path=run.best_weights_path,
            ),
            NaNGuard(os.path.join(args.output, "last_good.weights.h5")),
            *run.callbacks(),
        ],
        verbose=2,
    )
    after = sts_spearman(encoder, test, progress=False)
    dev_after = sts_spearman(encoder, dev, progress=False)
    if args.lora_rank:
        saved = os.path.join(args.output, f"lora_r{args.lora_rank}.lora.h5")
        encoder.save_lora_weights(saved)
    else:
        saved = os.path.join(args.output, "encoder.keras")
        encoder.save(saved)
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    print(f"STS-B {final_split} Spearman after fine-tuning: {after:.2f} (before {before:.2f})")
    print(
        f"saved {saved} ({os.path.getsize(saved) / 1e6:.1f} MB); wall time "
        f"{time.perf_counter() - start:.0f} s; peak memory {peak_gb:.2f} GB"
    )

    print(
        json.dumps(
            {
                "model": "sbert",
                "base": args.model,
                "silver_pairs": args.silver_pairs,
                "stsb_dev_spearman": round(dev_after, 2),
                f"stsb_{final_split}_spearman": round(after, 2),
                "fit_s": round(run.fit_seconds),
                "wall_time_s": round(time.perf_counter() - start),
            }
        )
    )


if __name__ == "__main__":
    main()
