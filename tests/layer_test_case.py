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
    shapes = [tuple(o.shape) for o in tf.nest.flatten(outputs)]
    expected = (
        [tuple(s) for s in expected_output_shape]
        if isinstance(expected_output_shape, list)
        else [tuple(expected_output_shape)]
    )
    assert shapes == expected, f"{layer_cls.__name__} output shapes {shapes} != {expected}"
    if check_compute_output_shape:
        shapes = [(None, *np.shape(x)[1:]) for x in _as_list(input_data)]
        computed = layer.compute_output_shape(shapes if isinstance(input_data, (list, tuple)) else shapes[0])
        assert tuple(computed) == (None, *tuple(expected_output_shape)[1:]), computed
    reference = _numpy(outputs)

    if run_training_step and layer.trainable_weights:
        frozen_before = [np.array(w) for w in layer.non_trainable_weights]
        trained_before = [np.array(w) for w in layer.trainable_weights]
        with tf.GradientTape() as tape:
            outputs = tf.nest.flatten(_call(layer, input_data, call_kwargs))
            loss = tf.add_n([tf.reduce_sum(tf.square(tf.cast(o, tf.float32))) for o in outputs])
        gradients = tape.gradient(loss, layer.trainable_weights)
        keras.optimizers.SGD(0.1).apply_gradients(zip(gradients, layer.trainable_weights))
        assert any(not np.allclose(b, np.array(w)) for b, w in zip(trained_before, layer.trainable_weights)), (
            f"a training step left every trainable weight of {layer_cls.__name__} unchanged"
        )
        assert all(np.array_equal(b, np.array(w)) for b, w in zip(frozen_before, layer.non_trainable_weights))
        reference = _numpy(_call(layer, input_data, call_kwargs))

    config = layer.get_config()
    clone = layer_cls.from_config(config)
    assert clone.get_config() == config, f"{layer_cls.__name__} config does not round-trip"
    _call(clone, input_data, call_kwargs)  # builds the clone
    clone.set_weights(layer.get_weights())
    for a, b in zip(reference, _numpy(_call(clone, input_data, call_kwargs))):
        np.testing.assert_allclose(a, b, atol=atol)

    model = _wrapped_model(layer, input_data, call_kwargs)
    path = os.path.join(os.fspath(tmp_path), f"{layer_cls.__name__}.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
    assert any(isinstance(sub, layer_cls) for sub in restored.layers)
    for a, b in zip(reference, _numpy(restored(_model_data(input_data, call_kwargs)))):
        np.testing.assert_allclose(a, b, atol=atol)

    saved = os.path.join(os.fspath(tmp_path), f"{layer_cls.__name__}_savedmodel")
    model.export(saved, format="tf_saved_model", verbose=False)
    tensors = [tf.constant(x) for x in _model_data(input_data, call_kwargs)]
    loaded = tf.saved_model.load(saved)  # keep a reference: its variables live as long as it does
    served = loaded.serve(tensors if len(tensors) > 1 else tensors[0])
    for a, b in zip(reference, _numpy(served)):
        np.testing.assert_allclose(a, b, atol=atol)
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
    expected = (
        [tuple(s) for s in expected_output_shape]
        if isinstance(expected_output_shape, list)
        else [tuple(expected_output_shape)]
    )
    outputs = model(input_data, training=False)
    shapes = [tuple(o.shape) for o in tf.nest.flatten(outputs)]
    assert shapes == expected, f"{model_cls.__name__} output shapes {shapes} != {expected}"
    reference = _numpy(outputs)

    if run_training_step and model.trainable_weights:
        frozen_before = [np.array(w) for w in model.non_trainable_weights]
        trained_before = [np.array(w) for w in model.trainable_weights]
        with tf.GradientTape() as tape:
            flat = tf.nest.flatten(model(input_data, training=False))
            loss = tf.add_n([tf.reduce_sum(tf.square(tf.cast(o, tf.float32))) for o in flat])
        gradients = tape.gradient(loss, model.trainable_weights)
        moved = [(g, w) for g, w in zip(gradients, model.trainable_weights) if g is not None]
        assert moved, f"no trainable weight of {model_cls.__name__} gets a gradient"
        keras.optimizers.SGD(0.1).apply_gradients(moved)
        assert any(not np.allclose(b, np.array(w)) for b, w in zip(trained_before, model.trainable_weights)), (
            f"a training step left every trainable weight of {model_cls.__name__} unchanged"
        )
        assert all(np.array_equal(b, np.array(w)) for b, w in zip(frozen_before, model.non_trainable_weights))
        reference = _numpy(model(input_data, training=False))

    config = model.get_config()
    clone = model_cls.from_config(config)
    assert clone.get_config() == config, f"{model_cls.__name__} config does not round-trip"
    clone.set_weights(model.get_weights())
    for a, b in zip(reference, _numpy(clone(input_data, training=False))):
        np.testing.assert_allclose(a, b, atol=atol)

    path = os.path.join(os.fspath(tmp_path), f"{model_cls.__name__}.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
    assert type(restored) is model_cls, f"{path} loads as {type(restored).__name__}"
    for a, b in zip(reference, _numpy(restored(input_data, training=False))):
        np.testing.assert_allclose(a, b, atol=atol)

    saved = os.path.join(os.fspath(tmp_path), f"{model_cls.__name__}_savedmodel")
    # Subclassed models with nested dict inputs need the signature spelled out.
    signature = tf.nest.map_structure(
        lambda x: tf.TensorSpec([None] * np.ndim(x), tf.as_dtype(np.asarray(x).dtype)), input_data
    )
    keras.Model.export(model, saved, format="tf_saved_model", verbose=False, input_signature=[signature])
    loaded = tf.saved_model.load(saved)  # keep a reference: its variables live as long as it does
    served = loaded.serve(tf.nest.map_structure(tf.constant, input_data))
    for a, b in zip(reference, _numpy(served)):
        np.testing.assert_allclose(a, b, atol=atol)
    return model
