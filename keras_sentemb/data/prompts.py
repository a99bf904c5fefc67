"""Which prompt text an encoder prepends: the one rule of `SentenceEncoder.resolve_prompt` and of an exported
folder's encoder (`exported.ExportedEncoder`), which carries the same prompts without TensorFlow."""


def resolve_prompt(prompts, default_prompt_name, prompt_name=None, prompt=None):
    """`prompt`, else `prompts[prompt_name]`, else the default prompt's, else None.

    Raises:
        TypeError: `prompt` is not a str.
        ValueError: `prompt_name` is not among `prompts`.

    >>> prompts = {"query": "query: ", "document": "passage: "}
    >>> resolve_prompt(prompts, "query"), resolve_prompt(prompts, None, "document"), resolve_prompt({}, None)
    ('query: ', 'passage: ', None)
    >>> resolve_prompt(prompts, None, "title")
    Traceback (most recent call last):
    ...
    ValueError: prompt_name 'title' is not among this model's prompts ['document', 'query']
    """
    if prompt is not None:
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
        return prompt
    if prompt_name is not None:
        if prompt_name not in prompts:
            raise ValueError(f"prompt_name {prompt_name!r} is not among this model's prompts {sorted(prompts)}")
        return prompts[prompt_name]
    if default_prompt_name is not None:
        return prompts[default_prompt_name]
    return None


def query_prompt(prompts):
    """The prompt of `encode_query` when none is given: the "query" prompt, or none (not the default one).

    >>> query_prompt({"query": "query: "}), query_prompt({"classification": "Classify: "})
    ('query: ', '')
    """
    return prompts.get("query", "")


def document_prompt(prompts):
    """The prompt of `encode_document` when none is given: the first of the "document", "passage", "corpus"
    prompts, or none (as sentence-transformers' `encode_document`).

    >>> document_prompt({"passage": "passage: ", "corpus": "c: "}), document_prompt({})
    ('passage: ', '')
    """
    name = next((name for name in ("document", "passage", "corpus") if name in prompts), None)
    return prompts[name] if name else ""
