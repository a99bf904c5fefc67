"""Names of a package imported when first used (PEP 562 `__getattr__`), so that importing the package
costs nothing until a name is asked for.

>>> import types
>>> package = types.ModuleType("example")
>>> package.__getattr__ = lazy_names("example", {"sqrt": "math", "JSONDecoder": "json"})
>>> package.__getattr__("sqrt")(9.0)
3.0
>>> package.__getattr__("cosine")
Traceback (most recent call last):
...
AttributeError: module 'example' has no attribute 'cosine'
"""

import importlib


def lazy_names(package, modules):
    """A module `__getattr__` for `package` that imports `modules[name]` (a module path) on first use and
    returns its attribute `name`; a name whose module path is "" is the subpackage `package.name` itself."""

    def __getattr__(name):
        if name not in modules:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if not modules[name]:
            return importlib.import_module(f"{package}.{name}")
        return getattr(importlib.import_module(modules[name]), name)

    return __getattr__
