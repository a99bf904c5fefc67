"""Settings for everything pytest collects from the repository root: the README's and docs/ Python
blocks, the package's doctests and tests/. The library never looks for a checkout by itself; this
file points its zoo at the committed `zoo/` folder."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_SENTEMB_ZOO", os.path.join(os.path.dirname(os.path.abspath(__file__)), "zoo"))
