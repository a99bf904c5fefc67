"""export_saved_model refuses what it cannot write before it writes anything."""

import os

import numpy as np
import pytest

from keras_sentemb.export import export_saved_model
from tests.conftest import make_tiny_encoder


def test_a_code_table_needs_a_hashed_encoder(tmp_path):
    with pytest.raises(TypeError, match="HashedEncoder"):
        export_saved_model(make_tiny_encoder(), tmp_path / "m", code_table=np.zeros((2, 8), np.uint8))
    assert not os.path.exists(tmp_path / "m")


@pytest.mark.parametrize("version", [-1, 1.5, True, "1"])
def test_the_version_must_be_a_non_negative_int(tmp_path, version):
    with pytest.raises(ValueError, match="version"):
        export_saved_model(make_tiny_encoder(), tmp_path / "m", version=version)
