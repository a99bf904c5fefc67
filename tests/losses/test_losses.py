"""The loss registry of `keras_sentemb.losses`: get by name, by config or by instance,
and a clear error for anything else."""

import pytest

from keras_sentemb import losses


def test_registry_gets_by_name_config_and_instance():
    assert isinstance(losses.get("cosine_mse"), losses.CosineSimilarityLoss)
    triplet = losses.get("triplet", margin=0.5, distance="cosine")
    clone = losses.get(losses.serialize(triplet))
    assert (type(clone), clone.margin, clone.distance) == (losses.TripletLoss, 0.5, "cosine")
    assert losses.get(triplet) is triplet


def test_registry_refuses_unknown_names_and_other_types():
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        losses.get("hinge")
    with pytest.raises(TypeError):
        losses.get(3)
