"""A corpus file as numbered lines: the ids and the blank-line rule of every bulk job.

A corpus is text files, one text a line. A line's id is `<path>:<line number>` (1-based,
blank lines counted, so it points at the line in the file), or with `ids_in_first_column`
the text before the first tab of an `id<TAB>text` line. A line that is empty or only
whitespace is skipped and counted as blank. Text stays bytes: invalid UTF-8 reaches the
model, which replaces it the way `encode` does, instead of failing the read.
"""

import io


def split_lines(content):
    """The lines of a file's bytes, without their `\\n` / `\\r\\n` ends, as a file object
    iterates them (a last line without `\\n` counts; an empty file has no line).

    Example:
        >>> list(split_lines(b"a\\r\\n\\nb"))
        [b'a', b'', b'b']
    """
    for line in io.BytesIO(content):
        yield line.rstrip(b"\r\n")


def numbered_lines(path, lines, ids_in_first_column=False):
    """(id, text bytes or None) for each of `lines` (bytes, without line ends) of the file
    `path`; None marks a blank line, which a job counts and skips.

    A line without a tab (or with an empty id) in an `ids_in_first_column` file is a
    ValueError naming `path:line`.

    Example:
        >>> list(numbered_lines("c.txt", [b"a cat", b"  ", b"a dog"]))
        [('c.txt:1', b'a cat'), ('c.txt:2', None), ('c.txt:3', b'a dog')]
        >>> list(numbered_lines("q.tsv", [b"q7\\twhat is a cat"], ids_in_first_column=True))
        [('q7', b'what is a cat')]
    """
    for number, line in enumerate(lines, start=1):
        if ids_in_first_column:
            key, tab, line = line.partition(b"\t")
            if not tab or not key:
                raise ValueError(f"{path}:{number}: expected `id<TAB>text`, got {line[:80]!r}")
            key = key.decode("utf-8", errors="replace")
        else:
            key = f"{path}:{number}"
        yield key, (line if line.strip() else None)


def count_lines(path, content, ids_in_first_column=False):
    """(lines, blank lines) of the file `path` whose bytes are `content`, by the rules of
    `numbered_lines`: what a job checks the rows it wrote against, counted apart from the
    engine's batching and writing.

    Example:
        >>> count_lines("c.txt", b"a\\n\\n  \\nb\\n")
        (4, 2)
    """
    lines = blank = 0
    for _, text in numbered_lines(path, split_lines(content), ids_in_first_column):
        lines += 1
        blank += text is None
    return lines, blank
