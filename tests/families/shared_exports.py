"""Raw-string SavedModels of the tiny sentence-transformers folders, exported once per test session and
read by every file that serves them: the family × runtime matrix and TF Serving's TensorFlow
(tests/export/test_tf_serving_release.py).

A SavedModel is a function of its folder alone (the weights are read from it, nothing is random), so one
export answers for both. Under pytest-xdist the workers share the session's temporary root; a file
lock a folder makes the second worker wait for the first one's export instead of writing it again.

    folder = shared_saved_model(tmp_path_factory, "mpnet_all_modes_new", encoder)
    tf.saved_model.load(folder).signatures["serving_default"](texts=tf.constant(["a text"]))
"""

import os

from filelock import FileLock

from keras_sentemb.export import export_saved_model


def session_root(tmp_path_factory):
    """The temporary folder every worker of this pytest session sees (the parent of a worker's own)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_saved_model(tmp_path_factory, folder_name, encoder):
    """The folder of `encoder`'s raw-string SavedModel (version 1), `encoder` being the model of
    tests/fixtures/st_folders/`folder_name`: exported by the first caller of the session, the same
    folder for every later one."""
    root = session_root(tmp_path_factory) / "shared-saved-models"
    root.mkdir(exist_ok=True)
    target = root / folder_name
    with FileLock(f"{target}.lock"):
        version = target / "1"
        if not version.is_dir():
            export_saved_model(encoder, target, version=1)
    return str(version)
