"""The public API is flat, declared in one place, and typed."""

import inspect

import pytest

import keras_sentemb
from keras_sentemb import zoo
from keras_sentemb.retrieval import BinaryIndex, semantic_search

TYPED = [
    keras_sentemb.SentenceEncoder.from_pretrained,
    keras_sentemb.SentenceEncoder.encode,
    keras_sentemb.SentenceEncoder.encode_query,
    keras_sentemb.SentenceEncoder.encode_document,
    keras_sentemb.CrossEncoder.from_pretrained,
    keras_sentemb.CrossEncoder.predict_pairs,
    keras_sentemb.DSE.from_pretrained,
    keras_sentemb.DSE.encode,
    keras_sentemb.DSE.predict_pairs,
    keras_sentemb.HashedEncoder.hash,
    keras_sentemb.InferLite.encode,
    keras_sentemb.BiLSTMSRA.encode,
    keras_sentemb.export_saved_model,
    keras_sentemb.distill_hashed_encoder,
    keras_sentemb.load_sentence_encoder,
    zoo.load,
    zoo.card,
    zoo.fetch,
    zoo.export,
    semantic_search,
    BinaryIndex.add,
    BinaryIndex.search,
]


def test_every_name_in_all_is_importable():
    missing = [name for name in keras_sentemb.__all__ if not hasattr(keras_sentemb, name)]
    assert missing == []


@pytest.mark.parametrize("function", TYPED, ids=lambda f: f.__qualname__)
def test_public_entry_points_annotate_every_argument_and_the_result(function):
    signature = inspect.signature(function)
    untyped = [
        name
        for name, p in signature.parameters.items()
        if name not in ("self", "cls") and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.annotation is p.empty
    ]
    assert untyped == [], f"{function.__qualname__}: no type for {untyped}"
    assert signature.return_annotation is not signature.empty, f"{function.__qualname__} has no return type"
