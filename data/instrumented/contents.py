"""Contents of a foreign kernel's buffers: the same in its sizing runs and in its measurement.

A kernel found in the wild may index one buffer with the values of another (``x[col[j]]``,
``hist[data[i]]``, a BFS's ``edges[e]``) or loop between two entries of a row-pointer array
(``for (j = ptr[i]; j < ptr[i + 1]; j++)``). Its extents then depend on the buffers' contents, so the
bounds-checked sizing runs (:mod:`kgraph.data.instrumented.extents`) and the measurement must see the
same contents: both fill every buffer with :func:`buffer_contents`. Values depend only on the
buffer's name, its role and the element index (never on the buffer's length), so a longer buffer of a
later sizing run starts with the same values as a shorter one: the final sizing run, which touched
nothing outside its buffers, read exactly what the measurement reads.

Roles (:func:`index_roles`, a reading of the source): an integer buffer whose element is used inside
another subscript, or assigned to a variable that is, holds **indices**: filled with valid indices
``[0, index_range)``. One read at ``[... + 1]`` or in a ``for`` header holds **row offsets**: filled
monotone from 0 (CSR row pointers, 0 to 8 entries a row). Other integers are uniform in [0, 100),
floats uniform in [-1, 1).
"""
from __future__ import annotations

import re
import zlib

import numpy as np

ROW_MAX = 8                 # entries per row of a row-offset buffer: uniform in [0, ROW_MAX]
PLAIN_INT_RANGE = 100       # other integer buffers: uniform in [0, 100)
MAX_INDEX_RANGE = 1 << 24   # the index range of index buffers is capped at this


def _mix(seed: int, count: int) -> np.ndarray:
    """``count`` pseudo-random uint64 words, word ``i`` a function of ``(seed, i)`` only (splitmix64)."""
    with np.errstate(over="ignore"):
        x = (np.arange(count, dtype=np.uint64) + np.uint64(seed & 0xFFFFFFFF) * np.uint64(1 << 32))
        x = x * np.uint64(0x9E3779B97F4A7C15)
        x ^= x >> np.uint64(30)
        x = x * np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x = x * np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    return x


def buffer_contents(name: str, dtype, count: int, role: str | None, index_range: int) -> np.ndarray:
    """The values of buffer ``name`` (``count`` scalars of ``dtype``), see the module docstring.

    Args:
        name: the parameter; dtype: numpy dtype of one scalar; count: scalars (elements × vector
        width); role: "index", "rows" or None; index_range: indices are drawn from ``[0, index_range)``.
    """
    dtype = np.dtype(dtype)
    words = _mix(zlib.crc32(name.encode()), count)
    if dtype.kind == "f":
        return ((words >> np.uint64(11)).astype(np.float64) / float(1 << 53) * 2.0 - 1.0).astype(dtype)
    if dtype.kind == "b":
        return (words & np.uint64(1)).astype(dtype)
    if role == "rows":
        steps = (words % np.uint64(ROW_MAX + 1)).astype(np.int64)
        values = np.concatenate([[0], np.cumsum(steps[:-1])]) if count else steps
    elif role == "index":
        values = (words % np.uint64(max(1, min(index_range, MAX_INDEX_RANGE)))).astype(np.int64)
    else:
        values = (words % np.uint64(PLAIN_INT_RANGE)).astype(np.int64)
    high = np.iinfo(dtype).max
    return np.minimum(values, high).astype(dtype)


def _subscript_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the inside of every balanced ``[...]`` of ``text``."""
    spans, stack = [], []
    for pos, char in enumerate(text):
        if char == "[":
            stack.append(pos + 1)
        elif char == "]" and stack:
            spans.append((stack.pop(), pos))
    return spans


def _inside(spans, pos: int) -> bool:
    return any(start <= pos < end for start, end in spans)


def index_roles(text: str, int_buffers: list[str]) -> dict[str, str]:
    """``{buffer: "index" | "rows"}`` for the integer buffers whose values index other accesses.

    Args:
        text: the kernel's source (array-pointer views flattened); int_buffers: names of the integer
            global buffer parameters.
    """
    spans = _subscript_spans(text)
    headers = [m.span() for m in re.finditer(r"\bfor\s*\([^;]*;[^;]*;", text)]
    roles = {}
    for name in int_buffers:
        reads = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\s*\[", text)]
        if not reads:
            continue
        if re.search(rf"(?<![\w.]){re.escape(name)}\s*\[[^\[\]]*\+\s*1\s*\]", text) or \
                any(start <= pos < end for pos in reads for start, end in headers):
            roles[name] = "rows"
        elif any(_inside(spans, pos) for pos in reads) or _feeds_subscript(text, name, spans):
            roles[name] = "index"
    return roles


def _feeds_subscript(text: str, name: str, spans) -> bool:
    """True when a variable assigned from ``name[...]`` is used inside a subscript."""
    for match in re.finditer(rf"(?<![\w.])([A-Za-z_]\w*)\s*=\s*{re.escape(name)}\s*\[", text):
        var = match.group(1)
        for use in re.finditer(rf"(?<![\w.]){re.escape(var)}(?!\w)", text[match.end():]):
            if _inside(spans, match.end() + use.start()):
                return True
    return False


def kernel_roles(text: str, params) -> dict[str, str]:
    """:func:`index_roles` of a kernel's integer global buffers.

    Args:
        text: the source (array-pointer views are flattened here); params: the kernel's parameters.
    """
    from kgraph.data.dtypes import NUMPY_DTYPES

    from .casts import flatten_array_casts

    ints = [p.name for p in params if p.is_pointer and p.address_space != "local"
            and np.dtype(NUMPY_DTYPES.get(p.base_type, "uint8")).kind in "iu"]
    return index_roles(flatten_array_casts(text), ints)


def default_index_range(global_size) -> int:
    """Indices of index buffers lie in ``[0, work-items of the launch)`` (capped at ``MAX_INDEX_RANGE``)."""
    return max(1, min(int(np.prod([int(g) for g in global_size])), MAX_INDEX_RANGE))


def role_hint(roles: dict[str, str], index_range: int) -> str:
    """A sentence naming the buffers filled as indices or row offsets (empty when none)."""
    if not roles:
        return ""
    parts = [f"'{name}' (" + ("valid indices in [0, %d)" % index_range if role == "index"
                              else f"monotone row offsets, 0 to {ROW_MAX} a row") + ")"
             for name, role in sorted(roles.items())]
    return ("; its indices depend on data: buffer(s) " + ", ".join(parts) + " were filled as such. Give "
            "--buffer NAME=ELEMENTS for every buffer to skip the sizing run, and --arg for the scalars "
            "that bound the indices")
