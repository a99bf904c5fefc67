"""UnigramLattice: the best segmentation of words into the pieces of a Unigram model, in-graph, exactly
as Hugging Face's `Unigram` model finds it.

For a word of characters c₁…cₙ and pieces p with log-probabilities score(p):

    best(0) = 0
    best(e) = max over pieces p = c_{s+1}…c_e of  best(s) + score(p)        (float64, as Hugging Face)
              where no piece is the single character c_{s+1}: also best(s) + score(unk) for it,
              score(unk) = min score − 10

Ties keep the earliest start (Hugging Face updates only on a strictly greater score, walking starts
in order), the pieces are read back from n, and runs of unknown characters become one unknown
piece (`fuse_unk`). SentencePiece's own Viterbi (TF Text's `SentencepieceTokenizer`) breaks ties
otherwise and sums in float32: 561 of 20,509 words of the hostile-text corpus came out differently.

Example:
>>> lattice = UnigramLattice([("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0), ("▁ab", -2.5)], unk_id=0)
>>> lattice.pieces(tf.constant(["▁ab", "▁abb", "▁a?b"])).to_list()
[[3], [3, 2], [1, 0, 2]]
"""

import numpy as np
import tensorflow as tf

# Hugging Face's (and SentencePiece's) penalty of an unknown character below the lowest score.
UNK_PENALTY = 10.0


class UnigramLattice(tf.Module):
    """A Unigram model's pieces as tables, and its segmentation (see the module docstring).

    Args:
        pieces: `[(piece, score)]` in id order (tokenizer.json's `model.vocab`).
        unk_id: the id of the unknown piece.
    """

    def __init__(self, pieces, unk_id):
        super().__init__(name="unigram_lattice")
        scores = np.asarray([score for _, score in pieces], dtype=np.float64)
        self.unk_id = int(unk_id)
        self.unk_score = float(scores.min() - UNK_PENALTY)
        self.longest = max(len(piece) for piece, _ in pieces)
        self._ids = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant([piece for piece, _ in pieces]), tf.range(len(pieces), dtype=tf.int64)
            ),
            default_value=-1,
        )
        self._scores = tf.constant(scores)

    def pieces(self, words):
        """The piece ids of each word of a 1-D `tf.string` tensor: a `tf.RaggedTensor` [words, (ids)]."""
        chars = tf.strings.unicode_split(words, "UTF-8")
        lengths = chars.row_lengths()
        count = tf.shape(words, out_type=tf.int64)[0]
        total = tf.reduce_sum(lengths)
        # Every (start, length) substring of every word: its piece id (−1: none) and score.
        word_of = chars.value_rowids()
        start = tf.range(total) - tf.gather(chars.row_starts(), word_of)
        left = tf.gather(lengths, word_of) - start
        text = tf.gather(words, word_of)
        ids, scores = [], []
        for length in range(1, self.longest + 1):
            fits = left >= length
            piece = tf.strings.substr(text, start, tf.where(fits, tf.constant(length, tf.int64), 0), unit="UTF8_CHAR")
            found = tf.where(fits, self._ids.lookup(piece), -1)
            ids.append(found)
            scores.append(tf.gather(self._scores, tf.maximum(found, 0)))
        ids = tf.stack(ids, axis=1)  # [characters, longest]: the piece starting here with this length
        scores = tf.stack(scores, axis=1)
        # A character no single-character piece covers is an unknown piece of length 1.
        unknown = ids[:, 0] < 0
        ids = tf.concat([tf.where(unknown, tf.cast(self.unk_id, tf.int64), ids[:, 0])[:, None], ids[:, 1:]], axis=1)
        unk_score = tf.constant(self.unk_score, tf.float64)
        scores = tf.concat([tf.where(unknown, unk_score, scores[:, 0])[:, None], scores[:, 1:]], axis=1)

        # best[w, e] over the flat end positions (each word has n + 1 of them, e = 0 … n).
        node_starts = tf.concat([[0], tf.cumsum(lengths + 1)], axis=0)[:-1]
        nodes = tf.reduce_sum(lengths + 1)
        char_starts = chars.row_starts()
        longest_word = tf.reduce_max(tf.concat([lengths, [0]], axis=0))
        best = tf.zeros([nodes], tf.float64)
        choice = tf.zeros([nodes], tf.int64)  # the length of the last piece of the best path to e
        lengths_range = tf.range(1, self.longest + 1, dtype=tf.int64)

        def step(end, best, choice):
            active = tf.where(lengths >= end)[:, 0]
            begin = end - lengths_range  # [longest] starts of the candidates
            valid = begin >= 0
            safe_begin = tf.maximum(begin, 0)
            base = tf.gather(best, tf.gather(node_starts, active)[:, None] + safe_begin[None, :])
            char_at = tf.gather(char_starts, active)[:, None] + safe_begin[None, :]
            columns = tf.broadcast_to(lengths_range[None, :] - 1, tf.shape(char_at))
            at = tf.stack([tf.minimum(char_at, tf.maximum(total - 1, 0)), columns], axis=-1)
            piece_ids = tf.gather_nd(ids, at)
            candidate = base + tf.gather_nd(scores, at)
            usable = valid[None, :] & (piece_ids >= 0)
            candidate = tf.where(usable, candidate, tf.constant(-np.inf, tf.float64))
            top = tf.reduce_max(candidate, axis=1, keepdims=True)
            # On a tie the earliest start (the longest last piece) wins.
            longest_best = tf.reduce_max(tf.where(candidate == top, lengths_range[None, :], 0), axis=1)
            where = (tf.gather(node_starts, active) + end)[:, None]
            return (
                end + 1,
                tf.tensor_scatter_nd_update(best, where, top[:, 0]),
                tf.tensor_scatter_nd_update(choice, where, longest_best),
            )

        _, best, choice = tf.while_loop(
            lambda end, best, choice: end <= longest_word,
            step,
            (tf.constant(1, tf.int64), best, choice),
        )

        # Read the pieces back from each word's end.
        def back(position, remaining, out_word, out_id, out_step, step_index):
            active = tf.where(position > 0)[:, 0]
            at = tf.gather(position, active)
            length = tf.gather(choice, tf.gather(node_starts, active) + at)
            begin = at - length
            char_at = tf.gather(char_starts, active) + begin
            piece = tf.gather_nd(ids, tf.stack([char_at, length - 1], axis=1))
            position = tf.tensor_scatter_nd_update(position, active[:, None], begin)
            return (
                position,
                remaining,
                out_word.write(tf.cast(step_index, tf.int32), active),
                out_id.write(tf.cast(step_index, tf.int32), piece),
                out_step.write(tf.cast(step_index, tf.int32), tf.fill(tf.shape(active), step_index)),
                step_index + 1,
            )

        # Element 0 is empty, so that the arrays concatenate when no word has a character.
        arrays = [
            tf.TensorArray(
                tf.int64, size=1, dynamic_size=True, infer_shape=False, element_shape=tf.TensorShape([None])
            ).write(0, tf.zeros([0], tf.int64))
            for _ in range(3)
        ]
        position, _, out_word, out_id, out_step, _ = tf.while_loop(
            lambda position, *_: tf.reduce_any(position > 0),
            back,
            (lengths, tf.constant(0), *arrays, tf.constant(1, tf.int64)),
        )
        word_index = tf.reshape(out_word.concat(), [-1])
        piece_ids = tf.reshape(out_id.concat(), [-1])
        steps = tf.reshape(out_step.concat(), [-1])
        # Word order, and within a word from its first piece (read last) to its last.
        order = tf.argsort(word_index * (tf.reduce_max(tf.concat([steps, [0]], 0)) + 1) - steps, stable=True)
        word_index, piece_ids = tf.gather(word_index, order), tf.gather(piece_ids, order)
        # fuse_unk: an unknown piece right after an unknown piece of the same word goes.
        previous_unknown = tf.concat([[False], piece_ids[:-1] == self.unk_id], axis=0)
        previous_same = tf.concat([[False], word_index[1:] == word_index[:-1]], axis=0)
        keep = ~((piece_ids == self.unk_id) & previous_unknown & previous_same)
        return tf.RaggedTensor.from_value_rowids(
            tf.boolean_mask(piece_ids, keep), tf.boolean_mask(word_index, keep), nrows=count, validate=False
        )
