"""API keys of the server (`--api-key-file`): read with every line checked, compared in constant time."""

from __future__ import annotations

import hmac
import os
import stat

MAX_KEY_FILE_BYTES = 1 << 16
MIN_KEY_CHARACTERS = 16


def read_api_keys(path: str | os.PathLike) -> tuple[bytes, ...]:
    """The keys of a key file: one a line, blank lines and `#` comments skipped.

    Refused (ValueError naming `path:line`, never the key itself): a path that is not a regular file,
    a file over 64 KiB or not UTF-8, a key under 16 characters or holding whitespace, a file with no key.

    Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "keys")
    >>> _ = open(path, "w").write("# production\\n0123456789abcdef0123\\n")
    >>> read_api_keys(path)
    (b'0123456789abcdef0123',)
    """
    path = os.fspath(path)
    try:
        status = os.stat(path)
    except OSError as error:
        raise ValueError(f"{path}: cannot read the API key file ({error.strerror})") from None
    if not stat.S_ISREG(status.st_mode):
        raise ValueError(f"{path}: the API key file must be a regular file")
    if status.st_size > MAX_KEY_FILE_BYTES:
        raise ValueError(f"{path}: the API key file holds {status.st_size} bytes; the limit is {MAX_KEY_FILE_BYTES}")
    with open(path, "rb") as file:
        raw = file.read(MAX_KEY_FILE_BYTES + 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: the API key file is not UTF-8") from None
    keys = []
    for number, line in enumerate(text.splitlines(), 1):
        key = line.strip()
        if not key or key.startswith("#"):
            continue
        if any(character.isspace() for character in key):
            raise ValueError(f"{path}:{number}: a key holds whitespace (one key a line)")
        if len(key) < MIN_KEY_CHARACTERS:
            raise ValueError(f"{path}:{number}: a key of {len(key)} characters; keys need {MIN_KEY_CHARACTERS} or more")
        keys.append(key.encode("utf-8"))
    if not keys:
        raise ValueError(f"{path}: the API key file holds no key")
    return tuple(keys)


def authorized(header: str | None, keys: tuple[bytes, ...]) -> bool:
    """Whether an `Authorization` header is `Bearer <one of keys>`: every key is compared, each with
    `hmac.compare_digest`, so the time taken does not tell which key or how much of one matched.

    Example:
    >>> authorized("Bearer 0123456789abcdef", (b"0123456789abcdef",)), authorized(None, (b"0123456789abcdef",))
    (True, False)
    """
    scheme, _, token = (header or "").partition(" ")
    given = token.strip().encode("utf-8", "replace")
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(given, key)
    return matched and scheme.lower() == "bearer"
