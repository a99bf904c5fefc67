"""Report pictures: one PNG per STS or hash-recall result, a flat file name per task,
nothing for results without plot data; an undefined correlation still plots."""

import math

import numpy as np

from keras_sentemb.evaluation.report_plots import plot_file_name, write_plots
from keras_sentemb.evaluation.tasks import TaskResult

PNG = b"\x89PNG\r\n\x1a\n"


def sts_result(name, spearman=71.5):
    plot = {"predicted": np.linspace(0, 1, 6), "gold": np.arange(6.0), "similarity": "cosine"}
    return TaskResult(name, "sts", {"spearman": spearman, "pearson": 70.0}, "spearman", 6, plot=plot)


def test_task_names_become_flat_file_names():
    assert plot_file_name("sts-dir/news") == "sts-dir_news.png"
    assert plot_file_name("a b:c") == "a_b_c.png"


def test_sts_and_recall_results_get_a_png_each_and_others_none(tmp_path):
    recall = TaskResult(
        "hash-recall",
        "hash-recall",
        {"recall@10": 0.5},
        "recall@10",
        20,
        details={"corpus_size": 100},
        plot={"bits": [16, 32, 64], "curves": {"hamming": [0.2, 0.4, 0.6]}, "k": 10},
    )
    probe = TaskResult("trec", "probe", {"accuracy": 90.0}, "accuracy", 50)
    paths = write_plots([sts_result("sts-dir/news"), recall, probe], tmp_path, model_name="m")
    assert sorted(paths) == ["hash-recall", "sts-dir/news"]
    for path in paths.values():
        assert open(path, "rb").read(8) == PNG


def test_an_undefined_correlation_still_plots(tmp_path):
    paths = write_plots([sts_result("flat", spearman=math.nan)], tmp_path)
    assert open(paths["flat"], "rb").read(8) == PNG
