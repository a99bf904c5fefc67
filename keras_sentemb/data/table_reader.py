"""Reading named columns from TSV, CSV or JSONL files, validating every row.

Every error names `path:line`. With `on_bad_lines="skip"` a bad row is dropped and
counted instead; the count and the first few reasons come back in the `TableReport`.
"""

import csv
import dataclasses
import gzip
import io
import json
import os
import warnings
import zlib

FORMATS = ("tsv", "csv", "jsonl")


@dataclasses.dataclass
class TableReport:
    """What reading a table did: rows kept, rows skipped, and why (first 5 reasons)."""

    path: str
    rows: int = 0
    skipped: int = 0
    reasons: list = dataclasses.field(default_factory=list)


def infer_format(path):
    """ "tsv", "csv" or "jsonl" from the file name (a trailing .gz is ignored)."""
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for fmt, suffixes in (("tsv", (".tsv", ".tab")), ("csv", (".csv",)), ("jsonl", (".jsonl", ".ndjson"))):
        if name.endswith(suffixes):
            return fmt
    raise ValueError(f"{path}: cannot tell the format from the name; pass format= one of {FORMATS}")


def _open_raw(path):
    path = os.fspath(path)
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def _open_text(path):
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    raw = _open_raw(path)
    # utf-8-sig: a byte order mark (Excel, Notepad) is not part of the first header name.
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


def _csv_rows(reader, path):
    """The rows of a `csv.reader`; its errors (a field over the size limit, a NUL byte, a
    stray quote) become `ValueError("path:line: …")`."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise ValueError(f"{path}:{reader.line_num}: {error}") from None
        yield row


def _first_bad_utf8_line(path):
    """The number of the first line that is not UTF-8 (the decoder fails a buffer ahead)."""
    with _open_raw(path) as f:
        for number, line in enumerate(f, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return "?"


def _delimited_rows(f, path, delimiter, quoting, columns):
    reader = csv.reader(f, delimiter=delimiter, quoting=quoting)
    rows = _csv_rows(reader, path)
    header = next(rows, None)
    if header is None:
        raise ValueError(f"{path}:1: empty file, expected a header line")
    missing = [c for c in columns if c not in header]
    if missing:
        raise ValueError(f"{path}:1: header {header} lacks column(s) {missing}")
    index = {c: header.index(c) for c in columns}
    for row in rows:
        line = reader.line_num
        if len(row) != len(header):
            yield line, None, f"expected {len(header)} fields, got {len(row)}"
            continue
        yield line, {c: row[i] for c, i in index.items()}, None


def jsonl_records(f):
    """(line number, record, None) for each non-blank line of a JSON Lines file that holds a JSON
    object, (line number, None, what is wrong) for one that does not (bad JSON, nested too deeply
    for Python's parser, not an object). The table reader and the BEIR folder reader share it.

    >>> import io
    >>> list(jsonl_records(io.StringIO('{"a": 1}\\n\\n[2]\\n')))
    [(1, {'a': 1}, None), (3, None, 'expected a JSON object, got list')]
    """
    for line, text in enumerate(f, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            yield line, None, f"invalid JSON ({error.msg}, column {error.colno})"
            continue
        except ValueError as error:  # e.g. an integer of more digits than Python converts
            yield line, None, f"invalid JSON ({error})"
            continue
        except RecursionError:
            yield line, None, "JSON nested too deeply"
            continue
        if not isinstance(record, dict):
            yield line, None, f"expected a JSON object, got {type(record).__name__}"
            continue
        yield line, record, None


def _jsonl_rows(f, columns):
    for line, record, problem in jsonl_records(f):
        if problem is None:
            missing = [c for c in columns if c not in record]
            if missing:
                record, problem = None, f"missing key(s) {missing}"
        yield line, None if record is None else {c: record[c] for c in columns}, problem


def read_table(path, fields, format=None, on_bad_lines="error"):
    """Reads the columns named in `fields` and converts each value.

    Args:
        path: a .tsv/.csv/.jsonl file, optionally gzipped (.gz). TSV is tab-separated
            with no quoting (as in the benchmark data folder (docs/data.md)); CSV uses standard quoting; both need a
            header line. JSONL holds one object per line.
        fields: `{output_name: (column_name, convert)}`; `convert(value)` returns the
            parsed value or raises `ValueError` with a short reason.
        format: "tsv", "csv" or "jsonl"; inferred from the file name when None.
        on_bad_lines: "error" raises `ValueError("path:line: …")` at the first bad row;
            "skip" drops bad rows, counts them and warns once with the count.

    Returns:
        `(columns, report)`: `{output_name: [values…]}` and a `TableReport`.
    """
    if on_bad_lines not in ("error", "skip"):
        raise ValueError(f"on_bad_lines must be 'error' or 'skip', got {on_bad_lines!r}")
    fmt = format or infer_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    columns = {name: [] for name in fields}
    wanted = [column for column, _ in fields.values()]
    report = TableReport(path=os.fspath(path))
    with _open_text(path) as f:
        try:
            if fmt == "jsonl":
                rows = _jsonl_rows(f, wanted)
            else:
                delimiter, quoting = ("\t", csv.QUOTE_NONE) if fmt == "tsv" else (",", csv.QUOTE_MINIMAL)
                rows = _delimited_rows(f, path, delimiter, quoting, wanted)
            for line, record, problem in rows:
                values = {}
                if problem is None:
                    for name, (column, convert) in fields.items():
                        try:
                            values[name] = convert(record[column])
                        except ValueError as error:
                            problem = f"column {column!r}: {error}"
                            break
                if problem is not None:
                    message = f"{path}:{line}: {problem}"
                    if on_bad_lines == "error":
                        raise ValueError(message)
                    report.skipped += 1
                    if len(report.reasons) < 5:
                        report.reasons.append(message)
                    continue
                for name, value in values.items():
                    columns[name].append(value)
                report.rows += 1
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}:{_first_bad_utf8_line(path)}: not valid UTF-8 ({error.reason})") from None
        except (gzip.BadGzipFile, EOFError, zlib.error) as error:
            raise ValueError(f"{path}: damaged gzip file ({error or 'truncated'})") from error
    if report.skipped:
        warnings.warn(
            f"{path}: skipped {report.skipped} bad line(s); first: {report.reasons[0]}",
            stacklevel=3,
        )
    return columns, report
