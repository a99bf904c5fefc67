"""sha256 of files, and stamps that remember it: a base checkpoint (438 MB for MPNet, 0.35 s to hash
on 2 cores) is hashed once, not on every load.

A stamp under `$KERAS_SENTEMB_HOME/sha256-stamps/` records a file's real path, size, modification
time and digest; `stamped_file_sha256` trusts it while all three match and hashes again otherwise
(an edited or replaced file). Whoever has just hashed a file's bytes while writing it records the
stamp with `record_sha256_stamp` instead of reading the file back.

Example:
>>> import tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "weights.bin")
>>> _ = open(path, "wb").write(b"abc")
>>> stamped_file_sha256(path)[:16]
'ba7816bf8f01cfea'
>>> _ = open(path, "wb").write(b"abcd")  # changed: hashed again
>>> stamped_file_sha256(path)[:16]
'88d4266fd4e6338d'
"""

import hashlib
import json
import os

from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.utils.home_folder import keras_sentemb_home


def file_sha256(path):
    """The hex sha256 of the file at `path`, read 1 MiB at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp_of(path):
    real = os.path.realpath(path)
    status = os.stat(real)
    key = {"path": real, "size": status.st_size, "mtime_ns": status.st_mtime_ns}
    name = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json"
    return os.path.join(keras_sentemb_home(), "sha256-stamps", name), key


def record_sha256_stamp(path, digest):
    """Remembers that the file at `path`, as it is now, has sha256 `digest` (best effort: a
    read-only home records nothing)."""
    stamp, key = _stamp_of(path)
    try:
        os.makedirs(os.path.dirname(stamp), exist_ok=True)
        with atomic_open(stamp, "wb") as f:
            f.write(json.dumps({**key, "sha256": digest}).encode("utf-8"))
    except OSError:
        pass


def stamped_file_sha256(path):
    """`file_sha256(path)`, from its stamp while the file's path, size and modification time are
    those recorded; otherwise hashed and stamped."""
    stamp, key = _stamp_of(path)
    try:
        with open(stamp, encoding="utf-8") as f:
            recorded = json.load(f)
        if isinstance(recorded, dict) and {name: recorded.get(name) for name in key} == key:
            return str(recorded["sha256"])
    except (OSError, ValueError, KeyError):
        pass  # no stamp yet, or an unreadable one: hash
    digest = file_sha256(path)
    record_sha256_stamp(path, digest)
    return digest
