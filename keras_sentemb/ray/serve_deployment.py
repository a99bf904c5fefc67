"""embedding_server: the app of `keras-sentemb serve` as a Ray Serve application (replicas, autoscaling)."""

from __future__ import annotations

from keras_sentemb.server.embedding_service import load_service
from keras_sentemb.server.openvino_cache import served_folder
from keras_sentemb.server.serve_command import served_name
from keras_sentemb.server.server_settings import ServerSettings


def embedding_server(
    model: str,
    *,
    served_model_name: str | None = None,
    backend: str | None = None,
    precision: str | None = None,
    calibration_texts=None,
    batch_size: int = 32,
    settings: ServerSettings | None = None,
    num_replicas: int = 1,
    autoscaling: dict | None = None,
    ray_actor_options: dict | None = None,
    deployment_name: str = "keras-sentemb",
):
    """A Ray Serve application whose replicas each serve `model` with the endpoints of `keras-sentemb
    serve` (the same ASGI app, `keras_sentemb.server.http_app.create_app`): Ray's proxy spreads the
    requests over the replicas, and each replica merges the requests it gets into model batches.

    Args:
        model: what `keras-sentemb serve` takes (a preset, zoo:NAME, a folder, a `.keras` file, an exported
            OpenVINO folder); each replica loads it, so a path must exist on every node. An exported folder,
            or a preset / Hugging Face folder with `backend="openvino"` (converted once, by the caller's
            process, into the cache of `keras-sentemb serve`), is served by replicas without TensorFlow.
        served_model_name, backend, precision, calibration_texts, batch_size, settings: as the options
            of `keras-sentemb serve`.
        num_replicas: a fixed number of replicas (without `autoscaling`).
        autoscaling: Ray Serve's `autoscaling_config`, e.g. `{"min_replicas": 1, "max_replicas": 4,
            "target_ongoing_requests": 8}` (then `num_replicas` is not used).
        ray_actor_options: each replica's resources (default: one CPU).
        deployment_name: the deployment's name in Ray Serve.

    Returns: a Ray Serve `Application`, for `serve.run` (or `serve deploy` through an import path).

    Example:
    (Not run as a doctest: it starts a Ray cluster; docs/serving_http.md runs it with 2 replicas.)
        from ray import serve
        serve.run(embedding_server("minilm-l6", num_replicas=2), route_prefix="/")
        # POST http://127.0.0.1:8000/v1/embeddings, /embed, ... as `keras-sentemb serve` answers them
    """
    from ray import serve  # the `ray` extra

    name = served_model_name or served_name(model)
    settings = settings or ServerSettings()
    # an exported folder, or the preset / Hugging Face folder converted once here (a child process) for
    # backend="openvino": every replica then serves that folder without TensorFlow
    folder = served_folder(model, backend, precision, calibration_texts)

    def build_app():  # runs on each replica when it starts
        from keras_sentemb.server.http_app import create_app  # Starlette: Ray Serve's own dependency

        service = load_service(
            folder or model,
            name=name,
            backend=backend,
            precision=precision,
            calibration_texts=None if folder else calibration_texts,
            batch_size=batch_size,
        )
        return create_app(service, settings)

    options = {"name": deployment_name, "ray_actor_options": ray_actor_options or {"num_cpus": 1}}
    if autoscaling is not None:
        options["autoscaling_config"] = autoscaling
    else:
        options["num_replicas"] = num_replicas
    return serve.deployment(**options)(serve.ingress(build_app)()).bind()
