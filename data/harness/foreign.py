"""Measure a kernel nobody wrote host code for (``kgraph measure``).

The kernel's parameters come from the project's parser. Scalars take ``--arg NAME=VALUE`` or a
default (integers: the NDRange's total work-items in dim 0, floats: 1.0). Buffer element counts
take ``--buffer NAME=ELEMENTS`` (or ``--arg NAME=ELEMENTS``); when every global buffer has one, no
probe runs. Otherwise the missing extents come from instrumented sizing runs on PoCL
(:func:`kgraph.data.instrumented.extents.infer_extents`: every access bounds-checked against the
buffers it allocates, buffers grown until the recorded extents are stable); when that cannot be
done the command says why and names the buffers that need a size. ``__local`` pointers default to
one element per work-item of the group. ``-D NAME=VALUE`` macros reach the parser, the probe and the
OpenCL build. Inputs are those of the sizing run (:mod:`kgraph.data.instrumented.contents`: integer
buffers read as indices hold valid indices, row-pointer-like ones monotone offsets, floats uniform in
[-1, 1)), so the measured launch stays inside the extents the bounds-checked run found. Vector scalars
(``uint2``, ``float4``) take ``--arg NAME=a,b,...``. Rows of the foreign test set's kernels
(:mod:`kgraph.data.foreign_set`) carry the id ``foreign_set.<kernel>`` (never trained on). There is no
reference, so no correctness check.

Every argument is checked before any device work (finite scalars that fit their type, positive
whole sizes below ``MAX_ELEMENTS``). The sizing run, the build and the launch happen in the
campaign's worker process (:func:`serve_foreign`, driven by
:func:`kgraph.data.harness.foreign_run.measure_foreign` with timeouts), never in the command's own.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from kgraph.data.corpus.spec import KernelSpec
from kgraph.data.dtypes import NUMPY_DTYPES
from kgraph.errors import KGraphError, MeasurementError, UsageError

MAX_ELEMENTS = 2**48          # a buffer or local size above this is refused before any device work
DEFAULT_TIMEOUT_S = 60.0      # ``kgraph measure --timeout-s``: one launch's measurement, one sizing run
BUILD_TIMEOUT_S = 120.0       # parsing and building in the worker (at least --timeout-s)
SIZING_BUILD_S = 30.0         # a sizing run may take this much longer: it builds its instrumented program


def foreign_spec(path: str, kernel: str, global_size: list[int], local_size: list[int] | None,
                 given: dict[str, str], buffers: dict[str, str] | None = None,
                 defines: dict[str, str] | None = None, extents: dict[str, int] | None = None):
    """A ``KernelSpec`` for kernel ``kernel`` of ``path`` at one launch (sizes fixed).

    Args:
        given: ``--arg`` values (scalars, or element counts of buffer/local arguments).
        buffers: ``--buffer`` element counts of global buffers; defines: ``-D`` macros.
        extents: element counts of the buffers without a given size, from an earlier sizing run
            (None: a sizing run here when some buffer has no size).

    Every value is checked before any device work: scalars must be finite and fit their type,
    sizes must be positive whole numbers (UsageError naming the option otherwise).
    """
    unit, params = _kernel_params(path, kernel, defines)
    sizes, unsized = _check_arguments(kernel, params, global_size, local_size, given, buffers)
    if unsized and extents is None:
        extents, index_range = _inferred_extents(unit, kernel, global_size, local_size, given, unsized, defines)
        return _assemble(unit, kernel, params, global_size, local_size, given, sizes, extents, index_range)
    return _assemble(unit, kernel, params, global_size, local_size, given, sizes, extents or {})


def unsized_buffers(path: str, kernel: str, global_size: list[int], local_size: list[int] | None,
                    given: dict[str, str], buffers: dict[str, str] | None = None,
                    defines: dict[str, str] | None = None) -> list[str]:
    """The global buffers a sizing run must size (every argument checked as :func:`foreign_spec` does,
    with no device work).

    Args: as :func:`foreign_spec`.
    """
    _, params = _kernel_params(path, kernel, defines)
    return _check_arguments(kernel, params, global_size, local_size, given, buffers)[1]


def scalar_args(path: str, kernel: str, global_size: list[int], given: dict[str, str],
                defines: dict[str, str] | None = None) -> dict[str, str]:
    """Every scalar argument of ``kernel`` as measure passes it: ``given`` where set, else the default
    (integers: the NDRange's dim 0, floats: 1.0), so a model asked about the same launch sees the
    same values.

    Args: as :func:`foreign_spec`.
    """
    _, params = _kernel_params(path, kernel, defines)
    return {p.name: str(given.get(p.name, _default_scalar(p, global_size))) for p in params if not p.is_pointer}


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


def _assemble(unit, kernel: str, params, global_size, local_size, given: dict, sizes: dict, extents: dict,
              index_range: int | None = None):
    """The ``KernelSpec`` of the checked arguments (see :func:`foreign_spec`).

    Args:
        unit: the parsed file; kernel, params: the kernel and its parameters; global_size, local_size:
        the launch; given: ``--arg`` values; sizes: given buffer sizes; extents: sized-run results;
        index_range: the range of index-like buffers' values the sizing run used (None: the default).
    """
    from kgraph.data.corpus.spec import Arg

    args, vectors = [], {}
    for p in params:
        dtype = NUMPY_DTYPES[p.base_type]
        if not p.is_pointer:
            values = _components(p, given.get(p.name, _default_scalar(p, global_size)))
            args.append(Arg(p.name, "scalar", dtype, values[0]))
            if p.vector_width > 1:
                vectors[p.name] = _vector_bytes(values, dtype)
        elif p.address_space == "local":
            count = _count(given.get(p.name, _default_local(local_size)), p.name)
            args.append(Arg(p.name, "local", dtype, str(count * p.vector_width)))
        else:
            count = sizes.get(p.name, extents.get(p.name))
            # a buffer the kernel never touches at this launch still needs a (small) allocation
            count = max(_count(count, p.name, "--buffer"), 1) if count is not None else 1
            args.append(Arg(p.name, "buffer", dtype, str(count * p.vector_width), role="inout"))
    dims = len(global_size)
    make_inputs = _inputs_maker(unit, kernel, params, args, global_size, index_range)
    return ForeignSpec(kernel_id=_kernel_id(unit.text, kernel), family="foreign", variant={}, kernel_name=kernel,
                       source=unit.text, sizes={}, check_sizes={}, constraints=[], args=args,
                       global_size=[str(g) for g in global_size],
                       local_sizes=[list(local_size)] if local_size else [[1] * dims],
                       reference=lambda inputs, sizes: {}, make_inputs=make_inputs, vectors=vectors)


@dataclass
class ForeignSpec(KernelSpec):
    """A foreign kernel's spec: a ``KernelSpec`` whose vector scalars (``uint2``, ``float4``) are passed
    as their bytes.

    Args:
        vectors: the bytes of each vector scalar argument, by name (its ``Arg`` holds lane 0, for the
            row and the static counts).
    """

    vectors: dict = field(default_factory=dict)

    def scalar_values(self, sizes: dict) -> dict:
        """Every scalar argument's value: numpy scalars, ``numpy.void`` bytes for vectors."""
        values = super().scalar_values(sizes)
        values.update({name: VectorValue(data) for name, data in self.vectors.items()})
        return values


class VectorValue(bytes):
    """A vector scalar argument: its bytes (what the OpenCL launch takes) with ``item()`` giving the
    lanes, as a numpy scalar's does (for the row's ``args`` column)."""

    def __new__(cls, data: tuple):
        obj = super().__new__(cls, data[0])
        obj.lanes = list(data[1])
        return obj

    def item(self) -> list:
        return self.lanes


def _kernel_id(source: str, kernel: str) -> str:
    """``foreign_set.<kernel>`` for a kernel of the project's foreign test set (never trained on, see
    :func:`kgraph.data.foreign_set.is_foreign_set_source`), else ``foreign.<kernel>``."""
    from kgraph.data.foreign_set import is_foreign_set_source

    return f"foreign_set.{kernel}" if is_foreign_set_source(source) else f"foreign.{kernel}"


def _inputs_maker(unit, kernel: str, params, args, global_size, index_range: int | None = None):
    """``make_inputs`` of a foreign spec: every buffer holds what the sizing run's buffers held
    (:func:`kgraph.data.instrumented.contents.buffer_contents`, index-like buffers valid indices).

    Args:
        unit: the parsed file; kernel: the kernel; params: its parameters; args: the spec's ``Arg``s;
        global_size: the launch; index_range: see :func:`_assemble`.
    """
    from kgraph.data.instrumented.contents import buffer_contents, default_index_range, kernel_roles

    roles = kernel_roles(unit.text, params)
    index_range = index_range or default_index_range(global_size)
    buffers = [(a.name, a.dtype, int(a.count)) for a in args if a.kind == "buffer"]

    def make_inputs(rng, sizes):
        return {name: buffer_contents(name, dtype, count, roles.get(name), index_range)
                for name, dtype, count in buffers}

    return make_inputs


def _components(param, value) -> list[str]:
    """The checked component literals of a scalar's ``--arg`` value: one for a plain scalar, the
    vector's width for ``uint2``/``float4`` (``a,b``; one value is repeated in every lane).

    Args:
        param: the parsed parameter; value: the ``--arg`` text (or the default).
    """
    dtype = NUMPY_DTYPES[param.base_type]
    parts = [v for v in str(value).split(",")]
    width = param.vector_width
    if width == 1 and len(parts) > 1:
        raise UsageError(f"--arg {param.name}={value}: {param.base_type} is a scalar, give one number")
    if width > 1 and len(parts) not in (1, width):
        raise UsageError(f"--arg {param.name}={value}: {param.base_type}{width} needs {width} comma-separated "
                         f"values (or one for every lane)")
    values = [_scalar(v, param.name, dtype) for v in parts]
    return values * width if len(values) == 1 and width > 1 else values


def _vector_bytes(values: list[str], dtype: str) -> tuple:
    """``(bytes, lanes)`` of a vector scalar argument (a 3-vector takes the room of 4, as OpenCL lays
    it out)."""
    lanes = [float(v) if np.dtype(dtype).kind == "f" else int(v) for v in values]
    arr = np.array(lanes, dtype=dtype)
    if arr.size == 3:
        arr = np.concatenate([arr, np.zeros(1, dtype)])
    return arr.tobytes(), tuple(lanes)


def _default_scalar(param, global_size) -> str:
    """A scalar's value when ``--arg`` gives none: integers the NDRange's dim 0, floats 1.0."""
    return str(global_size[0]) if np.dtype(NUMPY_DTYPES[param.base_type]).kind in "iub" else "1.0"


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


def _inferred_extents(unit, kernel, global_size, local_size, given, unsized, defines) -> tuple[dict, int]:
    """``(extents, index_range)``: element counts of the buffers without given sizes, from bounded
    instrumented sizing runs (PoCL or the first OpenCL device), and the range the index-like buffers'
    values were drawn from. That range is the launch's work-items, else (when the extents run away
    and some buffer holds indices) its largest dimension: indices often run along one dimension
    (a neighbour table of the rows). Raises a MeasurementError naming the buffers that need
    ``--buffer`` when the runs cannot tell; the kernel's build log when it does not build.

    Args: as :func:`foreign_spec` (``unsized``: the buffers to size).
    """
    from kgraph.data.instrumented.contents import default_index_range, kernel_roles
    from kgraph.data.instrumented.extents import ExtentsRunaway, infer_extents
    from kgraph.data.instrumented.launch import BuildError

    function = next(f for f in unit.kernels if f.name == kernel)
    scalars, local_bytes = {}, {}
    for p in function.params:
        dtype = NUMPY_DTYPES[p.base_type]
        if not p.is_pointer:
            values = [int(v) if np.dtype(dtype).kind in "iub" else float(v)
                      for v in _components(p, given.get(p.name, _default_scalar(p, global_size)))]
            scalars[p.name] = values if p.vector_width > 1 else values[0]
        elif p.address_space == "local":
            elems = _count(given.get(p.name, _default_local(local_size)), p.name)
            local_bytes[p.name] = elems * p.vector_width * np.dtype(dtype).itemsize
    ranges = [default_index_range(global_size)]
    if kernel_roles(unit.text, function.params) and max(global_size) < ranges[0]:
        ranges.append(max(global_size))
    for attempt, index_range in enumerate(ranges):
        try:
            extents, _ = infer_extents(unit.text, kernel, global_size, local_size, scalars, local_bytes=local_bytes,
                                       filename=unit.filename, defines=defines, index_range=index_range)
            return {name: elements for name, elements in extents.items() if elements > 0}, index_range
        except (BuildError, UsageError):
            raise
        except ExtentsRunaway as exc:
            if attempt + 1 < len(ranges):
                continue
            raise MeasurementError(f"cannot infer the size of buffer(s) {', '.join(unsized)}: {exc}\n"
                                   f"give --buffer NAME=ELEMENTS for each") from None
        except KGraphError as exc:
            raise MeasurementError(f"cannot infer the size of buffer(s) {', '.join(unsized)}: {exc}\n"
                                   f"give --buffer NAME=ELEMENTS for each") from None
    raise AssertionError("unreachable: the last index range returns or raises")


def _with_defines(source: str, defines: dict | None) -> str:
    """``source`` with ``#define`` lines for command-line macros in front (for the static analysis)."""
    if not defines:
        return source
    return "".join(f"#define {k} {v if v not in (None, '') else 1}\n" for k, v in defines.items()) + source


@dataclass(frozen=True)
class ForeignRequest:
    """What ``kgraph measure`` asks for, sent as is to the measuring worker (picklable).

    Args: as :func:`foreign_spec`.
    """

    path: str
    kernel: str
    global_size: tuple
    local_size: tuple | None
    given: dict
    buffers: dict
    defines: dict

    def spec(self, extents: dict | None = None):
        """The request's ``KernelSpec`` (a sizing run here unless ``extents`` sizes every buffer)."""
        return foreign_spec(self.path, self.kernel, list(self.global_size), self._local(),
                            dict(self.given), dict(self.buffers), dict(self.defines), extents)

    def unsized(self) -> list[str]:
        """Buffers without a given size (every argument checked; no device work)."""
        return unsized_buffers(self.path, self.kernel, list(self.global_size), self._local(),
                               dict(self.given), dict(self.buffers), dict(self.defines))

    def sized_spec(self) -> tuple:
        """``(spec, extents)``: the spec after the sizing run (when one is needed) and the element counts
        that run found (parameter units, ``{}`` without one)."""
        unit, params = _kernel_params(self.path, self.kernel, self.defines)
        sizes, unsized = _check_arguments(self.kernel, params, self.global_size, self._local(),
                                          self.given, self.buffers)
        extents, index_range = (_inferred_extents(unit, self.kernel, list(self.global_size), self._local(),
                                                   self.given, unsized, self.defines) if unsized else ({}, None))
        extents = {name: count for name, count in extents.items() if name in unsized}
        spec = _assemble(unit, self.kernel, params, list(self.global_size), self._local(), self.given,
                         sizes, extents, index_range)
        return spec, extents

    def _local(self) -> list[int] | None:
        return list(self.local_size) if self.local_size else None


def serve_foreign(conn, ctx, queue, device_id: str, policy, request: ForeignRequest) -> None:
    """Worker side of ``kgraph measure`` (called by :func:`~kgraph.data.harness.worker.worker_main`).

    Sends ``("sized", extents)`` after the sizing run (if any), ``("prepared", "ok", "")`` after the
    build, ``("start", key)`` and ``("row", row)`` for the launch, then ``("done", phases)``;
    ``("error", kind, message)`` instead when the request cannot be measured (``kind``: the
    exception's class name).

    Args:
        conn: the pipe to the supervisor; ctx, queue: the worker's OpenCL context and profiling queue;
        device_id: the device's slug; policy: ``TimingPolicy``; request: the ``ForeignRequest``.
    """
    import time

    phases = {}
    try:
        start = time.perf_counter()
        spec, extents = request.sized_spec()
        if extents:
            phases["sizing run"] = time.perf_counter() - start
        conn.send(("sized", extents))
        runner = _built_runner(ctx, queue, device_id, spec, policy, request.defines)
    except KGraphError as exc:
        conn.send(("error", type(exc).__name__, str(exc)))
        return
    except Exception as exc:  # noqa: BLE001 - a bug must reach the user as a message, not kill the worker
        conn.send(("error", "internal", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("prepared", "ok", ""))
    config = _config_of(spec, request)
    try:
        for row in runner.measure([config], on_start=lambda key: conn.send(("start", key))):
            conn.send(("row", row))
    except Exception as exc:  # noqa: BLE001 - e.g. a driver error while writing the inputs
        conn.send(("row", _error_row(runner, config, exc)))
    phases.update(runner.phases)
    conn.send(("done", phases))


def _error_row(runner, config, exc: Exception) -> dict:
    """The row of a launch whose inputs or buffers failed outside the launch itself.

    Args:
        runner: the ``KernelRunner``; config: the launch; exc: what was raised (a ``pyopencl.Error``
            gives ``out_of_resources`` or ``launch_error``, anything else ``launch_error``).
    """
    import pyopencl as cl

    from .runner import base_row, status_of_cl_error

    row = base_row(runner.device_id, runner.spec, config, runner.source_id)
    status = status_of_cl_error(exc) if isinstance(exc, cl.Error) else (
        "out_of_resources" if isinstance(exc, MemoryError) else "launch_error")
    row.update(status=status, message=f"{type(exc).__name__}: {str(exc)[:2000]}")
    return row


def _built_runner(ctx, queue, device_id: str, spec, policy, defines: dict):
    """A ``KernelRunner`` with the kernel built under the request's macros (MeasurementError with the
    whole build log when it does not build)."""
    import pyopencl as cl

    from kgraph.data.instrumented.extents import build_options

    from .runner import KernelRunner

    runner = KernelRunner(ctx, queue, device_id, spec, policy)
    try:
        runner.program = cl.Program(ctx, spec.source).build(options=build_options(defines))
    except cl.Error as err:
        raise MeasurementError(f"kernel '{spec.kernel_name}' does not build on {device_id}:\n"
                               f"{str(err).strip()}") from None
    return runner


def _config_of(spec, request: ForeignRequest):
    """The one ``LaunchConfig`` of a request."""
    from .sampling import LaunchConfig

    local = tuple(request.local_size) if request.local_size else tuple(spec.local_sizes[0])
    return LaunchConfig((), tuple(request.global_size), local)
