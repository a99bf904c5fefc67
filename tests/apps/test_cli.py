"""The keras-sentemb command: encode, search, export, and errors with exit status 2."""

import csv
import json
import os

import numpy as np
import pytest

from keras_sentemb.apps.cli import main
from tests.conftest import FIXTURES, make_tiny_cross_encoder, make_tiny_encoder

CORPUS = ["the cat sat on the mat .", "a dog ran fast", "rain and storm", "", "hello world"]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "tiny.keras"
    make_tiny_encoder(seed=5).save(path)
    return str(path)


@pytest.fixture()
def corpus_file(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    return str(path)


def test_encode_writes_one_row_per_line(model_file, corpus_file, tmp_path, capsys):
    out = tmp_path / "vectors.npy"
    assert main(["encode", corpus_file, "-o", str(out), "--model", model_file]) == 0
    vectors = np.load(out)
    assert vectors.shape == (len(CORPUS), 16)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert "5 x 16" in capsys.readouterr().out


def test_search_finds_the_exact_line_first(model_file, corpus_file, capsys):
    assert (
        main(
            [
                "search",
                "--corpus",
                corpus_file,
                "--query",
                "a dog ran fast",
                "--top-k",
                "2",
                "--json",
                "--model",
                model_file,
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out.strip())
    assert result["query"] == "a dog ran fast"
    assert result["hits"][0]["line"] == 2 and result["hits"][0]["score"] == pytest.approx(1.0)
    assert len(result["hits"]) == 2


def test_search_reuses_saved_corpus_embeddings(model_file, corpus_file, tmp_path, capsys):
    out = str(tmp_path / "v.npy")
    main(["encode", corpus_file, "-o", out, "--model", model_file])
    capsys.readouterr()
    assert (
        main(
            [
                "search",
                "--corpus",
                corpus_file,
                "--corpus-embeddings",
                out,
                "--query",
                "hello world",
                "--model",
                model_file,
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "query: hello world"
    assert "1.0000  [line 5] hello world" in text


def test_search_rejects_embeddings_of_another_corpus(model_file, corpus_file, tmp_path, capsys):
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.zeros((3, 16), "float32"))
    status = main(
        ["search", "--corpus", corpus_file, "--corpus-embeddings", str(wrong), "--query", "x", "--model", model_file]
    )
    assert status == 2
    assert "holds (3, 16) but the corpus has 5 lines" in capsys.readouterr().err


def test_export_writes_a_version_folder(model_file, tmp_path, capsys):
    base = tmp_path / "serving"
    assert main(["export", str(base), "--version", "3", "--model", model_file]) == 0
    assert os.path.isfile(base / "3" / "saved_model.pb")
    assert main(["export", str(base), "--version", "3", "--model", model_file]) == 2
    assert "--overwrite" in capsys.readouterr().err  # the flag a command-line user types


def test_export_openvino_int8_writes_an_ir_that_loads_back(model_file, corpus_file, tmp_path, capsys):
    pytest.importorskip("openvino")
    from keras_sentemb.models import OpenVINOEncoder

    base = tmp_path / "ov"
    command = ["export", str(base), "--backend", "openvino", "--precision", "int8", "--model", model_file]
    assert main([*command, "--calibration", corpus_file]) == 0
    assert "OpenVINO, int8" in capsys.readouterr().out
    assert OpenVINOEncoder.load(base / "1").encode(CORPUS).shape == (len(CORPUS), 16)


def test_encode_int8_on_openvino_stays_close_to_float32(model_file, corpus_file, tmp_path):
    pytest.importorskip("openvino")
    fast, exact = tmp_path / "int8.npy", tmp_path / "float32.npy"
    assert main(["encode", corpus_file, "-o", str(exact), "--model", model_file]) == 0
    command = ["encode", corpus_file, "-o", str(fast), "--model", model_file, "--precision", "int8"]
    assert main([*command, "--calibration", corpus_file]) == 0
    cosines = np.sum(np.load(fast) * np.load(exact), axis=1)
    assert cosines.min() > 0.9, cosines


def test_encode_int8_on_litert_needs_no_calibration_and_stays_close_to_float32(model_file, corpus_file, tmp_path):
    pytest.importorskip("ai_edge_litert")
    fast, exact = tmp_path / "int8.npy", tmp_path / "float32.npy"
    assert main(["encode", corpus_file, "-o", str(exact), "--model", model_file]) == 0
    command = ["encode", corpus_file, "-o", str(fast), "--model", model_file, "--precision", "int8"]
    assert main([*command, "--backend", "litert"]) == 0
    cosines = np.sum(np.load(fast) * np.load(exact), axis=1)
    assert cosines.min() > 0.9, cosines


def test_encode_reduced_precision_without_calibration_is_an_error(model_file, corpus_file, tmp_path, capsys):
    pytest.importorskip("openvino")
    command = ["encode", corpus_file, "-o", str(tmp_path / "v.npy"), "--model", model_file, "--precision", "int8"]
    assert main(command) == 2
    assert "calibration_texts" in capsys.readouterr().err
    assert not (tmp_path / "v.npy").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--calibration", "CORPUS"], "--calibration FILE calibrates --precision int8; it means nothing with float32"),
        (["--calibration", "CORPUS", "--precision", "bfloat16"], "it means nothing with bfloat16"),
        (["--backend", "openvino", "--dtype", "mixed_bfloat16"], "--dtype mixed_bfloat16 is TensorFlow's compute"),
        (["--precision", "bfloat16", "--dtype", "mixed_bfloat16"], "use --precision bfloat16"),
        (["--backend", "litert", "--precision", "int8", "--calibration", "CORPUS"], "litert's int8 needs none"),
        (["--backend", "litert", "--dtype", "mixed_bfloat16"], "--backend litert converts the float32 model"),
        (["--backend", "litert", "--precision", "bfloat16"], "precision='bfloat16' runs on backend='openvino'"),
    ],
)
def test_encode_options_that_contradict_each_other_are_refused_before_loading(
    options, message, corpus_file, tmp_path, capsys
):
    options = [corpus_file if option == "CORPUS" else option for option in options]
    command = ["encode", corpus_file, "-o", str(tmp_path / "v.npy"), "--model", str(tmp_path / "never-read")]
    assert main([*command, *options]) == 2
    err = capsys.readouterr().err
    assert message in err and "never-read" not in err
    assert not (tmp_path / "v.npy").exists()


def test_openvino_refuses_a_reduced_precision_keras_model_by_name():
    """The library's own check, for the Python API: OpenVINO converts float32 graphs only."""
    pytest.importorskip("openvino")
    from keras_sentemb import SentenceEncoder

    folder = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")
    mixed = SentenceEncoder.from_pretrained(folder, dtype="mixed_bfloat16")
    with pytest.raises(ValueError, match="converts a float32 model; this one computes in mixed_bfloat16"):
        mixed.encode(["a cat"], backend="openvino")


def test_export_reduced_precision_needs_the_openvino_backend(model_file, tmp_path, capsys):
    assert main(["export", str(tmp_path / "s"), "--precision", "int8", "--model", model_file]) == 2
    assert "need --backend openvino" in capsys.readouterr().err


def test_undecodable_input_file_is_reported_with_line(model_file, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\n")
    assert main(["encode", str(bad), "-o", str(tmp_path / "o.npy"), "--model", model_file]) == 2
    assert "bad.txt:2: not valid UTF-8" in capsys.readouterr().err
    assert not (tmp_path / "o.npy").exists()


def test_encode_to_a_folder_fails_before_encoding(model_file, corpus_file, tmp_path, capsys):
    assert main(["encode", corpus_file, "-o", str(tmp_path), "--model", model_file]) == 2
    assert f"-o {tmp_path}: is a folder" in capsys.readouterr().err
    assert main(["encode", corpus_file, "-o", str(tmp_path / "no" / "o.npy"), "--model", model_file]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_network_failures_of_a_store_end_in_error_and_exit_2(tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port nobody listens on: connection refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["zoo", "fetch", "any-model", "--store", f"http://127.0.0.1:{port}/store"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("keras-sentemb zoo: error: ") and "refused" in err.lower()
    assert "Traceback" not in err


def test_unknown_model_name_is_a_clear_error(corpus_file, tmp_path, capsys):
    assert main(["encode", corpus_file, "-o", str(tmp_path / "o.npy"), "--model", "nope"]) == 2
    assert "Unknown pretrained encoder 'nope'" in capsys.readouterr().err


def test_word_level_encoders_work_from_a_keras_file(corpus_file, tmp_path, capsys):
    from keras_sentemb.models import BiLSTMSRA
    from tests.conftest import make_tiny_word_vectors

    path = str(tmp_path / "sra.keras")
    BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(), teacher_dim=6, units=4).save(path)
    out = tmp_path / "vectors.npy"
    assert main(["encode", corpus_file, "-o", str(out), "--model", path]) == 0
    assert np.load(out).shape == (len(CORPUS), 6)
    assert main(["search", "--corpus", corpus_file, "--model", path, "--query", "a dog ran fast", "--top-k", "1"]) == 0
    assert "a dog ran fast" in capsys.readouterr().out


EVAL_TASKS = os.path.join(FIXTURES, "eval_tasks")


def test_evaluate_writes_a_report_plots_and_a_table_for_user_folders(model_file, tmp_path, capsys):
    out = tmp_path / "report"
    assert (
        main(
            [
                "evaluate",
                model_file,
                "--tasks",
                "sts-dir,senteval-dir",
                "--sts-dir",
                os.path.join(EVAL_TASKS, "sts"),
                "--senteval-dir",
                os.path.join(EVAL_TASKS, "classification"),
                "--folds",
                "3",
                "-o",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    names = [task["name"] for task in report["tasks"]]
    assert names == ["sts-dir/captions", "sts-dir/questions", "senteval-dir/questions", "senteval-dir/sentiment"]
    assert report["model_info"] == {"class": "SentenceEncoder", "embedding_dim": 16}
    assert sorted(p for p in os.listdir(out) if p.endswith(".png")) == ["sts-dir_captions.png", "sts-dir_questions.png"]
    printed = capsys.readouterr().out
    assert "task" in printed and "senteval-dir/sentiment" in printed and "accuracy" in printed


def test_evaluate_reports_bad_task_files_with_file_and_line(model_file, tmp_path, capsys):
    folder = tmp_path / "sts"
    folder.mkdir()
    (folder / "bad.tsv").write_text("4.0\ta\tb\n1.0\tonly two\n", encoding="utf-8")
    assert (
        main(["evaluate", model_file, "--tasks", "sts-dir", "--sts-dir", str(folder), "-o", str(tmp_path / "r")]) == 2
    )
    assert "bad.tsv:2: expected 3 TAB-separated fields" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()  # nothing was encoded or written


def test_evaluate_refuses_hash_recall_for_a_model_without_codes(model_file, tmp_path, capsys):
    data = tmp_path / "data" / "stsb"
    data.mkdir(parents=True)
    rows = "".join(f"{i % 5}.0\tsentence {i}\tother sentence {i}\n" for i in range(30))
    for split in ("dev", "test"):
        (data / f"{split}.tsv").write_text("score\tsentence1\tsentence2\n" + rows, encoding="utf-8")
    assert (
        main(
            [
                "evaluate",
                model_file,
                "--tasks",
                "hash-recall",
                "--data",
                str(tmp_path / "data"),
                "-o",
                str(tmp_path / "r"),
            ]
        )
        == 2
    )
    assert "hash-recall needs a HashedEncoder" in capsys.readouterr().err


def test_evaluate_beir_measures_retrieval_and_saves_each_querys_scores(model_file, tmp_path, capsys):
    out = tmp_path / "report"
    beir = os.path.join(FIXTURES, "beir_tiny")
    assert main(["evaluate", model_file, "--beir", beir, "-o", str(out), "--no-progress"]) == 0
    (task,) = json.loads((out / "report.json").read_text(encoding="utf-8"))["tasks"]
    assert task["name"] == "beir:beir_tiny" and task["main_metric"] == "ndcg@10"
    assert set(task["metrics"]) == {"ndcg@10", "recall@100", "mrr@10", "map@100"}
    assert sorted(task["details"]["per_query"]) == ["q1", "q2", "q3", "q4"]
    assert "beir:beir_tiny" in capsys.readouterr().out


def test_evaluate_beir_lexical_reports_dense_bm25_and_their_fusion(model_file, tmp_path):
    out = tmp_path / "report"
    beir = os.path.join(FIXTURES, "beir_tiny")
    argv = ["evaluate", model_file, "--beir", beir, "-o", str(out), "--no-progress", "--no-plots", "--lexical"]
    assert main([*argv, "--fusion", "convex:0.4"]) == 0
    (task,) = json.loads((out / "report.json").read_text(encoding="utf-8"))["tasks"]
    assert {"dense ndcg@10", "lexical ndcg@10", "hybrid ndcg@10"} <= set(task["metrics"])
    assert task["details"]["fusion"] == "convex(weight=0.4, floors -1, 0)"


def test_evaluate_beir_reranks_with_a_cross_encoder_and_refuses_another_model(model_file, tmp_path, capsys):
    reranker = tmp_path / "reranker.keras"
    make_tiny_cross_encoder(seed=2).save(reranker)
    out = tmp_path / "report"
    argv = ["evaluate", model_file, "--beir", os.path.join(FIXTURES, "beir_tiny"), "--no-progress", "--no-plots"]
    assert main([*argv, "-o", str(out), "--rerank", str(reranker), "--rerank-top", "5"]) == 0
    (task,) = json.loads((out / "report.json").read_text(encoding="utf-8"))["tasks"]
    assert {"dense ndcg@10", "rerank ndcg@10"} <= set(task["metrics"])
    assert task["metrics"]["ndcg@10"] == task["metrics"]["rerank ndcg@10"]
    capsys.readouterr()
    assert main([*argv, "-o", str(tmp_path / "r2"), "--rerank", model_file]) == 2
    assert "tiny.keras holds a SentenceEncoder, not a CrossEncoder" in capsys.readouterr().err


def test_evaluate_beir_reranks_with_a_sentence_transformers_reranker_folder(model_file, tmp_path, capsys):
    folder = os.path.join(FIXTURES, "reranker_folders", "xlm_roberta_reranker")
    out = tmp_path / "report"
    argv = ["evaluate", model_file, "--beir", os.path.join(FIXTURES, "beir_tiny"), "--no-progress", "--no-plots"]
    assert main([*argv, "-o", str(out), "--rerank", folder, "--rerank-top", "5"]) == 0
    (task,) = json.loads((out / "report.json").read_text(encoding="utf-8"))["tasks"]
    assert task["metrics"]["ndcg@10"] == task["metrics"]["rerank ndcg@10"]
    capsys.readouterr()
    encoder_folder = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")
    assert main([*argv, "-o", str(tmp_path / "r2"), "--rerank", encoder_folder]) == 2
    assert "bert_mean_normalize_old: not a reranker folder" in capsys.readouterr().err


@pytest.mark.parametrize("fusion", ["convex:1.5", "convex:x", "max"])
def test_evaluate_refuses_a_fusion_it_does_not_know_in_one_line(model_file, tmp_path, capsys, fusion):
    argv = ["evaluate", model_file, "--beir", os.path.join(FIXTURES, "beir_tiny"), "--lexical", "--fusion", fusion]
    assert main([*argv, "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"keras-sentemb evaluate: error: argument --fusion: '{fusion}'")
    assert err.endswith("(see keras-sentemb evaluate --help)\n") and err.count("\n") == 1


def test_evaluate_without_an_output_folder_prints_its_table_and_writes_nothing(
    model_file, tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", model_file, "--beir", os.path.join(FIXTURES, "beir_tiny")]) == 0
    assert "no report written: -o FOLDER writes report.json" in capsys.readouterr().out
    assert os.listdir(tmp_path) == []


def test_evaluate_names_unknown_tasks(model_file, tmp_path, capsys):
    assert main(["evaluate", model_file, "--tasks", "stsb,glue", "-o", str(tmp_path)]) == 2
    assert "unknown task(s) ['glue']" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("missing", "argv", "extra"),
    [
        ("apache_beam", ["embed-corpus", "{tmp}/model", "{tmp}/corpus.txt", "-o", "{tmp}/out"], "beam"),
        ("tensorflow_serving", ["export", "--serving", "{tmp}/serving", "{model}", "--version", "1"], "serving"),
    ],
)
def test_a_missing_optional_extra_is_an_error_naming_the_pip_command(
    missing, argv, extra, model_file, tmp_path, capsys, monkeypatch
):
    """Without the beam or serving extra these commands end in `error:` and exit 2, not a traceback."""
    import sys

    (tmp_path / "corpus.txt").write_text("a line\n", encoding="utf-8")
    for name in [missing, *(name for name in sys.modules if name.startswith(missing + "."))]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it now fails as if it were not installed
    argv = [arg.format(tmp=tmp_path, model=model_file) for arg in argv]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "error:" in error and f"keras-sentemb[{extra}]" in error and "Traceback" not in error


def test_evaluate_reads_a_users_pairs_as_csv_or_tsv_with_or_without_a_header(model_file, tmp_path):
    """The same pairs as a CSV whose header puts the columns in Hugging Face's order, a CSV without a
    header, and a headerless TSV: three tasks, one Spearman."""
    rows = [
        (f"{i % 5}.0", f"the cat, sat {'on the mat ' * (i % 3)}", f"a dog ran {'fast ' * (i % 4)}") for i in range(12)
    ]
    folder = tmp_path / "mine"
    folder.mkdir()
    with open(folder / "named.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([("sentence1", "sentence2", "score"), *((a, b, s) for s, a, b in rows)])
    with open(folder / "plain.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    (folder / "tabbed.tsv").write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
    command = ["evaluate", model_file, "--tasks", "sts-dir", "--sts-dir", str(folder), "--no-plots"]
    assert main([*command, "-o", str(tmp_path / "report")]) == 0
    tasks = json.loads((tmp_path / "report" / "report.json").read_text())["tasks"]
    spearman = {task["name"]: (task["size"], round(task["metrics"]["spearman"], 6)) for task in tasks}
    assert set(spearman) == {"sts-dir/named", "sts-dir/plain", "sts-dir/tabbed"}
    assert len(set(spearman.values())) == 1 and spearman["sts-dir/named"][0] == 12
