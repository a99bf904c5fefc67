"""Smart batching: every text once, little padding, a bounded set of shapes."""

import numpy as np
import pytest

from keras_sentemb.data.length_buckets import bucket_boundaries, length_buckets, pack_rows, plan_batches


def test_every_index_appears_exactly_once_and_longest_come_first():
    lengths = np.random.default_rng(0).integers(3, 200, size=1000)
    batches = plan_batches(lengths, 64, length_buckets(256))
    flat = np.concatenate([b.indices for b in batches])
    assert sorted(flat.tolist()) == list(range(1000))
    assert lengths[batches[0].indices].min() >= lengths[batches[-1].indices].max()


def test_each_batch_pads_to_the_smallest_bucket_that_fits():
    buckets = length_buckets(256)
    lengths = np.random.default_rng(1).integers(3, 257, size=500)
    for batch in plan_batches(lengths, 32, buckets):
        longest = lengths[batch.indices].max()
        assert batch.length in buckets and batch.length >= longest
        assert all(b < longest for b in buckets if b < batch.length)


def test_one_length_per_batch_pads_every_text_to_its_own_bucket_whatever_it_is_batched_with():
    buckets = (16, 32, 48, 64, 80, 96)
    lengths = np.random.default_rng(2).integers(3, 97, size=300)
    own = {i: min(b for b in buckets if b >= n) for i, n in enumerate(lengths)}
    for batch_size in (1, 7, 64):
        batches = plan_batches(lengths, batch_size, buckets, one_length_per_batch=True)
        assert sorted(np.concatenate([b.indices for b in batches]).tolist()) == list(range(300))
        for batch in batches:
            assert len(batch.indices) <= batch_size and {own[i] for i in batch.indices} == {batch.length}
    # without it a short text shares its batch's longer padding
    mixed = plan_batches(lengths, 64, buckets)
    assert any(own[i] != batch.length for batch in mixed for i in batch.indices)


def test_bucket_ladder_is_fine_for_short_texts_and_bounded_overall():
    ladder = length_buckets(512)
    assert ladder[:32] == tuple(range(1, 33)) and ladder[-1] == 512
    assert len(ladder) < 70
    long_part = np.array([b for b in ladder if b >= 32])
    assert (np.diff(long_part) / long_part[:-1]).max() <= 0.125 + 1e-9


def test_rejects_texts_longer_than_the_largest_bucket():
    with pytest.raises(ValueError, match="exceeds the largest bucket"):
        plan_batches([5, 40], 8, (8, 16, 32))


def test_pack_rows_builds_cls_content_sep_padding():
    token_ids, mask = pack_rows([np.array([7, 8]), np.array([], dtype=np.int32)], 5, 2, 3, 0)
    np.testing.assert_array_equal(token_ids, [[2, 7, 8, 3, 0], [2, 3, 0, 0, 0]])
    np.testing.assert_array_equal(mask, [[1, 1, 1, 1, 0], [1, 1, 0, 0, 0]])


def test_pack_rows_builds_any_template_padded_on_the_left():
    """Qwen3's: no start token, `<|endoftext|>` after the text, padding in front."""
    token_ids, mask = pack_rows([np.array([7, 8]), np.array([9])], 5, [], [4], 0, padding_side="left")
    np.testing.assert_array_equal(token_ids, [[0, 0, 7, 8, 4], [0, 0, 0, 9, 4]])
    np.testing.assert_array_equal(mask, [[0, 0, 1, 1, 1], [0, 0, 0, 1, 1]])


def test_tf_data_groups_an_example_with_the_rung_encode_pads_it_to():
    ladder = length_buckets(40)
    boundaries = bucket_boundaries(40)
    for length in range(1, 41):
        # tf.data's bucket k holds [boundaries[k-1], boundaries[k]); encode pads to ladder[rung].
        bucket = int(np.searchsorted(boundaries, length, side="right"))
        rung = int(np.searchsorted(ladder, length))
        assert bucket == rung, length
