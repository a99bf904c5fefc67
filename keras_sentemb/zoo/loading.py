"""One entry point to get an encoder from a preset name, an HF folder or a .keras file."""

from __future__ import annotations

import os

import keras

from keras_sentemb.models.bilstm_sra import BiLSTMSRA
from keras_sentemb.models.cross_encoder import CrossEncoder
from keras_sentemb.models.dse import DSE
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.models.inferlite import InferLite
from keras_sentemb.models.multi_vector_encoder import MultiVectorEncoder
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.models.sparse_encoder import SparseEncoder
from keras_sentemb.models.static_encoder import StaticEncoder
from keras_sentemb.pretrained.multi_vector_folder import is_multi_vector_folder
from keras_sentemb.pretrained.reranker_folder import reranker_architecture
from keras_sentemb.pretrained.sparse_encoder_folder import is_sparse_encoder_folder
from keras_sentemb.training.cosine_pair_scorer import CosinePairScorer
from keras_sentemb.utils.checked_files import check_keras_file
from keras_sentemb.zoo.local_zoo import load


def _sentence_encoders():

    return (SentenceEncoder, InferLite, BiLSTMSRA, StaticEncoder)


def load_sentence_encoder(name_or_path: str | os.PathLike = "minilm-l6", dtype: str | None = None) -> keras.Model:
    """A sentence encoder from a preset name ("minilm-l6", "mpnet-base"), an HF-format folder (both a
    `SentenceEncoder`), a zoo model ("zoo:sbert-minilm-l6-stsb") or a `.keras` file saved with `encoder.save(...)` (a
    `SentenceEncoder`, `InferLite`, `BiLSTMSRA` or `StaticEncoder`: all have `encode` and `export`).

    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        encoder = load_sentence_encoder("minilm-l6")
    """
    return _load(name_or_path, dtype, _sentence_encoders())


def load_any_encoder(name_or_path: str | os.PathLike = "minilm-l6", dtype: str | None = None) -> keras.Model:
    """Like `load_sentence_encoder`, but a `.keras` file or zoo model may also hold a `HashedEncoder`
    or a `DSE` (whose `encode` gives its ψ vectors): anything `keras-sentemb evaluate` can measure."""

    return _load(name_or_path, dtype, _sentence_encoders() + (HashedEncoder, DSE))


def load_served_model(name_or_path: str | os.PathLike, dtype: str | None = None) -> keras.Model:
    """What `keras-sentemb serve` serves: anything `load_any_encoder` takes, a `CrossEncoder`
    (zoo:NAME or a `.keras` file) for `/rerank`, a sentence-transformers SparseEncoder folder (`SparseEncoder`)
    for `/embed_sparse`, or a MultiVectorEncoder / PyLate ColBERT folder (`MultiVectorEncoder`) for `/embed_all` and
    `/rerank` by MaxSim.

    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        model = load_served_model("zoo:cross-encoder-mpnet-base-stsb")
    """
    model_type = folder_model_type(name_or_path)
    if model_type is not None:
        return model_type.from_pretrained(name_or_path, dtype=dtype)
    served = (HashedEncoder, DSE, CrossEncoder, SparseEncoder, MultiVectorEncoder)
    return _load(name_or_path, dtype, _sentence_encoders() + served)


def folder_model_type(path: str | os.PathLike):
    """`SparseEncoder` for a sentence-transformers SparseEncoder folder, `MultiVectorEncoder` for a ColBERT / PyLate
    folder, None for anything else (a dense folder, a preset name, a `.keras` file): the model types other than a
    sentence encoder that `load_served_model` reads from a folder."""
    if not os.path.isdir(path):
        return None
    if is_sparse_encoder_folder(path):
        return SparseEncoder
    if is_multi_vector_folder(path):
        return MultiVectorEncoder
    return None


def load_cross_encoder(name_or_path: str | os.PathLike) -> CrossEncoder:
    """A `CrossEncoder` (a teacher, a reranker) from a zoo model ("zoo:cross-encoder-mpnet-base-stsb"), a
    `.keras` file saved with `cross_encoder.save(...)`, or a sentence-transformers reranker folder
    (`CrossEncoder.from_pretrained`: ms-marco-MiniLM-L6-v2, bge-reranker-v2-m3, Qwen3-Reranker …).

    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        teacher = load_cross_encoder("zoo:cross-encoder-mpnet-base-stsb")
        reranker = load_cross_encoder("models/bge-reranker-v2-m3")
    """
    if os.path.isdir(name_or_path):
        if reranker_architecture(name_or_path) is None:
            raise ValueError(
                f"{os.fspath(name_or_path)}: not a reranker folder (config.json names no …ForSequenceClassification "
                "or …ForCausalLM architecture); a cross-encoder is such a folder, zoo:NAME or a .keras file"
            )
        return CrossEncoder.from_pretrained(name_or_path)
    return _load_trained(name_or_path, CrossEncoder, "a cross-encoder")


def load_dse(name_or_path: str | os.PathLike) -> DSE:
    """A `DSE` (a distilled student) from a zoo model ("zoo:dse-minilm-l6-stsb") or a `.keras`
    file saved with `dse.save(...)`; another class in either is a TypeError naming it.

    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        student = load_dse("zoo:dse-minilm-l6-stsb")
    """
    return _load_trained(name_or_path, DSE, "a DSE")


def load_pair_scorer(spec: str | os.PathLike):
    """A scorer of sentence pairs (`predict_pairs`, `weights`) to label or rank them with:
    a cross-encoder (zoo:NAME or a `.keras` file holding a `CrossEncoder`) is itself; any
    sentence encoder that `load_sentence_encoder` takes becomes its cosine
    (`CosinePairScorer`); the prefix `cosine:` (`cosine:zoo:sbert-mpnet-base-stsb`) says so
    explicitly. Several scorers average with `MeanPairScorer`.

    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        teacher = MeanPairScorer([load_pair_scorer("zoo:cross-encoder-mpnet-base-stsb"),
                                  load_pair_scorer("zoo:sbert-mpnet-base-stsb")])
    """
    spec = os.fspath(spec)
    if spec.startswith("cosine:"):
        return CosinePairScorer(load_sentence_encoder(spec[len("cosine:") :]))
    model = _load(spec, None, (CrossEncoder, *_sentence_encoders()))
    return model if isinstance(model, CrossEncoder) else CosinePairScorer(model)


def _load_trained(name_or_path, cls, what):
    """A trained model of class `cls` from a zoo model (zoo:NAME) or a `.keras` file: there is no
    preset of a trained model, so anything else is a ValueError that says `what` was expected."""
    spec = os.fspath(name_or_path)
    if not (spec.startswith("zoo:") or spec.endswith(".keras")):
        raise ValueError(f"{what} is a zoo model (zoo:NAME) or a .keras file, got {spec!r}")
    return _load(spec, None, (cls,))


def _load(name_or_path, dtype, accepted):
    """A preset/HF folder through `SentenceEncoder.from_pretrained`, or a `.keras` file
    whose model must be one of the `accepted` classes."""
    spec = os.fspath(name_or_path)
    if spec.startswith("zoo:"):
        model = load(spec[len("zoo:") :])
        if not isinstance(model, accepted):
            names = " or ".join(cls.__name__ for cls in accepted)
            raise TypeError(f"{spec} is a {type(model).__name__}, not a {names}")
        return model
    if spec.endswith(".keras"):
        model = keras.saving.load_model(check_keras_file(spec))
        if not isinstance(model, accepted):
            names = " or ".join(cls.__name__ for cls in accepted)
            raise TypeError(f"{spec} holds a {type(model).__name__}, not a {names}")
        return model
    return SentenceEncoder.from_pretrained(spec, dtype=dtype)
