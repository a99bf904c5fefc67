"""Every family on every runtime (make test-slow: conversions and exports, ~5 minutes): the fused OpenVINO
graph at float32 (and bfloat16 and int8 where the CPU runs them), the unpadded raw-string SavedModel and a
LiteRT file each give the Keras model's vectors — float32 to 1e-5, bfloat16 at cosine ≥ 0.99, int8 ≥ 0.9 (a wrong-graph check: runtime_matrix.BARS) —
or refuse by name (tests/families/runtime_matrix.py; benchmarks/family_runtime_matrix.py prints the matrix).
The three 2025 families' OpenVINO cells hold what tests/pretrained/test_new_families_everywhere.py asserted
of them before (float32 equal, bfloat16 direction kept or refused by name), on the same folders."""

import pytest

from tests.families.runtime_matrix import RUNTIMES, RuntimeRefused, bar_of, cell, encoder_of
from tests.families.shared_exports import shared_saved_model
from tests.families.test_family_math import FOLDERS


@pytest.fixture(scope="module")
def encoders():
    return {}


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("family", FOLDERS)
def test_the_runtime_gives_the_keras_vectors_or_refuses_by_name(family, runtime, encoders, tmp_path, tmp_path_factory):
    encoder = encoders.setdefault(family, encoder_of(family))
    # the SavedModel the other serving tests load too (tests/families/shared_exports.py)
    saved_model = shared_saved_model(tmp_path_factory, FOLDERS[family], encoder) if "SavedModel" in runtime else None
    try:
        max_abs, min_cosine, ran = cell(family, runtime, str(tmp_path), encoder, saved_model)
    except RuntimeRefused as refusal:
        assert "bfloat16" in runtime and "needs a CPU with bfloat16 support" in str(refusal)
        return
    measure, bar = bar_of(runtime, ran)
    if measure == "max_abs":
        assert max_abs <= bar, (ran, max_abs)
    else:
        assert min_cosine >= bar, (ran, min_cosine)
