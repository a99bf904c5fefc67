"""TF Serving warmup records: `assets.extra/tf_serving_warmup_requests` in a SavedModel.

TF Serving replays these `PredictionLog` records (tensorflow-serving-api protos, a TFRecord
file) when it loads a version, before the version takes traffic, so the first real request
does not pay for loading kernels and tracing the tokenizer. We write one `PredictRequest` per
signature, with inputs built from the signature's own input specs: every `tf.string` input
gets `WARMUP_TEXTS` (including an empty text), every integer input (`k` of `search`)
`WARMUP_K`.

    record = PredictionLog(predict_log=PredictLog(request=PredictRequest(
        model_spec=ModelSpec(name=<model name>, signature_name=<signature>),
        inputs={<input name>: TensorProto, ...})))

Needs the optional extra `serving` (tensorflow-serving-api) to write or read the records.
"""

import os

import numpy as np
import tensorflow as tf

WARMUP_TEXTS = ("A man is playing a guitar.", "Will it rain tomorrow?", "")
WARMUP_K = 3
WARMUP_FILE = os.path.join("assets.extra", "tf_serving_warmup_requests")


def signature_inputs(function, texts=WARMUP_TEXTS, k=WARMUP_K):
    """`{input name: array}` for one call of the signature `function` (a `tf.function` with
    an input signature): `texts` for string inputs, `k` for integer ones."""
    inputs = {}
    for spec in function.input_signature:
        if spec.dtype == tf.string:
            inputs[spec.name] = np.array(texts, dtype=object)
        elif spec.dtype.is_integer:
            inputs[spec.name] = np.array(k, dtype=spec.dtype.as_numpy_dtype)
        else:
            raise TypeError(f"no warmup value for input {spec.name!r} of dtype {spec.dtype.name}")
    return inputs


def _serving_apis():
    try:  # optional extra: tensorflow-serving-api (pip install "./keras-sentemb[serving]")
        from tensorflow_serving.apis import model_pb2, predict_pb2, prediction_log_pb2
    except ImportError as error:
        raise ImportError(
            'TF Serving warmup records need tensorflow-serving-api: pip install "./keras-sentemb[serving]"'
        ) from error
    return model_pb2, predict_pb2, prediction_log_pb2


def warmup_logs(model_name, signatures, texts=WARMUP_TEXTS, k=WARMUP_K):
    """One `PredictionLog` per signature of `signatures` (`{name: tf.function}`), by name."""
    model_pb2, predict_pb2, prediction_log_pb2 = _serving_apis()
    logs = []
    for signature_name, function in sorted(signatures.items()):
        request = predict_pb2.PredictRequest(
            model_spec=model_pb2.ModelSpec(name=model_name, signature_name=signature_name)
        )
        for key, value in signature_inputs(function, texts, k).items():
            request.inputs[key].CopyFrom(tf.make_tensor_proto(value))
        logs.append(prediction_log_pb2.PredictionLog(predict_log=prediction_log_pb2.PredictLog(request=request)))
    return logs


def write_warmup_requests(saved_model_dir, model_name, signatures, texts=WARMUP_TEXTS, k=WARMUP_K):
    """Writes `saved_model_dir/assets.extra/tf_serving_warmup_requests`; returns its path."""
    path = os.path.join(saved_model_dir, WARMUP_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tf.io.TFRecordWriter(path) as writer:
        for log in warmup_logs(model_name, signatures, texts, k):
            writer.write(log.SerializeToString())
    return path


def read_warmup_requests(path):
    """The `PredictRequest`s of a warmup file, in file order."""
    _, _, prediction_log_pb2 = _serving_apis()
    return [
        prediction_log_pb2.PredictionLog.FromString(record.numpy()).predict_log.request
        for record in tf.data.TFRecordDataset(os.fspath(path))
    ]
