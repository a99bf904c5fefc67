"""The request bodies the server takes, checked field by field: OpenAI's embeddings request,
text-embeddings-inference's `/embed` and `/rerank`, and the fields we add to them.

Every refusal is a `RequestError` naming its field (`input[3]`, `chunking.size`) and an HTTP status:
400 for a body that is not JSON, 413 for a request over the server's limits, 422 for a field with
the wrong type or value (an unknown field included). Nothing here touches the model.
"""

from __future__ import annotations

import typing
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from keras_sentemb.chunking import Chunking


class RequestError(Exception):
    """A request the server refuses: `status` (HTTP), `field` (None for the whole body), `message`."""

    def __init__(self, status: int, message: str, field: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.field, self.headers = status, message, field, headers or {}


def check_texts(value: Any, field: str) -> Any:
    """`value` when it is a text or a non-empty list of texts, else a 422 `RequestError` naming the
    field or the element (token ids included: OpenAI's API takes them, this server reads text only)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise RequestError(422, f"{field}: must be a string or a list of strings, got {_json_type(value)}", field)
    if not value:
        raise RequestError(422, f"{field}: must hold at least one text, got an empty list", field)
    if all(isinstance(item, int) and not isinstance(item, bool) for item in value) or all(
        isinstance(item, list) for item in value
    ):
        raise RequestError(422, f"{field}: token-id input is not supported: send the texts themselves", field)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            element = f"{field}[{index}]"
            raise RequestError(422, f"{element}: must be a string, got {_json_type(item)}", element)
    return value


def _json_type(value):
    names = {
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        list: "an array",
        dict: "an object",
    }
    return "null" if value is None else names.get(type(value), type(value).__name__)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ChunkingFields(_Strict):
    """`"chunking": {...}`: long texts cut into windows of word pieces and pooled into one vector a
    text (`keras_sentemb.chunking.Chunking`; `pooling` cannot be null here: one vector a text)."""

    size: int | None = Field(None, ge=1)
    overlap: int = Field(0, ge=0)
    sentences: bool = False
    pooling: Literal["mean", "max", "first"] = "mean"
    late: bool = False

    def chunking(self) -> Chunking:
        try:
            return Chunking(**self.model_dump())
        except ValueError as error:
            raise RequestError(422, f"chunking: {error}", "chunking") from None


class EmbeddingsRequest(_Strict):
    """POST /v1/embeddings, as OpenAI defines it, plus `prompt_name` and `chunking` (ours, optional)."""

    input: Any
    model: str
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(None, ge=1)
    user: str | None = None
    prompt_name: str | None = None
    chunking: ChunkingFields | None = None

    _texts = field_validator("input", mode="before")(lambda value: check_texts(value, "input"))


class EmbedRequest(_Strict):
    """POST /embed, as text-embeddings-inference defines it, plus `binary`, `bits` and `chunking`."""

    inputs: Any
    normalize: bool = True
    truncate: bool = True
    truncation_direction: Literal["Right", "right"] = "Right"
    prompt_name: str | None = None
    dimensions: int | None = Field(None, ge=1)
    binary: bool = False
    bits: int | None = Field(None, ge=8)
    chunking: ChunkingFields | None = None

    _texts = field_validator("inputs", mode="before")(lambda value: check_texts(value, "inputs"))


class EmbedSparseRequest(_Strict):
    """POST /embed_sparse, as text-embeddings-inference defines it, plus `side` ("query" or "document": which side
    of a sparse encoder encodes the texts, with that side's prompt) and `max_active_dims`."""

    inputs: Any
    truncate: bool = True
    truncation_direction: Literal["Right", "right"] = "Right"
    prompt_name: str | None = None
    side: Literal["query", "document"] = "document"
    max_active_dims: int | None = Field(None, ge=1)

    _texts = field_validator("inputs", mode="before")(lambda value: check_texts(value, "inputs"))


class EmbedAllRequest(_Strict):
    """POST /embed_all, as text-embeddings-inference defines it (every token's vector of each text), plus `side`
    ("query" or "document": which side of a multi-vector encoder encodes the texts — its marker, query expansion and
    skip-list — "document" by default)."""

    inputs: Any
    truncate: bool = True
    truncation_direction: Literal["Right", "right"] = "Right"
    prompt_name: str | None = None
    side: Literal["query", "document"] = "document"

    _texts = field_validator("inputs", mode="before")(lambda value: check_texts(value, "inputs"))


class RerankRequest(_Strict):
    """POST /rerank, as text-embeddings-inference defines it."""

    query: str
    texts: Any
    raw_scores: bool = False
    return_text: bool = False
    truncate: bool = True
    truncation_direction: Literal["Right", "right"] = "Right"

    _texts = field_validator("texts", mode="before")(lambda value: check_texts(value, "texts"))


def parse_body(body: bytes, schema: type[BaseModel]) -> BaseModel:
    """The request `body` as `schema`: 400 when it is not JSON (invalid UTF-8, a lone surrogate,
    nesting past 1,024 levels, NaN), 422 for the first field that is wrong, named."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise RequestError(400, f"the request body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise RequestError(422, f"the request body must be a JSON object, got {_json_type(data)}")
    try:
        return schema.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = _field_name(first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            known = ", ".join(_model_at(schema, first["loc"][:-1]).model_fields)
            message = f"unknown field (the fields here: {known})"
        elif first["type"] == "missing":
            message = "required"
        raise RequestError(422, f"{field}: {message}", field) from None


def _model_at(schema, location):
    """The model whose field `location` leads to: ('chunking',) of an `EmbedRequest` → `ChunkingFields`."""
    for part in location:
        annotation = schema.model_fields[part].annotation
        schema = next(
            a for a in (*typing.get_args(annotation), annotation) if isinstance(a, type) and issubclass(a, BaseModel)
        )
    return schema


def _field_name(location) -> str:
    """('chunking', 'size') → 'chunking.size'; ('input', 3) → 'input[3]'."""
    name = ""
    for part in location:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "body"
