"""Prints the requirements of a server of exported OpenVINO folders, read from setup.cfg (one source of the
pins): the `server` extra, OpenVINO (of the `openvino` extra; NNCF quantises at export, not at serve time), the
LiteRT interpreter (the `litert` extra), the install_requires a lean process imports (numpy, tokenizers, tqdm,
flatbuffers: a LiteRT file's card), and the test runner. `make test-lean` installs
them, and keras-sentemb itself with --no-deps, into a venv without TensorFlow."""

import configparser
import os
import re

LEAN_INSTALL_REQUIRES = ("numpy", "tokenizers", "tqdm", "flatbuffers")
LEAN_EXTRAS = {"server": None, "openvino": ("openvino",), "litert": None, "test": ("pytest",)}


def requirement_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def name_of(requirement):
    return re.split(r"[<>=!;\[ ]", requirement, maxsplit=1)[0].lower()


def main():
    config = configparser.ConfigParser()
    config.read(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "setup.cfg"))
    wanted = [
        r for r in requirement_lines(config["options"]["install_requires"]) if name_of(r) in LEAN_INSTALL_REQUIRES
    ]
    for extra, names in LEAN_EXTRAS.items():
        wanted += [
            r for r in requirement_lines(config["options.extras_require"][extra]) if not names or name_of(r) in names
        ]
    print("\n".join(wanted))


if __name__ == "__main__":
    main()
