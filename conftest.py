"""Settings for everything pytest collects from the repository root: the README's and docs/ Python
blocks, the package's doctests and tests/. The library never looks for a checkout by itself; this
file points its zoo at the committed `zoo/` folder."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_SENTEMB_ZOO", os.path.join(os.path.dirname(os.path.abspath(__file__)), "zoo"))

# pytest-xdist (`make test`, --dist loadfile) hands whole files to the two workers in collection
# order; starting with the longest ones lets both workers finish together instead of one of them
# running a minute-long docs page alone at the end.
LONGEST_FIRST = (
    "docs/",
    "README.md",
    "tests/training/test_distributed_fit.py",
    "tests/training/test_resume_after_kill.py",
    "tests/export/test_pair_model_export.py",
    "tests/models/test_hashed_encoder.py",
    "tests/zoo/test_hub_hosting.py",
    "tests/export/test_serving_bundle.py",
)


def pytest_collection_modifyitems(items):
    def rank(item):
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)), len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: collection order within each rank
