"""Where the committed zoo is: the folder that holds this package (`zoo/` of the checkout).

The recipes are repository code, so they may know the checkout; the library never does. Importing
this module points `keras_sentemb.zoo` at that folder (`$KERAS_SENTEMB_ZOO`) unless it is set.
"""

import os

ZOO_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(ZOO_DIR)
os.environ.setdefault("KERAS_SENTEMB_ZOO", ZOO_DIR)
