"""Global memory traffic by access pattern, and the sector traffic the memory system moves.

Counted bytes (``global_load_bytes``) say what the work-items *request*; they do not say what the caches
and the memory system move. Sixteen work-items reading the same element (a broadcast, ``x[j]`` in a loop
over ``j``) request 16 times the bytes of one read and cost one transaction. This module splits the
requested global bytes of a kernel by the access-pattern class of each site (:mod:`kgraph.analysis.patterns`)
and estimates the bytes moved in ``SECTOR_BYTES`` sectors when ``LANES`` consecutive work-items (in
dimension 0: a warp on NVIDIA GPUs, the SIMD lanes a CPU OpenCL driver vectorises over) execute one access
together:

=============  ==========================================  ===========================================
pattern        sectors per LANES work-items                sector bytes per work-item
=============  ==========================================  ===========================================
coalesced      ceil(LANES * b / SECTOR_BYTES)              max(b, SECTOR_BYTES / LANES)
strided (s)    min(LANES, LANES * abs(s) * b / SECTOR)     max(min(SECTOR_BYTES, abs(s) * b), b)
broadcast      1                                           SECTOR_BYTES / LANES
indirect       LANES (each gathered element its own)       max(b, SECTOR_BYTES)
=============  ==========================================  ===========================================

with ``b`` the bytes of one execution of the access and ``s`` its stride in elements. This ignores reuse
across instructions (a cache line read again by the next iteration) and across rows of a 2D work-group:
it is a feature for the model to weigh, not a floor (:mod:`kgraph.data.floors` keeps only true bounds).

A CPU OpenCL driver runs a work-item's loops one iteration after another, so what its caches see is the walk of
each work-item along its innermost loop, not the 32 lanes of a warp. ``global_item_line_bytes`` estimates the
bytes of ``LINE_BYTES`` cache lines one work-item brings in that way: per execution of an access inside a loop,
``min(LINE_BYTES, abs(s) * b)`` with ``s`` its stride along the innermost enclosing loop's variable (0 when the
access does not move with it: the line is already there), ``LINE_BYTES`` when gathered; outside loops, the same
with the stride along ``gid0`` (the driver's work-item loop is then the innermost). A column walk
(``b[r * n + i]`` over ``i``) is contiguous here though strided across work-items. A GPU runs neighbouring
work-items together, so it describes nothing there: the features give it as 0 on GPUs (``CPU_ONLY_KEYS``).

Atomics on global memory are not bytes moved: the L2 applies them one after another at each address,
so their cost grows with how many land on one address. ``global_atomics`` counts their executions per
work-item; ``global_atomic_depth`` sums, over the atomic sites, executions ÷ the distinct addresses the
launch's executions of that site can hit (:func:`kgraph.analysis.atomics.atomic_targets`), per work-item:
times the work-items it is the launch's atomics per address (1 when every execution has its own address, the
whole launch's count when all hit one). A site whose address the analysis cannot bound (loaded from memory) adds nothing to it.
On a GPU (NVIDIA's measured), an atomic whose address is the same for every lane of a warp (``atomic_inc(count)``,
``&sum[0]``, ``&part[get_group_id(0)]``: :func:`kgraph.analysis.atomics.warp_uniform`) is applied once per warp for
all its lanes: :func:`warp_atomic_depth` counts such a site's executions per warp (``Min(e, Max(e, 1) / LANES)`` per
work-item: ``e / LANES`` where every lane runs it, at most one per warp where a branch admits a share ``e`` < 1) and
is what :mod:`kgraph.data.features` gives as the depth on GPU devices. Measured on the H200: 16.6 M increments of
one counter by ``atomic_inc(count)`` take 0.024 ns each (one per warp: 0.76 ns), while ``hist[(gi * P) % B]``
with ``B`` = 1 at run time, which no compiler can prove uniform, takes 0.74 ns per lane (BENCHMARKS.md section 54).

``TRAFFIC_KEYS`` are defined here once; :mod:`kgraph.data.features` turns them into the ``traffic_``
feature group, evaluated at each launch like the counts.
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.atomics import atomic_targets, warp_uniform
from kgraph.analysis.patterns import stride_along
from kgraph.analysis.symbolic_math import work_symbol

#: consecutive work-items that execute one memory instruction together (an NVIDIA warp)
LANES = 32
#: the unit the memory system moves between L1 and L2 (bytes)
SECTOR_BYTES = 32
#: per-work-item traffic expressions of :func:`traffic_exprs`, in this order
TRAFFIC_KEYS: tuple[str, ...] = (
    "global_coalesced_bytes",
    "global_strided_bytes",
    "global_broadcast_bytes",
    "global_indirect_bytes",
    "global_sector_bytes",
    "global_atomics",
    "global_atomic_depth",
    "global_item_line_bytes",
)
#: the unit a CPU cache moves (bytes), for ``global_item_line_bytes``
LINE_BYTES = 64
#: keys that describe how a CPU driver runs work-items; :mod:`kgraph.data.features` gives them as 0 on a GPU
CPU_ONLY_KEYS: tuple[str, ...] = ("global_item_line_bytes",)


def sector_bytes(pattern: str, nbytes: int, stride) -> sp.Expr:
    """Sector bytes per work-item of one execution of an access (the table of the module docstring).

    Args:
        pattern: ``coalesced`` | ``strided`` | ``broadcast`` | ``indirect``.
        nbytes: bytes of one execution (a ``float4`` load is 16).
        stride: the stride in elements (sympy; None for ``indirect``).
    """
    b = sp.Integer(nbytes)
    per_lane = sp.Rational(SECTOR_BYTES, LANES)
    if pattern == "broadcast":
        return per_lane
    if pattern == "coalesced":
        return sp.Max(b, per_lane)
    stride = None if stride is None else sp.sympify(stride)
    if pattern == "indirect" or stride is None or stride.has(sp.Derivative, sp.Subs, sp.Integral):
        # a gather, or a stride the analysis could not differentiate (d/dgid of a Mod): one sector each
        return sp.Max(b, sp.Integer(SECTOR_BYTES))
    span = sp.Abs(stride) * b  # bytes between neighbouring work-items
    return sp.Max(sp.Min(sp.Integer(SECTOR_BYTES), span), b, per_lane)


def item_line_bytes(access) -> sp.Expr:
    """Bytes of cache lines one work-item brings in per execution of ``access`` walking its innermost loop
    (the module docstring)."""
    context = getattr(access, "context", None) or {}
    loops = context.get("loops") or []
    var = loops[-1][0] if loops else work_symbol("gid", 0)
    stride = stride_along(getattr(access, "index_expr", None), var)
    line = sp.Integer(LINE_BYTES)
    if stride is None or stride.has(sp.Derivative, sp.Subs, sp.Integral):
        return line
    return sp.Min(line, sp.Abs(stride) * access.bytes)  # the stride is in executions' units (float4s)


def traffic_exprs(analysis) -> list[sp.Expr]:
    """Per-work-item global traffic of ``analysis`` (a ``KernelAnalysis``), ``TRAFFIC_KEYS`` order: the
    requested bytes (loads and stores) of each pattern class, the sector bytes of all global loads and
    stores, then the global atomics and their depth (the module docstring).
    Symbols are those of the counts (scalar parameters, work sizes, ``trip_<line>``)."""
    by_pattern = {p: sp.Integer(0) for p in ("coalesced", "strided", "broadcast", "indirect")}
    sectors, atomics, depth, lines = sp.Integer(0), sp.Integer(0), sp.Integer(0), sp.Integer(0)
    items = sp.Mul(*(work_symbol("gsz", d) for d in range(3)))
    for access in analysis.accesses:
        if access.space != "global":
            continue
        executions = sp.sympify(access.executions)
        if access.kind == "atomic":
            atomics += executions
            depth += _site_depth(access, executions, items)
            continue
        by_pattern[access.pattern] += executions * access.bytes
        sectors += executions * sector_bytes(access.pattern, access.bytes, access.stride)
        lines += executions * item_line_bytes(access)
    return [by_pattern["coalesced"], by_pattern["strided"], by_pattern["broadcast"], by_pattern["indirect"],
            sectors, atomics, depth, lines]


def warp_atomic_depth(analysis) -> sp.Expr:
    """``global_atomic_depth`` of ``analysis`` on a GPU (per work-item, as :func:`traffic_exprs`' depth): each
    warp-uniform site's executions counted once per warp (the module docstring), every other site's as there."""
    items = sp.Mul(*(work_symbol("gsz", d) for d in range(3)))
    return sp.Add(*(_site_depth(a, sp.sympify(a.executions), items, per_warp=True) for a in analysis.accesses
                    if a.space == "global" and a.kind == "atomic"))


def _site_depth(access, executions, items, per_warp: bool = False) -> sp.Expr:
    """One atomic site's launch atomics per address, per work-item: ``executions`` ÷ the distinct addresses it can
    hit (0 where the analysis cannot bound them); ``per_warp``: a warp-uniform site's executions counted once per
    warp (the module docstring)."""
    index, context = getattr(access, "index_expr", None), getattr(access, "context", None)
    targets = atomic_targets(index, context)
    if targets is None:
        return sp.Integer(0)
    if per_warp and warp_uniform(index, context):
        executions = sp.Min(executions, sp.Max(executions, 1) / LANES)
    return executions / sp.Min(targets, sp.Max(executions * items, 1))

