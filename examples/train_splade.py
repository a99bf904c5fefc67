"""Train a SPLADE model (learned sparse retrieval) with model.fit on a BEIR collection's train qrels.

    python examples/train_splade.py --beir ../shared/data/beir/nfcorpus --model minilm-l6 --output out/splade

1. Model: a sentence-transformers SparseEncoder folder (`SparseEncoder.from_pretrained`), or a dense model
   (a preset such as minilm-l6, or a folder) turned into one by `SparseEncoder.from_sentence_encoder`: the same
   backbone and tokenizer, a masked-LM head whose decoder is the backbone's word embeddings (tied) and whose
   transform (identity at the start), norm and bias are new. The bias starts at `--head-bias` (−5): all-MiniLM-L6-v2's
   logits spread with a standard deviation of ~1.1, so with a bias of 0 half of them are > 0 and an untrained document
   is active on the whole vocabulary; at −5 an NFCorpus train document starts with ~900 active entries, a query ~30
   (the first integer at which 32 train documents averaged under 1,000). all-MiniLM-L6-v2 ships no masked-LM head:
   those are what this run learns beside the backbone.
2. Data: one (query, relevant document) pair for every relevant judgement of the train split, shuffled; a
   document relevant to two queries of a batch is no negative for either (`relevant_pairs`).
3. Loss: `SpladeLoss` — in-batch ranking by dot product + FLOPS regularisers (λ_d 3e-5, λ_q 5e-5), the values of
   sentence-transformers' SpladeLoss documentation — through `SBERT(sparse_encoder, "mnrl", one_pass=False)`; the
   regularisers grow from 0 over the first third of the steps, quadratically (`SpladeRegularizerWarmup`, as
   sentence-transformers' trainer does; `--regularizer-warmup`).
4. Choices on dev: after every epoch the dev split's nDCG@10 (exact sparse search); the best epoch's weights are
   kept. The test split is read once, at the end (`--skip-test`: not at all, the caller measures it).

The last line printed is a JSON report (also `<output>/report.json`): pairs, steps, dev nDCG@10 by epoch, the test
measures (null with `--skip-test`), the active dimensions a dev query and a document, and the seconds spent; the
model is saved as `<output>/sparse_encoder.keras`.
"""

import argparse
import json
import os
import time

import keras
import numpy as np

from keras_sentemb import SentenceEncoder
from keras_sentemb.data.beir_folder import read_beir_folder
from keras_sentemb.data.examples import TextPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.evaluation import evaluate_beir
from keras_sentemb.losses import SpladeLoss
from keras_sentemb.models import SBERT, SparseEncoder
from keras_sentemb.pretrained.sparse_encoder_folder import is_sparse_encoder_folder
from keras_sentemb.training import LinearWarmupLinearDecay, RetrievalEvaluator, SpladeRegularizerWarmup
from keras_sentemb.utils.atomic_files import atomic_open

# A dense model's new head starts every β here (see 1. above): chosen on 32 NFCorpus train documents.
HEAD_BIAS = -5.0


def sparse_model(spec, max_length, head_bias):
    """A SparseEncoder folder as it is, anything else through `from_sentence_encoder` (its new head's β `head_bias`)."""
    if os.path.isdir(spec) and is_sparse_encoder_folder(spec):
        return SparseEncoder.from_pretrained(spec, max_length=max_length)
    dense = SentenceEncoder.from_pretrained(spec, max_length=max_length)
    return SparseEncoder.from_sentence_encoder(dense, initial_decoder_bias=head_bias)


def training_pairs(train, max_pairs, seed):
    """(TextPairs, ids [pairs, 2] of (query row, document row), every relevant (query row, document row))."""
    query_row = {q: i for i, q in enumerate(train.query_ids)}
    document_row = {d: i for i, d in enumerate(train.document_ids)}
    positives = np.asarray(
        [
            (query_row[q], document_row[d])
            for q, judged in train.qrels.items()
            for d, grade in judged.items()
            if grade > 0
        ],
        np.int64,
    )
    order = np.random.default_rng(seed).permutation(len(positives))
    pairs = positives[order[:max_pairs] if max_pairs else order]
    texts = TextPairs([train.queries[q] for q, _ in pairs], [train.documents[d] for _, d in pairs])
    return texts, pairs, positives


def active_dimensions(encoder, texts, side):
    vectors = getattr(encoder, f"encode_{side}")(texts, progress=False)
    return round(float(np.diff(vectors.indptr).mean()), 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", required=True, help="BEIR folder: corpus, queries, qrels/train|dev|test.tsv")
    parser.add_argument("--model", default="minilm-l6", help="a SparseEncoder folder, or a dense preset / folder")
    parser.add_argument("--max-length", type=int, default=256, help="tokens a text (documents are cut there)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--max-pairs", type=int, default=0, help="train on at most this many pairs (0: all)")
    parser.add_argument("--document-regularizer-weight", type=float, default=3e-5)
    parser.add_argument("--query-regularizer-weight", type=float, default=5e-5)
    parser.add_argument(
        "--regularizer-warmup", type=float, default=1 / 3, help="fraction of the steps the regularisers grow over"
    )
    parser.add_argument(
        "--skip-test", action="store_true", help="leave the test split to the caller (benchmarks/sparse_retrieval.py)"
    )
    parser.add_argument(
        "--head-bias",
        type=float,
        default=HEAD_BIAS,
        help="a dense model's new head: the starting β of every vocabulary entry (a threshold: sparse from the start)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=os.path.join("out", "train_splade"))
    args = parser.parse_args()
    keras.utils.set_random_seed(args.seed)
    start = time.perf_counter()
    train = read_beir_folder(args.beir, split="train")
    dev = read_beir_folder(args.beir, split="dev")
    encoder = sparse_model(args.model, args.max_length, args.head_bias)
    texts, pairs, positives = training_pairs(train, args.max_pairs, args.seed)
    data = examples_dataset(
        texts, encoder.tokenizer, labels=pairs.astype(np.float32), batch_size=args.batch_size, seed=args.seed
    )
    steps = len(data) * args.epochs
    sbert = SBERT(encoder, "mnrl", one_pass=False)
    sbert.compile(
        optimizer=keras.optimizers.AdamW(
            LinearWarmupLinearDecay(args.learning_rate, steps, args.warmup), weight_decay=0.01, global_clipnorm=1.0
        ),
        loss=(
            loss := SpladeLoss(
                document_regularizer_weight=args.document_regularizer_weight,
                query_regularizer_weight=args.query_regularizer_weight,
                relevant_pairs=positives,
            )
        ),
    )
    print(f"{len(pairs)} pairs, {steps} steps of {args.batch_size}, learning rate {args.learning_rate}")
    os.makedirs(args.output, exist_ok=True)
    evaluator = RetrievalEvaluator(encoder, dev, name="dev", restore_best_weights=True)
    fit_start = time.perf_counter()
    warmup = SpladeRegularizerWarmup(loss, warmup_ratio=args.regularizer_warmup)
    history = sbert.fit(data, epochs=args.epochs, callbacks=[warmup, evaluator], verbose=1)
    fit_seconds = time.perf_counter() - fit_start
    after = None if args.skip_test else evaluate_beir(encoder, read_beir_folder(args.beir, "test"), progress=False)
    encoder.save(os.path.join(args.output, "sparse_encoder.keras"))
    report = {
        "model": args.model,
        "head_bias": args.head_bias,
        "pairs": len(pairs),
        "steps": steps,
        "batch_size": args.batch_size,
        "dev_ndcg_at_10_by_epoch": [round(v, 2) for v in history.history.get("dev_ndcg@10", [])],
        "test": after and {name: round(value, 2) for name, value in after.metrics.items()},
        "active_dimensions_query": active_dimensions(encoder, dev.queries[:200], "query"),
        "active_dimensions_document": active_dimensions(encoder, dev.documents[:200], "document"),
        "fit_seconds": round(fit_seconds, 1),
        "seconds": round(time.perf_counter() - start, 1),
    }
    with atomic_open(os.path.join(args.output, "report.json"), "wb") as f:
        f.write(json.dumps(report, indent=1).encode("utf-8"))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
