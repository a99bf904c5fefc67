"""A model folder split over several wheels: found, verified, unpacked once, atomically."""

import hashlib
import importlib.metadata
import io
import os
import threading
import zipfile

import pytest

from keras_sentemb.pretrained import split_zip_wheels
from keras_sentemb.pretrained.split_zip_wheels import SplitZipSource, assembled_folder
from keras_sentemb.utils import file_digests

FILES = {"m/config.json": b"{}", "m/1_Pooling/config.json": b'{"pooling_mode": "mean"}', "m/desktop.ini": b"x"}


def zip_bytes(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


class FakeDistribution:
    def __init__(self, root):
        self.root = root

    def locate_file(self, relative):
        return os.path.join(self.root, relative)


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """Three 'installed' parts of a zip and the source that names them."""

    def install(files=FILES, parts=3):
        data = zip_bytes(files)
        step = -(-len(data) // parts)
        names = []
        for index in range(parts):
            root = tmp_path / "site-packages" / f"part{index}"
            (root / "input").mkdir(parents=True, exist_ok=True)
            (root / "input" / f"m.zip.{index}").write_bytes(data[index * step : (index + 1) * step])
            names.append((f"model-part-{index}", f"input/m.zip.{index}"))
        roots = {f"model-part-{i}": str(tmp_path / "site-packages" / f"part{i}") for i in range(parts)}

        def distribution(name):
            if name not in roots:
                raise importlib.metadata.PackageNotFoundError(name)
            return FakeDistribution(roots[name])

        monkeypatch.setattr(split_zip_wheels.importlib.metadata, "distribution", distribution)
        return SplitZipSource(
            "tiny-model", tuple(names), hashlib.sha256(data).hexdigest(), len(data), "m", "pip install parts"
        )

    monkeypatch.setenv("KERAS_SENTEMB_HOME", str(tmp_path / "home"))
    return install


def test_assembles_once_into_the_cache_and_then_never_reads_the_parts(installed, tmp_path):
    source = installed()
    folder = assembled_folder(source, progress=None)
    assert folder.startswith(str(tmp_path / "home" / "pretrained" / "tiny-model-"))
    assert sorted(os.listdir(folder)) == ["1_Pooling", "config.json"]  # desktop.ini left out
    assert open(os.path.join(folder, "1_Pooling", "config.json"), "rb").read() == FILES["m/1_Pooling/config.json"]
    for part in (tmp_path / "site-packages").rglob("m.zip.*"):
        part.unlink()
    assert assembled_folder(source, progress=None) == folder


def test_a_missing_part_is_named_with_the_pip_command(installed, monkeypatch):
    source = installed()
    source = SplitZipSource(
        source.name,
        source.parts + (("model-part-9", "input/m.zip.9"),),
        source.sha256,
        source.size,
        "m",
        source.pip_command,
    )
    with pytest.raises(FileNotFoundError, match="not installed: model-part-9. Install them with: pip install parts"):
        assembled_folder(source, progress=None)


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_a_damaged_part_is_refused_and_nothing_of_it_is_published(installed, tmp_path, damage):
    source = installed()
    part = tmp_path / "site-packages" / "part1" / "input" / "m.zip.1"
    data = bytearray(part.read_bytes())
    if damage == "flip":
        data[0] ^= 1
    else:
        data = data[:-1]
    part.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256|bytes, .* expected"):
        assembled_folder(source, progress=None)
    assert not (tmp_path / "home" / "pretrained").exists() or not os.listdir(tmp_path / "home" / "pretrained")


def test_an_entry_outside_the_model_folder_is_refused(installed, tmp_path):
    source = installed({"m/config.json": b"{}", "m/../../evil.txt": b"x"})
    with pytest.raises(ValueError, match="outside 'm/'"):
        assembled_folder(source, progress=None)
    assert not list((tmp_path / "home").rglob("evil.txt")) and not (tmp_path / "evil.txt").exists()
    assert not [p for p in (tmp_path / "home" / "pretrained").iterdir() if not p.name.startswith(".")]


def test_every_unpacked_file_is_stamped_so_its_sha256_is_not_read_again(installed, monkeypatch):
    folder = assembled_folder(installed(), progress=None)

    def no_hashing(path):
        raise AssertionError(f"{path} was hashed again")

    monkeypatch.setattr(file_digests, "file_sha256", no_hashing)
    pooling = os.path.join(folder, "1_Pooling", "config.json")
    expected = hashlib.sha256(FILES["m/1_Pooling/config.json"]).hexdigest()
    assert file_digests.stamped_file_sha256(pooling) == expected


def test_a_file_whose_sha256_the_source_knows_is_stamped_with_it(installed, monkeypatch):
    plain = installed()
    known = hashlib.sha256(b"{}").hexdigest()
    source = SplitZipSource(
        *[getattr(plain, f) for f in ("name", "parts", "sha256", "size", "folder_in_zip")],
        plain.pip_command,
        known_sha256=(("config.json", known),),
    )
    folder = assembled_folder(source, progress=None)
    monkeypatch.setattr(file_digests, "file_sha256", lambda path: "hashed")
    assert file_digests.stamped_file_sha256(os.path.join(folder, "config.json")) == known


def test_a_write_that_fails_while_unpacking_ends_in_its_error_not_a_hang():
    class FullDisk:
        def write(self, _):
            raise OSError(28, "No space left on device")

    entry = io.BytesIO(os.urandom(1 << 20))
    errors = []

    def copy():
        try:
            split_zip_wheels._copy_in_background(entry, FullDisk(), chunk_bytes=1024)
        except OSError as error:
            errors.append(error)

    worker = threading.Thread(target=copy, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "the copy hung after its writer failed"
    assert errors and errors[0].errno == 28
