"""English sentences from the docstrings of installed Python packages: a real text corpus that
every machine with the project's virtual environment has, for benchmarks that need more sentences
than the data folder holds (`binary_index_scale.py`).

    python benchmarks/docstring_sentences.py   # prints the count and a sample

Where: the standard library (without its site-packages) and every top-level package folder of the
running interpreter's site-packages, files in sorted order, folders named `test`/`tests` skipped.
What: every module, class and function docstring (`ast.get_docstring`), split into paragraphs;
paragraphs holding code (`>>>`), lists, tables or reST directives are dropped; the rest are split
into sentences after `.`, `!` or `?` followed by a capital letter. A sentence is kept when it starts
with a capital, does not start with a section header ("Args:"), ends with `.`/`!`/`?`, has 6 to 40 words, and ≥ 90 % of its words are plain words
(letters, apostrophes, hyphens, one trailing punctuation mark). Distinct sentences, first
occurrence first.
"""

import ast
import os
import re
import sys
import sysconfig

PLAIN_WORD = re.compile(r"^[A-Za-z][a-z'-]*[,.;:!?]?$")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
NON_PROSE_STARTS = (">>>", "...", ":", "..", "-", "*", "|", "=", "+")


def prose_sentences(docstring):
    """The sentences of a docstring's prose paragraphs that pass the filter of the module doc."""
    for paragraph in re.split(r"\n\s*\n", docstring):
        lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
        if any(line.startswith(NON_PROSE_STARTS) for line in lines):
            continue
        for sentence in SENTENCE_END.split(" ".join(lines)):
            words = sentence.split()
            if (
                6 <= len(words) <= 40
                and sentence[0].isupper()
                and not words[0].endswith(":")  # a section header run into its text ("Args: x: ...")
                and sentence[-1] in ".!?"
                and sum(bool(PLAIN_WORD.match(word)) for word in words) >= 0.9 * len(words)
            ):
                yield sentence


def docstrings_under(root):
    """Every docstring of the `.py` files under `root` (sorted walk; test folders skipped)."""
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in ("test", "tests", "site-packages"))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    tree = ast.parse(f.read())
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    docstring = ast.get_docstring(node)
                    if docstring:
                        yield docstring


def package_roots():
    """The standard library folder, then each package folder of this interpreter's site-packages."""
    site = sysconfig.get_paths()["purelib"]
    packages = sorted(
        os.path.join(site, name)
        for name in os.listdir(site)
        if os.path.isdir(os.path.join(site, name)) and not name.endswith((".dist-info", ".egg-info", "__pycache__"))
    )
    return [sysconfig.get_paths()["stdlib"], *packages]


def docstring_sentences(roots=None):
    """Distinct docstring sentences of `roots` (default `package_roots()`), in walk order."""
    seen = {}
    for root in roots or package_roots():
        for docstring in docstrings_under(root):
            for sentence in prose_sentences(docstring):
                seen.setdefault(sentence, None)
    return list(seen)


if __name__ == "__main__":
    sentences = docstring_sentences()
    print(f"{len(sentences):,} sentences from {len(package_roots())} folders ({sys.executable})")
    for sentence in sentences[:: max(1, len(sentences) // 5)][:5]:
        print("  ", sentence)
