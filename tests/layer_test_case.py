"""`run_layer_test` and `run_model_test`: the checks every Keras layer and model of the
package passes, in the keras-hub manner.

One call builds the layer from its init kwargs, then checks, in order:

1. the output shape on the given input data (and `compute_output_shape`, where asked);
2. one training step of a tiny model around the layer changes its trainable weights and
   leaves its non-trainable ones alone (skipped for layers without trainable weights);
3. `get_config()` → `from_config()` gives an equal config and the same outputs;
4. a `.keras` file round trip (inside a functional model) gives the same outputs;
5. a SavedModel round trip (`keras.Model.export`, then `tf.saved_model.load(...).serve`)
   gives the same outputs.

A new layer's test is then a dozen lines:

    def test_layer_basics(tmp_path):
        run_layer_test(MyLayer, {"units": 4}, input_data=x, expected_output_shape=(2, 4),
                       tmp_path=tmp_path)

`run_model_test` runs the same five checks on a built model (models are built by their
constructors and take dicts of token tensors):

    def test_passes_the_shared_model_checks(tmp_path):
        run_model_test(make_tiny_encoder(), token_inputs, (3, 16), tmp_path)
"""

import os

import keras
import numpy as np
import tensorflow as tf


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _inputs_like(input_data):
    return [keras.Input(shape=np.shape(x)[1:], dtype=np.asarray(x).dtype.name) for x in _as_list(input_data)]


def _call(layer, input_data, call_kwargs):
    return layer(input_data, **call_kwargs)


def _wrapped_model(layer, input_data, call_kwargs):
    """A functional model around `layer`: its inputs, then one input per call argument."""
    inputs = _inputs_like(input_data)
    extra = {k: keras.Input(shape=np.shape(v)[1:], dtype=np.asarray(v).dtype.name) for k, v in call_kwargs.items()}
    outputs = layer(inputs if isinstance(input_data, (list, tuple)) else inputs[0], **extra)
    all_inputs = inputs + list(extra.values())
    return keras.Model(all_inputs if len(all_inputs) > 1 else all_inputs[0], outputs)


def _model_data(input_data, call_kwargs):
    return _as_list(input_data) + list(call_kwargs.values())


def _numpy(outputs):
    return [np.asarray(o, np.float32) for o in tf.nest.flatten(outputs)]


def _assert_shapes(outputs, expected_output_shape, name):
    """The flat outputs have exactly `expected_output_shape` (a tuple, or a list of tuples)."""
    expected = (
        [tuple(s) for s in expected_output_shape]
        if isinstance(expected_output_shape, list)
        else [tuple(expected_output_shape)]
    )
    shapes = [tuple(o.shape) for o in tf.nest.flatten(outputs)]
    assert shapes == expected, f"{name} output shapes {shapes} != {expected}"


def _assert_same_outputs(reference, outputs, atol):
    for a, b in zip(reference, _numpy(outputs)):
        np.testing.assert_allclose(a, b, atol=atol)


def _one_training_step(owner, call, name, skip_weights_without_gradient=False):
    """One SGD step on the summed squared outputs of `call()`: some trainable weight of
    `owner` moves and no non-trainable one does. A layer must give every trainable weight a
    gradient; a model may hold weights its output does not use (`skip_...=True`)."""
    frozen_before = [np.array(w) for w in owner.non_trainable_weights]
    trained_before = [np.array(w) for w in owner.trainable_weights]
    with tf.GradientTape() as tape:
        flat = tf.nest.flatten(call())
        loss = tf.add_n([tf.reduce_sum(tf.square(tf.cast(o, tf.float32))) for o in flat])
    pairs = list(zip(tape.gradient(loss, owner.trainable_weights), owner.trainable_weights))
    if skip_weights_without_gradient:
        pairs = [(g, w) for g, w in pairs if g is not None]
        assert pairs, f"no trainable weight of {name} gets a gradient"
    keras.optimizers.SGD(0.1).apply_gradients(pairs)
    assert any(not np.allclose(b, np.array(w)) for b, w in zip(trained_before, owner.trainable_weights)), (
        f"a training step left every trainable weight of {name} unchanged"
    )
    assert all(np.array_equal(b, np.array(w)) for b, w in zip(frozen_before, owner.non_trainable_weights))


def run_layer_test(
    layer_cls,
    init_kwargs,
    input_data,
    expected_output_shape,
    tmp_path,
    call_kwargs=None,
    check_compute_output_shape=True,
    run_training_step=True,
    atol=1e-6,
):
    """Builds `layer_cls(**init_kwargs)` and runs the five checks of the module docstring.

    Args:
        layer_cls: the layer class.
        init_kwargs: its constructor arguments.
        input_data: a NumPy array, or a list of arrays for a layer of several inputs.
        expected_output_shape: the shape of the output (a tuple), or a list of shapes for a
            layer with several outputs, checked exactly.
        tmp_path: a folder for the `.keras` file and the SavedModel.
        call_kwargs: keyword arguments of the call (e.g. `padding_mask`), given as arrays.
        check_compute_output_shape: also compare `compute_output_shape` (batch left as None).
        run_training_step: run one SGD step and check what moved.
        atol: tolerance of the round-trip comparisons.

    Returns the layer, for further checks.
    """
    call_kwargs = dict(call_kwargs or {})
    layer = layer_cls(**init_kwargs)
    outputs = _call(layer, input_data, call_kwargs)
    _assert_shapes(outputs, expected_output_shape, layer_cls.__name__)
    if check_compute_output_shape:
        shapes = [(None, *np.shape(x)[1:]) for x in _as_list(input_data)]
        computed = layer.compute_output_shape(shapes if isinstance(input_data, (list, tuple)) else shapes[0])
        assert tuple(computed) == (None, *tuple(expected_output_shape)[1:]), computed
    reference = _numpy(outputs)

    if run_training_step and layer.trainable_weights:
        _one_training_step(layer, lambda: _call(layer, input_data, call_kwargs), layer_cls.__name__)
        reference = _numpy(_call(layer, input_data, call_kwargs))

    config = layer.get_config()
    clone = layer_cls.from_config(config)
    assert clone.get_config() == config, f"{layer_cls.__name__} config does not round-trip"
    _call(clone, input_data, call_kwargs)  # builds the clone
    clone.set_weights(layer.get_weights())
    _assert_same_outputs(reference, _call(clone, input_data, call_kwargs), atol)

    model = _wrapped_model(layer, input_data, call_kwargs)
    path = os.path.join(os.fspath(tmp_path), f"{layer_cls.__name__}.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
    assert any(isinstance(sub, layer_cls) for sub in restored.layers)
    _assert_same_outputs(reference, restored(_model_data(input_data, call_kwargs)), atol)

    saved = os.path.join(os.fspath(tmp_path), f"{layer_cls.__name__}_savedmodel")
    model.export(saved, format="tf_saved_model", verbose=False)
    tensors = [tf.constant(x) for x in _model_data(input_data, call_kwargs)]
    loaded = tf.saved_model.load(saved)  # keep a reference: its variables live as long as it does
    _assert_same_outputs(reference, loaded.serve(tensors if len(tensors) > 1 else tensors[0]), atol)
    return layer


def run_model_test(model, input_data, expected_output_shape, tmp_path, run_training_step=True, atol=1e-5):
    """The five checks of the module docstring on a built `keras.Model` instance.

    Args:
        model: the model (its class is what `from_config` and loading must give back).
        input_data: what the model's `call` takes: an array, a list, or a dict of arrays.
        expected_output_shape: a tuple, or a list of tuples for several outputs.
        tmp_path: a folder for the `.keras` file and the SavedModel.
        run_training_step: one SGD step on the summed squared outputs must move a trainable
            weight and leave every non-trainable weight alone.
        atol: tolerance of the round-trip comparisons.

    Returns the model.
    """
    model_cls = type(model)
    outputs = model(input_data, training=False)
    _assert_shapes(outputs, expected_output_shape, model_cls.__name__)
    reference = _numpy(outputs)

    if run_training_step and model.trainable_weights:
        _one_training_step(
            model, lambda: model(input_data, training=False), model_cls.__name__, skip_weights_without_gradient=True
        )
        reference = _numpy(model(input_data, training=False))

    config = model.get_config()
    clone = model_cls.from_config(config)
    assert clone.get_config() == config, f"{model_cls.__name__} config does not round-trip"
    clone.set_weights(model.get_weights())
    _assert_same_outputs(reference, clone(input_data, training=False), atol)

    path = os.path.join(os.fspath(tmp_path), f"{model_cls.__name__}.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
    assert type(restored) is model_cls, f"{path} loads as {type(restored).__name__}"
    _assert_same_outputs(reference, restored(input_data, training=False), atol)

    saved = os.path.join(os.fspath(tmp_path), f"{model_cls.__name__}_savedmodel")
    # Subclassed models with nested dict inputs need the signature spelled out.
    signature = tf.nest.map_structure(
        lambda x: tf.TensorSpec([None] * np.ndim(x), tf.as_dtype(np.asarray(x).dtype)), input_data
    )
    keras.Model.export(model, saved, format="tf_saved_model", verbose=False, input_signature=[signature])
    loaded = tf.saved_model.load(saved)  # keep a reference: its variables live as long as it does
    _assert_same_outputs(reference, loaded.serve(tf.nest.map_structure(tf.constant, input_data)), atol)
    return model
