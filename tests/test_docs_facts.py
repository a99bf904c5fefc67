"""Counts and sizes stated in the docs are checked against what they describe: the zoo's model
count against zoo/index.json (here), the wheel sizes against `make wheel`'s output (by
`.ci/documented_sizes.py` in `.ci/wheel_smoke`; its own behaviour is tested here), and the TFDS
names `evaluate --help` offers against docs/data.md's table."""

import json
import os
import re
import subprocess
import sys
import zipfile

from keras_sentemb.apps.cli import _build_parser
from keras_sentemb.evaluation.builtin_tasks import TASK_NAMES

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK = os.path.join(REPO, ".ci", "documented_sizes.py")


def read(*parts):
    return open(os.path.join(REPO, *parts), encoding="utf-8").read()


def test_the_documented_zoo_model_count_is_the_indexs():
    (count,) = re.findall(r"<!-- count of zoo models -->(\d+)", read("docs", "zoo.md"))
    assert int(count) == len(json.loads(read("zoo", "index.json"))["models"])


def test_evaluate_help_offers_the_tfds_name_of_every_data_set_it_evaluates():
    table = re.findall(r"^\| `([a-z_0-9]+)` \| `([a-z_/0-9]+)` \|", read("docs", "data.md"), flags=re.M)
    assert len(table) >= 6
    evaluate = _build_parser()._subparsers._group_actions[0].choices["evaluate"]
    text = " ".join(evaluate.format_help().split())
    for name, tfds_name in table:
        if name in TASK_NAMES:
            assert tfds_name in text, tfds_name


def fake_dist(tmp_path, wheel_bytes, models):
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "keras_sentemb-0.1.0-py3-none-any.whl").write_bytes(b"x" * wheel_bytes)
    with zipfile.ZipFile(dist / "keras_sentemb_zoo-0.1.0-py3-none-any.whl", "w") as archive:
        archive.writestr("keras_sentemb_zoo/index.json", json.dumps({"models": {f"m{i}": {} for i in range(models)}}))
    return dist


def test_the_size_check_passes_figures_that_round_alike_and_names_any_that_do_not(tmp_path):
    dist = fake_dist(tmp_path, 412_345, 12)
    doc = tmp_path / "zoo.md"
    doc.write_text("wheel <!-- size of keras_sentemb-*.whl -->0.4 MB, <!-- count of zoo models -->12 models\n")
    done = subprocess.run([sys.executable, CHECK, str(dist), str(doc)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    doc.write_text("wheel <!-- size of keras_sentemb-*.whl -->0.42 MB,\n<!-- count of zoo models -->11 models\n")
    done = subprocess.run([sys.executable, CHECK, str(dist), str(doc)], capture_output=True, text=True)
    assert done.returncode == 1
    assert (
        "zoo.md:1: documents 0.42 for keras_sentemb-0.1.0-py3-none-any.whl (412,345 bytes) in MB, the build gives 0.41"
        in done.stdout
    )
    assert "zoo.md:2: documents 11 for zoo models in the built wheel, the build gives 12" in done.stdout
