"""BytePairMerges: byte-pair encoding of words, in-graph, with integer tables and one pass per merge rank.

Hugging Face's BPE (and GPT-2's) turns a word's symbols into pieces by merging, again and again, the
adjacent pair whose rule comes first in the merge list (the leftmost such pair on a tie). Here every
word of a batch takes one step at a time, all in integer TF ops on the flat symbols:

    rank(s)  = position in the merge list of (symbol s, symbol s+1), ∞ when not a rule
    r*(w)    = min over the pairs of word w of rank
    merge    = every pair of w with rank r*(w), left to right without overlap
               (a run "x x x" of the rule (x, x) merges its first two)

and stops when no word has a rule left. Merging every occurrence of the best rule at once gives the
pieces of the one-at-a-time order whenever a rule's result only takes part in later rules — true of
every merge list a BPE trainer writes. keras-hub's `BytePairTokenizer` pads every word to the longest
and merges one pair a step, which on 12,000 texts took minutes and gigabytes; this takes seconds.

Example:
>>> merges = BytePairMerges({"a": 0, "b": 1, "ab": 2, "abb": 3}, ["a b", "ab b"])
>>> merges.pieces(tf.ragged.constant([[0, 1, 1, 0], [1]])).to_list()
[[3, 0], [1]]
"""

import numpy as np
import tensorflow as tf


class BytePairMerges(tf.Module):
    """The merge rules of a BPE vocabulary as integer tables (see the module docstring).

    Args:
        vocabulary: `{piece: id}`.
        merges: the rules, "a b" strings, highest priority first.
    """

    def __init__(self, vocabulary, merges):
        super().__init__(name="byte_pair_merges")
        size = max(vocabulary.values()) + 1
        keys, merged = [], []
        for rank, rule in enumerate(merges):
            left, right = rule.split(" ")
            if left not in vocabulary or right not in vocabulary or left + right not in vocabulary:
                raise ValueError(f"merge rule {rule!r} (rank {rank}) names a piece that is not in the vocabulary")
            keys.append(vocabulary[left] * size + vocabulary[right])
            merged.append(vocabulary[left + right])
        self.size = size
        self.unranked = len(merges)
        # A rule listed twice keeps its first rank (Hugging Face reads the list into a map the same way).
        first = {}
        for rank, key in enumerate(keys):
            first.setdefault(key, rank)
        self._ranks = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(list(first), tf.int64), tf.constant(list(first.values()), tf.int32)
            ),
            default_value=self.unranked,
        )
        self._merged = tf.constant(np.asarray(merged + [0], dtype=np.int32))

    def pieces(self, symbols):
        """The BPE pieces of each word: `symbols` a `tf.RaggedTensor` [words, (symbol ids)] → the same
        shape with every rule applied."""
        symbols = tf.cast(symbols, tf.int32)
        values, splits = symbols.flat_values, tf.cast(symbols.row_splits, tf.int64)

        def unfinished(values, splits, done):
            return ~done

        def step(values, splits, done):
            count = tf.shape(values, out_type=tf.int64)[0]
            rows = tf.RaggedTensor.from_row_splits(values, splits, validate=False).value_rowids()
            nrows = tf.shape(splits, out_type=tf.int64)[0] - 1
            position = tf.range(count)
            # Pair (s, s+1) exists when s+1 is in the same word.
            has_next = tf.gather(splits[1:], rows) > position + 1
            following = tf.concat([values[1:], [0]], axis=0)
            keys = tf.cast(values, tf.int64) * self.size + tf.cast(following, tf.int64)
            ranks = tf.where(has_next, self._ranks.lookup(keys), self.unranked)
            best = tf.math.unsorted_segment_min(ranks, rows, nrows)
            match = (ranks == tf.gather(best, rows)) & (ranks < self.unranked)
            # Left to right without overlap: in a run of matches take the 1st, 3rd, … of them.
            previous = tf.concat([[False], match[:-1]], axis=0)
            starts = match & ~previous
            run = tf.cumsum(tf.cast(starts, tf.int64)) - 1
            start_of_run = tf.gather(tf.concat([tf.boolean_mask(position, starts), [0]], 0), tf.maximum(run, 0))
            take = match & ((position - start_of_run) % 2 == 0)
            merged = tf.where(take, tf.gather(self._merged, ranks), values)
            keep = ~tf.concat([[False], take[:-1]], axis=0)
            kept_rows = tf.boolean_mask(rows, keep)
            lengths = tf.math.bincount(kept_rows, minlength=nrows, maxlength=nrows, dtype=tf.int64)
            new_splits = tf.concat([[0], tf.cumsum(lengths)], axis=0)
            return tf.boolean_mask(merged, keep), new_splits, ~tf.reduce_any(take)

        values, splits, _ = tf.while_loop(
            unfinished,
            step,
            (values, splits, tf.size(values) == 0),
            shape_invariants=(tf.TensorShape([None]), tf.TensorShape([None]), tf.TensorShape([])),
        )
        return tf.RaggedTensor.from_row_splits(values, splits, validate=False)
