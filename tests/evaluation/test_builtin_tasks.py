"""build_tasks: the task names of `keras-sentemb evaluate`, each read from its files at
once (a bad file fails before any encoding), named after its source."""

import os

import pytest

from keras_sentemb.evaluation.builtin_tasks import TASK_NAMES, build_tasks
from tests.conftest import FIXTURES

TASKS = os.path.join(FIXTURES, "eval_tasks")
SAMPLE_DATA = os.path.join(os.path.dirname(FIXTURES), "..", "docs", "sample_data")


def test_the_data_folder_tasks_read_their_files():
    tasks = build_tasks(["stsb", "stsb-dev", "sst2", "trec", "hash-recall", "stsb"], data=SAMPLE_DATA)
    assert [t.name for t in tasks] == ["stsb", "stsb-dev", "sst2", "trec", "hash-recall"]
    assert tasks[0].source.endswith(os.path.join("stsb", "test.tsv"))
    assert tasks[2].dev is not None and tasks[3].dev is None


def test_a_data_folder_is_required_for_the_data_tasks():
    with pytest.raises(ValueError, match="pass --data FOLDER .* or --data tfds"):
        build_tasks(["mrpc"])
    with pytest.raises(ValueError, match="no task given"):
        build_tasks([" "])
    assert "senteval-dir" in TASK_NAMES


def test_build_tasks_reads_user_folders_and_names_tasks_after_files():
    tasks = build_tasks(
        ["sts-dir", "senteval-dir"],
        sts_dir=os.path.join(TASKS, "sts"),
        senteval_dir=os.path.join(TASKS, "classification"),
        folds=3,
    )
    assert [t.name for t in tasks] == [
        "sts-dir/captions",
        "sts-dir/questions",
        "senteval-dir/questions",
        "senteval-dir/sentiment",
    ]
    split, single = tasks[2], tasks[3]
    assert split.test is not None and split.dev is not None and single.test is None


@pytest.mark.parametrize(
    "names, kwargs, error, message",
    [
        (["stsb", "glue"], {}, ValueError, r"unknown task\(s\) \['glue'\]"),
        (["sts-dir"], {}, ValueError, "sts-dir needs --sts-dir"),
        (["senteval-dir"], {}, ValueError, "senteval-dir needs --senteval-dir"),
        (["stsb"], {"data": "/nonexistent"}, FileNotFoundError, "--data '/nonexistent': no such folder"),
        (["stsb"], {"data": SAMPLE_DATA + "/trec"}, FileNotFoundError, r"stsb/test.tsv: no such file"),
    ],
)
def test_build_tasks_rejects_what_it_cannot_run(names, kwargs, error, message):
    with pytest.raises(error, match=message):
        build_tasks(names, **kwargs)
