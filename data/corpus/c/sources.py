"""The text a C dataset stores for a corpus kernel: its file with ``kg_c.h`` resolved for its dtype.

The one definition, used by :meth:`kgraph.data.corpus.c.CKernel.source`, the C campaign and the repair of
older datasets (:mod:`kgraph.data.harness.c_sources`, whose module doc says why and how: ``FN(name)``
becomes ``name_s``/``name_d``, the dtype's macros ``REAL``/``KG_SQRT`` their values, the include a prelude
of the header's other ``#define`` lines).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)]*\))?[ \t]*(.*?)[ \t]*(?:/\*.*\*/)?[ \t]*$")
_FN = re.compile(r"\bFN\(\s*([A-Za-z_]\w*)\s*\)")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"kg_c\.h"[^\n]*$', re.MULTILINE)
#: header macros the prelude leaves out: the include guard and the symbol-name machinery FN resolves
_RESOLVED = {"KG_C_H", "KG_CAT_", "KG_CAT", "FN", "SFX"}


@lru_cache(maxsize=None)
def _header(header_text: str, dtype: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """(the dtype's object-like macros of the ``#ifdef KG_FP32`` block, the other ``#define`` lines)."""
    fp32 = dtype == "fp32"
    dtype_macros: dict[str, str] = {}
    kept: list[str] = []
    branch = None  # None outside the KG_FP32 block, else whether the current group is active
    for line in header_text.splitlines():
        stripped = line.strip()
        if re.match(r"#\s*ifdef\s+KG_FP32\b", stripped):
            branch = fp32
            continue
        if branch is not None and re.match(r"#\s*else\b", stripped):
            branch = not fp32
            continue
        if branch is not None and re.match(r"#\s*endif\b", stripped):
            branch = None
            continue
        match = _DEFINE.match(line)
        if match is None:
            continue
        name, params, body = match.groups()
        if branch is not None:
            if branch and params is None:
                dtype_macros[name] = body
        elif name not in _RESOLVED:
            kept.append(line.rstrip())
    if "REAL" not in dtype_macros or "SFX" not in dtype_macros:
        raise ValueError(f"kg_c.h defines no REAL/SFX for {dtype} (found {sorted(dtype_macros)})")
    return dtype_macros, tuple(kept)


def resolve_source(file_text: str, header_text: str, dtype: str, file_name: str = "") -> str:
    """The stored text of corpus file ``file_text`` compiled for ``dtype`` (``fp32``/``fp64``) with header
    ``header_text`` (see the module doc)."""
    if dtype not in ("fp32", "fp64"):
        raise ValueError(f"dtype {dtype!r}: fp32 or fp64")
    macros, kept = _header(header_text, dtype)
    suffix = macros["SFX"]
    values = {name: value for name, value in macros.items() if name != "SFX"}
    flag = " -DKG_FP32" if dtype == "fp32" else ""
    prelude = "\n".join([
        f"/* kgraph C corpus: {file_name or 'a C corpus file'} for {dtype} (cc{flag}), with kg_c.h resolved: "
        + ", ".join(f"{name} = {value}" for name, value in values.items()) + f", FN(name) = name{suffix} */",
        "#include <math.h>", *kept])
    text, count = _INCLUDE.subn(lambda _: prelude, file_text, count=1)
    if count == 0:
        text = prelude + "\n" + file_text
    text = _FN.sub(lambda m: m.group(1) + suffix, text)
    if values:
        text = re.sub(r"\b(" + "|".join(map(re.escape, values)) + r")\b", lambda m: values[m.group(1)], text)
    return text


def stored_source(kernel) -> str:
    """The text a dataset stores for catalog kernel ``kernel`` (a :class:`kgraph.data.corpus.c.CKernel`):
    its corpus file with ``kg_c.h`` resolved for its dtype."""
    c_dir = Path(__file__).resolve().parent
    return resolve_source((c_dir / kernel.file).read_text(), (c_dir / "kg_c.h").read_text(), kernel.dtype,
                          kernel.file)
