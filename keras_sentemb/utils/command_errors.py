"""How every `keras-sentemb` command fails: argparse's errors as one line, and a handler's bad input (ValueError,
TypeError, OSError) or missing optional dependency as one `keras-sentemb COMMAND: error: …` line with exit status
2, never a traceback. Lean (no TensorFlow), so `keras-sentemb serve FOLDER` runs it too."""

import argparse
import os
import sys


class UsageError(Exception):
    """A command line argparse refuses: its one line."""


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse's parser (subcommands inherit the class), whose errors are one line — the option, its value and
    why, and where the usage is — which `main` prints with exit status 2, not argparse's usage block."""

    def error(self, message):
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def _reason(error):
    """One line for the user: the message, with what urllib and the OS leave out, and the
    exception's notes (e.g. where a failed download's bytes were kept)."""
    reason = getattr(error, "reason", None)  # urllib.error.URLError
    if reason is not None and not isinstance(error, ValueError):
        url = getattr(error, "url", None) or getattr(error, "filename", None)
        line = f"{url + ': ' if url else ''}{type(error).__name__}: {reason}"
    else:
        line = str(error) or type(error).__name__
    return "; ".join([line, *getattr(error, "__notes__", ())])


# Optional dependencies a command may need: the top-level module → the extra that installs it.
OPTIONAL_EXTRAS = {
    "apache_beam": "beam",
    "pyspark": "spark",
    "ray": "ray",
    "tensorflow_serving": "serving",
    "openvino": "openvino",
    "nncf": "openvino",
    "ai_edge_litert": "litert",
    "starlette": "server",
    "uvicorn": "server",
    "orjson": "server",
    "pydantic": "server",
    "prometheus_client": "server",
    "bm25s": "lexical",
    "Stemmer": "lexical",
}


def _missing_extra(error):
    """The error line for a missing optional dependency, naming the pip command; None for any other import."""
    if "keras-sentemb[" in str(error):  # the library already said which extra
        return str(error)
    cause = error
    while cause is not None:
        module = (getattr(cause, "name", None) or "").split(".")[0]
        if module in OPTIONAL_EXTRAS:
            return f'this command needs {module}, which is not installed: pip install "./keras-sentemb[{OPTIONAL_EXTRAS[module]}]"'
        cause = cause.__cause__ or cause.__context__
    return None


def run_command(command, handler, args):
    """`handler(args)`'s exit status (0 for None), or 2 with one error line naming `command` for bad input and
    for a missing optional dependency (its pip command)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        status = handler(args)
    except (ValueError, TypeError, OSError) as error:
        # OSError: missing or unreadable files, full disks and every network failure of a
        # store (URLError, HTTPError, timeouts, refused connections) end here, not in a traceback.
        print(f"keras-sentemb {command}: error: {_reason(error)}", file=sys.stderr)
        return 2
    except ImportError as error:
        message = _missing_extra(error)
        if message is None:
            raise
        print(f"keras-sentemb {command}: error: {message}", file=sys.stderr)
        return 2
    return status if isinstance(status, int) else 0
