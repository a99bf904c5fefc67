"""Model folders as tarballs: packed reproducibly, unpacked only when every entry is a
regular file or folder that stays inside the model's own folder."""

import io
import os
import pathlib
import tarfile
import tempfile

import pytest

from keras_sentemb.zoo.safe_archive import pack_folder, unpack_archive


def model_folder(tmp_path):
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_text('{"name": "toy"}', encoding="utf-8")
    (folder / "sub" / "weights.bin").write_bytes(b"weights" * 1000)
    return folder


def test_packing_is_reproducible_and_unpacking_gives_the_same_files(tmp_path):
    folder = model_folder(tmp_path)
    data = pack_folder(folder, "toy")
    assert data == pack_folder(folder, "toy")
    archive, target = tmp_path / "toy.tar.gz", tmp_path / "target"
    archive.write_bytes(data)
    target.mkdir()
    unpack_archive(archive, "toy", str(target))
    assert (target / "sub" / "weights.bin").read_bytes() == b"weights" * 1000
    assert (target / "config.json").read_text(encoding="utf-8") == '{"name": "toy"}'


def test_a_folder_with_a_symlink_is_not_packed(tmp_path):
    folder = model_folder(tmp_path)
    os.symlink(folder / "config.json", folder / "alias.json")
    with pytest.raises(ValueError, match="only regular files"):
        pack_folder(folder, "toy")


def test_an_archive_without_files_is_refused(tmp_path):
    path = tmp_path / "empty.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        folder = tarfile.TarInfo("toy")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
    with pytest.raises(ValueError, match="holds no file"):
        unpack_archive(path, "toy", str(tmp_path))


def hostile_archive(tmp_path, add):
    path = tmp_path / "hostile.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        good = tarfile.TarInfo("toy/config.json")
        good.size = 2
        tar.addfile(good, io.BytesIO(b"{}"))
        add(tar)
    return path


def regular_file(name):
    def add(tar):
        info = tarfile.TarInfo(name)
        info.size = 4
        tar.addfile(info, io.BytesIO(b"evil"))

    return add


def link(name, target, kind):
    return special(name, kind, linkname=target)


def device(name, kind):
    return special(name, kind, devmajor=1, devminor=3)


def special(name, kind, **fields):
    """An archive entry of type `kind` (link, device, FIFO) with no data."""

    def add(tar):
        info = tarfile.TarInfo(name)
        info.type = kind
        for field, value in fields.items():
            setattr(info, field, value)
        tar.addfile(info)

    return add


@pytest.mark.parametrize(
    "add, message",
    [
        (regular_file("toy/../../escaped.txt"), "would escape"),
        (regular_file("/etc/evil"), "would escape"),
        (regular_file("other/config.json"), "outside the model folder"),
        (link("toy/passwd", "/etc/passwd", tarfile.SYMTYPE), "is a link"),
        (link("toy/hard", "toy/config.json", tarfile.LNKTYPE), "is a link"),
        (device("toy/null", tarfile.CHRTYPE), "only regular files"),
        (device("toy/pipe", tarfile.FIFOTYPE), "only regular files"),
        (regular_file("toy/."), "not a plain file name"),  # a file named like its folder (hypothesis found it)
        (regular_file("toy/sub//w.bin"), "not a plain file name"),
    ],
)
def test_a_malicious_archive_is_refused_before_anything_is_written(tmp_path, add, message):
    target = tmp_path / "target"
    target.mkdir()
    with pytest.raises(ValueError, match=message):
        unpack_archive(hostile_archive(tmp_path, add), "toy", str(target))
    assert os.listdir(target) == [] and not (tmp_path / "escaped.txt").exists()


def test_a_decompression_bomb_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "bomb.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("toy/zeros.bin")
        info.size = 64 << 20  # 64 MiB of zeros: about 1000:1 compressed
        tar.addfile(info, io.BytesIO(bytes(info.size)))
    assert os.path.getsize(path) * 500 < 64 << 20
    target = tmp_path / "target"
    target.mkdir()
    with pytest.raises(ValueError, match="over the cap"):
        unpack_archive(path, "toy", str(target))
    assert os.listdir(target) == []


def test_too_many_members_are_refused(tmp_path):
    path = tmp_path / "many.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for i in range(12):
            info = tarfile.TarInfo(f"toy/f{i}")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(ValueError, match="more than 10 entries"):
        unpack_archive(path, "toy", str(tmp_path), max_members=10)


# Property-based: whatever the bytes or the entry names, unpacking either writes files inside
# the target only, or raises ValueError naming the archive, before anything escapes.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
NAME_PARTS = st.sampled_from(["toy", "..", ".", "", "a", "b.bin", "/", "\\", "toy/..", "etc", "x" * 120])
ENTRY = st.tuples(
    st.lists(NAME_PARTS, min_size=1, max_size=4).map("/".join),
    st.sampled_from([tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE]),
    st.binary(max_size=64),
)


def files_under(folder):
    return sorted(
        os.path.relpath(os.path.join(root, name), folder) for root, _, names in os.walk(folder) for name in names
    )


@PROPERTY_SETTINGS
@given(data=st.binary(max_size=2048))
def test_arbitrary_bytes_are_refused_with_a_value_error(tmp_path, data):
    path = tmp_path / "junk.tar.gz"
    path.write_bytes(data)
    target = tmp_path / "junk-target"
    target.mkdir(exist_ok=True)
    with pytest.raises(ValueError, match="junk.tar.gz"):
        unpack_archive(path, "toy", str(target))


@PROPERTY_SETTINGS
@given(data=st.binary(min_size=1, max_size=4096), cut=st.integers(min_value=0))
def test_a_damaged_real_archive_never_raises_anything_but_value_error(tmp_path, data, cut):
    path = tmp_path / "damaged.tar.gz"
    folder = tmp_path / "src"
    (folder).mkdir(exist_ok=True)
    (folder / "w.bin").write_bytes(data)
    whole = bytearray(pack_folder(folder, "toy"))
    position = cut % len(whole)
    whole[position] ^= 0xFF  # one flipped byte anywhere: header, gzip frame or payload
    path.write_bytes(bytes(whole))
    target = tmp_path / f"t{position}"
    target.mkdir(exist_ok=True)
    try:
        unpack_archive(path, "toy", str(target))
    except ValueError as error:
        assert "damaged.tar.gz" in str(error) or "archive entry" in str(error)
    else:
        assert files_under(target) in (["w.bin"], [])


@PROPERTY_SETTINGS
@given(entries=st.lists(ENTRY, min_size=1, max_size=5))
def test_whatever_the_entries_nothing_is_written_outside_the_target(tmp_path, entries):
    root = pathlib.Path(tempfile.mkdtemp(dir=tmp_path))  # one folder per example: hypothesis replays examples
    target = root / "inside" / "target"
    target.mkdir(parents=True)
    path = root / "entries.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, kind, payload in entries:
            info = tarfile.TarInfo(name or "toy")
            info.type = kind
            if kind == tarfile.REGTYPE:
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))
            else:
                info.linkname = "../../outside" if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE) else ""
                tar.addfile(info)
    try:
        unpack_archive(path, "toy", str(target))
    except ValueError:
        assert files_under(target) == []  # refused before the first write
    assert files_under(root) == sorted(
        ["entries.tar.gz"] + [os.path.join("inside", "target", f) for f in files_under(target)]
    )
    for name in files_under(target):
        assert not os.path.islink(target / name)
