"""Prints the requirements of one of the venvs CI builds beside `.venv`, read from setup.cfg (one source of the
pins); keras-sentemb itself goes into each with --no-deps.

- `lean`: a server of exported OpenVINO folders (`make test-lean`, a venv without TensorFlow): the `server`
  extra, OpenVINO (of the `openvino` extra; NNCF quantises at export, not at serve time), the LiteRT
  interpreter (the `litert` extra), the install_requires a lean process imports (numpy, scipy, tokenizers, tqdm,
  flatbuffers: a LiteRT file's card), and the test runner.
- `oldest`: the oldest TensorFlow / keras-hub pair the pins allow (`make test-oldest`): every install_requires
  line with TensorFlow, TF Text, tf-keras and keras-hub held to the floor of their range
  (`tensorflow>=2.20,<2.22` → `tensorflow==2.20.*`, `keras-hub>=0.31.1,<0.33` → `keras-hub==0.31.1`), the
  `openvino`, `litert` and `serving` extras (the export tests run those runtimes and write TF Serving's
  warmup requests) and the test runner's part of `test`.

    python .ci/venv_requirements.py lean
    python .ci/venv_requirements.py oldest
"""

import configparser
import os
import re
import sys

TEST_RUNNER = ("pytest", "pytest-xdist", "pytest-markdown-docs", "hypothesis", "psutil", "filelock")
PROFILES = {
    # (the install_requires kept: None for all, the ones held to their floor, {extra: names or None for all})
    "lean": (
        ("numpy", "tokenizers", "tqdm", "flatbuffers", "scipy"),
        (),
        {"server": None, "openvino": ("openvino",), "litert": None, "test": ("pytest",)},
    ),
    "oldest": (
        None,
        ("tensorflow", "tensorflow-text", "tf-keras", "keras-hub"),
        {"openvino": None, "litert": None, "serving": None, "test": TEST_RUNNER},
    ),
}


def requirement_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def name_of(requirement):
    return re.split(r"[<>=!;\[ ~]", requirement, maxsplit=1)[0].lower()


def at_floor(requirement):
    """`name==floor.*` for a two-part floor, `name==floor` for a three-part one; ValueError without a floor."""
    floor = re.search(r">=\s*([0-9][0-9.]*)", requirement)
    if floor is None:
        raise ValueError(f"setup.cfg: {requirement!r} has no >= floor to test")
    version = floor.group(1)
    return f"{name_of(requirement)}=={version}{'.*' if version.count('.') == 1 else ''}"


def requirements(config, profile):
    """The requirement lines of `profile` ("lean" or "oldest") from the parsed setup.cfg `config`."""
    kept, floors, extras = PROFILES[profile]
    install = requirement_lines(config["options"]["install_requires"])
    missing = set(floors) - {name_of(r) for r in install}
    if missing:
        raise ValueError(f"setup.cfg: install_requires names no {sorted(missing)}")
    wanted = [at_floor(r) if name_of(r) in floors else r for r in install if kept is None or name_of(r) in kept]
    for extra, names in extras.items():
        wanted += [
            r for r in requirement_lines(config["options.extras_require"][extra]) if not names or name_of(r) in names
        ]
    return wanted


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in PROFILES:
        sys.exit(f"usage: {sys.argv[0]} {' | '.join(PROFILES)}")
    config = configparser.ConfigParser()
    config.read(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "setup.cfg"))
    print("\n".join(requirements(config, sys.argv[1])))


if __name__ == "__main__":
    main()
