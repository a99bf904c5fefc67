"""Tokenizer parity: our token ids and vectors against the model's own `tokenizer.json` and
sentence-transformers, on every code point and on the hostile-text corpus; and the speed of
`encode` and the SavedModel against a baseline commit, in one interleaved run.

1. Code points: every Unicode scalar value in three contexts ("a<c>b", "A<c>", "<c><c>"),
   split into words by Hugging Face `tokenizers` (the all-MiniLM-L6-v2 `tokenizer.json`
   normaliser and pre-tokeniser, and the same with lower-casing and accent stripping off) and by
   our in-graph `BertTextSplitter`: the number of texts whose words differ.
2. Ids: `tests/fixtures/hostile_texts/texts.json` (12,000 texts) through the model's
   `tokenizer.json` and through our in-graph `content_ids` and host `content_id_rows`.
3. Vectors: sentence-transformers' (the anchor interpreter) against our `encode` and against the
   raw-string SavedModel loaded in a fresh TensorFlow + TF Text process: max |Δ|.
4. The word tokenizer (GloVe models): the word ids of each hostile text against those of the
   same text with every Unicode space (and form feed, vertical tab) made an ASCII space and every
   other control and format character removed, the kind of text it was trained on: the number
   that differ.
5. Speed, `--baseline` (a git revision) against the working tree, interleaved over `--rounds`
   processes each: `encode` on the STS-B test sentences (ASCII) and on the hostile texts, and
   the SavedModel on the STS-B sentences in requests of 32 and 512; medians, and new/old ratios.
   Sentences/s and tokens/s: where the baseline tokenised a text wrongly it may have made fewer
   tokens of it (NBSP-joined words became one [UNK]), so only tokens/s compares like with like.

    python benchmarks/tokenizer_parity.py --anchor-python .anchor-venv/bin/python --baseline 04cf193
"""

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from common import ANCHOR_SCRIPT, REPO, cpu_flags, default_stsb_test, machine_description  # noqa: E402

HOSTILE = os.path.join(REPO, "tests", "fixtures", "hostile_texts", "texts.json")


def load_hostile():
    with open(HOSTILE, encoding="utf-8") as f:
        return json.load(f)


def code_point_sweep(folder):
    import tensorflow as tf
    from tokenizers import Tokenizer

    from keras_sentemb.tokenizers.bert_character_table_builder import code_points
    from keras_sentemb.tokenizers.bert_text_splitter import BertTextSplitter

    texts = [text for point in code_points() for text in (f"a{chr(point)}b", f"A{chr(point)}", chr(point) * 2)]
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        config = json.load(f)
    results = {}
    for lowercase, strip_accents in ((True, True), (False, False)):
        config["normalizer"].update(lowercase=lowercase, strip_accents=strip_accents)
        reference = Tokenizer.from_str(json.dumps(config))
        splitter = BertTextSplitter(lowercase=lowercase, strip_accents=strip_accents)
        words = tf.function(splitter.words, input_signature=[tf.TensorSpec([None], tf.string)])
        differ = 0
        for start in range(0, len(texts), 65536):
            chunk = texts[start : start + 65536]
            ours = [[w.decode("utf-8") for w in row] for row in words(tf.constant(chunk)).to_list()]
            for text, row in zip(chunk, ours):
                normalized = reference.normalizer.normalize_str(text)
                differ += [w for w, _ in reference.pre_tokenizer.pre_tokenize_str(normalized)] != row
        results[f"lowercase={lowercase}, strip_accents={strip_accents}"] = differ
    return len(texts), results


def reference_ids(folder, texts):
    """The ids of the folder's tokenizer.json (Hugging Face `tokenizers`), untruncated."""
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    return [encoding.ids for encoding in reference.encode_batch(texts, add_special_tokens=False)]


def graph_differ(folder, texts, expected):
    """How many `texts` the in-graph tokenizer (untruncated) gives other ids than `expected`."""
    from keras_sentemb import SentenceTokenizer

    tokenizer = SentenceTokenizer(os.path.join(folder, "vocab.txt"), max_length=1_000_000)
    graph = tokenizer.content_ids(np.array([t.encode("utf-8") for t in texts], dtype=object)).to_list()
    return sum(row != ids for row, ids in zip(graph, expected))


def id_parity(encoder, folder, texts):
    expected = reference_ids(folder, texts)
    host = encoder.tokenizer.content_id_rows(texts)
    limit = encoder.tokenizer.max_length - 2
    return {
        "texts": len(texts),
        "ids": sum(len(row) for row in expected),
        "graph_differ": graph_differ(folder, texts, expected),
        "host_differ": sum(row.tolist() != ids[:limit] for row, ids in zip(host, expected)),
    }


def saved_model_vectors(folder, texts):
    """The SavedModel's vectors for `texts`, computed in a fresh TF + TF Text interpreter."""
    script = (
        "import json, sys, numpy as np, tensorflow as tf, tensorflow_text\n"
        "serve = tf.saved_model.load(sys.argv[1]).signatures['serving_default']\n"
        "texts = json.load(open(sys.argv[2], encoding='utf-8'))\n"
        "out = [serve(texts=tf.constant(texts[i:i + 256]))['embedding'].numpy() for i in range(0, len(texts), 256)]\n"
        "np.save(sys.argv[3], np.concatenate(out))\n"
    )
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "texts.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(texts, f)
        out = os.path.join(scratch, "vectors.npy")
        env = {**os.environ, "PYTHONPATH": ""}
        subprocess.run([sys.executable, "-c", script, folder, path, out], check=True, cwd=scratch, env=env)
        return np.load(out)


def vector_parity(encoder, texts, anchor_python, export_folder):
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "texts.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(texts, f)
        out = os.path.join(scratch, "st.npy")
        subprocess.run(
            [anchor_python, ANCHOR_SCRIPT, "encode", "--data", path, "--out", out], check=True, capture_output=True
        )
        reference = np.load(out)
    ours = encoder.encode(texts, batch_size=64)
    served = saved_model_vectors(export_folder, texts)
    return {
        "encode_vs_st": float(np.abs(ours - reference).max()),
        "saved_model_vs_st": float(np.abs(served - reference).max()),
        "saved_model_vs_encode": float(np.abs(served - ours).max()),
    }


def word_tokenizer_invariance(texts):
    import tensorflow as tf

    from keras_sentemb.pretrained.word_vectors import load_glove
    from keras_sentemb.tokenizers.word_tokenizer import WordTokenizer, plain_text

    vocabulary, _ = load_glove(100_000)
    tokenizer = WordTokenizer(vocabulary)
    plain = [plain_text(text) for text in texts]
    words = tokenizer.content_ids(tf.constant(texts)).to_list()
    plain_words = tokenizer.content_ids(tf.constant(plain)).to_list()
    return {"texts": len(texts), "differ": sum(a != b for a, b in zip(words, plain_words))}


def speed_child(args):
    """One process of the speed comparison (run under the PYTHONPATH of one revision)."""
    import tensorflow as tf
    import tensorflow_text  # noqa: F401

    import keras_sentemb
    from keras_sentemb.data.examples import read_scored_pairs
    from keras_sentemb.export import export_saved_model

    pairs = read_scored_pairs(args.data)
    sentences = sorted(set(pairs.sentences1) | set(pairs.sentences2))
    hostile = load_hostile()[:4000]
    encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    encoder.encode(sentences[:256], batch_size=32)
    encoder.encode(hostile[:256], batch_size=32)
    result = {}
    for label, texts in (("encode STS-B", sentences), ("encode hostile", hostile)):
        start = time.perf_counter()
        encoder.encode(texts, batch_size=32)
        seconds = time.perf_counter() - start
        # The two revisions may cut the same texts into different numbers of tokens.
        tokens = sum(len(row) + 2 for row in encoder.tokenizer.content_id_rows(texts))
        result[label] = len(texts) / seconds
        result[f"{label}, tokens/s"] = tokens / seconds
    with tempfile.TemporaryDirectory() as scratch:
        serve = tf.saved_model.load(export_saved_model(encoder, os.path.join(scratch, "m"), version=1))
        serve = serve.signatures["serving_default"]
        for size in (32, 512):
            serve(texts=tf.constant(sentences[:size]))
            start = time.perf_counter()
            for i in range(0, len(sentences), size):
                serve(texts=tf.constant(sentences[i : i + size]))
            result[f"SavedModel requests of {size}"] = len(sentences) / (time.perf_counter() - start)
    print(json.dumps(result))


@contextlib.contextmanager
def baseline_tree(revision):
    """A git worktree of `revision`, removed afterwards."""
    folder = tempfile.mkdtemp(prefix="tokenizer-parity-baseline-")
    subprocess.run(["git", "-C", REPO, "worktree", "add", "--detach", folder, revision], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", folder], check=False)


def child(root, *options):
    """This script run with `options` under the package of the tree at `root`: its last JSON line."""
    command = [sys.executable, os.path.abspath(__file__), *options]
    env = {**os.environ, "PYTHONPATH": root}
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=root, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{options[0]} under {root} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def ids_child():
    """The in-graph ids of the hostile texts against tokenizer.json, under this process's package."""
    from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir

    folder = resolve_pretrained_dir("minilm-l6")
    texts = load_hostile()
    print(json.dumps({"graph_differ": graph_differ(folder, texts, reference_ids(folder, texts))}))


def speed(args, baseline):
    runs = {"baseline": [], "this tree": []}
    for _ in range(args.rounds):
        for label, root in (("baseline", baseline), ("this tree", REPO)):
            runs[label].append(child(root, "--speed-child", "--data", args.data))
    table = {}
    for key in runs["baseline"][0]:
        old = statistics.median(run[key] for run in runs["baseline"])
        new = statistics.median(run[key] for run in runs["this tree"])
        table[key] = (
            old,
            new,
            new / old,
            [round(run[key]) for run in runs["baseline"]],
            [round(run[key]) for run in runs["this tree"]],
        )
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--anchor-python", help="an interpreter with sentence-transformers (make anchor-venv)")
    parser.add_argument("--baseline", default="04cf193", help="the git revision to time against")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", default=default_stsb_test(), help="STS-B test TSV (speed)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--speed-only", action="store_true", help="only part 5")
    parser.add_argument("--speed-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ids-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_child:
        return speed_child(args)
    if args.ids_child:
        return ids_child()

    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    with baseline_tree(args.baseline) as baseline:
        if not args.speed_only:
            measure_parity(args, baseline)
        if not args.skip_speed:
            print_speed(args, baseline)


def measure_parity(args, baseline):
    import keras_sentemb
    from keras_sentemb.export import export_saved_model
    from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir

    folder = resolve_pretrained_dir("minilm-l6")
    texts = load_hostile()
    count, sweep = code_point_sweep(folder)
    for setting, differ in sweep.items():
        print(f"code points: {count:,} texts ({setting}): {differ} differ from tokenizer.json's words")
    encoder = keras_sentemb.SentenceEncoder.from_pretrained("minilm-l6")
    ids = id_parity(encoder, folder, texts)
    before = child(baseline, "--ids-child")["graph_differ"]
    print(
        f"hostile texts: {ids['texts']:,} texts, {ids['ids']:,} ids of tokenizer.json: "
        f"in-graph {ids['graph_differ']} differ, host {ids['host_differ']} differ "
        f"(in-graph at {args.baseline}: {before} differ)"
    )
    words = word_tokenizer_invariance(texts)
    print(f"word tokenizer: {words['differ']} of {words['texts']:,} texts split unlike their plain-space form")
    if args.anchor_python:
        with tempfile.TemporaryDirectory() as scratch:
            export = export_saved_model(encoder, os.path.join(scratch, "minilm"), version=1)
            vectors = vector_parity(encoder, texts, args.anchor_python, export)
        print(
            f"vectors, max |Δ| over {len(texts):,} texts: encode vs sentence-transformers "
            f"{vectors['encode_vs_st']:.2e}, SavedModel (fresh TF process) vs sentence-transformers "
            f"{vectors['saved_model_vs_st']:.2e}, SavedModel vs encode {vectors['saved_model_vs_encode']:.2e}"
        )


def print_speed(args, baseline):
    print(f"speed, sentences (or tokens) per second, median of {args.rounds} interleaved processes each:")
    print(f"| what | {args.baseline} | this tree | ratio | rounds: {args.baseline} / this tree |")
    print("|---|---:|---:|---:|---|")
    for key, (old, new, ratio, old_rounds, new_rounds) in speed(args, baseline).items():
        print(f"| {key} | {old:,.0f} | {new:,.0f} | {ratio:.2f}x | {old_rounds} / {new_rounds} |")


if __name__ == "__main__":
    main()
