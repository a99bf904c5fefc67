"""The README's code blocks as a new user pastes them: `readme_blocks.py README.md OUT` writes
the Install section's shell block to OUT/install.sh and each Python block of the examples
section to OUT/example_<i>.py, so that .ci/wheel_smoke runs exactly those lines."""

import os
import re
import sys

BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)


def section(text, heading):
    """The text of the level-2 section whose heading starts with `heading`."""
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def main(readme, out):
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    install = [body for lang, body in BLOCK.findall(section(text, "Install")) if lang == "sh"]
    examples = [body for lang, body in BLOCK.findall(section(text, "Six examples")) if lang == "python"]
    assert len(install) == 1 and len(examples) == 6, (len(install), len(examples))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "install.sh"), "w", encoding="utf-8") as f:
        f.write("set -euxo pipefail\n" + install[0])
    for i, body in enumerate(examples, 1):
        with open(os.path.join(out, f"example_{i}.py"), "w", encoding="utf-8") as f:
            f.write(body)
    print(f"README: 1 install block, {len(examples)} examples")


if __name__ == "__main__":
    main(*sys.argv[1:])
