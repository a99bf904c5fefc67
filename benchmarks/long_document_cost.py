"""Does a long document cost time linear in its length? `encode(texts, chunking=…)` on one document of
growing size (NFCorpus abstracts joined, or a synthetic text without the data folder).

    python benchmarks/long_document_cost.py [--sizes-mb 0.1,0.2,0.4] [--plan-sizes-mb 1,10]

For each size: seconds to tokenise and plan the windows (`content_ids_with_offsets`, sentence ends,
`token_windows`) and, for the smaller sizes, seconds to encode the whole document (all-MiniLM-L6-v2,
float32, chunks of 254 pieces with 32 overlapping, mean-pooled); then seconds per MB, which stays flat
when the cost is linear. The anchor is the document's own first size: the ratio column is the time per
MB relative to it.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SHARED_DATA, cpu_flags, machine_description  # noqa: E402
from keras_sentemb import SentenceEncoder  # noqa: E402
from keras_sentemb.chunking import Chunking, sentence_end_tokens, token_windows  # noqa: E402
from keras_sentemb.data.beir_folder import read_beir_folder  # noqa: E402


def source_text(folder):
    if os.path.isdir(folder):
        return " ".join(read_beir_folder(folder, split="test").documents)
    words = "statin cholesterol cohort breast cancer mortality risk diet fibre asthma".split()
    return " ".join(f"{words[i % len(words)]}{'.' if i % 17 == 16 else ''}" for i in range(400_000))


def document_of(text, megabytes):
    size = int(megabytes * 1_000_000)
    return (text * (size // len(text) + 1))[:size]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes-mb", default="0.1,0.2,0.4")
    parser.add_argument("--plan-sizes-mb", default="1,10")
    parser.add_argument("--beir", default=os.path.join(SHARED_DATA, "beir", "nfcorpus"))
    args = parser.parse_args(argv)
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    encoder = SentenceEncoder.from_pretrained("minilm-l6")
    chunking = Chunking(size=254, overlap=32, sentences=True)
    text = source_text(args.beir)
    encoder.encode([text[:5000]], chunking=chunking)  # traced once
    rows = []
    encode_sizes = [float(s) for s in args.sizes_mb.split(",")]
    for megabytes in sorted(set(encode_sizes + [float(s) for s in args.plan_sizes_mb.split(",")])):
        document = document_of(text, megabytes)
        start = time.perf_counter()
        ((ids, spans),) = encoder.tokenizer.content_ids_with_offsets([document])
        windows = token_windows(len(ids), 254, 32, sentence_end_tokens(document, spans))
        plan = time.perf_counter() - start
        row = {"mb": megabytes, "pieces": int(len(ids)), "chunks": len(windows), "plan_s": round(plan, 2)}
        if megabytes in encode_sizes:
            start = time.perf_counter()
            encoder.encode([document], chunking=chunking, progress=False)
            row["encode_s"] = round(time.perf_counter() - start, 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    first_plan, first_encode = rows[0]["plan_s"] / rows[0]["mb"], rows[0]["encode_s"] / rows[0]["mb"]
    print("\n| document | word pieces | chunks | plan s | plan s/MB (× first) | encode s | encode s/MB (× first) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        plan_rate = row["plan_s"] / row["mb"]
        encode = row.get("encode_s")
        encode_cells = (
            f"{encode:.1f} | {encode / row['mb']:.1f} ({encode / row['mb'] / first_encode:.2f}×)" if encode else "– | –"
        )
        print(
            f"| {row['mb']:g} MB | {row['pieces']:,} | {row['chunks']:,} | {row['plan_s']:.2f} | "
            f"{plan_rate:.2f} ({plan_rate / first_plan:.2f}×) | {encode_cells} |"
        )
    print(json.dumps({"benchmark": "long_document_cost", "cpu_flags": cpu_flags(), "rows": rows}))


if __name__ == "__main__":
    main()
