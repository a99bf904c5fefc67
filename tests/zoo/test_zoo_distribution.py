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


def test_installing_the_package_from_its_clone_leaves_no_build_output_there(tmp_path):
    """setup.py builds in a scratch folder: `pip install ./keras-sentemb` leaves no build/ or egg-info."""
    repository = os.path.dirname(ZOO)
    source = tmp_path / "keras-sentemb"
    source.mkdir()
    for name in ("setup.py", "setup.cfg", "pyproject.toml", "README.md", "LICENSE", "keras_sentemb_cli.py"):
        shutil.copy(os.path.join(repository, name), source / name)
    shutil.copytree(os.path.join(repository, "keras_sentemb"), source / "keras_sentemb")
    before = sorted(os.listdir(source))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["--target", str(tmp_path / "site"), str(source)],
        check=True,
        capture_output=True,
    )
    assert sorted(os.listdir(source)) == before  # no build/, no keras_sentemb.egg-info
    tables = tmp_path / "site" / "keras_sentemb" / "tokenizers" / "bert_character_tables.json"
    assert tables.is_file()  # the generated tables travel as package data
