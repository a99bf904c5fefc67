"""Quantised retrieval with known answers: float, int8, binary codes, nested prefixes and the cascade,
beside sentence-transformers' binary + rescoring scheme on the same vectors, in the same run.

    python benchmarks/retrieval_quantization.py --anchor-python .anchor-venv/bin/python   # ~3 min

Task: the SNLI test entailment hypotheses are the queries and each one's premise its one relevant
sentence; the corpus is every distinct sentence of the data folder except STS-B test (the sentences
the zoo's codes were distilled on, without any pairing) minus the query texts themselves (and the
few queries whose premise is another query's text are dropped). Vectors:
all-MiniLM-L6-v2 (unit, float32); codes: the zoo's `minilm-l6-hash512-nested`. Scores: recall@10
and nDCG@10 (`keras_sentemb.evaluation.retrieval_metrics`), each as a share of exact float search's,
and the bytes a stored sentence costs. Rescoring takes the top k·4 (sentence-transformers'
`rescore_multiplier` 4) unless said. Writes a JSON report.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, SHARED_DATA, cpu_flags, machine_description  # noqa: E402

from keras_sentemb import zoo  # noqa: E402
from keras_sentemb.data.examples import NLI_LABELS, read_labeled_pairs  # noqa: E402
from keras_sentemb.data.sentence_corpus import collect_sentences  # noqa: E402
from keras_sentemb.evaluation.retrieval_metrics import ndcg_at_k, recall_at_k  # noqa: E402
from keras_sentemb.retrieval import BinaryIndex, Int8Vectors, semantic_search  # noqa: E402
from keras_sentemb.utils.array_cache import cached_array, fingerprint, fingerprint_texts, fingerprint_weights  # noqa: E402
from keras_sentemb.utils.atomic_files import atomic_open  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "quantized_search_anchor.py")
K = 10


def load_task(data):
    """(queries, relevant premise of each, corpus sentences)."""
    nli = read_labeled_pairs(
        os.path.join(data, "nli", "snli_test.tsv.gz"), "premise", "hypothesis", label_names=NLI_LABELS
    )
    entailed = [(p, h) for p, h, label in zip(nli.sentences1, nli.sentences2, nli.labels) if label == 0]
    queries = list(dict.fromkeys(h for _, h in entailed))
    premise_of = {h: p for p, h in entailed}
    sentences = collect_sentences(data, exclude_files=["stsb/test.tsv"])
    asked = set(queries)
    corpus = [s for s in sentences if s not in asked]
    # a premise that is itself another pair's query text left the corpus with it: drop its queries
    in_corpus = set(corpus)
    queries = [q for q in queries if premise_of[q] in in_corpus]
    return queries, [premise_of[q] for q in queries], corpus, sentences


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED_DATA)
    parser.add_argument("--model", default="minilm-l6-hash512-nested", help="a zoo name: a nested hashed encoder")
    parser.add_argument("--anchor-python", default=os.path.join(REPO, ".anchor-venv", "bin", "python"))
    parser.add_argument("--cache", default=os.path.join(REPO, "out", "cache"))
    parser.add_argument("--report", default=os.path.join("out", "retrieval_quantization.json"))
    args = parser.parse_args()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")

    queries, premises, corpus, sentences = load_task(args.data)
    hashed = zoo.load(args.model)
    encoder = hashed.encoder
    # the vectors of every shared sentence, cached under the zoo recipes' key (shared with their builds)
    key = fingerprint("minilm-l6", fingerprint_texts(sentences), fingerprint_weights(encoder))
    vectors = cached_array(args.cache, "minilm-l6-shared-sentences", key, lambda: encoder.encode(sentences))
    row = {s: i for i, s in enumerate(sentences)}
    corpus_vectors = vectors[[row[s] for s in corpus]]
    query_vectors = vectors[[row[q] for q in queries]]
    position = {s: i for i, s in enumerate(corpus)}
    relevant = [{position[p]} for p in premises]
    print(f"{len(queries):,} queries, {len(corpus):,} corpus sentences")

    rows = {}

    def record(name, ids, bytes_per_sentence, seconds):
        rows[name] = {
            "recall@10": recall_at_k(ids, relevant, K),
            "ndcg@10": ndcg_at_k(ids, relevant, K),
            "bytes_per_sentence": bytes_per_sentence,
            "seconds": seconds,
        }

    start = time.perf_counter()
    ids, _ = semantic_search(query_vectors, corpus_vectors, top_k=K)
    record("float32, exact cosine", ids, 4 * corpus_vectors.shape[1], time.perf_counter() - start)

    int8 = Int8Vectors.quantize(corpus_vectors)
    start = time.perf_counter()
    ids, _ = semantic_search(query_vectors, int8[np.arange(len(corpus))], top_k=K)
    record("int8 (Int8Vectors), exact cosine", ids, corpus_vectors.shape[1], time.perf_counter() - start)

    codes = hashed.hash_embeddings(corpus_vectors)
    query_codes = hashed.hash_embeddings(query_vectors)
    index = BinaryIndex(hashed.bits)
    index.add(codes)
    nbytes = hashed.bits // 8
    for bits in hashed.hashing.nested_bits:
        start = time.perf_counter()
        _, ids = index.search(query_codes, K, bits=bits)
        record(f"nested code, first {bits} bits, Hamming alone", ids, bits // 8, time.perf_counter() - start)
    for name, stored, extra in (("float32", corpus_vectors, 4), ("int8", int8, 1)):
        start = time.perf_counter()
        _, ids = index.search_and_rerank(query_codes, query_vectors, stored, K, factor=4)
        record(
            f"nested {hashed.bits} bits, top 40 rescored with {name}",
            ids,
            nbytes + extra * corpus_vectors.shape[1],
            time.perf_counter() - start,
        )
    for shortlist_bits, shortlist in ((64, 100), (128, 100)):
        start = time.perf_counter()
        _, ids = index.cascade_search(
            query_codes, K, shortlist_bits, shortlist, query_embeddings=query_vectors, embeddings=int8
        )
        record(
            f"cascade: first {shortlist_bits} bits → top {shortlist}, rescored with int8",
            ids,
            nbytes + shortlist_bits // 8 + corpus_vectors.shape[1],
            time.perf_counter() - start,
        )

    with tempfile.TemporaryDirectory() as folder:
        np.save(os.path.join(folder, "corpus.npy"), corpus_vectors)
        np.save(os.path.join(folder, "queries.npy"), query_vectors)
        command = [args.anchor_python, ANCHOR, "--corpus", os.path.join(folder, "corpus.npy")]
        command += ["--queries", os.path.join(folder, "queries.npy"), "--k", str(K), "--multiplier", "4"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the sentence-transformers anchor failed:\n{done.stderr[-3000:]}")
    anchor = json.loads(done.stdout.strip().splitlines()[-1])
    binary = anchor["ubinary_bytes_per_vector"]
    record(
        "ST: ubinary (384 bits), top 40 rescored float × binary (semantic_search_faiss)",
        anchor["st_binary_rescore_float_x_binary"],
        binary,
        anchor["st_binary_rescore_float_x_binary_s"],
    )
    record(
        "ST: ubinary (384 bits), top 40 rescored with int8 (quantize_embeddings)",
        anchor["st_binary_rescore_int8"],
        binary + anchor["int8_bytes_per_vector"],
        anchor["st_binary_rescore_int8_s"],
    )

    base = rows["float32, exact cosine"]
    print(f"\n{'mode':<82}{'R@10':>7}{'nDCG@10':>9}{'of float (R / nDCG)':>21}{'B/sentence':>12}")
    for name, row in rows.items():
        row["recall_share"] = row["recall@10"] / base["recall@10"]
        row["ndcg_share"] = row["ndcg@10"] / base["ndcg@10"]
        share = f"{100 * row['recall_share']:.1f} / {100 * row['ndcg_share']:.1f} %"
        print(f"{name:<82}{row['recall@10']:>7.4f}{row['ndcg@10']:>9.4f}{share:>21}{row['bytes_per_sentence']:>12,}")
    report = {
        "machine": machine_description(),
        "cpu_flags": cpu_flags(),
        "queries": len(queries),
        "corpus": len(corpus),
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
    with atomic_open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    print(f"\nwrote {args.report}")


if __name__ == "__main__":
    main()
