"""double_array: the darts-clone trie TF Text's kernels read, built in Python; every key is found with its
value by the kernels' traversal, and nothing else is."""

import random

from keras_sentemb.export.double_array_trie import double_array, lookup


def test_every_key_reads_back_its_value_and_no_other_string_has_one():
    rng = random.Random(0)
    keys = sorted({bytes(rng.choice(b"abc\x80\xff") for _ in range(rng.randint(1, 4))) for _ in range(400)})
    values = {key: rng.randrange(1 << 30) for key in keys}
    # many keys share one value, so their subtrees share blocks
    values.update({key: 5 for key in keys[::3]})
    array = double_array(sorted(values.items()))
    assert all(lookup(array, key) == value for key, value in values.items())
    probes = {bytes(rng.choice(b"abcd\x80\xff") for _ in range(rng.randint(1, 5))) for _ in range(2000)}
    assert all(lookup(array, probe) is None for probe in probes - set(values))


def test_shared_subtrees_keep_the_array_small():
    keys = sorted(chr(point).encode("utf-8") for point in range(0x4E00, 0x9FFF))
    array = double_array([(key, 1) for key in keys])
    assert len(array) < 2 * 4096
    assert lookup(array, "中".encode()) == 1 and lookup(array, b"a") is None
