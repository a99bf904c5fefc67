"""Which runtime a `(backend, precision)` request means, with the errors a user needs."""

BACKENDS = ("tensorflow", "openvino", "litert")
PRECISIONS = ("float32", "bfloat16", "int8")


def check_precision(precision):
    """ValueError unless `precision` is one of `PRECISIONS`."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")


def resolve_runtime(backend, precision):
    """The `(backend, precision)` pair to run, after checking both.

    `backend=None` picks TensorFlow for float32 and OpenVINO for the reduced precisions
    (TensorFlow has no int8 kernels for these models, and its bf16 is slower than OpenVINO's;
    see docs/serving_speed.md). `backend="litert"` (the LiteRT interpreter, XNNPACK kernels) runs
    float32 and int8, not bfloat16.

    >>> resolve_runtime(None, "float32")
    ('tensorflow', 'float32')
    >>> resolve_runtime(None, "int8")
    ('openvino', 'int8')
    >>> resolve_runtime("tensorflow", "int8")
    Traceback (most recent call last):
    ...
    ValueError: backend='tensorflow' runs the model as built (float32, or the dtype policy it was loaded with); precision='int8' runs on backend='openvino' (pip install "./keras-sentemb[openvino]").
    >>> resolve_runtime("litert", "int8")
    ('litert', 'int8')
    """
    check_precision(precision)
    if backend is None:
        backend = "tensorflow" if precision == "float32" else "openvino"
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} or None, got {backend!r}")
    if backend == "tensorflow" and precision != "float32":
        raise ValueError(
            "backend='tensorflow' runs the model as built (float32, or the dtype policy it was loaded "
            f"with); precision={precision!r} runs on backend='openvino' "
            '(pip install "./keras-sentemb[openvino]").'
        )
    if backend == "litert" and precision == "bfloat16":
        raise ValueError(
            "backend='litert' runs float32 or int8 (dynamic-range: int8 weights, activations quantised per "
            "token row); precision='bfloat16' runs on backend='openvino'"
        )
    return backend, precision
