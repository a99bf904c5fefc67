"""The rules of a SentencePiece `precompiled_charsmap` (the normaliser XLM-RoBERTa, mBART, T5 … ship in
their `tokenizer.json` as Hugging Face's `Precompiled`), read out of its darts-clone trie.

The blob is `uint32 trie size | trie (uint32 units) | replacement strings (NUL-terminated)`; each
key of the trie is a UTF-8 string, its value the offset of its replacement. `charsmap_rules` walks
the trie breadth first, all nodes of a level at once (NumPy), and returns `{key: replacement}` — for
SentencePiece's nmt_nfkc map, some 225,000 rules (most of them Hangul jamo sequences) such as "ﬁ" → "fi",
"Ａ" → "A", "e\\u0301" → "é".

Example (a trie holding "a" → "b"; darts-clone units, as sentencepiece writes them):
>>> import struct
>>> units = [96 << 10, (3 << 10) | 0x100 | 0x61, 1 << 31]   # root, "a" (a leaf), its value: offset 0
>>> blob = struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + b"b\\0"
>>> charsmap_rules(blob)
{'a': 'b'}
"""

import functools
import struct

import numpy as np


def _offset(units):
    return (units >> 10) << ((units & (1 << 9)) >> 6)


def _label(units):
    return units & ((1 << 31) | 0xFF)


@functools.lru_cache(maxsize=4)
def charsmap_rules(blob):
    """`{key: replacement}` of a `precompiled_charsmap` (bytes; see the module docstring). Read once per
    process for each map (some seconds for nmt_nfkc's 225,000 keys); the dict is shared: do not change it."""
    if len(blob) < 4:
        raise ValueError("precompiled_charsmap: shorter than its header")
    (trie_bytes,) = struct.unpack("<I", blob[:4])
    if trie_bytes % 4 or 4 + trie_bytes > len(blob):
        raise ValueError(f"precompiled_charsmap: bad trie size {trie_bytes} for {len(blob)} bytes")
    units = np.frombuffer(blob[4 : 4 + trie_bytes], dtype="<u4").astype(np.int64)
    strings = blob[4 + trie_bytes :]
    if len(units) == 0:
        return {}
    rules = {}
    positions = np.array([_offset(units[0])], dtype=np.int64)
    keys = [b""]
    labels = np.arange(1, 256, dtype=np.int64)
    while len(positions):
        children = positions[:, None] ^ labels[None, :]
        inside = children < len(units)
        found = np.zeros_like(inside)
        found[inside] = _label(units[children[inside]]) == np.broadcast_to(labels, children.shape)[inside]
        parent, which = np.nonzero(found)
        child = children[parent, which]
        next_positions = child ^ _offset(units[child])
        next_keys = [keys[p] + bytes([int(labels[w])]) for p, w in zip(parent, which)]
        for key, unit, position in zip(next_keys, units[child], next_positions):
            if (unit >> 8) & 1:
                start = int(units[position] & 0x7FFFFFFF)
                end = strings.index(b"\0", start)
                try:
                    rules[key.decode("utf-8")] = strings[start:end].decode("utf-8")
                except UnicodeDecodeError as error:
                    raise ValueError(f"precompiled_charsmap: rule {key!r} is not UTF-8") from error
        positions, keys = next_positions, next_keys
    return rules
