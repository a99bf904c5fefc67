"""Each Python block of README.md and docs/ runs once: the one adapter over pytest-markdown-docs' runner.

pytest-markdown-docs runs a `python continuation` block as the text of every block before it in the
chain followed by its own, in a fresh namespace: the third block of a page re-runs the first two. On
this project's pages, which load, convert and train real models, that made docs/serving_speed.md's
third block take 107 s where it alone takes 8 s. This runner, registered as the plugin's default (its
`register_runner` is the extension point it offers, in its `_runners` module), runs only what is new
in a continuation, in the namespace the previous block of the chain left; the plugin still collects
the blocks, fills their fixtures and reports failures with the page's line numbers.

A block is run as before (its whole chain, afresh) whenever the chain's previous block did not pass or
ran in another process, so a failure is reported at the block that fails, never hidden by one above it.
"""

from pytest_markdown_docs._runners import DefaultRunner, register_runner


@register_runner(default=True)
class ContinuationRunsOnce(DefaultRunner):
    """The default runner, keeping the namespace a block leaves for the `continuation` block after it."""

    def __init__(self):
        self._chain = None  # (markdown file, source run so far, the namespace it left)

    def runtest(self, test, args, *, asyncio_runner=None):
        chain, self._chain = self._chain, None
        if chain is not None and chain[0] == test.source_path and test.source.startswith(chain[1]):
            _, done, namespace = chain
            for name, value in args.items():  # fixtures the block asked for
                namespace.setdefault(name, value)
            # the new lines only, at their own line numbers in the page
            new = "\n" * done.count("\n") + test.source[len(done) :]
            exec(compile(new, filename=test.source_path, mode="exec", dont_inherit=True), namespace)
        else:
            namespace = args  # the plugin's run: the whole chain, in `args` as its globals
            super().runtest(test, args, asyncio_runner=asyncio_runner)
        self._chain = (test.source_path, test.source, namespace)
