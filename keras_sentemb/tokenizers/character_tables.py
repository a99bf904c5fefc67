"""Character tables: generated package data (`*_character_tables.json` beside this module), loaded once.

Each table file is written by its builder (`bert_character_table_builder`,
`byte_level_character_table_builder`), which asks Hugging Face `tokenizers` how it treats every code
point, and is compared with a fresh build by the tests. Format (JSON, one table a line):

    {"tokenizers_version": "0.23.3",
     "ranges": {"deleted": [[0, 8], [11, 12], …], …},        inclusive code-point runs
     "mapping": [[65, 97], …],                                code point → one code point (may be absent)
     "expansions": {"304": "i̇", …}}                           code point → several (may be absent)

>>> tables = load_character_tables("bert_character_tables.json")
>>> tables.ranges["whitespace"][0], tables.mapping[0]
((9, 10), (65, 97))
"""

import dataclasses
import functools
import json
from importlib import resources


@dataclasses.dataclass(frozen=True)
class CharacterTables:
    """One table file: the `tokenizers` version it was probed from, `{name: ((first, last), …)}` runs,
    the one-to-one `mapping` ((code point, code point), …) and the `expansions` {code point: str}."""

    tokenizers_version: str
    ranges: dict
    mapping: tuple = ()
    expansions: dict = dataclasses.field(default_factory=dict)


@functools.cache
def load_character_tables(name):
    """The `CharacterTables` of the package data file `name` (read once a process)."""
    document = json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))
    return CharacterTables(
        tokenizers_version=document["tokenizers_version"],
        ranges={key: tuple(tuple(run) for run in runs) for key, runs in document["ranges"].items()},
        mapping=tuple(tuple(pair) for pair in document.get("mapping", ())),
        expansions={int(point): text for point, text in document.get("expansions", {}).items()},
    )


def render_character_tables(tokenizers_version, ranges, mapping=(), expansions=None):
    """The text of a table file: `ranges` {name: [(first, last), …]}, `mapping` [(point, point), …],
    `expansions` {point: str}; one table a line, so that a rebuild's diff shows which table changed."""
    lines = ["{", f'"tokenizers_version": {json.dumps(tokenizers_version)},', '"ranges": {']
    entries = [f"{json.dumps(name)}: {json.dumps([list(run) for run in runs])}" for name, runs in ranges.items()]
    lines.append(",\n".join(entries))
    lines.append("}" + ("," if mapping or expansions else ""))
    if mapping:
        lines.append(f'"mapping": {json.dumps([list(pair) for pair in mapping])}' + ("," if expansions else ""))
    if expansions:
        lines.append(f'"expansions": {json.dumps({str(p): t for p, t in sorted(expansions.items())})}')
    lines.append("}")
    return "\n".join(lines) + "\n"
