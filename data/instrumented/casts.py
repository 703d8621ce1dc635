"""Array-pointer views of buffers, flattened so that the bounded instrumentation sees every access.

Public benchmark code (NPB, PolyBench ports) often views a flat buffer as a multi-dimensional array:

    __global double (*d)[13][13][5] = (__global double (*)[13][13][5]) a;
    ... d[i][j][k][m] ...
    ... ((__global float (*)[N]) b)[i][j] ...

The access ``d[i][j][k][m]`` goes to buffer ``a``, but through a variable the instrumentation does not
know as a buffer, so it can neither count it nor bounds-check it. :func:`flatten_array_casts` rewrites
the source (for the sizing run only; the measurement builds the original) so that every full
subscript of such a view becomes one flat subscript of the buffer itself:
``a[(((i) * (13) + (j)) * (13) + (k)) * (5) + (m)]``, in the buffer's element units. The dimension
expressions are copied as written (macros stay macros). A view that is used other than fully
subscripted (passed on, partly subscripted, reassigned) is reported by :func:`unfollowed_views`, so
the caller can refuse the sizing run with a message instead of running an unchecked access.
"""
from __future__ import annotations

import re

_QUAL = r"(?:(?:__global|global|__constant|constant|const|volatile|restrict|__restrict)\s+)*"
_TYPE = r"(?:unsigned\s+|signed\s+)?[A-Za-z_]\w*"
_DIMS = r"((?:\s*\[[^\[\]]+\])+)"
# the cast itself: ``(QUAL TYPE QUAL (*)[d1][d2]...)``
_CAST = rf"\(\s*{_QUAL}{_TYPE}\s*{_QUAL}\(\s*\*\s*\)\s*{_DIMS}\s*\)"
# ``QUAL TYPE (*name)[d1]... = (cast) buffer;``
_DECL = re.compile(rf"{_QUAL}{_TYPE}\s*{_QUAL}\(\s*\*\s*(?P<name>[A-Za-z_]\w*)\s*\)\s*(?P<dims>(?:\s*\[[^\[\]]+\])+)"
                   rf"\s*=\s*{_CAST}\s*\(?\s*(?P<buf>[A-Za-z_]\w*)\s*\)?\s*;")
# ``((cast) buffer)[...]`` or ``((cast)buffer)[...]`` used inline
_INLINE = re.compile(rf"\(\s*{_CAST}\s*(?P<buf>[A-Za-z_]\w*)\s*\)(?=\s*\[)")


def _dims(text: str) -> list[str]:
    """The dimension expressions of ``[a][b]...`` (in order)."""
    return [d.strip() for d in re.findall(r"\[([^\[\]]+)\]", text)]


def _subscripts(source: str, start: int, count: int) -> tuple[list[str], int] | None:
    """``count`` balanced ``[...]`` groups starting at ``source[start:]`` (after blanks): their texts and
    the end position; None when fewer follow.

    Args:
        source: the text; start: where the first ``[`` may begin; count: how many groups to read.
    """
    out, pos = [], start
    for _ in range(count):
        while pos < len(source) and source[pos] in " \t\r\n":
            pos += 1
        if pos >= len(source) or source[pos] != "[":
            return None
        depth, begin = 0, pos
        while pos < len(source):
            depth += {"[": 1, "]": -1}.get(source[pos], 0)
            pos += 1
            if depth == 0:
                break
        else:
            return None
        out.append(source[begin + 1:pos - 1])
    return out, pos


def _flat(subs: list[str], dims: list[str]) -> str:
    """The flat element index of subscripts ``subs`` into a view whose inner dimensions are ``dims``."""
    index = f"({subs[0]})"
    for sub, dim in zip(subs[1:], dims):
        index = f"({index} * ({dim}) + ({sub}))"
    return index


def _rewrite_uses(source: str, pattern: re.Pattern, buffer: str, dims: list[str]) -> str:
    """Every full subscript of a view (matches of ``pattern`` followed by ``len(dims) + 1`` groups)
    rewritten as ``buffer[flat index]``; other uses are left as they are."""
    out, pos = [], 0
    for match in pattern.finditer(source):
        if match.start() < pos:
            continue
        found = _subscripts(source, match.end(), len(dims) + 1)
        if found is None:
            continue
        subs, end = found
        subs = [flatten_array_casts(s) for s in subs]
        out.append(source[pos:match.start()])
        out.append(f"{buffer}[{_flat(subs, dims)}]")
        pos = end
    out.append(source[pos:])
    return "".join(out)


def flatten_array_casts(source: str) -> str:
    """``source`` with every fully subscripted array-pointer view of a buffer written as a flat subscript
    of the buffer (see the module docstring); the view declarations stay (unused views are harmless).

    Args:
        source: OpenCL C text (already preprocessed or not: dimension expressions are copied).
    """
    while True:
        inline = _INLINE.search(source)
        if inline is None:
            break
        found = _subscripts(source, inline.end(), len(_dims(inline.group(1))) + 1)
        if found is None:
            break
        subs, end = found
        flat = _flat([flatten_array_casts(s) for s in subs], _dims(inline.group(1)))
        source = f"{source[:inline.start()]}{inline.group('buf')}[{flat}]{source[end:]}"
    for decl in reversed(list(_DECL.finditer(source))):  # a later view of the same name first
        name, dims = decl.group("name"), _dims(decl.group("dims"))
        use = re.compile(rf"(?<![\w.>]){re.escape(name)}(?!\w)(?=\s*\[)")
        head, tail = source[:decl.end()], source[decl.end():]
        source = head + _rewrite_uses(tail, use, decl.group("buf"), dims)
    return source


def unfollowed_views(source: str) -> list[str]:
    """Names of array-pointer views (declared by a cast of a buffer) still used other than in their
    declaration after :func:`flatten_array_casts`: their accesses would not be bounds-checked.

    Args:
        source: the flattened text.
    """
    names = []
    for decl in _DECL.finditer(source):
        name = decl.group("name")
        rest = source[decl.end():]
        if re.search(rf"(?<![\w.>]){re.escape(name)}(?!\w)", rest):
            names.append(name)
    if _INLINE.search(source):
        names.append(_INLINE.search(source).group("buf"))
    return names
