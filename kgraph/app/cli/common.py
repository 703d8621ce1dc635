"""Options several commands share: ``-D NAME[=VALUE]`` macros, ``--no-progress`` and the progress bar."""
from __future__ import annotations

import re
import sys

from kgraph.errors import UsageError

_NAME = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")


def add_define_option(parser) -> None:
    """``-D NAME[=VALUE]`` (repeatable), as a C compiler takes it."""
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="define a preprocessor macro (repeatable; VALUE defaults to 1), e.g. -D TILE=16")


def parse_defines(items) -> dict[str, str]:
    """``["TILE=16", "USE_FMA"]`` -> ``{"TILE": "16", "USE_FMA": "1"}``; UsageError for a bad name."""
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = str(item).partition("=")
        name = name.strip()
        if not _NAME.match(name):
            raise UsageError(f"-D {item}: expected NAME or NAME=VALUE with NAME a C identifier")
        out[name] = value.strip() if sep else "1"
    return out


def add_progress_option(parser) -> None:
    """``--no-progress``: no progress bar (there is none anyway when stderr is not a terminal)."""
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (default: one on stderr when stderr is a terminal)")


def progress_enabled(args=None) -> bool:
    """A bar is drawn only on a terminal's stderr and without ``--no-progress``; never on stdout."""
    if args is not None and getattr(args, "no_progress", False):
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def progress(args=None, total: int | None = None, desc: str = "", unit: str = "it"):
    """A tqdm bar on stderr (``update(n)``, ``set_postfix_str``, ``close``; a context manager), disabled
    (writes nothing) per :func:`progress_enabled`."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not progress_enabled(args),
                leave=False, dynamic_ncols=True, mininterval=0.2)
