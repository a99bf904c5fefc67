"""Installing the zoo from a clone (`pip install ./keras-sentemb/zoo`, the README's line) leaves
nothing in the clone: zoo/setup.py builds in a scratch folder, and the package it installs is the
artifacts and `__init__.py`, not the setup script."""

import os
import shutil
import subprocess
import sys

ZOO = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "zoo")


def test_installing_the_zoo_from_its_folder_leaves_no_build_output_there(tmp_path):
    source = tmp_path / "zoo"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml", "__init__.py", "index.json"):  # the artifacts themselves: not needed
        shutil.copy(os.path.join(ZOO, name), source / name)
    before = sorted(os.listdir(source))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["--target", str(tmp_path / "site"), str(source)],
        check=True,
        capture_output=True,
    )
    assert sorted(os.listdir(source)) == before  # no build/, no keras_sentemb_zoo.egg-info
    installed = sorted(os.listdir(tmp_path / "site" / "keras_sentemb_zoo"))
    assert "index.json" in installed and "__init__.py" in installed and "setup.py" not in installed
