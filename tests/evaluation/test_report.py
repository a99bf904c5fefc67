"""Reports: a JSON file that is valid even with undefined metrics, one PNG per STS and
hash-recall task, and a readable table."""

import json
import os

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.evaluation.report import evaluate, format_table, write_report
from keras_sentemb.evaluation.tasks import HashRecallTask, STSTask
from tests.evaluation.fake_encoders import ConstantEncoder, SignHashedEncoder

PAIRS = ScoredPairs(
    ["a man plays", "a cat sleeps", "rain falls", "the sun"],
    ["a man is playing", "stocks fell", "a storm", "the moon"],
    [4.8, 0.3, 3.1, 2.0],
)
CORPUS = [f"sentence number {i} about {w}" for i, w in enumerate(["bread", "rain", "music", "dogs"] * 30)]


def run_tasks(encoder, tasks):
    seen = []
    results = evaluate(encoder, tasks, on_result=seen.append)
    assert seen == results
    return results


def test_the_report_holds_metrics_details_versions_and_plots(tmp_path):
    results = run_tasks(
        SignHashedEncoder(), [STSTask("toy-sts", PAIRS), HashRecallTask("recall", CORPUS, queries=10, k=3, rerank=3)]
    )
    path = write_report(results, tmp_path / "report", model_name="fake", model_info={"bits": 32})
    report = json.loads(open(path, encoding="utf-8").read())
    assert report["model"] == "fake" and report["model_info"] == {"bits": 32}
    assert set(report["versions"]) == {"keras_sentemb", "keras", "tensorflow"}
    sts, recall = report["tasks"]
    assert sts["metrics"]["spearman"] == results[0].metrics["spearman"]
    assert set(sts["metrics"]) == {"spearman", "pearson", "hamming_spearman", "hamming_pearson"}
    assert recall["details"]["bits"] == [16, 32] and len(recall["details"]["recall@3"]) == 2
    for entry in (sts, recall):
        png = tmp_path / "report" / entry["plot"]
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sts["plot"] == "toy-sts.png"


def test_undefined_metrics_are_null_in_json_and_na_in_the_table(tmp_path):
    results = run_tasks(ConstantEncoder(), [STSTask("sts-dir/flat", PAIRS)])
    path = write_report(results, tmp_path, plots=False)
    task = json.loads(open(path, encoding="utf-8").read())["tasks"][0]
    assert task["metrics"] == {"spearman": None, "pearson": None}
    assert "constant" in task["warnings"][0] and "plot" not in task
    table = format_table(results)
    assert table.splitlines()[2].split()[:3] == ["sts-dir/flat", "spearman", "n/a"]
    assert "warnings:" in table and "constant (all 1)" in table
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".png")]


def test_the_table_has_one_line_per_metric():
    results = run_tasks(SignHashedEncoder(), [STSTask("toy", PAIRS)])
    lines = format_table(results).splitlines()
    assert lines[0].split() == ["task", "metric", "value", "n", "seconds"]
    assert [line.split()[0] for line in lines[2:]] == ["toy", "pearson", "hamming_spearman", "hamming_pearson"]
