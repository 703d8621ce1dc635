"""The ``KernelSpec`` of a foreign kernel at one launch, and the request ``kgraph measure`` sends for it.

Inputs are those of the sizing run (:mod:`kgraph.data.instrumented.contents`: integer buffers read as
indices hold valid indices, row-pointer-like ones monotone offsets, floats uniform in [-1, 1)), so the
measured launch stays inside the extents the bounds-checked run found (:mod:`.foreign_sizing`). Rows
of the foreign test set's kernels (:mod:`kgraph.data.foreign_set`) carry the id
``foreign_set.<kernel>`` (never trained on). There is no reference, so no correctness check.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kgraph.data.corpus.spec import KernelSpec
from kgraph.data.dtypes import NUMPY_DTYPES

from .foreign_args import _check_arguments, _components, _count, _default_local, _default_scalar, _kernel_params
from .foreign_sizing import _inferred_extents

def foreign_spec(path: str, kernel: str, global_size: list[int], local_size: list[int] | None,
                 given: dict[str, str], buffers: dict[str, str] | None = None,
                 defines: dict[str, str] | None = None, extents: dict[str, int] | None = None,
                 index_range: int | None = None):
    """A ``KernelSpec`` for kernel ``kernel`` of ``path`` at one launch (sizes fixed).

    Args:
        given: ``--arg`` values (scalars, or element counts of buffer/local arguments).
        buffers: ``--buffer`` element counts of global buffers; defines: ``-D`` macros.
        extents: element counts of the buffers without a given size, from an earlier sizing run
            (None: a sizing run here when some buffer has no size).
        index_range: with ``extents``, the range that run drew index-like buffers' values from (None: the default).

    Every value is checked before any device work: scalars must be finite and fit their type,
    sizes must be positive whole numbers (UsageError naming the option otherwise).
    """
    unit, params = _kernel_params(path, kernel, defines)
    sizes, unsized = _check_arguments(kernel, params, global_size, local_size, given, buffers)
    if unsized and extents is None:
        extents, index_range, _ = _inferred_extents(unit, kernel, global_size, local_size, given, unsized, defines)
        return _assemble(unit, kernel, params, global_size, local_size, given, sizes, extents, index_range)
    return _assemble(unit, kernel, params, global_size, local_size, given, sizes, extents or {}, index_range)


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


def _vector_bytes(values: list[str], dtype: str) -> tuple:
    """``(bytes, lanes)`` of a vector scalar argument (a 3-vector takes the room of 4, as OpenCL lays
    it out)."""
    lanes = [float(v) if np.dtype(dtype).kind == "f" else int(v) for v in values]
    arr = np.array(lanes, dtype=dtype)
    if arr.size == 3:
        arr = np.concatenate([arr, np.zeros(1, dtype)])
    return arr.tobytes(), tuple(lanes)


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
    index_range: int | None = None  # index-like buffers' values lie in [0, index_range) (None: the default)

    def spec(self, extents: dict | None = None, index_range: int | None = None):
        """The request's ``KernelSpec`` (a sizing run here unless ``extents`` sizes every buffer), its index-like
        buffers filled from ``[0, index_range)`` (else the request's range, else the launch's default)."""
        return foreign_spec(self.path, self.kernel, list(self.global_size), self._local(), dict(self.given),
                            dict(self.buffers), dict(self.defines), extents, index_range or self.index_range)

    def unsized(self) -> list[str]:
        """Buffers without a given size (every argument checked; no device work)."""
        return unsized_buffers(self.path, self.kernel, list(self.global_size), self._local(),
                               dict(self.given), dict(self.buffers), dict(self.defines))

    def sized_spec(self) -> tuple:
        """``(spec, extents, index_range, counts)``: the spec after the sizing run (when one is needed), the
        element counts that run found (parameter units, ``{}`` without one), the range its index-like buffers'
        values were drawn from (the request's own, or None for the default, without one) and the work it
        counted (row columns; ``{}`` without one or when not exact)."""
        unit, params = _kernel_params(self.path, self.kernel, self.defines)
        sizes, unsized = _check_arguments(self.kernel, params, self.global_size, self._local(),
                                          self.given, self.buffers)
        extents, index_range, counts = (_inferred_extents(unit, self.kernel, list(self.global_size), self._local(),
                                                           self.given, unsized, self.defines)
                                         if unsized else ({}, self.index_range, {}))
        extents = {name: count for name, count in extents.items() if name in unsized}
        spec = _assemble(unit, self.kernel, params, list(self.global_size), self._local(), self.given,
                         sizes, extents, index_range)
        return spec, extents, index_range, counts

    def _local(self) -> list[int] | None:
        return list(self.local_size) if self.local_size else None
