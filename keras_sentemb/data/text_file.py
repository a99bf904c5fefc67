"""Reading a text file of one sentence per line, with errors that name `path:line`."""


def read_lines(path):
    """The lines of a UTF-8 text file, without line endings; line i is item i-1.

    Blank lines are kept (they embed as the empty sentence) so that row numbers always
    match line numbers. A final newline does not add an empty item; a UTF-8 byte order mark
    at the start is dropped. Only "\n" (or "\r\n") ends a line: U+2028 and the other Unicode
    separators stay inside their line.

    Raises:
        FileNotFoundError: no such file.
        ValueError: `path:line: not valid UTF-8 …` for the first undecodable line.
    """
    with open(path, "rb") as f:
        raw = f.read()
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a byte order mark (Notepad, Excel) is not text
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    texts = []
    for number, line in enumerate(lines, start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            texts.append(line.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}:{number}: not valid UTF-8 ({error.reason} at byte {error.start})") from error
    return texts


def calibration_lines(path, option="--calibration"):
    """The non-blank lines of a calibration file (sentences int8 quantisation is calibrated on), read before any
    model is loaded. ValueError naming the file and `option` when it holds none.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.txt")
    >>> _ = open(path, "w").write("\\n  \\n")
    >>> calibration_lines(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: .../empty.txt: --calibration needs sentences to calibrate int8 on, one a line; the file has none
    """
    texts = [text for text in read_lines(path) if text.strip()]
    if not texts:
        raise ValueError(f"{path}: {option} needs sentences to calibrate int8 on, one a line; the file has none")
    return texts
