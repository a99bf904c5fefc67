"""Every doctest the suite collects checks something: a docstring whose examples are all
`# doctest: +SKIP` would be counted as a passing test while running nothing, so such examples
are written as plain literal blocks ("not run as a doctest: why") instead."""

import ast
import doctest
import os

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "keras_sentemb")


def docstrings(source):
    """(line, text) of every module, class and function docstring in `source`."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield (node.body[0].lineno, text)


def doctests_that_run_nothing(source, name="<source>"):
    """`name:line` of each docstring with doctest examples, every one of them skipped."""
    parser = doctest.DocTestParser()
    found = []
    for line, text in docstrings(source):
        examples = parser.get_examples(text)
        if examples and all(example.options.get(doctest.SKIP) for example in examples):
            found.append(f"{name}:{line}")
    return found


def test_no_docstring_of_the_package_is_a_doctest_that_runs_nothing():
    found = []
    for folder, _, files in os.walk(PACKAGE):
        for file in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, file)
            with open(path, encoding="utf-8") as f:
                found += doctests_that_run_nothing(f.read(), os.path.relpath(path, PACKAGE))
    assert found == []


def test_a_docstring_whose_examples_are_all_skipped_is_found():
    source = 'def f():\n    """Adds.\n\n    >>> f(1,\n    ...   2)   # doctest: +SKIP\n    3\n    """\n'
    assert doctests_that_run_nothing(source, "m.py") == ["m.py:2"]


def test_a_docstring_with_one_example_that_runs_is_a_real_doctest():
    source = 'def f():\n    """Adds.\n\n    >>> g()  # doctest: +SKIP\n    >>> 1 + 2\n    3\n    """\n'
    assert doctests_that_run_nothing(source, "m.py") == []
