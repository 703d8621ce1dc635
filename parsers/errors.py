"""The project's own exception types (shared by every package of kgraph).

Every entry point catches :class:`KGraphError` and prints its message; no traceback
ever reaches a user for bad input.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One message about a source file, printed as ``file:line:col: severity: message``.

    ``line`` and ``col`` are 1-based, as compilers print them.
    """

    file: str
    line: int
    col: int
    severity: str  # "error" | "warning" | "note"
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"


class KGraphError(Exception):
    """Base class of every error kgraph raises on purpose."""


class InputError(KGraphError):
    """The input cannot be read as a kernel source (empty, binary, not UTF-8, too large, missing)."""


class SourceError(KGraphError):
    """The source has syntax errors; ``diagnostics`` holds one entry per error."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class LimitError(SourceError):
    """The source exceeds one of the front end's documented limits (``kgraph.parsers.limits``: nesting
    depth, statement count, syntax-tree size, constant magnitude); ``diagnostics`` holds one entry with
    the position of the first construct past the limit."""


class UsageError(KGraphError):
    """A command-line option is missing or wrong; the message names the option and why."""


class MeasurementError(KGraphError):
    """A kernel could not be built, launched or checked on a device."""


class ModelError(KGraphError):
    """A model or checkpoint cannot be loaded or does not fit the data it is given."""


def run_guarded(fn, prog: str = "kgraph") -> int:
    """Run a command's ``fn() -> int | None`` as every kgraph entry point does: a :class:`UsageError` is
    one line and exit 2, any other :class:`KGraphError` its message and exit 1, Ctrl-C exit 130, a closed
    output pipe exit 0; never a traceback for those."""
    import os
    import sys

    try:
        return int(fn() or 0)
    except UsageError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KGraphError as exc:
        print(f"{prog}: error: {exc}" if "\n" not in str(exc) else str(exc), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def module_main(argv: list[str] | None, prog: str, description: str, add_arguments, run) -> int:
    """The ``python -m`` entry of a module that is also a ``kgraph`` sub-command: the same options and the
    same guard as ``kgraph <command>``, so both spellings parse and fail alike.

    Args:
        argv: the arguments (``None``: the process's own command line).
        prog: the program name printed in usage and error lines (``python -m <module>``).
        description: the parser's one-line description.
        add_arguments: the module's ``add_arguments(parser)``, also used by the ``kgraph`` dispatcher.
        run: the module's ``run(args) -> int``, called through :func:`run_guarded`.
    """
    import argparse

    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_guarded(lambda: run(args), prog)
