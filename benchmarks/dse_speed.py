"""DSE vs its cross-encoder teacher: the speed tables of Barkan et al. 2020 (Tables 3 and 4).

    python benchmarks/dse_speed.py            # ~10 min; the 100k catalog is embedded once and cached

(a) offline: every score among 1,000 sentences (1,000 × 1,000 ordered pairs): the
    cross-encoder runs one transformer pass per pair; DSE embeds the 1,000 sentences once
    and scores all pairs with f(u, v) = W·[u, v, u∘v, |u−v|] + b (`DSE.score_matrix`).
(b) online: one query against a catalog of 100,000 sentences whose DSE embeddings are
    precomputed (held as a tf.Tensor): the cross-encoder scores 100,000 pairs; DSE embeds
    the query and scores it against the catalog, then takes the top 10 (`DSE.rank`).

The cross-encoder is timed on a random sample of the pairs and extrapolated linearly
(its cost per pair does not depend on the other pairs); the output marks those figures.
DSE is timed on the full workloads. Both run in float32 on the same CPU threads, after
warm-up calls (tracing, XLA compilation). Trained weights are used when given
(`--teacher`, `--student`); the timings do not depend on the weights' values.
Paper: 934× offline, 13,594× online (BERT-large teacher, GPU).
"""

import argparse
import os
import random
import statistics
import sys
import time

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SHARED_DATA, machine_description  # noqa: E402
from keras_sentemb.data.sentence_corpus import collect_sentences  # noqa: E402
from keras_sentemb.models import DSE, CrossEncoder  # noqa: E402
from keras_sentemb.utils.array_cache import (  # noqa: E402
    cached_array,
    fingerprint,
    fingerprint_texts,
    fingerprint_weights,
)

CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache")


def load(path, factory):
    if path:
        import keras

        return keras.models.load_model(path)
    return factory()


def seconds(function, repeats=1):
    """Median wall time of `repeats` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def cross_encoder_seconds_per_pair(teacher, pairs, batch_size):
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    teacher.predict_pairs(first[:256], second[:256], batch_size=batch_size)  # warm-up
    elapsed, _ = seconds(lambda: teacher.predict_pairs(first, second, batch_size=batch_size))
    return elapsed / len(pairs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA)
    parser.add_argument("--teacher", default=None, help="a trained CrossEncoder .keras file")
    parser.add_argument("--student", default=None, help="a trained DSE .keras file")
    parser.add_argument("--offline-sentences", type=int, default=1000)
    parser.add_argument("--catalog", type=int, default=100_000)
    parser.add_argument(
        "--sample-pairs", type=int, default=2000, help="cross-encoder pairs actually timed per workload"
    )
    parser.add_argument("--queries", type=int, default=20, help="DSE online queries timed")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"machine: {machine_description()}")

    sentences = collect_sentences(args.data)
    rng.shuffle(sentences)
    needed = args.catalog + args.offline_sentences + args.queries + 2
    if len(sentences) < needed:
        raise SystemExit(f"need {needed} distinct sentences, {args.data} has {len(sentences)}")
    catalog_texts = sentences[: args.catalog]
    offline = sentences[args.catalog : args.catalog + args.offline_sentences]
    queries = sentences[args.catalog + args.offline_sentences : needed]

    teacher = load(args.teacher, lambda: CrossEncoder.from_pretrained("minilm-l6", num_labels=1))
    student = load(args.student, lambda: DSE.from_pretrained("minilm-l6", num_labels=1))
    n = len(offline)

    # (a) offline: all n × n scores
    sample = [(offline[rng.randrange(n)], offline[rng.randrange(n)]) for _ in range(args.sample_pairs)]
    ce_offline = cross_encoder_seconds_per_pair(teacher, sample, args.batch_size) * n * n

    def dse_offline():
        vectors = tf.constant(student.embed(offline, batch_size=args.batch_size, progress=False))
        return student.score_matrix(vectors, vectors)

    dse_offline()  # warm-up: traces and XLA block compilations
    dse_offline_s, matrix = seconds(dse_offline, repeats=3)
    assert matrix.shape == (n, n)

    # (b) online: one query against the precomputed catalog
    key = fingerprint("dse-catalog", fingerprint_texts(catalog_texts), fingerprint_weights(student))
    print(f"embedding the {len(catalog_texts):,}-sentence catalog with DSE (cached after the first run)")
    catalog = tf.constant(
        cached_array(
            CACHE, "dse_catalog", key, lambda: student.embed(catalog_texts, batch_size=args.batch_size, progress=True)
        )
    )
    query_sample = [(queries[0], catalog_texts[rng.randrange(len(catalog_texts))]) for _ in range(args.sample_pairs)]
    ce_online = cross_encoder_seconds_per_pair(teacher, query_sample, args.batch_size) * len(catalog_texts)
    for query in queries[:2]:
        student.rank([query], catalog, k=10)  # warm-up
    online_times = []
    for query in queries[2:]:
        elapsed, (indices, _) = seconds(lambda q=query: student.rank([q], catalog, k=10))
        online_times.append(elapsed)
        assert indices.shape == (1, 10)
    embed_times = [seconds(lambda q=q: student.embed([q]))[0] for q in queries[2:]]
    dse_online_s = statistics.median(online_times)

    print()
    print("| workload | cross-encoder | DSE | speed-up | paper |")
    print("|---|---|---|---|---|")
    print(
        f"| (a) offline: all {n * n:,} scores among {n:,} sentences | {ce_offline:,.0f} s "
        f"(extrapolated from {args.sample_pairs:,} pairs) | {dse_offline_s:.2f} s (measured) | "
        f"**{ce_offline / dse_offline_s:,.0f}×** | 934× |"
    )
    print(
        f"| (b) online: 1 query vs {len(catalog_texts):,} catalog sentences | {ce_online:,.0f} s "
        f"(extrapolated from {args.sample_pairs:,} pairs) | {dse_online_s * 1000:.1f} ms (measured, "
        f"median of {len(online_times)} queries) | **{ce_online / dse_online_s:,.0f}×** | 13,594× |"
    )
    print()
    print(
        f"DSE online breakdown: query embedding {statistics.median(embed_times) * 1000:.1f} ms, "
        f"scoring {len(catalog_texts):,} pairs + top-10 "
        f"{(dse_online_s - statistics.median(embed_times)) * 1000:.1f} ms; "
        f"cross-encoder {1 / (ce_online / len(catalog_texts)):.0f} pairs/s online, "
        f"{n * n / ce_offline:.0f} pairs/s offline"
    )


if __name__ == "__main__":
    main()
