"""Does a text's vector depend on what it runs with? Per `encode` runtime, over STS-B test sentences:

- alone vs batched: `encode([text])` against the text's row of `encode(texts, batch_size=32)` (each text
  padded to its own length rung, whatever it is batched with: what `encode` does at reduced precision);
- padded past its rung: the runtime called on the text alone, padded by 1-3 positions (staying under 32),
  from under 32 to 32 or 33, and from 32 or more to 64, against the same call at its own rung (what
  `encode` does not do, and why it does not).

Prints the largest |Δ| of a vector component for each (unnormalised vectors, as the runtime returns them).

    python benchmarks/vector_independence.py [--model minilm-l6] [--sentences 64]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from common import cpu_flags, default_stsb_test, machine_description  # noqa: E402

import keras_sentemb  # noqa: E402
from keras_sentemb.data.examples import read_scored_pairs  # noqa: E402

MODES = (("tensorflow", "float32"), ("litert", "float32"), ("litert", "int8"))
# (label, the padded lengths of a text of n tokens): XNNPACK's attention kernels change at 32 positions.
PADDINGS = (
    ("+1..3, under 32", lambda n: [m for m in (n + 1, n + 2, n + 3) if m < 32]),
    ("from under 32 to 32, 33", lambda n: [32, 33] if n < 32 else []),
    ("from 32+ to 64", lambda n: [64] if 32 <= n < 64 else []),
)


def padded_deltas(encoder, runtime, rows):
    """Per padding of `PADDINGS`: the largest |Δ| between a row at its own length and padded so."""
    deltas = {}
    for label, lengths_of in PADDINGS:
        worst = 0.0
        for row in rows:
            length = encoder.packed_length(row)
            own = runtime(*encoder.pack_batch([row], length))
            for padded in lengths_of(length):
                worst = max(worst, float(np.abs(runtime(*encoder.pack_batch([row], padded)) - own).max()))
        deltas[label] = worst
    return deltas


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="minilm-l6", choices=sorted(keras_sentemb.pretrained.PRETRAINED_SOURCES))
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--sentences", type=int, default=64)
    args = parser.parse_args()
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    pairs = read_scored_pairs(args.data)
    sentences = sorted(set(pairs.sentences1) | set(pairs.sentences2))[: args.sentences]
    encoder = keras_sentemb.SentenceEncoder.from_pretrained(args.model)
    rows = encoder.tokenize_to_rows([sentence.encode() for sentence in sentences])
    lengths = [encoder.packed_length(row) for row in rows]
    print(f"model: {args.model}; {len(sentences)} STS-B test sentences of {min(lengths)}-{max(lengths)} tokens")
    header = ["alone vs batched", *(f"padded {label}" for label, _ in PADDINGS)]
    print(f"{'runtime':<20}" + "".join(f"{name:>32}" for name in header))
    for backend, precision in MODES:
        options = {"backend": backend, "precision": precision, "normalize": False}
        batched = encoder.encode(sentences, batch_size=32, **options)
        alone = np.stack([encoder.encode([sentence], **options)[0] for sentence in sentences])
        deltas = padded_deltas(encoder, encoder.inference_runtime(backend, precision), rows)
        values = [float(np.abs(alone - batched).max()), *deltas.values()]
        print(f"{backend + ' ' + precision:<20}" + "".join(f"{value:>32.2e}" for value in values), flush=True)


if __name__ == "__main__":
    main()
