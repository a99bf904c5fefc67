"""A corpus of 20,000 lines that every bulk engine must account for: long, blank, whitespace-only,
non-ASCII, duplicate and invalid-UTF-8 lines, CRLF ends, a last line without a newline; and the
exported hashed model the engines run, with what `encode` and `hash` say each row must hold."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import tensorflow as tf

from keras_sentemb.beam import read_embedding_records
from keras_sentemb.bulk import read_job_counts
from keras_sentemb.export import export_saved_model
from keras_sentemb.training import distill_hashed_encoder
from tests.conftest import TINY_VOCAB, make_tiny_encoder

LINES = 20_000
# A code bit is the sign of a layer-normalised logit; the engines' SavedModel and `hash` sum in other
# orders, so a bit whose logit lies within round-off of 0 may differ (20,000 rows x 64 bits hold
# logits down to 7e-7). Such a bit, and only such a bit, may flip.
ROUND_OFF_LOGIT = 1e-4
WORDS = [w for w in TINY_VOCAB if w.isalpha()]
SPECIAL = [
    "",
    "   \t ",
    " ".join(WORDS * 200),  # thousands of word pieces: cut at the model's limit
    "caf\u00e9 stra\u00dfe \u4e2d\u6587 \U0001f600 na\u00efve",
    "the cat sat on the mat",
    "the cat sat on the mat",  # a duplicate text: two rows, two ids
]


def corpus_lines(seed=0):
    """LINES lines (str), specials spread through ordinary random sentences."""
    rng = np.random.default_rng(seed)
    lines = [" ".join(rng.choice(WORDS, size=rng.integers(1, 12))) for _ in range(LINES)]
    for i, special in enumerate(SPECIAL * 20):
        lines[(i * 997) % LINES] = special
    return lines


def write_corpus(folder):
    """Three files (two thirds LF, one CRLF with a last line lacking its newline, one line of
    invalid UTF-8); returns {id: text the model sees}."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = corpus_lines()
    parts = {"a.txt": lines[:8000], "b.txt": lines[8000:16000], "c.txt": lines[16000:]}
    expected = {}
    for name, part in parts.items():
        path = folder / name
        if name == "c.txt":
            part = part[:-1] + ["bad \xff byte"]
            data = "\r\n".join(part).encode("utf-8").replace(b"\xc3\xbf", b"\xff")  # ÿ → a lone 0xff byte
        else:
            data = ("\n".join(part) + "\n").encode("utf-8")
        path.write_bytes(data)
        for number, text in enumerate(part, start=1):
            if text.strip():
                expected[f"{path}:{number}"] = text.replace("\xff", "\ufffd")
    return expected


def hashed_export(folder):
    """(HashedEncoder, exported SavedModel folder) of a tiny random model with 64-bit codes."""
    encoder = make_tiny_encoder(seed=11)
    sample = corpus_lines()[:64]
    hashed = distill_hashed_encoder(encoder, encoder.encode(sample, progress=False), bits=64, epochs=1, verbose=0)
    return hashed, export_saved_model(hashed, folder / "tiny", version=1)


class ExpectedRows:
    """What the rows of a job over `write_corpus`'s files must hold: `encode` and `hash` of each id's
    text, computed once (20,000 texts) and looked up by id for every job the tests run."""

    def __init__(self, hashed, expected):
        self.ids = list(expected)
        self.row_of = {row_id: row for row, row_id in enumerate(self.ids)}
        texts = [expected[row_id] for row_id in self.ids]
        self.vectors = hashed.encode(texts, progress=False)
        self.codes = hashed.hash(texts)
        unit = tf.math.l2_normalize(self.vectors, axis=-1, epsilon=1e-12)
        self.logits = np.asarray(hashed.hashing.logits(unit))

    def __len__(self):
        return len(self.ids)


def assert_rows_are_encode_and_hash(expected_rows, ids, vectors, codes):
    """Every expected id once, its vector `encode`'s (≤ 1e-5) and its code `hash`'s but for bits whose
    logit is within round-off of the threshold."""
    assert len(ids) == len(set(ids)) == len(expected_rows)
    assert set(ids) == set(expected_rows.ids)
    rows = [expected_rows.row_of[i] for i in ids]
    np.testing.assert_allclose(vectors, expected_rows.vectors[rows], atol=1e-5)
    assert_codes_equal_but_at_the_threshold(codes, expected_rows.codes[rows], expected_rows.logits[rows])


def assert_codes_equal_but_at_the_threshold(codes, expected_codes, logits):
    """Packed codes equal bit for bit, except bits whose logit |z| ≤ ROUND_OFF_LOGIT."""
    assert codes.shape == expected_codes.shape and codes.dtype == expected_codes.dtype == np.uint8
    flipped = np.unpackbits(codes, axis=1) != np.unpackbits(expected_codes, axis=1)
    margins = np.abs(logits[flipped])
    assert (margins <= ROUND_OFF_LOGIT).all(), (
        f"{int(flipped.sum())} bits differ from hash(); logits of those beyond round-off: "
        f"{margins[margins > ROUND_OFF_LOGIT][:10]} at (row, bit) {np.argwhere(flipped)[:10].tolist()}"
    )


def assert_every_line_is_written_once(expected_rows, summary, output):
    """A job's summary balances over the LINES lines, its counts file agrees, and its rows under `output`
    are each expected id once, with `encode`'s vector and `hash`'s code."""
    assert summary["lines_read"] == LINES and summary["blank_lines"] == LINES - len(expected_rows)
    assert summary["vectors_written"] == summary["distinct_ids"] == len(expected_rows)
    counts = read_job_counts(output)
    assert counts.vectors_written == counts.distinct_ids == len(expected_rows)
    ids, vectors, codes = read_embedding_records(str(output / "*.parquet"))
    assert_rows_are_encode_and_hash(expected_rows, ids, vectors, codes)


def rerun_after_kill(script, output, rerun):
    """A job killed (SIGKILL to its process group) while it writes `output`, then run again by
    `rerun()` into the same folder: (whether `output` existed after the kill, the rerun's summary,
    the entries left beside `output`). The engines' tests read both of their 20,000-line checks from
    this one rerun: the killed job leaves nothing, and the rerun writes every line once, equal to
    `encode`, with balanced counts."""
    kill_when_staging_appears(script, output)
    existed = os.path.exists(output)
    summary = rerun()
    return existed, summary, sorted(os.listdir(os.path.dirname(str(output))))


def assert_the_killed_job_left_nothing(expected_rows, rerun):
    """`rerun` = (existed after the kill, the rerun's summary, what lies beside the output, the output):
    the killed job left no output and no staging folder, and the rerun wrote every line once."""
    existed, summary, beside, output = rerun
    assert not existed
    assert beside == [output.name]  # the killed job's staging folder was cleaned away
    assert_every_line_is_written_once(expected_rows, summary, output)


def kill_when_staging_appears(script, output, timeout=240):
    """Runs `script` (Python source) in a new process group and SIGKILLs the whole group once a
    staging folder of `output` holds a file (the job is writing); returns what it printed."""
    parent, name = os.path.split(str(output))
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and process.poll() is None:
            staging = [e for e in os.listdir(parent) if e.startswith(f".{name}.tmp-") or e.startswith(f"{name}.tmp-")]
            if any(os.listdir(os.path.join(parent, e)) for e in staging if os.path.isdir(os.path.join(parent, e))):
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"the job ended (or hung) before writing: {process.communicate()[0][-3000:]!r}")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
    return process.communicate()[0].decode("utf-8", "replace")
