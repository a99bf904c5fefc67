"""A chat template renders as Jinja's sandbox renders it, and a template that leaves its budget is refused with
the budget named — the same budget on every machine: growth through `~`, `+` and `*` is sized before it runs,
and a child that dies is read from its exit (SIGXCPU: CPU; a MemoryError anywhere: memory)."""

import re
import signal

import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from keras_sentemb.tokenizers.bounded_template_render import (
    MAX_OUTPUT_CHARS,
    BudgetedSandbox,
    render_bounded,
    why_the_render_failed,
)

SAME_AS_JINJA = [
    "{{ 'a' ~ 3 ~ none }}{{ 1 + 2 }}{{ [1] + [2] }}{{ (1, 2) + (3,) }}{{ 'ab' * 3 }}{{ 2 ** 10 }}",
    "{% autoescape true %}{{ '<a>' ~ 'b' }}{{ '<x>'|safe ~ '<y>' }}{% endautoescape %}",
    "{% set a = '<x>'|safe %}{% autoescape true %}{{ a ~ '<y>' }}{% endautoescape %}",
    "{% for m in messages %}{{ '<|im_start|>' ~ m.role ~ '\\n' ~ m.content ~ '<|im_end|>' }}\n{% endfor %}",
]
MESSAGES = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "<Query>: q <Document>: d"}]


@pytest.mark.parametrize("template", SAME_AS_JINJA)
def test_a_template_within_its_budget_renders_as_jinja_s_sandbox_renders_it(template):
    jinja = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(template)
    assert BudgetedSandbox().from_string(template).render(messages=MESSAGES) == jinja.render(messages=MESSAGES)
    assert render_bounded(template, [{"messages": MESSAGES}], "t.jinja") == [jinja.render(messages=MESSAGES)]


@pytest.mark.parametrize(
    "growth, message",
    [
        ("ns.s ~ ns.s", "a concatenation of 131,072 characters"),
        ("ns.s + ns.s", "a sum of 131,072 characters"),
        ("ns.s * 2", "a repetition of 131,072 items"),
    ],
)
def test_a_doubling_string_is_refused_at_the_output_budget_not_at_the_memory_limit(growth, message):
    template = "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = " + growth + " %}{% endfor %}"
    with pytest.raises(ValueError, match=f"^t.jinja: {message} \\(the budget is {MAX_OUTPUT_CHARS:,}\\)$"):
        render_bounded(template, [{}], "t.jinja")


def test_a_concatenation_as_long_as_the_output_budget_is_allowed():
    half = MAX_OUTPUT_CHARS // 2
    template = "{{ ('x' * " + str(half) + ") ~ ('y' * " + str(half) + ") }}"
    assert render_bounded(template, [{}], "t.jinja") == ["x" * half + "y" * half]


@pytest.mark.parametrize(
    "returncode, stderr, reason",
    [
        (-signal.SIGXCPU, b"", "needs more than 2 s of CPU to render"),
        (1, b"Traceback (most recent call last):\n  ...\nMemoryError\n", "needs more than 256 MiB to render"),
        (-signal.SIGABRT, b"Fatal Python error: Cannot recover from MemoryErrors while normalizing exceptions.\n",
         "needs more than 256 MiB to render"),
        (-signal.SIGKILL, b"", "killed by SIGKILL \\(its budget: 2 s of CPU, 256 MiB\\)"),
        (1, b"Traceback (most recent call last):\nImportError: no jinja2\n", "does not render: ImportError: no jinja2"),
        (3, b"", "does not render: exit status 3, nothing on stderr"),
    ],
    ids=["cpu", "memory", "memory-fatal", "killed", "crashed", "silent"],
)  # fmt: skip
def test_a_child_that_did_not_answer_is_explained_by_its_exit(returncode, stderr, reason):
    assert re.search(reason, why_the_render_failed(returncode, stderr))
