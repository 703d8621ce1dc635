"""Options several commands share: ``-D NAME[=VALUE]`` macros."""
from __future__ import annotations

import re

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
