"""A darts-clone double-array trie built in Python: the `trie_array` format TF Text's kernels read
(`tensorflow_text/core/kernels/darts_clone_trie_wrapper.h`), for tables TF Text's own builders cannot make
(`litert_normalizer`'s normaliser model)."""

from __future__ import annotations

import numpy as np

LEAF_BIT = 1 << 31


def double_array(keys_and_values):
    """A darts-clone double array (uint32 units) for sorted (UTF-8 bytes, value) pairs, in which nodes
    with the same subtree share one block of children (a word graph, as darts-clone builds).

    A node's unit holds its label (8 bits), whether it has a value (bit 8) and the XOR offset to its
    children's block; child `c` sits at `position ^ offset ^ c`, a value at `position ^ offset` (label 0,
    bit 31 set). Values are non-negative ints below 2**31; keys are non-empty and distinct.

    Example:
    >>> array = double_array([(b"ab", 7), (b"b", 9)])
    >>> lookup(array, b"ab"), lookup(array, b"b"), lookup(array, b"a"), lookup(array, b"abc")
    (7, 9, None, None)
    """
    trie = {}
    for key, value in keys_and_values:
        node = trie
        for byte in key:
            node = node.setdefault(byte, {})
        node[None] = value

    signatures = {}  # a block's signature → its id
    blocks = []  # id → (value or None, ((label, child has a value, child block id), …))

    def block_of(node):
        value = node.get(None)
        children = tuple(
            sorted((label, None in child, block_of(child)) for label, child in node.items() if label is not None)
        )
        signature = (value, children)
        if signature not in signatures:
            signatures[signature] = len(blocks)
            blocks.append(signature)
        return signatures[signature]

    root_block = block_of(trie)
    size = 1 << 16
    used = np.zeros(size, dtype=bool)  # positions holding a unit
    taken = np.zeros(size, dtype=bool)  # bases of blocks: two blocks on one base would read each other's units
    used[0] = True  # the root's unit
    bases = [None] * len(blocks)
    units = {}
    for index, block in enumerate(blocks):  # children before parents: `block_of` appended them first
        value, children = block
        labels = np.array(([0] if value is not None else []) + [label for label, _, _ in children], dtype=np.int64)
        base = None
        start = 1
        while base is None:
            free = np.flatnonzero(~used[start:]) + start
            if len(free) < 4096:
                used, taken = np.pad(used, (0, len(used))), np.pad(taken, (0, len(taken)))
                continue
            candidates = free[:4096] ^ labels[0]
            candidates = candidates[candidates < len(used) // 2]
            fits = ~taken[candidates]
            for label in labels[1:]:
                fits &= ~used[candidates ^ label]
            if fits.any():
                base = int(candidates[np.argmax(fits)])
            else:
                start = int(free[4095]) + 1
        used[base ^ labels] = True
        taken[base] = True
        bases[index] = base
        if value is not None:
            units[base] = LEAF_BIT | value
        for label, has_value, child_block in children:
            position = base ^ label
            units[position] = _unit(label, has_value, position ^ bases[child_block])
    units[0] = _unit(0, False, bases[root_block])
    array = np.zeros(max(units) + 1, dtype=np.uint32)
    for position, unit in units.items():
        array[position] = unit
    return array


def _unit(label, has_value, offset):
    if offset >= 1 << 21:
        raise ValueError(f"a double-array offset of {offset} does not fit in 21 bits")
    return (offset << 10) | (0x100 if has_value else 0) | label


def _unit(label, has_value, offset):
    if offset >= 1 << 21:
        raise ValueError(f"a double-array offset of {offset} does not fit in 21 bits")
    return (offset << 10) | (0x100 if has_value else 0) | label


def _offset(unit):
    return (unit >> 10) << ((unit & 0x200) >> 6)


def lookup(array, key: bytes):
    """The value of `key` in a `double_array`, or None: the traversal of TF Text's `DartsCloneTrieWrapper`."""
    position = 0
    unit = int(array[0])
    for byte in key:
        position ^= _offset(unit) ^ byte
        if position >= len(array):
            return None
        unit = int(array[position])
        if unit & 0x800000FF != byte:
            return None
    if not unit & 0x100:
        return None
    return int(array[position ^ _offset(unit)]) & 0x7FFFFFFF
