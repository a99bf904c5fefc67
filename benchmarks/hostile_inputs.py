"""Hostile inputs of the newer surfaces, each in its own process: row, exit, seconds, peak RSS, message.

    python benchmarks/hostile_inputs.py                  # every row of tests/hostile_inputs.py (~5 min)
    python benchmarks/hostile_inputs.py --only index     # the rows whose area or name holds "index"
    python benchmarks/hostile_inputs.py --memory         # and the memory rows (~10 min more; MiniLM)

The rows (tests/hostile_inputs.py: index folders, family configs, LiteRT, chunking, BEIR folders, bulk
jobs, and the folder- and file-replacement rule, command × place) run as a user runs them, one fresh
process each (`--child`), the peak RSS measured by a small launcher (`common.LAUNCHER`: a child forked from
this process would count its memory; Python warnings of the libraries imported are not shown, `-W ignore`). The bar (issue 78): a refused row exits 2 with one `error:` line that
matches its message, within 10 s of its own and 1 GiB, keeps the user's files and leaves no temporary
file; a row that must succeed exits 0. "Of its own": the row's seconds are timed inside its process,
after Python and TensorFlow have started (the table prints that start-up, and each process's whole
time beside it: the start-up alone is 9 s on an AVX2-only 2-core VM).

`--memory` adds what cannot be a unit test: late chunking of a 1 MB document against naive chunking of
it (bar: late ≤ naive + 512 MiB), `evaluate --beir` with one 10 MB document against the same collection
without it (bar: the document costs at most 20× its own size), and a Beam job killed while it writes,
then run again (bar: nothing of the killed run left).
"""

import argparse
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
sys.path.insert(0, REPO)

from common import cpu_flags, machine_description, measured_process  # noqa: E402

SECONDS_BAR, RSS_BAR_MIB, LATE_EXTRA_MIB, DOCUMENT_FACTOR = 10.0, 1024.0, 512.0, 20.0


def all_rows():
    from tests.hostile_bound_inputs import BOUND_ROWS
    from tests.hostile_evaluate_inputs import EVALUATE_ROWS
    from tests.hostile_inputs import FILE_ROWS, REPLACEMENT_ROWS, ROWS
    from tests.hostile_lexical_inputs import LEXICAL_ROWS
    from tests.hostile_multi_vector_inputs import MULTI_VECTOR_ROWS
    from tests.hostile_sparse_inputs import SPARSE_ROWS

    return (
        ROWS
        + REPLACEMENT_ROWS
        + FILE_ROWS
        + LEXICAL_ROWS
        + BOUND_ROWS
        + SPARSE_ROWS
        + MULTI_VECTOR_ROWS
        + EVALUATE_ROWS
    )


def measured(command, timeout, cwd=None, env=None):
    """(exit code, seconds, peak RSS MiB, non-blank stderr lines) of `command` in its own process."""
    environment = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})}
    code, seconds, rss, lines = measured_process(command, timeout, env=environment, cwd=cwd)
    return code, seconds, rss, [line for line in lines if line.strip()]


def run_child(index, fixtures_root, work, seconds_file):
    """The body of one row's process: `import keras_sentemb` first (it quiets TensorFlow's start-up
    lines); the row's own seconds, without Python's and TensorFlow's start-up, go to `seconds_file`."""
    import keras_sentemb  # noqa: F401
    from tests.conftest import make_tiny_encoder
    from tests.hostile_inputs import Fixtures

    logging.getLogger().setLevel(logging.ERROR)  # Beam's import-time notes, as the CLI quiets them

    row, fixtures = all_rows()[index], Fixtures(fixtures_root, make_tiny_encoder)
    start = time.perf_counter()
    try:
        return row.run(fixtures, work)
    finally:
        with open(seconds_file, "w", encoding="utf-8") as f:
            f.write(f"{time.perf_counter() - start:.3f}")


def prepare_fixtures(root):
    from tests.conftest import make_tiny_encoder
    from tests.hostile_inputs import Fixtures

    os.makedirs(root, exist_ok=True)
    fixtures = Fixtures(root, make_tiny_encoder)
    for name in (
        "model_file",
        "corpus_file",
        "index_folder",
        "chunked_index_folder",
        "other_index_folder",
        "tflite_file",
    ):
        getattr(fixtures, name)
    return fixtures


def check(row, code, seconds, rss, lines, work):
    """What is wrong with one row's run (empty when it holds); `seconds` are the row's own."""
    from tests.hostile_inputs import leftovers

    problems = []
    if row.message is None:
        if code != 0:
            problems.append(f"exit {code}: {lines[-1] if lines else ''}")
    else:
        if code != 2:
            problems.append(f"exit {code}")
        if len(lines) != 1 or "error: " not in lines[0] or not re.search(row.message, lines[0]):
            problems.append(f"{len(lines)} stderr line(s), not one matching {row.message!r}")
        if seconds > SECONDS_BAR or rss > RSS_BAR_MIB:
            problems.append(f"{seconds:.1f} s, {rss:,.0f} MiB")
    problems += [f"{relative} was deleted" for relative in row.kept if not os.path.exists(os.path.join(work, relative))]
    problems += [f"{relative} was written" for relative in row.absent if os.path.exists(os.path.join(work, relative))]
    problems += [f"left {path}" for path in leftovers(work)]
    return problems


STARTUP = "import keras_sentemb, tests.conftest, tests.hostile_inputs"  # what a row's process imports before its clock


def table(rows, fixtures_root, scratch, timeout):
    _, startup, startup_rss, _ = measured([sys.executable, "-c", STARTUP], timeout, cwd=REPO)
    print(f"start-up of a row's process ({STARTUP}): {startup:.2f} s, {startup_rss:,.0f} MiB\n")
    print("| area | row | exit | seconds (the row) | seconds (its process) | peak RSS MiB | message |")
    print("|---|---|---:|---:|---:|---:|---|")
    failures, worst = [], (0.0, 0.0, 0.0)
    everything = all_rows()
    for row in rows:
        index = everything.index(row)
        work, timing = os.path.join(scratch, f"row-{index}"), os.path.join(scratch, f"row-{index}.seconds")
        os.makedirs(work)
        command = [__file__, "--child", str(index), "--fixtures", fixtures_root, "--work", work, "--seconds", timing]
        code, seconds, rss, lines = measured([sys.executable, "-W", "ignore", *command], timeout, cwd=REPO)
        own = float(open(timing).read()) if os.path.exists(timing) else float("nan")
        shown = (lines[-1] if lines else "").replace(scratch, "…").replace(fixtures_root, "…").replace("|", "¦")
        print(
            f"| {row.area} | {row.name} | {code} | {own:.2f} | {seconds:.2f} | {rss:,.0f} | {shown[:150]} |", flush=True
        )
        if row.message is not None:
            worst = (max(worst[0], own), max(worst[1], seconds), max(worst[2], rss))
        failures += [f"{row.name}: {problem}" for problem in check(row, code, own, rss, lines, work)]
    refused = sum(row.message is not None for row in rows)
    print(
        f"\n{len(rows)} rows ({refused} refused, {len(rows) - refused} that must succeed): slowest refusal "
        f"{worst[0]:.2f} s of its own, {worst[1]:.2f} s with its process's start-up (bar {SECONDS_BAR:.0f} s on its "
        f"own); largest peak RSS {worst[2]:,.0f} MiB (bar {RSS_BAR_MIB:,.0f} MiB)"
    )
    return failures


# ------------------------------------------------------------------------------------------ memory rows
CHUNKING_PROBE = """
import sys, time, resource
import keras_sentemb
from keras_sentemb import SentenceEncoder
from keras_sentemb.chunking import Chunking
encoder = SentenceEncoder.from_pretrained("minilm-l6")
paragraph = "Several cohort studies found that statin users had a lower risk of dying of breast cancer. "
document = (paragraph * (1_000_000 // len(paragraph) + 1))[:1_000_000]
start = time.perf_counter()
chunks = encoder.encode_document([document], chunking=Chunking(size=128, late=sys.argv[1] == "late", pooling=None))
print(len(chunks), f"{time.perf_counter() - start:.1f}", file=sys.stderr)
"""


def chunking_memory(timeout):
    rows = {}
    for mode in ("naive", "late"):
        code, seconds, rss, lines = measured([sys.executable, "-c", CHUNKING_PROBE, mode], timeout)
        rows[mode] = rss
        chunks, encode_seconds = (lines[-1].split() + ["?", "?"])[:2] if code == 0 else ("-", "-")
        print(f"| {mode} chunking, 1 MB document (MiniLM, chunks of 128) | {code} | {seconds:.1f} | {rss:,.0f} | "
              f"{chunks} chunks in {encode_seconds} s |", flush=True)  # fmt: skip
    extra = rows["late"] - rows["naive"]
    print(f"late − naive: {extra:+,.0f} MiB (bar ≤ {LATE_EXTRA_MIB:.0f} MiB)")
    return [] if extra <= LATE_EXTRA_MIB else [f"late chunking of 1 MB takes {extra:,.0f} MiB more than naive"]


def beir_memory(scratch, timeout):
    """evaluate --beir on the tiny collection, and on it with one 10 MB document added."""
    from tests.conftest import FIXTURES

    rss = {}
    for name, extra_bytes in (("without", 0), ("with one 10 MB document", 10_000_000)):
        folder = os.path.join(scratch, f"beir-{extra_bytes}")
        shutil.copytree(os.path.join(FIXTURES, "beir_tiny"), folder)
        if extra_bytes:
            paragraph = "Statins lower cholesterol and the risk of breast cancer deaths in cohort studies. "
            text = (paragraph * (extra_bytes // len(paragraph) + 1))[:extra_bytes]
            with open(os.path.join(folder, "corpus.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps({"_id": "huge", "title": "", "text": text}) + "\n")
        report = os.path.join(scratch, f"report-{extra_bytes}")
        script = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")
        code, seconds, rss[name], lines = measured(
            [script, "evaluate", "minilm-l6", "--beir", folder, "-o", report, "--no-plots"], timeout
        )
        print(f"| evaluate --beir, {name} | {code} | {seconds:.1f} | {rss[name]:,.0f} | {(lines or [''])[-1][:80]} |")
    cost = rss["with one 10 MB document"] - rss["without"]
    print(f"the 10 MB document costs {cost:+,.0f} MiB ({cost / 9.54:.1f}× its size; bar ≤ {DOCUMENT_FACTOR:.0f}×)")
    return [] if cost <= DOCUMENT_FACTOR * 9.54 else [f"a 10 MB document costs {cost:,.0f} MiB"]


def killed_beam_job(scratch, fixtures, timeout):
    """A Beam job killed (SIGKILL) once its staging folder holds Beam's temporary files, then run again."""
    from keras_sentemb.export import export_saved_model

    model = export_saved_model(__import__("keras").saving.load_model(fixtures.model_file), os.path.join(scratch, "sm"))
    corpus = os.path.join(scratch, "beam-corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write("the cat sat on the mat .\na dog ran fast\n" * 20_000)
    out = os.path.join(scratch, "beam-out")
    os.makedirs(out)
    script = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")
    command = [script, "embed-corpus", model, corpus, "-o", os.path.join(out, "corpus")]
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    start, seen = time.perf_counter(), []
    while child.poll() is None and time.perf_counter() - start < timeout:
        seen = [os.path.join(r, d) for r, ds, _ in os.walk(out) for d in ds if d.startswith("beam-temp-")]
        if seen:
            break
        time.sleep(0.05)
    if child.poll() is None:
        child.send_signal(signal.SIGKILL)
        child.wait()
    left = sorted(os.listdir(out))
    code, seconds, rss, lines = measured(command, timeout)
    after = sorted(os.listdir(out))
    print(f"| Beam job killed while writing ({'beam-temp seen' if seen else 'no beam-temp seen'}), left {left} | "
          f"{code} | {seconds:.1f} | {rss:,.0f} | after the next run: {after} |")  # fmt: skip
    leftover = [name for name in after if name.startswith((".corpus.tmp-", "beam-temp-"))]
    return [f"the killed Beam job left {leftover}"] if leftover or code != 0 or not seen else []


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="the rows whose area or name holds this")
    parser.add_argument("--memory", action="store_true", help="also the memory rows (MiniLM; minutes)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a row's process is killed")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--fixtures", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return run_child(args.child, args.fixtures, args.work, args.seconds)
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}")
    scratch = tempfile.mkdtemp(prefix="hostile-inputs-")
    try:
        fixtures = prepare_fixtures(os.path.join(scratch, "fixtures"))
        rows = [row for row in all_rows() if args.only in row.area or args.only in row.name]
        failures = table(rows, fixtures.root, scratch, args.timeout)
        if args.memory:
            print("\n| memory row | exit | seconds | peak RSS MiB | what |\n|---|---:|---:|---:|---|")
            failures += chunking_memory(args.timeout * 10)
            failures += beir_memory(scratch, args.timeout * 5)
            failures += killed_beam_job(scratch, fixtures, args.timeout * 5)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("all hold" if not failures else "FAILED:")
    for failure in failures:
        print(f"  {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
