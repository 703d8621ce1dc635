"""Launches checked against the device they are estimated for, and predictions against its peaks.

:func:`check_launch` refuses (``UsageError`` naming the option) a launch that could not run on the
device of its descriptor (``device.json``, docs/DEVICES.md):

- a work-group larger than ``max_work_group_size``, wider than ``max_work_item_sizes`` in a dimension,
  other than the kernel's ``reqd_work_group_size`` or larger than its CUDA ``__launch_bounds__``;
- more work-items than a 64-bit ``size_t`` counts (2^64 - 1 in all); for CUDA, more blocks than a grid
  holds (2^31 - 1 in x, 65535 in y and z);
- more local (CUDA: shared) memory per work-group than ``local_mem_bytes``: the kernel's ``__local`` /
  ``__shared__`` arrays of constant size plus its ``__local`` pointer arguments at one element per
  work-item of the group (the convention of ``kgraph measure``); dynamic shared memory is not counted;
- a scalar argument its parameter's type cannot hold: a fraction or an out-of-range value for an
  integer type (``int`` n=2.5, ``uint`` n=-1, ``int`` n=2^40), a magnitude past the largest finite
  ``float``/``half``.

:func:`peak_warnings` says when a prediction implies more than the device can do: compulsory DRAM
traffic (the footprint beyond the last-level cache) faster than the measured copy bandwidth, by the
predicted time; FLOP/s over the device's peak. ``PEAK_MARGIN`` leaves
room for measurement noise (measured launches reach 1.04x the copy bandwidth on the H200).
"""
from __future__ import annotations

import functools
import math

from kgraph.errors import UsageError

SIZE_T_MAX = 2**64 - 1  # work-items a 64-bit size_t counts (OpenCL global sizes; get_global_id)
CUDA_GRID_MAX = (2**31 - 1, 65535, 65535)  # blocks per grid dimension (compute capability >= 3.0)
FLOAT_MAX = {"float": 3.4028234663852886e38, "half": 65504.0, "__half": 65504.0}
PEAK_MARGIN = 1.1  # a prediction over peak x this margin gets a warning
_UNSIGNED = ("uchar", "ushort", "uint", "ulong", "ulonglong", "size_t", "uint8_t", "uint16_t", "uint32_t",
             "uint64_t", "uintptr_t")
_NOT_NUMBERS = ("void", "event_t", "sampler_t", "image2d_t", "image3d_t", "dim3")


def check_launch(launch, at: str = "", as_grid: bool = False, checked: set | None = None) -> None:
    """Raise :class:`UsageError` when ``launch`` cannot run on its device (see the module docstring).

    Args:
        launch: a :class:`kgraph.models.launches.Launch` (sizes and argument names already validated).
        at: prefix of the messages (``file:line: `` of a batch row).
        as_grid: the launch was given as CUDA ``--grid``/``--block`` (the options the messages name).
        checked: a batch's record of the (kernel, device, work-group, as-grid) whose work-group and local-memory
            checks passed (they depend on nothing else): those are not run again; updated.
    """
    local_option = "--block" if as_grid else "--local"
    key = (id(launch.graph), id(launch.device), tuple(launch.local_size), as_grid)
    seen = checked is not None and key in checked
    if not seen:
        check_work_group(launch, at, local_option)
    check_global(launch, at, as_grid)
    if not seen:
        check_local_memory(launch, at, local_option)
        if checked is not None:
            checked.add(key)
    check_arguments(launch, at)


def _text(sizes) -> str:
    return ",".join(map(str, sizes))


def check_work_group(launch, at: str, option: str) -> None:
    """The work-group against ``max_work_group_size``, ``max_work_item_sizes``, the kernel's
    ``reqd_work_group_size`` and CUDA ``__launch_bounds__``.

    Args:
        launch: the launch; at: message prefix; option: the option that gave the work-group.
    """
    device, local = launch.device, launch.local_size
    name, items = device["device_id"], math.prod(local)
    limit = int(device["max_work_group_size"])
    if items > limit:
        raise UsageError(f"{at}{option} {_text(local)}: a work-group of {items} work-items; device {name} "
                         f"allows at most {limit} (max_work_group_size)")
    per_dim = device.get("max_work_item_sizes") or []
    for d, (size, most) in enumerate(zip(local, per_dim)):
        if size > most:
            raise UsageError(f"{at}{option} {_text(local)}: {size} work-items in dimension {d}; device {name} "
                             f"allows at most {most} there (max_work_item_sizes {_text(per_dim)})")
    attributes = launch.graph.function.attributes
    reqd = attributes.get("reqd_work_group_size")
    if reqd and all(isinstance(v, int) for v in reqd):
        want = list(reqd[:len(local)]) + [1] * (len(local) - len(reqd))
        if list(local) != want or any(v != 1 for v in reqd[len(local):]):
            raise UsageError(f"{at}{option} {_text(local)}: kernel {launch.graph.name} requires work-groups of "
                             f"{_text(reqd)} (reqd_work_group_size)")
    bounds = attributes.get("launch_bounds")
    if bounds and isinstance(bounds[0], int) and items > bounds[0]:
        raise UsageError(f"{at}{option} {_text(local)}: a block of {items} threads; kernel {launch.graph.name} "
                         f"is compiled for at most {bounds[0]} (__launch_bounds__)")


def check_global(launch, at: str, as_grid: bool) -> None:
    """The number of work-items against a 64-bit ``size_t``; for CUDA, the blocks per grid dimension.

    Args:
        launch: the launch; at: message prefix; as_grid: it was given as ``--grid``/``--block``.
    """
    total = math.prod(launch.global_size)
    if total > SIZE_T_MAX:
        option = "--grid" if as_grid else "--global"
        raise UsageError(f"{at}{option}: {total} work-items in all (global {_text(launch.global_size)}), more "
                         f"than a 64-bit size_t counts ({SIZE_T_MAX})")
    if launch.lang != "cuda":
        return
    grid = [g // l for g, l in zip(launch.global_size, launch.local_size)]
    for d, (blocks, most) in enumerate(zip(grid, CUDA_GRID_MAX)):
        if blocks > most:
            given = f"--grid {_text(grid)}" if as_grid else (f"--global {_text(launch.global_size)} (a grid of "
                                                              f"{_text(grid)} blocks)")
            raise UsageError(f"{at}{given}: {blocks} blocks in dimension {'xyz'[d]}; a CUDA grid holds at most "
                             f"{most} there")


def check_local_memory(launch, at: str, option: str) -> None:
    """Local (CUDA: shared) memory per work-group against the device's ``local_mem_bytes``.

    Args:
        launch: the launch; at: message prefix; option: the option that gave the work-group.
    """
    limit = int(launch.device["local_mem_bytes"])
    arrays = static_local_bytes(launch.graph)
    items = math.prod(launch.local_size)
    pointers = sum(items * (p.elem_bytes or 0) for p in launch.graph.function.params
                   if p.is_pointer and p.address_space == "local")
    if arrays + pointers <= limit:
        return
    parts = []
    if arrays:
        parts.append(f"{arrays} in __local/__shared__ arrays")
    if pointers:
        parts.append(f"{pointers} for its __local pointer arguments at one element per work-item of "
                     f"{option} {_text(launch.local_size)}")
    raise UsageError(f"{at}kernel {launch.graph.name} needs {arrays + pointers} bytes of local memory per "
                     f"work-group ({'; '.join(parts)}); device {launch.device['device_id']} has {limit} "
                     f"(local_mem_bytes)" + (f": give a smaller {option}" if pointers else ""))


def static_local_bytes(graph) -> int:
    """Bytes of the ``__local``/``__shared__`` arrays of constant size declared in the kernel's body
    (0 for those of unknown size or type, such as CUDA's ``extern __shared__`` arrays), made once per graph
    (``KernelGraph.derived``).

    Args:
        graph: a ``KernelGraph`` with its translation unit and function.
    """
    return graph.derived("launch_checks.static_local_bytes", _local_bytes, graph)


def _local_bytes(graph) -> int:
    """:func:`static_local_bytes`, computed."""
    unit, total = graph.unit, 0
    stack = [graph.function.body] if unit is not None and graph.function is not None else []
    while stack:
        node = stack.pop()
        if node.type == "declaration" and unit.address_spaces.get(node.start_byte) == "local":
            total += _declaration_bytes(unit, node)
        stack.extend(node.named_children)
    return total


def _declaration_bytes(unit, decl) -> int:
    """Bytes of the arrays of constant size one declaration declares (0 for unknown sizes or types)."""
    from kgraph.parsers.declarations import type_spelling

    info = unit.dialect.type_info(type_spelling(decl))
    if info is None or info.bytes <= 0:
        return 0
    total = 0
    for declarator in decl.children_by_field_name("declarator"):
        while declarator is not None and declarator.type in ("init_declarator", "parenthesized_declarator"):
            declarator = declarator.child_by_field_name("declarator") or (
                declarator.named_children[0] if declarator.named_children else None)
        elements = 1 if declarator is not None and declarator.type == "identifier" else 0
        while declarator is not None and declarator.type == "array_declarator":
            size = declarator.child_by_field_name("size")
            value = unit.fold_checked(unit.node_text(size))[0] if size is not None else None
            if not isinstance(value, (int, float)) or value != int(value) or value <= 0:
                elements = 0
                break
            elements = (elements or 1) * int(value)
            declarator = declarator.child_by_field_name("declarator")
        total += elements * info.bytes
    return total


def check_arguments(launch, at: str) -> None:
    """Each scalar argument against its parameter's type (integer types: whole and in range; ``float``
    and ``half``: within the largest finite value).

    Args:
        launch: the launch; at: message prefix.
    """
    args = launch.args
    for name, param, low, high in _argument_checks(launch.graph):
        if name not in args:
            continue
        value = args[name]
        if low is None:  # a floating type, at most ``high`` in magnitude
            if abs(value) > high:
                raise UsageError(f"{_given(at, param, value)}: out of range for {param.base_type} (at most {high:g} "
                                 "in magnitude)")
            continue
        if value != int(value):
            raise UsageError(f"{_given(at, param, value)}: parameter {param.name} is {param.base_type}; give a whole "
                             "number")
        if not low <= value <= high:
            raise UsageError(f"{_given(at, param, value)}: out of range for {param.base_type} ({low} to {high})")


def check_lanes(args, graph, at: str) -> None:
    """Each argument given as comma-separated lanes (``b=12345,678``) against its parameter, by ``kgraph measure``'s
    rule (:func:`kgraph.data.harness.foreign_args.lane_parts`); the counts read lane 0, so extra or missing lanes
    would pass unseen.

    Args:
        args: the request's raw ``args`` (a dict, or None); graph: the launch's kernel graph; at: message prefix.
    """
    texts = {k: v for k, v in (args or {}).items() if isinstance(v, str) and "," in v}
    if not texts:
        return
    from kgraph.data.harness.foreign_args import lane_parts

    params = {p.name: p for p in graph.function.params}
    for name, value in texts.items():
        if name in params:
            lane_parts(params[name], value, at)


def _argument_checks(graph) -> list:
    """``(name, parameter, low, high)`` of each scalar parameter :func:`check_arguments` tests: an integer type's
    range, or ``low`` None and a floating type's largest magnitude (``FLOAT_MAX``; ``double`` has none to test);
    made once per graph from :func:`_argument_kinds` (``KernelGraph.derived``)."""
    return graph.derived("launch_checks.argument_checks", _make_argument_checks, graph)


def _make_argument_checks(graph) -> list:
    """:func:`_argument_checks`, computed."""
    checks = []
    for param, kind in _argument_kinds(graph):
        if kind != "float":
            checks.append((param.name, param, *kind))
        elif FLOAT_MAX.get(param.base_type) is not None:
            checks.append((param.name, param, None, FLOAT_MAX[param.base_type]))
    return checks


def _given(at: str, param, value: float) -> str:
    """``--arg NAME=VALUE`` as a message names it (made only for a message)."""
    return f"{at}--arg {param.name}={_number(value)}"


def _argument_kinds(graph) -> list:
    """``(parameter, kind)`` of the kernel's scalar parameters whose type has a range (:func:`_value_kind`), made
    once per graph (``KernelGraph.derived``: every launch of a batch checks the same parameters)."""
    return graph.derived("launch_checks.argument_kinds", _make_argument_kinds, graph)


def _make_argument_kinds(graph) -> list:
    """:func:`_argument_kinds`, computed."""
    unit = graph.unit
    kinds = [(p, None if unit is None else _value_kind(unit.dialect, p.base_type))
             for p in graph.function.params if p.kind == "scalar"]
    return [(p, k) for p, k in kinds if k is not None]


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) and abs(value) < 1e21 else repr(value)


@functools.lru_cache(maxsize=1024)
def _value_kind(dialect, base_type: str):
    """``"float"`` for a floating type, ``(low, high)`` for an integer type, None when unknown (one answer
    per dialect and type, kept: every launch of a batch asks again)."""
    if base_type in _NOT_NUMBERS or dialect is None:
        return None
    info = dialect.type_info(base_type)
    if info is None or info.scalar_bytes <= 0:
        return None
    if info.is_float or base_type in FLOAT_MAX:
        return "float"
    if base_type in ("bool", "_Bool"):
        return (0, 1)
    bits = 8 * info.scalar_bytes
    if base_type in _UNSIGNED:
        return (0, 2**bits - 1)
    return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def peak_warnings(launch, prediction: dict, rates: dict | None = None) -> list[str]:
    """Warnings when ``prediction`` implies more than the device can do: DRAM traffic (the footprint beyond the
    cache) faster than its copy bandwidth by the predicted time, FLOP/s over its peak (each past ``PEAK_MARGIN``),
    a footprint over the device's memory. (The record's bandwidth is its bytes / its time, so it implies no
    DRAM rate the time does not.)

    Args:
        launch: the launch predicted.
        prediction: its record: ``time_ns, footprint_bytes, flops``.
        rates: ``kgraph.data.floors.device_rates`` of the launch's device, when the caller has them.
    """
    from kgraph.data.floors import device_rates

    rates = rates if rates is not None else device_rates(launch.device)
    time = float(prediction["time_ns"])
    if not time > 0 or not math.isfinite(time):
        return [f"the model predicts a time of {time} ns: no prediction can be trusted for this launch"]
    copy, out = rates["dram"], []
    memory = float(launch.device.get("global_mem_bytes") or 0)
    if memory > 0 and float(prediction["footprint_bytes"]) > memory:
        out.append(f"the launch's footprint {float(prediction['footprint_bytes']) / 2**30:,.2f} GiB "
                   f"({prediction.get('footprint_source', 'model')}) exceeds the device's memory of "
                   f"{memory / 2**30:,.2f} GiB: "
                   f"it cannot run as one launch, and its time is not a real one")
    beyond = max(float(prediction["footprint_bytes"]) - rates["cache"], 0.0)
    by_time = beyond / time
    if by_time > copy * PEAK_MARGIN:
        out.append(f"the predicted time implies {by_time:,.0f} GB/s of DRAM traffic (the footprint beyond the "
                   f"{_mib(rates['cache'])} cache / time), {by_time / copy:.1f}x the device's copy bandwidth "
                   f"{copy:,.0f} GB/s: the prediction is beyond what the device can do")
    peak = max(rates["fp32"], rates["fp64"])
    flops = float(prediction["flops"]) / time
    if flops > peak * PEAK_MARGIN:
        out.append(f"the prediction implies {flops:,.0f} GFLOP/s, {flops / peak:.1f}x the device's peak "
                   f"{peak:,.0f} GFLOP/s: the prediction is beyond what the device can do")
    return out


def peak_warnings_many(launches: list, predictions: list[dict], rates: list[dict]) -> list[list[str]]:
    """:func:`peak_warnings` of each launch of a batch: its tests, made over arrays without ``PEAK_MARGIN`` (and
    any value not finite taken as a warning), pick the few launches that can have one, and only those are tested
    and worded by :func:`peak_warnings` itself (the same messages; the rest have none).

    Args:
        launches: the launches predicted; predictions: their records (as :func:`peak_warnings`).
        rates: per launch, ``kgraph.data.floors.device_rates`` of its device.

    Shapes:
        launches, predictions, rates: N each; returns N lists.
    """
    import numpy as np

    def column(values) -> np.ndarray:
        return np.array(values, dtype=np.float64)

    time, footprint, flops = (column([p[key] for p in predictions]) for key in ("time_ns", "footprint_bytes", "flops"))
    copy, cache = column([r["dram"] for r in rates]), column([r["cache"] for r in rates])
    peak = np.maximum(column([r["fp32"] for r in rates]), column([r["fp64"] for r in rates]))
    memory = column([float(launch.device.get("global_mem_bytes") or 0) for launch in launches])
    with np.errstate(all="ignore"):
        beyond = np.maximum(footprint - cache, 0.0)
        maybe = ~np.isfinite(np.stack([time, footprint, flops])).all(0) | ~(time > 0)
        maybe |= (memory > 0) & (footprint > memory * 0.999)
        maybe |= (beyond / time > copy) | (flops / time > peak)
    out: list[list[str]] = [[] for _ in launches]
    for i in np.flatnonzero(maybe).tolist():
        out[i] = peak_warnings(launches[i], predictions[i], rates[i])
    return out


def _mib(n: float) -> str:
    return f"{n / 2**20:.0f} MiB"
