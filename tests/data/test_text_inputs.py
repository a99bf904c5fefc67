"""What encode accepts, and the errors that name the bad element."""

import numpy as np
import pytest

from keras_sentemb.data.text_inputs import validate_texts


def test_accepts_str_bytes_numpy_strings_and_tuples():
    assert validate_texts(("a", b"b", np.str_("c"))) == ([b"a", b"b", b"c"], False)
    assert validate_texts(np.array(["x", "y"])) == ([b"x", b"y"], False)


def test_a_single_string_is_flagged():
    assert validate_texts("hello") == ([b"hello"], True)


def test_non_string_element_names_index_and_type():
    with pytest.raises(TypeError, match=r"texts\[2\] must be str or bytes, got int"):
        validate_texts(["a", "b", 3])
    with pytest.raises(TypeError, match=r"texts\[0\].*NoneType"):
        validate_texts([None])


def test_bytes_that_are_not_utf8_name_the_index():
    with pytest.raises(ValueError, match=r"texts\[1\] is bytes that are not valid UTF-8"):
        validate_texts(["ok", b"\xff\xfe"])


def test_lone_surrogate_names_the_index():
    with pytest.raises(ValueError, match=r"texts\[0\] cannot be encoded"):
        validate_texts(["\ud800"])


def test_rejects_containers_that_are_not_sequences_of_texts():
    with pytest.raises(TypeError, match="got int"):
        validate_texts(5)
    with pytest.raises(TypeError, match="got dict"):
        validate_texts({"a": 1})
    with pytest.raises(ValueError, match="1-D"):
        validate_texts(np.array([["a"]]))
