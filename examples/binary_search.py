"""Binary codes end to end: distil a 256-bit code, search it, re-rank, export a `search` signature.

    python examples/binary_search.py                 # the bundled 300-sentence corpus
    python examples/binary_search.py --corpus my_sentences.txt --bits 128
    python examples/binary_search.py --pairs DATA/stsb/train.tsv             # + a pair task on the codes

1. encode the corpus with the default encoder (all-MiniLM-L6-v2);
2. train a SemanticHashing head on the frozen encoder (distill_hashed_encoder), with
   `--pairs` (score, sentence1, sentence2 rows) jointly with CoSENT on the pairs' codes;
3. index the packed codes (BinaryIndex: FAISS when installed, NumPy otherwise);
4. answer the queries from Hamming search alone and after float re-ranking, next to the
   exact float top-k, and print how many of the float top-k each one finds;
5. export a SavedModel with `hash` and `search` signatures and ask it the first query.
"""

import argparse
import os
import tempfile

import numpy as np
import tensorflow as tf

from keras_sentemb import SentenceEncoder
from keras_sentemb.data.examples import read_scored_pairs
from keras_sentemb.data.text_file import read_lines
from keras_sentemb.evaluation import neighbour_recall
from keras_sentemb.export import export_saved_model
from keras_sentemb.retrieval import BinaryIndex, semantic_search
from keras_sentemb.training import distill_hashed_encoder

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.join(HERE, "data", "corpus.txt"))
    parser.add_argument("--queries", default=os.path.join(HERE, "data", "queries.txt"))
    parser.add_argument("--bits", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--pairs", help="scored pairs (STS-B format) for joint training of the code")
    args = parser.parse_args()
    corpus, queries = read_lines(args.corpus), read_lines(args.queries)

    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    corpus_vectors, query_vectors = encoder.encode(corpus), encoder.encode(queries)
    pairs = None
    if args.pairs:
        scored = read_scored_pairs(args.pairs)
        pairs = (encoder.encode(scored.sentences1), encoder.encode(scored.sentences2), scored.scores)
    hashed = distill_hashed_encoder(
        encoder, corpus_vectors, bits=args.bits, epochs=args.epochs, batch_size=256, pairs=pairs, verbose=0
    )
    print(
        f"{args.bits}-bit head trained on {len(corpus)} sentences; final loss {hashed.history.history['loss'][-1]:.4f}"
    )

    index = BinaryIndex(args.bits)
    index.add(hashed.hash_embeddings(corpus_vectors))
    query_codes = hashed.hash_embeddings(query_vectors)
    _, hamming_ids = index.search(query_codes, args.top_k)
    _, reranked_ids = index.search_and_rerank(query_codes, query_vectors, corpus_vectors, args.top_k, factor=10)
    float_ids, _ = semantic_search(query_vectors, corpus_vectors, top_k=args.top_k)
    print(f"index: {len(index)} codes, {index.memory_bytes} bytes, backend {index.backend}")
    for query, hamming, reranked in zip(queries[:3], hamming_ids, reranked_ids):
        print(f"\nquery: {query}")
        print(f"  Hamming top-1:  {corpus[hamming[0]]}")
        print(f"  re-ranked top-1: {corpus[reranked[0]]}")
    print(
        f"\nrecall@{args.top_k} of the float top-{args.top_k} over {len(queries)} queries: "
        f"Hamming {neighbour_recall(hamming_ids, float_ids):.2f}, "
        f"re-ranked {neighbour_recall(reranked_ids, float_ids):.2f}"
    )

    with tempfile.TemporaryDirectory() as folder:
        path = export_saved_model(hashed, os.path.join(folder, "hashed"), code_table=index.codes())
        served = tf.saved_model.load(path)
        found = served.signatures["search"](texts=tf.constant(queries[:1]), k=tf.constant(3))
        codes = served.signatures["hash"](texts=tf.constant(queries[:1]))["codes"].numpy()
        same = np.array_equal(codes, query_codes[:1])
        print(
            f"\nSavedModel search for {queries[0]!r}: ids {found['ids'].numpy()[0].tolist()}, "
            f"distances {found['distances'].numpy()[0].tolist()}; hash signature matches "
            f"Python codes: {same}"
        )


if __name__ == "__main__":
    main()
