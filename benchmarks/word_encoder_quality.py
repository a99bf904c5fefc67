"""STS-B test Spearman × 100 (cosine, unsupervised) of the fast word-level encoders, side by
side with their teacher (all-MiniLM-L6-v2) and averaged word vectors, measured in one run.

    python benchmarks/word_encoder_quality.py \
        --inferlite out/inferlite/inferlite.keras --bilstm-sra out/bilstm_sra/bilstm_sra.keras

Rows: the trained InferLite and BiLSTM-SRA (.keras files written by the examples), the
MiniLM teacher (the anchor: what they were distilled from), and two baselines over the
same tokenizer and tables: the mean of the unit GloVe 50-d vectors of a sentence's words
and the mean of the per-word MiniLM vectors. Published figures for orientation
(InferLite paper, 300-d GloVe): InferSent-GloVe 68.03, average GloVe 58.02. Targets:
InferLite >= 70, BiLSTM-SRA >= 75.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import numpy as np  # noqa: E402
from common import REPO, default_stsb_test, machine_description  # noqa: E402

from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.evaluation.sts import correlations, cosine_scores  # noqa: E402
from keras_sentemb.models import (
    SentenceEncoder,  # noqa: E402
    build_word_vectors,  # noqa: E402
)
from keras_sentemb.tokenizers.word_tokenizer import WordTokenizer  # noqa: E402

TARGETS = {"InferLite": 70.0, "BiLSTM-SRA": 75.0}


class AveragedWordVectors:
    """The mean of a table's rows over a text's in-vocabulary words (zeros if none)."""

    def __init__(self, tokenizer, table):
        self.tokenizer, self.table = tokenizer, table

    def encode(self, texts, batch_size=None, normalize=True, progress=False):
        rows = self.tokenizer.content_id_rows([t.encode("utf-8") for t in texts])
        out = np.zeros((len(rows), self.table.shape[1]), np.float32)
        for i, row in enumerate(rows):
            known = row[row > 1]
            if len(known):
                out[i] = self.table[known].mean(axis=0)
        if normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


def spearman(model, pairs):
    return correlations(cosine_scores(model, pairs.sentences1, pairs.sentences2, progress=False), pairs.scores)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--inferlite", default=os.path.join(REPO, "out", "inferlite", "inferlite.keras"))
    parser.add_argument("--bilstm-sra", default=os.path.join(REPO, "out", "bilstm_sra", "bilstm_sra.keras"))
    parser.add_argument("--cache", default=os.path.join(REPO, "out", "cache"))
    args = parser.parse_args()
    pairs = read_scored_pairs(args.data)
    print(f"machine: {machine_description()}")
    print(f"data: {len(pairs.scores)} pairs of {args.data}")

    teacher = spearman(SentenceEncoder.from_pretrained("minilm-l6"), pairs)
    rows = []
    for name, path in (("InferLite", args.inferlite), ("BiLSTM-SRA", args.bilstm_sra)):
        if os.path.exists(path):
            rows.append((name, spearman(keras.saving.load_model(path), pairs)))
        else:
            print(f"{name}: {path} not found, skipped (train it first, see examples/)")
    vectors = build_word_vectors(cache_dir=args.cache, progress=False)
    tokenizer = WordTokenizer(vectors.vocabulary)
    for table in ("glove", "minilm"):
        rows.append(
            (f"average {table} word vectors", spearman(AveragedWordVectors(tokenizer, vectors.tables[table]), pairs))
        )

    print(f"\n{'model':<36}{'Spearman×100':>13}{'× teacher':>11}{'target':>8}")
    for name, value in rows:
        target = TARGETS.get(name)
        verdict = "" if target is None else f"{target:8.0f} {'met' if value >= target else 'MISSED'}"
        print(f"{name:<36}{value:13.2f}{value / teacher:11.3f}{verdict}")
    print(f"{'all-MiniLM-L6-v2 (teacher, anchor)':<36}{teacher:13.2f}{1.0:11.3f}")


if __name__ == "__main__":
    main()
