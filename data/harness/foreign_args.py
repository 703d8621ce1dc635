"""Arguments of ``kgraph measure``'s kernel: the parsed parameters, their checks and their defaults.

Scalars take ``--arg NAME=VALUE`` or a default (integers: the NDRange's total work-items in dim 0,
floats: 1.0); vector scalars (``uint2``, ``float4``) ``--arg NAME=a,b,...``. Buffer element counts take
``--buffer NAME=ELEMENTS`` (or ``--arg NAME=ELEMENTS``); ``__local`` pointers default to one element per
work-item of the group. Every argument is checked before any device work (finite scalars that fit
their type, positive whole sizes below ``MAX_ELEMENTS``), with a UsageError naming the option.
"""
from __future__ import annotations

import math

import numpy as np

from kgraph.data.dtypes import NUMPY_DTYPES
from kgraph.errors import UsageError

MAX_ELEMENTS = 2**48          # a buffer or local size above this is refused before any device work


def _kernel_params(path: str, kernel: str, defines: dict | None):
    """``(unit, params)`` of ``kernel`` in ``path`` (UsageError when there is no such kernel).

    Args:
        path: the OpenCL C file; kernel: the function's name; defines: ``-D`` macros.
    """
    from kgraph import parsers

    unit = parsers.parse_file(path, defines=dict(defines or {}))
    unit.raise_on_errors()
    found = [f for f in unit.kernels if f.name == kernel]
    if not found:
        names = ", ".join(f.name for f in unit.kernels) or "none"
        raise UsageError(f"--kernel {kernel}: no such kernel in {path} (kernels: {names})")
    for p in found[0].params:
        if NUMPY_DTYPES.get(p.base_type) is None:
            raise UsageError(f"{path}: parameter {p.name} of type {p.base_type} is not supported by measure")
    return unit, found[0].params


def _check_arguments(kernel: str, params, global_size, local_size, given: dict, buffers: dict | None):
    """``(sizes, unsized)``: given element counts of global buffers, and the buffers without one.

    Args:
        kernel: the kernel's name; params: its parameters; global_size, local_size: the launch;
        given: ``--arg`` values; buffers: ``--buffer`` values.

    Raises UsageError for an unknown name, a scalar that is not a finite value of its type, or a size
    that is not a positive whole number.
    """
    unknown = sorted(set(given) - {p.name for p in params})
    if unknown:
        raise UsageError(f"--arg {unknown[0]}=...: {kernel} has no parameter {unknown[0]!r} "
                         f"(parameters: {', '.join(p.name for p in params)})")
    global_buffers = [p.name for p in params if p.is_pointer and p.address_space != "local"]
    for name in buffers or {}:
        if name not in global_buffers:
            raise UsageError(f"--buffer {name}=...: {kernel} has no global buffer parameter {name!r} "
                             f"(buffers: {', '.join(global_buffers) or 'none'})")
    sizes = {**{k: v for k, v in given.items() if k in global_buffers}, **dict(buffers or {})}
    for name, value in sizes.items():
        _count(value, name, "--buffer")
    for p in params:
        if not p.is_pointer:
            _components(p, given.get(p.name, _default_scalar(p, global_size)))
        elif p.address_space == "local":
            _count(given.get(p.name, _default_local(local_size)), p.name)
    return sizes, [n for n in global_buffers if n not in sizes]


def _components(param, value) -> list[str]:
    """The checked component literals of a scalar's ``--arg`` value: one for a plain scalar, the
    vector's width for ``uint2``/``float4`` (``a,b``; one value is repeated in every lane).

    Args:
        param: the parsed parameter; value: the ``--arg`` text (or the default).
    """
    dtype = NUMPY_DTYPES[param.base_type]
    width = param.vector_width
    values = [_scalar(v, param.name, dtype) for v in lane_parts(param, value)]
    return values * width if len(values) == 1 and width > 1 else values


def lane_parts(param, value, at: str = "") -> list[str]:
    """The comma-separated parts of a scalar parameter's value, checked against its lanes (the one rule of
    ``kgraph measure`` and ``kgraph estimate``): one number for a plain scalar; one (for every lane) or the vector's
    width for ``uint2``/``float4``.

    Args:
        param: the parsed parameter; value: the ``--arg`` text (or the default); at: message prefix.
    """
    parts = str(value).split(",")
    width = param.vector_width
    if len(parts) not in (1, width):
        kind = f"{param.base_type}{width if width > 1 else ''}"
        want = "one number" if width == 1 else f"{width} comma-separated numbers"
        every = f" ({kind} needs {width} comma-separated values, or one for every lane)" if width > 1 else ""
        raise UsageError(f"{at}--arg {param.name}={str(value)[:40]}: parameter {param.name} is {kind}; give {want}, "
                         f"not {len(parts)}{every}")
    return parts


def _default_scalar(param, global_size) -> str:
    """A scalar's value when ``--arg`` gives none: integers the NDRange's dim 0 (at most their type's largest
    value: a ``char`` flag gets 127), floats 1.0."""
    dtype = np.dtype(NUMPY_DTYPES[param.base_type])
    if dtype.kind not in "iub":
        return "1.0"
    return str(min(int(global_size[0]), 1 if dtype.kind == "b" else int(np.iinfo(dtype).max)))


def _default_local(local_size) -> int:
    """A ``__local`` pointer's element count when ``--arg`` gives none: one per work-item of the group."""
    return math.prod(local_size) if local_size else 256


def _scalar(value, name: str, dtype: str) -> str:
    """``value`` as the literal a ``KernelSpec`` holds; UsageError unless a finite value of ``dtype``.

    Args:
        value: the ``--arg`` text (or a default); name: the parameter; dtype: its numpy dtype name.
    """
    text = str(value).strip()
    try:
        number = float(text)
    except (TypeError, ValueError):
        raise UsageError(f"--arg {name}={value}: not a number") from None
    if not math.isfinite(number):
        raise UsageError(f"--arg {name}={value}: must be a finite number")
    kind = np.dtype(dtype).kind
    if kind in "iub":
        try:
            whole = int(text)
        except ValueError:
            if not number.is_integer():
                raise UsageError(f"--arg {name}={value}: {dtype} parameter needs a whole number") from None
            whole = int(number)
        info = np.iinfo(np.dtype(dtype)) if kind != "b" else None
        low, high = (0, 1) if info is None else (int(info.min), int(info.max))
        if not low <= whole <= high:
            raise UsageError(f"--arg {name}={value}: out of range for {dtype} ({low} .. {high})")
        return str(whole)
    limit = float(np.finfo(np.dtype(dtype)).max)
    if abs(number) > limit:
        raise UsageError(f"--arg {name}={value}: out of range for {dtype} (magnitude at most {limit:.4g})")
    return repr(number)


def _count(value, name, option: str = "--arg") -> int:
    """A buffer or local element count: a positive whole number (UsageError otherwise).

    Args:
        value: the given text or number; name: the parameter; option: the option it came from.
    """
    try:
        count = int(str(value).strip())
    except (TypeError, ValueError):
        raise UsageError(f"{option} {name}={value}: a buffer size must be a whole number of elements") from None
    if count <= 0:
        raise UsageError(f"{option} {name}={value}: a buffer size must be positive")
    if count > MAX_ELEMENTS:
        raise UsageError(f"{option} {name}={value}: more than {MAX_ELEMENTS} elements (2^48) is no buffer "
                         f"a device can hold")
    return count


def _with_defines(source: str, defines: dict | None) -> str:
    """``source`` with ``#define`` lines for command-line macros in front (for the static analysis)."""
    if not defines:
        return source
    return "".join(f"#define {k} {v if v not in (None, '') else 1}\n" for k, v in defines.items()) + source
