"""A Keras backbone, its in-graph tokenizer and its sentence-transformers pipeline from a preset
name or a folder."""

from keras_sentemb.pretrained.hugging_face_backbones import load_hugging_face_backbone
from keras_sentemb.pretrained.pretrained_weights import resolve_pretrained_dir
from keras_sentemb.pretrained.sentence_transformers_folder import read_sentence_transformers_folder
from keras_sentemb.pretrained.tokenizer_json import load_tokenizer


def load_backbone_and_tokenizer(name_or_path="minilm-l6", dtype=None, max_length=None):
    """`(backbone, tokenizer, spec)` for a preset ("minilm-l6", "mpnet-base") or a Hugging Face /
    sentence-transformers folder.

    The weights come from installed packages (see `PRETRAINED_SOURCES`) or the folder; nothing is
    downloaded. `spec` is the folder's `SentenceTransformersFolder` (pooling, Dense, Normalize,
    prompts, truncation); the tokenizer is the folder's own (tokenizer.json), with
    sentence-transformers' token limit. `max_length` lowers that limit; it never exceeds the
    backbone's positions.

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        backbone, tokenizer, spec = load_backbone_and_tokenizer("minilm-l6")
        backbone.hidden_dim, tokenizer.max_length, spec.pooling_modes
        # -> (384, 256, ('mean',))
    """
    folder = resolve_pretrained_dir(name_or_path)
    spec = read_sentence_transformers_folder(folder)
    backbone = load_hugging_face_backbone(spec.transformer_folder, dtype=dtype)
    limit = min(max_length or spec.max_length or backbone.max_sequence_length, backbone.max_sequence_length)
    tokenizer = load_tokenizer(spec.transformer_folder, limit, lowercase=spec.do_lower_case)
    return backbone, tokenizer, spec
