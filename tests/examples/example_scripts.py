"""Running a script of examples/ as a user would, from the repository root, on the sample data.

`run_example` starts `python examples/<script>` afresh: each script's first test runs it so, as a user
does. `run_example_in_this_process` runs the same `__main__` in the test's own process (its output
captured, its exit status from `SystemExit`): the scripts' other tests ask about their options and
results, not about a new interpreter, and skip the ~5 CPU-seconds a fresh Python + TensorFlow costs.
"""

import contextlib
import io
import os
import runpy
import subprocess
import sys
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_DATA = os.path.join(REPO, "docs", "sample_data")


def run_example(script, *arguments):
    """`python examples/<script> <arguments>` in the repository root: the finished process, its
    stdout and stderr as text (TensorFlow's C++ log silenced)."""
    return subprocess.run(
        [sys.executable, os.path.join(REPO, "examples", script), *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": REPO},
    )


def run_example_in_this_process(script, *arguments):
    """`run_example`'s answer without a new process: `examples/<script>` run as `__main__` here, from the
    repository root, with `sys.argv` = its path and `arguments`. The exit status is `SystemExit`'s code
    (argparse's 2 for a refused option), 1 with the traceback in stderr for an uncaught exception, else 0.

        finished = run_example_in_this_process("soup_dse.py", "--help")
        finished.returncode, finished.stdout  # 0, "usage: soup_dse.py ..."
    """
    path = os.path.join(REPO, "examples", script)
    stdout, stderr = io.StringIO(), io.StringIO()
    argv, cwd = sys.argv, os.getcwd()
    sys.argv = [path, *arguments]
    os.chdir(REPO)
    returncode = 0
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as ended:
                if isinstance(ended.code, str):
                    print(ended.code, file=sys.stderr)
                returncode = ended.code if isinstance(ended.code, int) else int(ended.code is not None)
            except Exception:
                traceback.print_exc()
                returncode = 1
    finally:
        sys.argv = argv
        os.chdir(cwd)
    return subprocess.CompletedProcess(
        [sys.executable, path, *arguments], returncode, stdout.getvalue(), stderr.getvalue()
    )
