"""Hostile inputs of lexical and hybrid retrieval and of reranker folders (issue 80): `LEXICAL_ROWS`, in the form of
tests/hostile_inputs.py's rows (`Row(area, name, run, message, kept, absent)`), run by
tests/apps/test_hostile_lexical.py in-process and by benchmarks/hostile_inputs.py each in its own process.

An empty query, a corpus without a word to index, a lexical index of other lines or with a changed
file, a fusion to be chosen on the split it reports, a reranker folder whose chat template escapes the
sandbox or whose activation is not computed: one error line each, nothing half-written.
"""

import json
import os
import shutil

from tests.hostile_inputs import CORPUS, FIXTURES, Row, _build_index, as_command, cli


def lexical_index_folder(fixtures):
    """An index folder of CORPUS with its BM25 index, built once under the fixtures' root."""
    path = os.path.join(fixtures.root, "lexical-index")
    if not os.path.exists(path):
        _build_index(CORPUS, path, fixtures.model_file, lexical=True)
    return path


def _lexical_copy(work, fixtures):
    return shutil.copytree(lexical_index_folder(fixtures), os.path.join(work, "idx"))


def _hybrid_search(edit, query="a cat"):
    def argv(fixtures, work):
        folder = _lexical_copy(work, fixtures)
        edit(folder)
        return ["index", "search", folder, "--query", query, "--hybrid"]

    return cli(argv)


def _other_lines(folder):
    from keras_sentemb.retrieval import LexicalIndex

    shutil.rmtree(os.path.join(folder, "lexical"))
    LexicalIndex([line.upper() + " rain" for line in CORPUS]).save(os.path.join(folder, "lexical"))


def _changed_vocabulary(folder):
    path = os.path.join(folder, "lexical", "vocab.index.json")
    with open(path, encoding="utf-8") as f:
        vocabulary = json.load(f)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({term: (number + 1) % len(vocabulary) for term, number in vocabulary.items()}, f)


def _stop_word_corpus(fixtures, work):
    path = os.path.join(work, "stop_words.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("the and\nof a\nit is\n")
    return ["index", "build", path, "-o", os.path.join(work, "out"), "--model", fixtures.model_file, "--lexical"]


def _beir_without_words(folder):
    with open(os.path.join(folder, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for number in range(1, 13):
            f.write(json.dumps({"_id": f"d{number}", "text": "the of and" if number % 2 else ""}) + "\n")


def _evaluate_lexical(edit, *options):
    def argv(fixtures, work):
        folder = os.path.join(work, "beir")
        shutil.copytree(os.path.join(FIXTURES, "beir_tiny"), folder)
        edit(folder)
        report = os.path.join(work, "report")
        return ["evaluate", fixtures.model_file, "--beir", folder, "-o", report, "--no-plots", "--lexical", *options]

    return cli(argv)


def _reranker_folder(edit):
    """`evaluate … --beir tiny --rerank FOLDER` with a copy of the tiny Qwen3 reranker folder after `edit`."""

    def argv(fixtures, work):
        folder = shutil.copytree(os.path.join(FIXTURES, "reranker_folders", "qwen3_reranker"), os.path.join(work, "rr"))
        edit(folder)
        report = os.path.join(work, "report")
        beir = os.path.join(FIXTURES, "beir_tiny")
        return ["evaluate", fixtures.model_file, "--beir", beir, "-o", report, "--no-plots", "--rerank", folder]

    return cli(argv)


def _escaping_template(folder):
    with open(os.path.join(folder, "chat_template.jinja"), "w", encoding="utf-8") as f:
        f.write("{{ ''.__class__.__mro__[1].__subclasses__() }}{{ messages[0].content }}{{ messages[1].content }}")


def _tanh_activation(folder):
    path = os.path.join(folder, "config_sentence_transformers.json")
    with open(path, encoding="utf-8") as f:
        settings = json.load(f)
    settings["activation_fn"] = "torch.nn.modules.activation.Tanh"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(settings, f)


def _fusion_on_the_reported_split(fixtures, work):
    from keras_sentemb.evaluation import evaluate_beir
    from keras_sentemb.zoo.loading import load_any_encoder

    evaluate_beir(load_any_encoder(fixtures.model_file), os.path.join(FIXTURES, "beir_tiny"), split="dev", lexical=True)


LEXICAL_ROWS = [
    Row(
        "lexical", "hybrid search of an empty query", _hybrid_search(lambda _: None, query=""), r"queries\[0\] is empty"
    ),
    Row(
        "lexical",
        "hybrid search of a folder without a lexical index",
        cli(lambda fixtures, work: ["index", "search", fixtures.index_folder, "--query", "cat", "--hybrid"]),
        r"has no lexical index: build it with lexical=True",
    ),
    Row(
        "lexical",
        "a lexical index of other lines",
        _hybrid_search(_other_lines),
        r"lexical/lexical\.json: indexes other documents than these",
    ),
    Row(
        "lexical",
        "a changed file of the lexical index",
        _hybrid_search(_changed_vocabulary),
        r"lexical/vocab\.index\.json: its sha256 differs from lexical\.json's",
    ),
    Row(
        "lexical",
        "index build --lexical of a corpus of stop words",
        cli(_stop_word_corpus),
        r"none of the 3 documents holds a term to index",
        kept=("stop_words.txt",),
        absent=("out",),
    ),
    Row(
        "lexical",
        "evaluate --lexical on documents without a word",
        _evaluate_lexical(_beir_without_words),
        r"none of the 12 documents holds a term to index",
        absent=("report",),
    ),
    Row(
        "reranking",
        "evaluate --rerank a folder whose chat template reaches outside Jinja's sandbox",
        _reranker_folder(_escaping_template),
        r"chat_template\.jinja: the template does not render: SecurityError: .*unsafe",
        kept=("rr/chat_template.jinja",),
        absent=("report",),
    ),
    Row(
        "reranking",
        "evaluate --rerank a folder of an activation it does not compute",
        _reranker_folder(_tanh_activation),
        r"activation_fn 'torch\.nn\.modules\.activation\.Tanh' is not supported",
        absent=("report",),
    ),
    Row(
        "lexical",
        "a fusion chosen on the split it reports",
        as_command(_fusion_on_the_reported_split),
        r"the fusion would be chosen on the split it is measured on \('dev'\)",
    ),
]
