"""Does a cross-encoder learn relevance from a BEIR folder's train qrels in a CPU budget? Against its bi-encoder.

    python benchmarks/reranker_learning_check.py [--beir DIR] [--init-from out/train_retrieval_minilm/encoder.keras]
        [--pooling mean] [--steps 200] [--learning-rate 1e-4] [--dev-queries 150]

The easiest form of the reranking task: for every train query one relevant document (any grade, label 1) and one
drawn at random from the documents not judged relevant to it (label 0), shuffled together. A MiniLM cross-encoder
(`CrossEncoder`, `--pooling`, its backbone seeded with the bi-encoder `--init-from`'s, as
examples/train_reranker.py seeds it) trains `--steps` steps of 16 pairs with binary cross-entropy on its logit
(AdamW at a constant `--learning-rate`); its running loss is printed every 20 steps beside ln 2 = 0.693, a constant
predictor's loss on these balanced labels. Then, on `--dev-queries` dev queries built the same way, the pairwise
accuracy

    accuracy = mean over queries [score(q, relevant) > score(q, random)]

of the cross-encoder, side by side with its anchor measured in the same run: the bi-encoder's cosine on the same
pairs (the untuned `minilm-l6` preset too). 0.5 is chance. Prints a table and one JSON line.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402
from keras_sentemb.data.beir_folder import read_beir_folder  # noqa: E402
from keras_sentemb.data.examples import ScoredPairs  # noqa: E402
from keras_sentemb.data.pipelines import cross_pairs_dataset  # noqa: E402
from keras_sentemb.evaluation.sts import cosine_scores  # noqa: E402
from keras_sentemb.models import CrossEncoder  # noqa: E402
from keras_sentemb.zoo.loading import load_sentence_encoder  # noqa: E402


def relevant_and_random_pairs(collection, num_queries, rng):
    """(queries, documents, labels): for up to `num_queries` queries (in a seeded order), one judged-relevant
    document (label 1) then one drawn at random among those not judged relevant (label 0)."""
    query_row = {q: i for i, q in enumerate(collection.query_ids)}
    document_row = {d: i for i, d in enumerate(collection.document_ids)}
    queries, documents, labels = [], [], []
    judged_queries = sorted(collection.qrels)
    for position in rng.permutation(len(judged_queries))[:num_queries]:
        query = judged_queries[position]
        judged = collection.qrels[query]
        relevant = sorted(d for d, grade in judged.items() if grade > 0)
        if not relevant:
            continue
        while True:
            drawn = int(rng.integers(len(collection.documents)))
            if collection.document_ids[drawn] not in judged:
                break
        text = collection.queries[query_row[query]]
        chosen = relevant[int(rng.integers(len(relevant)))]
        queries += [text, text]
        documents += [collection.documents[document_row[chosen]], collection.documents[drawn]]
        labels += [1.0, 0.0]
    return queries, documents, np.asarray(labels, np.float32)


def pairwise_accuracy(scores):
    """The share of queries whose relevant document (even rows) scores above its random one (odd rows)."""
    scores = np.asarray(scores, np.float64).reshape(-1)
    return float((scores[0::2] > scores[1::2]).mean())


class RunningLoss(keras.callbacks.Callback):
    """Prints Keras' running mean of the loss every `every` steps; keeps each print."""

    def __init__(self, every=20):
        super().__init__()
        self.every, self.printed = every, []

    def on_train_batch_end(self, batch, logs=None):
        if (batch + 1) % self.every == 0:
            self.printed.append((batch + 1, round(float(logs["loss"]), 4)))
            print(
                f"step {batch + 1}: running loss {logs['loss']:.4f} (constant predictor: {np.log(2):.4f})", flush=True
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--beir", default=os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    parser.add_argument("--model", default="minilm-l6", help="the cross-encoder's preset (BERT/MiniLM)")
    parser.add_argument(
        "--init-from",
        default=os.path.join("out", "train_retrieval_minilm", "encoder.keras"),
        help="the bi-encoder (.keras, preset or folder) whose backbone seeds the cross-encoder: the anchor",
    )
    parser.add_argument("--pooling", choices=["pooler", "cls", "mean"], default="mean")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--dev-queries", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train = read_beir_folder(args.beir, split="train")
    dev = read_beir_folder(args.beir, split="dev")
    queries, documents, labels = relevant_and_random_pairs(train, len(train.queries), rng)
    dev_queries, dev_documents, _ = relevant_and_random_pairs(dev, args.dev_queries, rng)
    print(f"{len(labels)} train pairs ({len(labels) // 2} queries), {len(dev_queries)} dev pairs", flush=True)

    accuracy = {}
    bi_encoder = load_sentence_encoder(args.init_from)
    for name, encoder in ((args.model, load_sentence_encoder(args.model)), (args.init_from, bi_encoder)):
        accuracy[f"bi-encoder {name} (cosine)"] = pairwise_accuracy(cosine_scores(encoder, dev_queries, dev_documents))

    model = CrossEncoder.from_pretrained(
        args.model, pooling=args.pooling, max_length=args.max_length, score_activation="sigmoid"
    )
    model.backbone.set_weights(bi_encoder.backbone.get_weights())
    accuracy["cross-encoder before training"] = pairwise_accuracy(
        model.predict_pairs(dev_queries, dev_documents, batch_size=32)
    )
    data = cross_pairs_dataset(
        ScoredPairs(queries, documents, labels.tolist()),
        model.tokenizer,
        labels=labels,
        batch_size=16,
        seed=args.seed,
        input_names=model.input_names,
    )
    model.compile(
        optimizer=keras.optimizers.AdamW(args.learning_rate, weight_decay=0.01, global_clipnorm=1.0),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    losses = RunningLoss()
    start = time.perf_counter()
    model.fit(data.repeat(), steps_per_epoch=args.steps, epochs=1, verbose=0, callbacks=[losses])
    fit_seconds = time.perf_counter() - start
    accuracy[f"cross-encoder after {args.steps} steps"] = pairwise_accuracy(
        model.predict_pairs(dev_queries, dev_documents, batch_size=32)
    )

    print()
    print(f"| dev pairs: relevant vs random ({len(dev_queries) // 2} queries) | pairwise accuracy |")
    print("|---|---:|")
    for name, value in accuracy.items():
        print(f"| {name} | {value:.3f} |")
    print(f"fit: {args.steps} steps of 16 pairs in {fit_seconds:.0f} s ({args.steps * 16 / fit_seconds:.1f} pairs/s)")
    print(
        json.dumps(
            {
                "benchmark": "reranker_learning_check",
                "cpu_flags": cpu_flags(),
                "init_from": args.init_from,
                "pooling": args.pooling,
                "learning_rate": args.learning_rate,
                "steps": args.steps,
                "running_loss": losses.printed,
                "pairwise_accuracy": {name: round(value, 3) for name, value in accuracy.items()},
                "fit_seconds": round(fit_seconds, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
