"""Hostile inputs of issue 96 ("every wait and every untrusted template has a bound"): `BOUND_ROWS`, in the form of
tests/hostile_inputs.py's rows (`Row(area, name, run, message, kept, absent)`), run by
tests/apps/test_hostile_bounds.py in-process and by benchmarks/hostile_inputs.py each in its own process.

A reranker folder's chat template that would loop 10¹⁰ times, ask for range(10⁹) or include a file of the
machine; an empty int8 calibration file; an option value out of range; a one-line corpus for an index that
learns its code; a Qwen3 config with 2 positions; a chunk overlap as wide as the model's window; a port in use:
one error line each, at once, nothing written.
"""

import os
import shutil
import socket

from tests.hostile_inputs import FIXTURES, Row, _encode_family, as_command, cli
from tests.hostile_lexical_inputs import _reranker_folder

LOOP_TEMPLATE = "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}"
SILENT_LOOP_TEMPLATE = "{% for i in range(9999) %}{% for j in range(9999) %}{% endfor %}{% endfor %}"


def _with_template(template):
    """An edit of a reranker folder: its chat template becomes `template`."""

    def edit(folder):
        with open(os.path.join(folder, "chat_template.jinja"), "w", encoding="utf-8") as f:
            f.write(template)

    return edit


def _evaluate_rerank(template):
    """`evaluate … --rerank` the tiny Qwen3 reranker folder (`work/rr`) whose chat template is `template`."""
    return _reranker_folder(_with_template(template))


def _load_reranker(template):
    """`CrossEncoder.from_pretrained` of that folder."""

    def call(fixtures, work):
        from keras_sentemb.models import CrossEncoder

        folder = shutil.copytree(os.path.join(FIXTURES, "reranker_folders", "qwen3_reranker"), os.path.join(work, "rr"))
        _with_template(template)(folder)
        CrossEncoder.from_pretrained(folder)

    return as_command(call)


def _file(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def _litert_int8_empty_calibration(fixtures, work):
    calibration = _file(work, "empty.txt", "\n  \n")
    target = os.path.join(work, "model.tflite")
    return ["export", target, "--model", fixtures.model_file, "--litert", "--precision", "int8",
            "--calibration", calibration]  # fmt: skip


def _evaluate_fusion(fixtures, work):
    beir = os.path.join(FIXTURES, "beir_tiny")
    return ["evaluate", fixtures.model_file, "--beir", beir, "--lexical", "--fusion", "convex:1.5",
            "-o", os.path.join(work, "report")]  # fmt: skip


def _one_line_index(fixtures, work):
    corpus = _file(work, "one.txt", "a single line about cats\n")
    return ["index", "build", corpus, "-o", os.path.join(work, "idx"), "--model", fixtures.model_file, "--lexical"]


def _chunk_overlap_as_wide_as_the_window(fixtures, work):
    from keras_sentemb.chunking import Chunking
    from keras_sentemb.zoo.loading import load_any_encoder

    encoder = load_any_encoder(fixtures.model_file)
    limit = encoder.tokenizer.max_length - 2  # the content pieces a window of this model holds
    encoder.encode_document(["a cat sat on the mat"], chunking=Chunking(size=None, overlap=limit))


def _serve_on_a_port_in_use(fixtures, work):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    _serve_on_a_port_in_use.taken = taken  # held open while the row runs
    return ["serve", fixtures.model_file, "--port", str(taken.getsockname()[1])]


TEMPLATE = r"rr/chat_template\.jinja: "
BOUND_ROWS = [
    Row(
        "template",
        "evaluate --rerank a folder whose chat template loops 10^10 times",
        _evaluate_rerank(LOOP_TEMPLATE),
        TEMPLATE + r"range\(\) of 100,000 items \(at most 10,000\)",
        kept=("rr/chat_template.jinja",),
        absent=("report",),
    ),
    Row(
        "template",
        "CrossEncoder.from_pretrained of a folder whose template loops 10^8 times without output",
        _load_reranker(SILENT_LOOP_TEMPLATE),
        TEMPLATE + r"the template ran more than 1,000,000 steps",
    ),
    Row(
        "template",
        "a chat template of range(10**9)",
        _evaluate_rerank("{{ range(10**9) }}{{ messages[0].content }}{{ messages[1].content }}"),
        TEMPLATE + r"range\(\) of 1,000,000,000 items",
        absent=("report",),
    ),
    Row(
        "template",
        "a chat template that includes /etc/passwd",
        _evaluate_rerank("{% include '/etc/passwd' %}{{ messages[0].content }}{{ messages[1].content }}"),
        TEMPLATE + r"the template does not render: TypeError: no loader",
        absent=("report",),
    ),
    Row(
        "template",
        "a chat template that doubles a string 40 times",
        _load_reranker(
            "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
        ),
        TEMPLATE + r"a concatenation of 131,072 characters \(the budget is 100,000\)",
    ),
    Row(
        "refusal",
        "export --litert --precision int8 --calibration <an empty file>",
        cli(_litert_int8_empty_calibration),
        r"empty\.txt: --calibration needs sentences to calibrate int8 on, one a line; the file has none",
        kept=("empty.txt",),
        absent=("model.tflite",),
    ),
    Row(
        "refusal",
        "evaluate --fusion convex:1.5",
        cli(_evaluate_fusion),
        r"argument --fusion: 'convex:1\.5': ConvexFusion\.weight must be a number in \[0, 1\], got 1\.5 \(see ",
        absent=("report",),
    ),
    Row(
        "refusal",
        "index build --lexical of a one-line corpus",
        cli(_one_line_index),
        r"the index learns its binary code on the corpus, which needs 2 lines or more; the corpus has 1",
        kept=("one.txt",),
        absent=("idx",),
    ),
    Row(
        "refusal",
        "qwen3 max_position_embeddings 2",
        _encode_family("qwen3", max_position_embeddings=2),
        r"config\.json: max_position_embeddings=2: the model would read 2 tokens a text; a text takes 3 at least",
        absent=("out.npy",),
    ),
    Row(
        "refusal",
        "Chunking(size=None, overlap=<the model's window>)",
        as_command(_chunk_overlap_as_wide_as_the_window),
        r"Chunking overlap \d+ must be below the chunk size, which with size=None is the \d+ word pieces this "
        r"model takes a text: lower the overlap or give a size",
    ),
    Row(
        "refusal",
        "serve on a port in use",
        cli(_serve_on_a_port_in_use),
        r"--port \d+: cannot listen on 127\.0\.0\.1:\d+ \(Address already in use\); choose another port",
    ),
]
