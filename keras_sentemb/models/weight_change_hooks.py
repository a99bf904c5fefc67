"""What a model with traced functions and compiled runtimes of its weights does when they change."""


class ForgetsTracedFunctions:
    """Mixed into a Keras model (before `keras.Model` in the bases) that defines `forget_traced_functions()`: `fit` and
    `load_weights` drop its traced functions and the runtimes built from them (an OpenVINO runtime holds a snapshot of
    the weights), before and after, so that the next `encode` sees the new weights."""

    def fit(self, *args, **kwargs):
        self.forget_traced_functions()
        try:
            return super().fit(*args, **kwargs)
        finally:
            self.forget_traced_functions()

    def load_weights(self, *args, **kwargs):
        result = super().load_weights(*args, **kwargs)
        self.forget_traced_functions()
        return result
