"""The transfer-settings table on STS-B: UE / FT (MSE, KL) / NT / DNT, word embeddings frozen or not.

    python examples/transfer_settings.py --model minilm-l6 --epochs 2 --data DATA
    python examples/transfer_settings.py --model out/bilstm_sra/bilstm_sra.keras --epochs 4 --data DATA

`DATA`: a folder in the layout of docs/data.md, `tfds` or `tfds:DIR` (default `$KERAS_SENTEMB_DATA`).

Each trained setting starts from a fresh copy of `--model`, trains on STS-B train
(`TransferModel`, Zhang, Wilson & Mihalcea 2018), keeps its best STS-B dev epoch (Spearman)
and is scored on STS-B test (Pearson, Spearman × 100):

- UE: cosine of the embeddings, nothing trained;
- FT: encoder frozen, the classifier σ(W× u∘v + W+ |u−v| + b) → softmax over the scores
  0…5 → ŷ = rᵀp̂ trained with MSE on ŷ or KL to the sparse target distribution;
- NT: the same classifier (KL) with the encoder trained, word-embedding matrix frozen or not;
- DNT: the encoder trained so that cos(u, v) fits score/5 (MSE, `CosineSimilarityLoss`),
  word-embedding matrix frozen or not.

Learning rates: the classifier alone (FT) 1e-3; settings that train a transformer 2e-5
(AdamW, 10 % warm-up, linear decay), a word-level encoder 1e-3. NT on a transformer first
trains its new classifier alone for one epoch at 1e-3 (a random classifier learns next to
nothing at 2e-5 and drags the encoder with it). Batch 16. Writes
`<output>/transfer_<model>.json` and prints a Markdown table.
"""

import argparse
import json
import os
import time

import keras

from keras_sentemb.data.named_datasets import add_data_argument, evaluation_split, read_split
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.evaluation.sts import correlations
from keras_sentemb.models.transfer_model import TransferModel
from keras_sentemb.training import LinearWarmupLinearDecay, STSEvaluator
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.zoo.loading import load_sentence_encoder

# (row label, setting, freeze_word_embeddings, objective)
ROWS = [
    ("UE", "ue", False, None),
    ("FT (MSE)", "ft", False, "mse"),
    ("FT (KL)", "ft", False, "kl"),
    ("NT (KL), wem frozen", "nt", True, "kl"),
    ("NT (KL), wem trained", "nt", False, "kl"),
    ("DNT, wem frozen", "dnt", True, None),
    ("DNT, wem trained", "dnt", False, None),
]


def learning_rate(setting, encoder):
    if setting == "ft":
        return 1e-3
    return 2e-5 if hasattr(encoder, "backbone") else 1e-3


def run_row(args, setting, frozen, objective, train, dev, test):
    keras.utils.set_random_seed(args.seed)
    encoder = load_sentence_encoder(args.model)
    model = TransferModel(encoder, setting, freeze_word_embeddings=frozen, objective=objective or "kl")
    best_dev = None
    if setting != "ue":
        data = examples_dataset(train, encoder.tokenizer, batch_size=args.batch_size, seed=args.seed)
        steps = len(data) * args.epochs
        if setting == "nt" and hasattr(encoder, "backbone"):
            # A random classifier cannot learn at the transformer's 2e-5: train it alone first.
            model.set_encoder_trainable(False)
            model.compile(optimizer=keras.optimizers.AdamW(learning_rate("ft", encoder)))
            model.fit(data, epochs=1, verbose=0)
            model.set_encoder_trainable(True)
        model.compile(
            optimizer=keras.optimizers.AdamW(
                LinearWarmupLinearDecay(learning_rate(setting, encoder), steps, 0.1),
                weight_decay=0.01,
                global_clipnorm=1.0,
            )
        )
        evaluator = STSEvaluator(
            None, dev, name="stsb_dev", restore_best_weights=True, verbose=0, score_fn=model.predict_scores
        )
        model.fit(data, epochs=args.epochs, callbacks=[evaluator], verbose=0)
        best_dev = round(evaluator.best_spearman, 2)
    spearman, pearson = correlations(model.predict_scores(test.sentences1, test.sentences2), test.scores)
    return {"pearson": round(pearson, 2), "spearman": round(spearman, 2), "dev_spearman": best_dev}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="minilm-l6", help="a preset or a .keras encoder")
    add_data_argument(parser)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--rows", default=None, help="comma-separated row numbers (0-6) to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "transfer"))
    args = parser.parse_args()
    sts_split = evaluation_split(args.data, "stsb")  # "dev" from TFDS (GLUE keeps test labels secret)
    train, dev = read_split(args.data, "stsb", "train"), read_split(args.data, "stsb", "dev")
    test = read_split(args.data, "stsb", sts_split)
    chosen = range(len(ROWS)) if args.rows is None else [int(i) for i in args.rows.split(",")]
    results = []
    for index in chosen:
        label, setting, frozen, objective = ROWS[index]
        start = time.perf_counter()
        row = run_row(args, setting, frozen, objective, train, dev, test)
        row.update(row=label, seconds=round(time.perf_counter() - start))
        results.append(row)
        print(json.dumps(row), flush=True)

    name = os.path.splitext(os.path.basename(os.path.normpath(args.model)))[0]
    os.makedirs(args.output, exist_ok=True)
    with atomic_open(os.path.join(args.output, f"transfer_{name}.json"), "w") as f:
        json.dump({"model": args.model, "epochs": args.epochs, "rows": results}, f, indent=1)
    print(f"\n| {name} on STS-B {sts_split} | Pearson | Spearman | dev Spearman | time |")
    print("|---|---|---|---|---|")
    for row in results:
        dev_score = "—" if row["dev_spearman"] is None else f"{row['dev_spearman']:.2f}"
        print(f"| {row['row']} | {row['pearson']:.2f} | {row['spearman']:.2f} | {dev_score} | {row['seconds']} s |")


if __name__ == "__main__":
    main()
