"""Distil the cross-encoder teacher into DSE, a siamese student that scores pairs from embeddings.

    python examples/train_cross_encoder.py --task stsb --data DATA     # the teacher, first
    python examples/train_dse.py --task stsb --alpha 0.5 --data DATA   # DSE
    python examples/train_dse.py --task stsb --alpha 0.5 --freeze-encoder --data DATA   # frozen ψ
    python examples/train_dse.py --task mrpc --alpha 0.5 --data DATA
    python examples/train_dse.py --task glue/mrpc --data tfds          # from TensorFlow Datasets
    python examples/train_dse.py --task stsb --cosine-weight 1 --silver-pairs 6000 --data DATA

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`).

Loss α·‖S − T‖² + (1 − α)·ℓ(S, y) (`DistillationLoss`); T are the teacher's logits on the
training pairs, computed once and cached under `--cache` (keyed by the data and the
teacher's weights). `--cosine-weight β` adds β·(cos(u, v) − y)², so that the student's
embeddings also serve cosine search; `--ranking-weight γ` adds CoSENT's ranking terms on the
head's scores and the cosine over each batch (their order, which Spearman reads).
`--silver-pairs N` (STS-B) adds N pairs mined from the training sentences and labelled by the
teacher (`keras_sentemb.training.silver_pairs`; y = T for them), AugSBERT's augmentation. `--teacher-cosine ENCODER` makes the teacher the mean of the
cross-encoder's score and that bi-encoder's cosine (`MeanPairScorer`). `--unit-features` gives the
pair head unit vectors and starts it as their cosine; `--psi checkpoint` keeps the checkpoint's own
embedding as ψ (the zoo's DSE version 4 uses all three). `--student-init ENCODER` starts ψ from
a fine-tuned bi-encoder of the same architecture (LoRA adapters merged), e.g.
zoo:sbert-minilm-l6-stsb. Recipe as the teacher's: batch 16, AdamW 2e-5 (frozen ψ: 1e-3, only
the head trains), weight decay 0.01, 10 % warm-up, clip norm 1; STS-B 4 epochs with the
best dev epoch kept, MRPC 3 epochs. Prints one JSON line with the student's and the
teacher's test metrics (validation metrics where the source keeps test labels secret: TFDS GLUE).
A killed run resumes from `<output>/backup`.
"""

import argparse
import json
import os
import time

import keras
import numpy as np

from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, named_dataset, read_split
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.evaluation import sts_spearman
from keras_sentemb.evaluation.pair_scorer_metrics import pair_scorer_metrics
from keras_sentemb.evaluation.sts import correlations
from keras_sentemb.layers.backbone_lora import LORA_TARGETS, copy_backbone_weights
from keras_sentemb.models import DSE
from keras_sentemb.models.dse import PSI_CHOICES
from keras_sentemb.training import LinearWarmupLinearDecay, STSEvaluator
from keras_sentemb.training.mean_pair_scorer import MeanPairScorer
from keras_sentemb.training.resumable_run import ResumableRun
from keras_sentemb.training.silver_pairs import add_silver_arguments, silver_training_pairs
from keras_sentemb.training.teacher_logits import cached_teacher_logits
from keras_sentemb.zoo import load_cross_encoder, load_pair_scorer, load_sentence_encoder

DEFAULT_EPOCHS = {"stsb": 4, "mrpc": 3}


def test_metrics(model, test):
    """The test metrics of the teacher or the student, rounded for the report."""
    return {name: round(value, 2) for name, value in pair_scorer_metrics(model, test).items()}


def sts_metrics(scores, test):
    """`test_metrics` of scores already computed for the STS pairs `test`."""
    spearman, pearson = correlations(scores, test.scores)
    return {"spearman": round(spearman, 2), "pearson": round(pearson, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=["stsb", "mrpc", "glue/stsb", "glue/mrpc"], default="stsb")
    add_data_argument(parser)
    parser.add_argument(
        "--teacher",
        default=None,
        help="the CrossEncoder .keras file (default out/cross_encoder_<task>/cross_encoder.keras)",
    )
    parser.add_argument(
        "--teacher-cosine",
        action="append",
        default=[],
        metavar="ENCODER",
        help="(repeatable, STS-B) average the cosine of this bi-encoder (zoo:NAME, a .keras file) into the "
        "teacher's scores: a mean ensemble (MeanPairScorer), both on the score / 5 scale",
    )
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument(
        "--cosine-weight",
        type=float,
        default=0.0,
        help="β of the cosine term β·(cos(u, v) − y)² (STS-B; 0 = the paper's loss)",
    )
    parser.add_argument(
        "--ranking-weight",
        type=float,
        default=0.0,
        help="γ of CoSENT's ranking terms on the head's scores and the cosine over each batch (STS-B; 0 = none)",
    )
    parser.add_argument("--freeze-encoder", action="store_true", help="train the head only (frozen ψ)")
    parser.add_argument(
        "--psi",
        choices=PSI_CHOICES,
        default="paper",
        help="the student's embedding: DSE's mean of the last 4 layers (paper) or the checkpoint's own pooling",
    )
    parser.add_argument(
        "--student-init",
        default=None,
        metavar="ENCODER",
        help="start ψ from this fine-tuned bi-encoder's backbone (zoo:NAME or a .keras SentenceEncoder of the "
        "same architecture, e.g. zoo:sbert-minilm-l6-stsb) instead of the pretrained checkpoint",
    )
    parser.add_argument(
        "--unit-features",
        action="store_true",
        help="the pair head reads unit vectors and starts as their cosine (DSE(unit_features=True))",
    )
    parser.add_argument(
        "--lora-rank",
        type=int,
        default=0,
        help="train LoRA adapters of ψ of this rank and the head (0 = full fine-tuning)",
    )
    parser.add_argument(
        "--lora-targets",
        choices=sorted(LORA_TARGETS),
        default="attention",
        help="LoRA on the attention query/value projections (keras-hub's default) or on every dense layer",
    )
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N training pairs (smoke runs)")
    parser.add_argument("--cache", default=os.path.join("out", "cache"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=None)
    add_silver_arguments(parser)
    args = parser.parse_args()
    args.task = named_dataset(args.task).name
    if args.task != "stsb" and (args.silver_pairs or args.cosine_weight or args.teacher_cosine or args.ranking_weight):
        parser.error(
            "--silver-pairs, --cosine-weight, --ranking-weight and --teacher-cosine need a similarity score: --task stsb"
        )
    keras.utils.set_random_seed(args.seed)
    epochs = args.epochs or DEFAULT_EPOCHS[args.task]
    learning_rate = args.learning_rate or (1e-3 if args.freeze_encoder else 5e-4 if args.lora_rank else 2e-5)
    teacher_path = args.teacher or os.path.join("out", f"cross_encoder_{args.task}", "cross_encoder.keras")
    variant = f"alpha{args.alpha:g}" + ("_frozen" if args.freeze_encoder else "")
    output = args.output or os.path.join("out", f"dse_{args.task}_{variant}")
    start = time.perf_counter()

    final_split = evaluation_split(args.data, args.task)  # "dev" where the test labels are secret (TFDS GLUE)
    train, test = read_split(args.data, args.task, "train"), read_split(args.data, args.task, final_split)
    if args.task == "stsb":
        dev = read_split(args.data, args.task, "dev")
        labels = np.asarray(train.scores, np.float32) / 5.0  # the teacher's scale
    else:
        labels = np.asarray(train.labels, np.float32)
    if args.limit:
        train = type(train)(
            train.sentences1[: args.limit],
            train.sentences2[: args.limit],
            (train.scores if args.task == "stsb" else train.labels)[: args.limit],
        )
        labels = labels[: args.limit]

    teacher = load_cross_encoder(teacher_path)  # a .keras file or a zoo model (zoo:cross-encoder-mpnet-base-stsb)
    members = {}  # an ensemble's members' own test metrics, to read the ensemble against them
    if args.teacher_cosine:
        bi_encoders = {spec: load_pair_scorer(f"cosine:{spec}") for spec in args.teacher_cosine}
        teacher = MeanPairScorer([teacher, *bi_encoders.values()])
        member_test = teacher.member_scores(test.sentences1, test.sentences2)  # scored once; the mean reuses them
        members = {name: sts_metrics(s, test) for name, s in zip([teacher_path, *bi_encoders], member_test)}
        teacher_test = sts_metrics(np.mean(member_test, axis=0), test)
    else:
        teacher_test = test_metrics(teacher, test)
    teacher_logits = cached_teacher_logits(teacher, train.sentences1, train.sentences2, args.cache)
    silver_count = 0
    if args.silver_pairs:  # y = T for the silver pairs: the teacher's score is their only label
        train, silver_labels = silver_training_pairs(args, teacher, args.cache, gold=train)
        silver_count = len(silver_labels.logits)
        labels = np.concatenate([labels, silver_labels.logits[:, 0]])
        teacher_logits = np.concatenate([teacher_logits, silver_labels.logits])
    del teacher

    dse = DSE.from_pretrained(
        "minilm-l6",
        num_labels=teacher_logits.shape[1],
        alpha=args.alpha,
        freeze_encoder=args.freeze_encoder,
        cosine_weight=args.cosine_weight,
        unit_features=args.unit_features,
        psi=args.psi,
        ranking_weight=args.ranking_weight,
    )
    if args.student_init:
        copy_backbone_weights(load_sentence_encoder(args.student_init).backbone, dse.encoder.backbone)
    if args.lora_rank:
        dse.enable_lora(args.lora_rank, LORA_TARGETS[args.lora_targets])
    data = examples_dataset(
        train,
        dse.tokenizer,
        labels=np.column_stack([labels, teacher_logits]),
        batch_size=args.batch_size,
        seed=args.seed,
    )
    steps = len(data) * epochs
    dse.compile(
        optimizer=keras.optimizers.AdamW(
            LinearWarmupLinearDecay(learning_rate, steps, 0.1), weight_decay=0.01, global_clipnorm=1.0
        )
    )
    print(
        f"DSE {args.task} α={args.alpha} β={args.cosine_weight} γ={args.ranking_weight} frozen ψ={args.freeze_encoder}: "
        f"{len(train)} pairs ({silver_count} silver), "
        f"{steps} steps, learning rate {learning_rate}"
    )
    callbacks, dev_evaluator = [], None
    run = ResumableRun(output)  # a killed run resumes from output/backup; fit seconds summed
    if args.task == "stsb":
        dev_evaluator = STSEvaluator(
            None,
            dev,
            name="stsb_dev",
            restore_best_weights=True,
            score_fn=lambda first, second: dse.predict_pairs(first, second, progress=False),
            best_weights_path=run.best_weights_path,
        )
        callbacks.append(dev_evaluator)
    callbacks += run.callbacks()
    dse.fit(data, epochs=epochs, callbacks=callbacks, verbose=2)

    student_test = test_metrics(dse, test)
    if args.task == "stsb":  # the embeddings as a user searches with them: cosine of `encode`
        student_test["cosine_spearman"] = round(sts_spearman(dse, test, progress=False), 2)
    os.makedirs(output, exist_ok=True)
    dse.save(os.path.join(output, "dse.keras"))
    headline = "spearman" if args.task == "stsb" else "accuracy"
    print(
        json.dumps(
            {
                "model": "dse",
                "task": args.task,
                "alpha": args.alpha,
                "cosine_weight": args.cosine_weight,
                "ranking_weight": args.ranking_weight,
                "silver_pairs": silver_count,
                "frozen": args.freeze_encoder,
                "unit_features": args.unit_features,
                "psi": args.psi,
                "epochs": epochs,
                "measured_on": final_split,
                # the pair head's STS-B dev Spearman of the epoch kept (it picks the epoch): comparisons are made on it
                **({"dev_spearman": round(dev_evaluator.best_spearman, 2)} if dev_evaluator else {}),
                **({"dev_cosine_spearman": round(sts_spearman(dse, dev, progress=False), 2)} if dev_evaluator else {}),
                "student": student_test,
                "teacher": teacher_test,
                **({"teacher_members": members} if members else {}),
                "relative_to_teacher": round(student_test[headline] / teacher_test[headline], 4),
                "fit_s": round(run.fit_seconds),
                "wall_time_s": round(time.perf_counter() - start),
            }
        )
    )


if __name__ == "__main__":
    main()
