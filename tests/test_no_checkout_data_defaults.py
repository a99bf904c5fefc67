"""Examples, recipes and the command line take their data from `--data` (a folder, `tfds` or
`tfds:DIR`) or `$KERAS_SENTEMB_DATA`: none of them falls back to a path inside a checkout."""

import ast
import glob
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = sorted(
    glob.glob(os.path.join(ROOT, "examples", "*.py"))
    + glob.glob(os.path.join(ROOT, "zoo", "recipes", "*.py"))
    + [os.path.join(ROOT, "keras_sentemb", "apps", "cli.py")]
)


def data_argument_defaults(tree):
    """The `default=` expressions of every `add_argument("--data", ...)` call."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "add_argument"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "--data"
        ):
            yield next((k.value for k in node.keywords if k.arg == "default"), None)


def allowed(default):
    """No default, or the environment variable."""
    return default is None or "KERAS_SENTEMB_DATA" in ast.unparse(default)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: os.path.relpath(p, ROOT))
def test_data_comes_from_the_user_never_from_the_checkout(path):
    defaults = list(data_argument_defaults(ast.parse(open(path, encoding="utf-8").read())))
    assert all(allowed(d) for d in defaults), [ast.unparse(d) for d in defaults if not allowed(d)]


def test_the_scan_finds_a_checkout_default():
    tree = ast.parse('parser.add_argument("--data", default=os.path.join(HERE, "..", "data"))')
    assert [allowed(d) for d in data_argument_defaults(tree)] == [False]
