"""Evaluate a model with its optimizer's exponential moving average (EMA) of the weights.

Keras optimizers keep, with `use_ema=True`, a shadow copy of every trainable variable

    w̄_t = m · w̄_{t-1} + (1 − m) · w_t        (m = `ema_momentum`, e.g. 0.99)

and copy w̄ into the model only when `fit` ends. Callbacks that judge the model during
training (`STSEvaluator`) should judge the weights the model will end with, so
`averaged_weights(optimizer)` swaps w̄ in for the duration of a `with` block and puts the
raw weights back afterwards; with no EMA it does nothing.

Example:
(Not run as a doctest: it needs a trained model or data from the surrounding text.)
    with averaged_weights(model.optimizer):
        score = evaluate(model)
"""

import contextlib


def uses_ema(optimizer):
    """True when `optimizer` keeps a moving average that has been built."""
    return bool(getattr(optimizer, "use_ema", False)) and bool(
        getattr(optimizer, "_model_variables_moving_average", None)
    )


@contextlib.contextmanager
def averaged_weights(optimizer):
    """Within the block, the optimizer's trainable variables hold their moving averages."""
    if not uses_ema(optimizer):
        yield
        return
    pairs = [
        (variable, average)
        for variable, average in zip(optimizer._trainable_variables, optimizer._model_variables_moving_average)
        if average is not None
    ]
    raw = [variable.numpy() for variable, _ in pairs]
    for variable, average in pairs:
        variable.assign(average)
    try:
        yield
    finally:
        for (variable, _), value in zip(pairs, raw):
            variable.assign(value)
