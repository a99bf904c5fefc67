"""Which SavedModel a bulk job (`embed-corpus`, the soak benchmark) serves: an exported
folder, or a model exported on the fly for local runs."""

import os
import tempfile

from keras_sentemb.bulk.exported_model import exported_version
from keras_sentemb.export import export_saved_model
from keras_sentemb.zoo.loading import load_any_encoder

LOCAL_RUNNERS = (
    None,
    "DirectRunner",
    "direct",
    "SwitchingDirectRunner",
    "BundleBasedDirectRunner",
    "FnApiRunner",
    "PrismRunner",
    "prism",
)


def serving_folder(spec, runner=None):
    """A SavedModel folder for `spec`: an export (version folder or its base folder), or —
    for local runners only — a model spec (preset, `zoo:NAME`, `.keras`, HF folder) exported
    into a temporary folder. A remote runner needs an export on a path its workers read."""
    found = exported_version(os.fspath(spec))
    if found is not None:
        return found
    if runner not in LOCAL_RUNNERS:
        raise ValueError(
            f"{spec} is not an exported SavedModel; with --runner={runner} export it first to a "
            "path the workers can read (`keras-sentemb export gs://bucket/model --model ...`)"
        )

    encoder = load_any_encoder(spec)
    return export_saved_model(
        encoder, os.path.join(tempfile.mkdtemp(prefix="keras_sentemb_export_"), "model"), version=1
    )
