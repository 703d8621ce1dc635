"""Launches of the registry's kernels, sized before any device times them.

Nobody wrote host code for these kernels here, so each launch is what ``kgraph measure`` would make of it
(:mod:`kgraph.data.harness.foreign`): scalars at their defaults (integers the NDRange's dimension 0, floats
1.0), ``__local`` pointers one element per work-item, buffers sized by a bounds-checked instrumented run on
PoCL, index-like buffers filled with valid indices. A kernel gets one launch per entry of :data:`LAUNCHES`
for the number of NDRange dimensions its body uses, with a work-group of :data:`LOCAL` (or the unit's
``WORKGROUP_SIZE``). :func:`size_launches` runs those sizing runs (one worker for all of them) and records
each launch's status; a device campaign (:mod:`.campaign`) then times the ``ok`` ones with their buffers
given, so it runs no sizing run of its own.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kgraph.data.dtypes import NUMPY_DTYPES

from .units import body_end

#: global sizes per number of NDRange dimensions (small, middle, large: about 2^16, 2^20 and 2^22 work-items)
LAUNCHES = {1: [(65536,), (1048576,), (4194304,)], 2: [(256, 256), (1024, 1024), (2048, 2048)],
            3: [(32, 32, 64), (64, 64, 256), (128, 128, 256)]}
#: the work-group shape per number of dimensions
LOCAL = {1: (128,), 2: (16, 16), 3: (8, 8, 2)}
_ID_CALL = re.compile(r"\bget_(?:global|local|group)_id\s*\(\s*(\d)\s*\)")


@dataclass
class PlannedLaunch:
    """One launch of a registry kernel and what its sizing run found.

    Args:
        unit_id: its unit (:attr:`~.units.Unit.unit_id`); kernel: the ``__kernel`` function.
        global_size, local_size: the NDRange and the work-group shape.
        status: ``ok``, or why it is not timed (``unsupported``, ``build_error``, ``timeout``, ``crash``,
            ``error``, or the sizing run's launch status); message: the details.
        buffers: element counts (parameter units) of every global buffer; index_range: the range index-like
            buffers' values come from; sizing_ns: the sizing machine's time of the launch (not a measurement);
            counts: the work the sizing run counted on those buffers and inputs (row columns; {} when not exact).
    """

    unit_id: str
    kernel: str
    global_size: tuple
    local_size: tuple
    status: str = "planned"
    message: str = ""
    buffers: dict = field(default_factory=dict)
    index_range: int | None = None
    sizing_ns: float | None = None
    counts: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.unit_id}:{self.kernel}:{'x'.join(map(str, self.global_size))}"

    def to_json(self) -> dict:
        return {**asdict(self), "global_size": list(self.global_size), "local_size": list(self.local_size)}

    @classmethod
    def from_json(cls, obj: dict) -> "PlannedLaunch":
        return cls(**{**obj, "global_size": tuple(obj["global_size"]), "local_size": tuple(obj["local_size"])})


def unit_file(units_dir: str | Path, unit) -> Path:
    """The unit's text with its macros as ``#define`` lines (what is built, parsed and stored), written once."""
    from kgraph.data.harness.foreign_args import _with_defines

    path = Path(units_dir) / f"{unit.unit_id}.cl"
    text = _with_defines(unit.source, unit.defines)
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


def kernel_dims(source: str, kernel: str) -> int:
    """The NDRange dimensions ``kernel``'s own body indexes (1 to 3; 1 when it reads no id)."""
    start = re.search(rf"\bkernel\s+void\s+{re.escape(kernel)}\s*\(", source)
    if start is None:
        return 1
    body = source.find("{", start.end())
    dims = [int(d) for d in _ID_CALL.findall(source[body:body_end(source, body) + 1])]
    return min(max(dims, default=0) + 1, 3)


def unsupported(path: Path, kernel: str) -> str:
    """Why ``measure`` cannot launch ``kernel`` of the unit file (a parameter type it cannot make, a parse
    error), or "" when it can."""
    from kgraph import parsers
    from kgraph.errors import KGraphError

    try:
        unit = parsers.parse_file(str(path))
        unit.raise_on_errors()
    except KGraphError as exc:
        return f"parse: {str(exc).splitlines()[0][:200]}"
    found = [f for f in unit.kernels if f.name == kernel]
    if not found:
        return "parse: the kernel is not found"
    bad = [f"{p.name} ({p.base_type})" for p in found[0].params if NUMPY_DTYPES.get(p.base_type) is None]
    return f"parameter type: {', '.join(bad)}" if bad else ""


def plan_unit(unit, units_dir: str | Path) -> list[PlannedLaunch]:
    """Every launch of the unit's kernels (:data:`LAUNCHES`); kernels that cannot be launched get one launch
    with their status (``build_error``: the unit does not build; ``unsupported``: see :func:`unsupported`)."""
    path = unit_file(units_dir, unit)
    out = []
    for kernel in unit.kernels:
        dims = kernel_dims(unit.source, kernel)
        local = LOCAL[dims]
        if dims == 1 and str(unit.defines.get("WORKGROUP_SIZE", "")).isdigit():
            local = (int(unit.defines["WORKGROUP_SIZE"]),)
        why = unit.error and f"build: {unit.error}"
        status = "build_error" if why else ""
        if not why:
            why = unsupported(path, kernel)
            status = "unsupported" if why else "planned"
        for g in (LAUNCHES[dims] if status == "planned" else LAUNCHES[dims][:1]):
            out.append(PlannedLaunch(unit.unit_id, kernel, g, local, status, why))
    return out


def size_launches(launches: list[PlannedLaunch], units_dir: str | Path, plan_path: str | Path,
                  device: str = "pocl", timeout_s: float = 8.0, log=print) -> list[PlannedLaunch]:
    """Run the sizing run of every ``planned`` launch (one reused worker on ``device``), appending each result
    to the JSONL ``plan_path`` as it comes: a rerun skips the launches already there (resumable).

    Args:
        launches: from :func:`plan_unit`; units_dir: where the unit files are; device: the sizing device;
        timeout_s: one launch's limit (a sizing run also gets its build time); log: progress lines.
    """
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import foreign_worker, measure_foreign
    from kgraph.errors import KGraphError

    plan_path = Path(plan_path)
    done = {}
    if plan_path.is_file():
        for line in plan_path.read_text().splitlines():
            if line.strip():
                entry = PlannedLaunch.from_json(json.loads(line))
                done[entry.key] = entry
    worker = foreign_worker(device)
    out = []
    try:
        with plan_path.open("a") as fh:
            for launch in launches:
                if launch.key in done:
                    out.append(done[launch.key])
                    continue
                if launch.status == "planned":
                    request = ForeignRequest(str(Path(units_dir) / f"{launch.unit_id}.cl"), launch.kernel,
                                             launch.global_size, launch.local_size, {}, {}, {})
                    try:
                        result = measure_foreign(request, device, timeout_s=timeout_s, worker=worker)
                        row = result.row
                        launch.status, launch.message = row.get("status", "error"), (row.get("message") or "")[:500]
                        buffers = [a.name for a in result.spec.args if a.kind == "buffer"] if result.spec else []
                        launch.buffers = {k: int(result.extents.get(k, 1)) for k in buffers}
                        launch.index_range, launch.counts = result.index_range, dict(result.counts)
                        launch.sizing_ns = row.get("median_time_ns")
                    except KGraphError as exc:
                        launch.status, launch.message = "error", str(exc).strip()[:500]
                    if launch.status != "ok":
                        worker.kill()  # a crashed or failed run may leave the context unusable: a fresh one
                fh.write(json.dumps(launch.to_json()) + "\n")
                fh.flush()
                log(f"{launch.key}: {launch.status} {launch.message[:100]}")
                out.append(launch)
    finally:
        worker.close()
    return out
