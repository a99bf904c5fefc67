"""How to install an extra is said one way everywhere — `pip install "./keras-sentemb[EXTRA]"`, the
form the README's install block uses (the project installs from a copy of this repository) — and
the README's install block names every optional extra a README feature needs."""

import configparser
import glob
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVELOPMENT_EXTRAS = {"test", "bench"}  # `make venv`'s, not a user's


def extras():
    config = configparser.ConfigParser()
    config.read(os.path.join(REPO, "setup.cfg"))
    return set(config["options.extras_require"])


def install_hints():
    """(file, line number, the text after `pip install`) of every pip command naming an extra of ours."""
    paths = [os.path.join(REPO, "README.md"), *glob.glob(os.path.join(REPO, "docs", "*.md"))]
    paths += glob.glob(os.path.join(REPO, "keras_sentemb", "**", "*.py"), recursive=True)
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for match in re.finditer(r"pip install ([^)`\n]*?keras-sentemb\[(?:\{[^}]*\}|[^\]]*)\][\"']?)", line):
                    yield os.path.relpath(path, REPO), number, match.group(1)


def test_every_extra_is_installed_the_same_way_and_exists():
    hints = list(install_hints())
    assert len(hints) >= 10  # the README, docs and error messages
    for path, number, command in hints:
        where = f"{path}:{number}: pip install {command}"
        match = re.fullmatch(r'"\./keras-sentemb\[([a-z,]+)\]"|"\./keras-sentemb\[\{[^}]+\}\]"', command)
        assert match, f'{where}: write it as pip install "./keras-sentemb[EXTRA]"'
        assert match.group(1) is None or set(match.group(1).split(",")) <= extras(), f"{where}: no such extra"


def test_the_readme_install_block_names_every_user_extra():
    readme = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    block = readme.split("## Install", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    named = set(re.findall(r'pip install "\./keras-sentemb\[([a-z]+)\]"', block))
    assert named == extras() - DEVELOPMENT_EXTRAS
