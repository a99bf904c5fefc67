"""Renders an untrusted Jinja template (a downloaded folder's chat template) inside a budget: in a child process
of its own, with its memory, CPU time, wall time, output length and executed template lines all bounded.

A template is a program: Jinja's immutable sandbox stops it from reaching Python's internals or changing its
arguments, but not from looping (`{% for i in range(10**5) %}{% for j in range(10**5) %}x…`), from building
huge strings (`'x' * 10**9`, `{% set ns.s = ns.s ~ ns.s %}` thirty times) or from computing `10 ** 10 ** 9`.
So the render runs in `python -I` on this file (stdlib and jinja2 only: no TensorFlow, ~30 MiB), which:

- limits its address space (`RLIMIT_AS`, `MEMORY_BYTES`) and CPU time (`RLIMIT_CPU`, `CPU_SECONDS`): past
  either it dies or raises MemoryError, and the parent names the budget;
- counts the template's executed lines (a `sys.settrace` of the template's frames: loop bodies, `set`s,
  output statements), at most `MAX_STEPS`, and sizes `*`, `**`, `+` and `~` before computing them: a
  repetition, sum or concatenation longer than the output budget, or an exponent over 64, is refused
  (`{% set ns.s = ns.s ~ ns.s %}` forty times stops at 131,072 characters, not at the memory limit — the
  memory limit is a backstop whose moment depends on the machine, a size check does not);
- stops the output at `MAX_OUTPUT_CHARS` characters (the template is rendered as a stream).

The parent waits at most `WALL_SECONDS` and kills the child past it. Every failure — a Jinja error, a sandbox
violation, `range(10**9)`'s OverflowError, an `{% include %}` with no loader, a budget — comes back as one
ValueError that starts with `source` (the folder's file) and names the budget it left.

`~` is sized through Jinja's public code-generation hook (`Environment.code_generator_class`, a subclass whose
`visit_Concat` calls the environment's `bounded_concat`); this module is the one adapter for Jinja.

Example (the child's start and jinja2's import: ~0.1 s):
>>> render_bounded("{{ a }} and {{ b }}", [{"a": 1, "b": 2}, {"a": "x", "b": "y"}], source="t.jinja")
['1 and 2', 'x and y']
>>> render_bounded("{% for i in range(9999) %}{% for j in range(9999) %}x{% endfor %}{% endfor %}", [{}], "t.jinja")
Traceback (most recent call last):
ValueError: t.jinja: the template renders more than 100,000 characters (the budget of a chat template)
"""

import json
import os
import resource
import signal
import subprocess
import sys

import jinja2
from jinja2.compiler import CodeGenerator
from jinja2.runtime import markup_join
from jinja2.sandbox import ImmutableSandboxedEnvironment

MAX_OUTPUT_CHARS = 100_000
MAX_STEPS = 1_000_000  # executed template lines (a loop body of one statement: one line an iteration)
MAX_RANGE = 10_000  # the items `range()` may give (Jinja's sandbox allows 100,000)
MEMORY_BYTES = 256 << 20  # the child's address space
CPU_SECONDS = 2
WALL_SECONDS = 5.0


def render_bounded(template, contexts, source):
    """The renders of Jinja `template` (trim_blocks, lstrip_blocks, loop controls; `raise_exception(message)`
    available) for each dict of `contexts`, in one bounded child process (see the module docstring).
    ValueError naming `source` when it fails or leaves its budget."""
    request = json.dumps({"template": template, "contexts": contexts}).encode("utf-8")
    try:
        child = subprocess.run(
            [sys.executable, "-I", os.path.abspath(__file__)],
            input=request,
            capture_output=True,
            timeout=WALL_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ValueError(f"{source}: the template took more than {WALL_SECONDS:g} s to render (its budget)") from None
    if child.returncode != 0:
        raise ValueError(f"{source}: {why_the_render_failed(child.returncode, child.stderr)}")
    answer = json.loads(child.stdout)
    if "error" in answer:
        raise ValueError(f"{source}: {answer['error']}")
    return answer["renders"]


def why_the_render_failed(returncode, stderr):
    """The budget a child that did not answer left, read from its exit: SIGXCPU is the CPU limit, a MemoryError
    anywhere in its stderr (Python's own fatal error included) the memory limit."""
    reason = stderr.decode("utf-8", "replace").strip()
    if returncode == -signal.SIGXCPU:
        return f"the template needs more than {CPU_SECONDS} s of CPU to render (its budget)"
    if "MemoryError" in reason:
        return f"the template needs more than {MEMORY_BYTES >> 20} MiB to render (its budget)"
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return (
            f"the template's render was killed by {name} (its budget: {CPU_SECONDS} s of CPU, {MEMORY_BYTES >> 20} MiB)"
        )
    last = reason.splitlines()[-1] if reason else f"exit status {returncode}, nothing on stderr"
    return f"the template does not render: {last}"


# ------------------------------------------------------------------------------------------------ the child
class TemplateBudgetExceeded(Exception):
    """A budget of the render (steps, output, an operation's size) was passed."""


def _limit_resources():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))


class SizedConcatenation(CodeGenerator):
    """Jinja's code generator with `a ~ b ~ …` compiled to `environment.bounded_concat(context, (a, b, …))`."""

    def visit_Concat(self, node, frame):
        self.write("environment.bounded_concat(context, (")
        for argument in node.nodes:
            self.visit(argument, frame)
            self.write(", ")
        self.write("))")


class BudgetedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with `*`, `**`, `+` and `~` sized before they run, and a `range` of at most
    MAX_RANGE: a result longer than MAX_OUTPUT_CHARS (a chat template's whole output) is refused.

    >>> BudgetedSandbox().from_string("{{ 'ab' ~ 1 }}").render()
    'ab1'
    """

    intercepted_binops = frozenset({"*", "**", "+"})
    code_generator_class = SizedConcatenation

    def __init__(self):
        super().__init__(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
        self.globals.update(raise_exception=_raise_exception, range=_bounded_range)

    def call_binop(self, context, operator, left, right):
        if operator == "**":
            if isinstance(right, (int, float)) and abs(right) > 64 and abs(left) > 1:
                raise TemplateBudgetExceeded(f"{left!r} ** {right!r} is too large to compute (exponent over 64)")
            return left**right
        if operator == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                unit = "characters" if isinstance(left, str) else "items"
                _refuse_longer_than_the_output(f"a sum of {len(left) + len(right):,} {unit}", len(left) + len(right))
            return left + right
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, (str, list, tuple)) and isinstance(count, int):
                if len(sequence) * count > MAX_OUTPUT_CHARS:
                    raise TemplateBudgetExceeded(
                        f"a repetition of {len(sequence) * count:,} items (the budget is {MAX_OUTPUT_CHARS:,})"
                    )
        return left * right

    def bounded_concat(self, context, pieces):
        """`~` of `pieces`, as Jinja joins them (its `str_join`: the pieces' `str`s; `markup_join`, escaping, under
        autoescape), after its length is checked: the `str`s measured are the ones joined."""
        texts = [str(piece) for piece in pieces]
        length = sum(len(text) for text in texts)
        _refuse_longer_than_the_output(f"a concatenation of {length:,} characters", length)
        return markup_join(pieces) if context.eval_ctx.autoescape else "".join(texts)


def _refuse_longer_than_the_output(what, length):
    if length > MAX_OUTPUT_CHARS:
        raise TemplateBudgetExceeded(f"{what} (the budget is {MAX_OUTPUT_CHARS:,})")


def _raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def _bounded_range(*arguments):
    numbers = range(*arguments)
    if len(numbers) > MAX_RANGE:
        raise TemplateBudgetExceeded(f"range() of {len(numbers):,} items (at most {MAX_RANGE:,})")
    return numbers


def _count_steps():
    """A tracer that counts the executed lines of the template's own code (compiled as `<template>`)."""
    steps = 0

    def on_line(frame, event, argument):
        nonlocal steps
        if event == "line":
            steps += 1
            if steps > MAX_STEPS:
                raise TemplateBudgetExceeded(f"the template ran more than {MAX_STEPS:,} steps (loop iterations)")
        return on_line

    def on_call(frame, event, argument):
        return on_line if frame.f_code.co_filename == "<template>" else None

    sys.settrace(on_call)


def _render_all(request):
    template = BudgetedSandbox().from_string(request["template"])
    renders = []
    for context in request["contexts"]:
        pieces, size = [], 0
        for piece in template.generate(**context):
            size += len(piece)
            if size > MAX_OUTPUT_CHARS:
                raise TemplateBudgetExceeded(
                    f"the template renders more than {MAX_OUTPUT_CHARS:,} characters (the budget of a chat template)"
                )
            pieces.append(piece)
        renders.append("".join(pieces))
    return renders


def _child():
    request = json.loads(sys.stdin.buffer.read())
    _limit_resources()
    _count_steps()
    try:
        answer = {"renders": _render_all(request)}
    except TemplateBudgetExceeded as error:
        answer = {"error": str(error)}
    except MemoryError:
        answer = {"error": f"the template needs more than {MEMORY_BYTES >> 20} MiB to render (its budget)"}
    except Exception as error:  # Jinja's errors, the sandbox's SecurityError, OverflowError, TypeError, …
        answer = {"error": f"the template does not render: {type(error).__name__}: {error}"}
    sys.settrace(None)
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    _child()
