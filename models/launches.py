"""A launch to predict: made from a kernel of a parsed file and validated (:func:`make_launch`), tabulated
the way :mod:`kgraph.data.features` reads launches (:func:`to_tables`), and given the exact static footprint
where the analysis proves one (:func:`with_static_footprint`).

Launches are validated when they are made (unknown kernel, missing scalar arguments, bad sizes), before
any model is loaded, so bad input never costs a model load.
"""
from __future__ import annotations

import dataclasses
import math
import weakref
from pathlib import Path

from kgraph.data.static_footprint import exact_bytes, kernel_footprint
from kgraph.errors import UsageError  # here, not in make_launch: an import there costs each launch ~1 us


def kernels_of(path: str | Path, lang: str | None = None) -> dict:
    """Kernel name -> ``KernelGraph`` of one source file (InputError/SourceError/UsageError as the parsers).

    Without static analysis: a launch needs the graph and the parameters only; the kernels launched are
    analysed once each, on first use (:func:`analysis_of`), and that one analysis serves the static-count
    features, the static footprint and the exact counts.
    """
    import kgraph

    return {g.name: g for g in kgraph.from_file(path, lang, analyze=False)}


@dataclasses.dataclass
class Launch:
    """One launch to predict (made by :func:`make_launch`, which validates it).

    Args:
        graph: the kernel's ``KernelGraph`` (``kgraph.from_source``).
        source, lang: the whole source text and its language (``opencl``/``cuda``/``c``).
        global_size: work-items per dimension (CUDA: grid x block), 1 to 3 positive ints.
        local_size: work-group (CUDA: block) shape, same length.
        args: scalar argument values by parameter name, in the kernel's parameter order.
        device: the device descriptor (``device.json`` dict).
        buffers: element counts of buffer parameters the launch gave (``--buffer NAME=ELEMENTS``).
        derived: the mean trip counts taken from those lengths (``trip_<line>`` -> value; also in ``args``,
            which the model reads), :mod:`kgraph.analysis.segments`.
    """

    graph: object
    source: str
    lang: str
    global_size: list[int]
    local_size: list[int]
    args: dict[str, float]
    device: dict
    buffers: dict = dataclasses.field(default_factory=dict)
    derived: dict = dataclasses.field(default_factory=dict)

    def key(self) -> tuple:
        """What makes two launches the same prediction: the kernel (its graph: a kernel at given branch shares is one
        of its own), its source (``-D`` macros), sizes, arguments, buffer lengths and device."""
        return (id(self.graph), self.source, tuple(self.global_size), tuple(self.local_size), tuple(self.args.items()),
                tuple(self.buffers.items()), id(self.device))


def analysis_of(graph):
    """The kernel's one static analysis (``kgraph.graphs.analysis_of``: made on first use, kept on the
    graph), or None when it has none."""
    from kgraph.graphs import analysis_of as attached

    return attached(graph)


def default_local_size(graph, global_size: list[int]) -> list[int]:
    """``reqd_work_group_size`` when the kernel declares it, else per dimension the largest power of
    two dividing the global size, at most 256 in 1D and 16 per dimension in 2D/3D."""
    reqd = graph.function.attributes.get("reqd_work_group_size")
    if reqd and all(isinstance(v, int) for v in reqd):
        return [int(v) for v in reqd][: len(global_size)]
    cap = 256 if len(global_size) == 1 else 16
    out = []
    for g in global_size:
        b = 1
        while b * 2 <= cap and g % (b * 2) == 0:
            b *= 2
        out.append(b)
    return out


def make_launch(graphs: dict, kernel: str, global_size: list[int], local_size: list[int] | None,
                args: dict[str, float], device: dict, where: str = "", buffers: dict | None = None,
                inputs: dict | None = None) -> Launch:
    """Validate one launch of ``kernel`` (a key of ``graphs``: name -> KernelGraph of one file).

    Raises UsageError naming the option: unknown kernel (lists the file's kernels), sizes that are not
    1-3 positive ints, a local size of another length or not dividing the global size, a missing or
    unknown scalar argument, a negative mean trip count. Besides the scalar parameters, ``args`` may give the
    mean trip count of a loop the analysis could not count under its symbol (:func:`trip_symbols`), and the share
    of executions that take a branch it cannot decide (``taken_<line>``, in [0, 1]; the launch's graph is then the
    kernel analysed at those shares, :func:`kgraph.graphs.with_branch_fractions`). ``buffers``
    (buffer parameter -> elements) gives the mean of each segment loop not given so
    (:func:`kgraph.analysis.segments.segment_trips`); a name that is not a buffer parameter, or a length that is
    not a positive integer, is a UsageError. ``inputs`` (buffer parameter -> its contents: an array, or the path
    of a ``.npy`` file) gives those lengths and the mean of each loop bounded by elements of them
    (:func:`kgraph.analysis.data_trips.data_trip_means`) not given so.
    """
    at = f"{where}: " if where else ""
    if kernel not in graphs:
        raise UsageError(f"{at}--kernel {kernel}: no kernel of that name in the file; its kernels: "
                         f"{', '.join(graphs) or '(none)'}")
    graph = graphs[kernel]
    # each check is one pass over the sizes, which also says whether they are ints already (a batch makes many)
    found = _positive_sizes(global_size) if global_size is not None else _INTS
    if not found:
        raise UsageError(f"{at}--global {global_size}: needs 1 to 3 positive integers")
    local_found = _positive_sizes(local_size) if local_size is not None else _INTS  # the default's are ints
    if not local_found:
        raise UsageError(f"{at}--local {local_size}: needs 1 to 3 positive integers")
    local = list(local_size) if local_size is not None else default_local_size(graph, list(global_size))
    if len(local) != len(global_size):
        raise UsageError(f"{at}--local {','.join(map(str, local))}: has {len(local)} dimension(s), --global has "
                         f"{len(global_size)}")
    for d in range(len(local)):
        if global_size[d] % local[d]:  # the first dimension it does not divide
            raise UsageError(f"{at}--local {','.join(map(str, local))} does not divide --global "
                             f"{','.join(map(str, global_size))} in dimension {d}")
    scalars, trips, branches = _parameters(graph)
    for name in scalars:  # a loop, not a list: the common case has none missing
        if name not in args:
            missing = [n for n in scalars if n not in args]
            raise UsageError(f"{at}--arg: kernel {kernel} needs a value for scalar parameter(s) "
                             f"{', '.join(missing)} (e.g. --arg {missing[0]}=4096)")
    unknown = [n for n in args if n not in scalars and n not in trips and n not in branches] \
        if len(args) != len(scalars) else ()
    if unknown:
        loops = f"; its loops of unknown trip count: {', '.join(trips)}" if trips else ""
        shares = f"; its branch shares: {', '.join(branches)}" if branches else ""
        raise UsageError(f"{at}--arg {unknown[0]}: kernel {kernel} has no scalar parameter of that name "
                         f"(its scalars: {', '.join(scalars) or 'none'}{loops}{shares})")
    negative = [n for n in trips if n in args and not float(args[n]) >= 0] if trips else ()
    if negative:
        raise UsageError(f"{at}--arg {negative[0]}={args[negative[0]]:g}: a loop's mean trip count is at least 0")
    given = {n: float(args[n]) for n in scalars}
    if trips:
        given.update({n: float(args[n]) for n in trips if n in args})
    shares = {n: float(args[n]) for n in branches if n in args} if branches else None
    if shares:
        outside = [n for n, p in shares.items() if not 0.0 <= p <= 1.0]
        if outside:
            raise UsageError(f"{at}--arg {outside[0]}={shares[outside[0]]:g}: a branch's share of executions is "
                             "between 0 and 1")
        from kgraph.analysis.branches import branch_line
        from kgraph.graphs import with_branch_fractions

        given.update(shares)
        graph = with_branch_fractions(graph, {branch_line(n): p for n, p in shares.items()})
    lengths, derived = {}, {}
    arrays = _input_arrays(graph, inputs, at) if inputs else {}
    if buffers or arrays:
        lengths = {**{name: int(a.size) for name, a in arrays.items()}, **_buffer_lengths(graph, buffers or {}, at)}
        derived = {n: v for n, v in _segment_means(graph, lengths, local).items() if n not in given}
    sizes = list(global_size) if found == _INTS else [int(g) for g in global_size]
    if arrays:
        from kgraph.analysis.data_trips import data_trip_means

        means = data_trip_means(analysis_of(graph), sizes, local, given, arrays)
        derived.update({n: v for n, v in means.items() if n not in given and n not in derived})
    return Launch(graph, graph.unit.text, graph.lang, sizes, local if local_found == _INTS else [int(v) for v in local],
                  given | derived if derived else given, device, lengths, derived)


_INTS, _WHOLE = 2, 1  # what _positive_sizes found: ints only (copied as they are), or some whole floats too


def _positive_sizes(sizes) -> int:
    """1 to 3 positive whole numbers (ints, or floats of whole value): ``_INTS`` when all are ints, ``_WHOLE``
    when some are whole floats, 0 (false) otherwise."""
    if not 1 <= len(sizes) <= 3:
        return 0
    found = _INTS
    for v in sizes:
        if type(v) is not int:
            if not int(v) == v:
                return 0
            found = _WHOLE
        if not v > 0:
            return 0
    return found


def _buffer_lengths(graph, buffers, at: str) -> dict[str, int]:
    """``buffers`` validated: names of the kernel's buffer parameters, lengths positive integers."""
    from kgraph.errors import UsageError

    if not isinstance(buffers, dict):
        raise UsageError(f"{at}--buffer: buffer lengths are an object of NAME: elements, got a "
                         f"{type(buffers).__name__}")
    out = {}
    for name, value in buffers.items():
        _buffer_name(graph, name, "--buffer", at)
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if isinstance(value, bool) or not math.isfinite(number) or number < 1 or number != int(number):
            raise UsageError(f"{at}--buffer {name}={str(value)[:40]}: a buffer's length is a positive whole number "
                             "of elements")
        out[str(name)] = int(number)
    return out


def _buffer_name(graph, name, option: str, at: str) -> None:
    """A UsageError naming ``option`` unless ``name`` is one of the kernel's buffer parameters."""
    names = [p.name for p in graph.function.params if p.kind == "buffer"]
    if name not in names:
        raise UsageError(f"{at}{option} {name}: kernel {graph.name} has no buffer parameter of that name "
                         f"(its buffers: {', '.join(names) or 'none'})")


def _input_arrays(graph, inputs, at: str) -> dict:
    """``inputs`` validated: names of the kernel's buffer parameters, each a non-empty numeric array (or the path
    of a ``.npy`` file holding one), flattened."""
    import numpy as np

    if not isinstance(inputs, dict):
        raise UsageError(f"{at}--input: inputs are an object of NAME: array, got a {type(inputs).__name__}")
    out = {}
    for name, value in inputs.items():
        _buffer_name(graph, name, "--input", at)
        if isinstance(value, (str, Path)):
            try:
                value = np.load(value, allow_pickle=False)
            except (OSError, ValueError) as e:
                raise UsageError(f"{at}--input {name}={value}: not a readable .npy file ({e})") from None
        array = np.asarray(value).ravel() if not isinstance(value, (bool, dict)) else np.zeros(0)
        if array.size == 0 or array.dtype.kind not in "biuf":
            raise UsageError(f"{at}--input {name}: a buffer's contents are a non-empty array of numbers")
        out[str(name)] = array
    return out


def _segment_means(graph, lengths: dict[str, int], local: list[int]) -> dict[str, float]:
    """The mean trip counts of ``graph``'s segment loops at these buffer lengths (:mod:`kgraph.analysis.segments`)."""
    from kgraph.analysis.segments import segment_loops, segment_trips

    analysis = analysis_of(graph)
    if analysis is None:
        return {}
    return segment_trips(segment_loops(analysis, graph.unit, graph.function), lengths, local)


#: graph -> (its scalar parameters, its trip_<line> symbols, its taken_<line> shares), made once per graph
_PARAMETERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _parameters(graph) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """``(scalar parameter names, trip_<line> symbols, taken_<line> branch shares)`` of ``graph``, in order
    (:func:`trip_symbols`, :func:`kgraph.analysis.branches.branch_symbols`)."""
    found = _PARAMETERS.get(graph)
    if found is None:
        from kgraph.analysis.branches import branch_symbols

        found = (tuple(p.name for p in graph.function.params if p.kind == "scalar"), tuple(trip_symbols(graph)),
                 tuple(branch_symbols(analysis_of(graph))))
        _PARAMETERS[graph] = found
    return found


def trip_symbols(graph) -> list[str]:
    """The ``trip_<line>`` symbols of ``graph``'s counts: loops whose trip count the analysis could not derive.
    A launch may give each its mean (per entry of the loop) as an argument of that name: the counts are then
    the static ones at that mean."""
    from kgraph.analysis.symbolic_math import TRIP_PREFIX
    from kgraph.graphs import analysis_of

    analysis = analysis_of(graph)
    return sorted(s for s in (analysis.symbols if analysis is not None else ()) if s.startswith(TRIP_PREFIX))


def to_tables(launches: list[Launch], footprints: list | None = None):
    """(launch rows with ``kernel_index``, sources, devices, distinct kernels) as ``kgraph.data.features`` wants
    (rows and sources as its :class:`~kgraph.data.launch_columns.LaunchColumns`: no pandas on the estimate path).

    ``footprints`` (:func:`static_footprints` of the same launches) fills ``footprint_bytes`` where the
    static footprint is exact (NaN elsewhere): the DRAM floor of :mod:`kgraph.data.floors` uses it.
    The rows carry each kernel's analysis (``analysis``), so the features do not parse the source again,
    and the scalar arguments as dicts (``args``; datasets hold them as JSON text). Built column by column."""
    from kgraph.data.launch_columns import LaunchColumns
    from kgraph.data.harness.keys import source_id_of

    kernels, index_of, sources, analyses, sids, kernel_index = [], {}, {}, [], {}, []
    last = (None, None, None)  # the previous launch's source, graph and kernel index (a batch repeats them)
    for launch in launches:
        if launch.graph is last[1] and launch.source is last[0]:
            kernel_index.append(last[2])
            continue
        sid = sids.get(launch.source)
        if sid is None:
            sid = sids[launch.source] = source_id_of(launch.source)
            sources[sid] = {"source_id": sid, "lang": launch.lang, "source": launch.source}
        key = (sid, launch.graph.name, id(launch.graph))  # a kernel at given branch shares is a graph of its own
        if key not in index_of:
            index_of[key] = len(kernels)
            kernels.append(launch)
            analyses.append(analysis_of(launch.graph))
        kernel_index.append(index_of[key])
        last = (launch.source, launch.graph, index_of[key])
    g = [l.global_size + [1] * (3 - len(l.global_size)) for l in launches]
    lsz = [l.local_size + [1] * (3 - len(l.local_size)) for l in launches]
    footprints = footprints if footprints is not None else [None] * len(launches)
    columns = {"device_id": [l.device["device_id"] for l in launches], "source_id": [sids[l.source] for l in launches],
               "kernel_name": [l.graph.name for l in launches], "analysis": [analyses[k] for k in kernel_index],
               "dims": [len(l.global_size) for l in launches],
               **{f"g{d}": [x[d] for x in g] for d in range(3)}, **{f"l{d}": [x[d] for x in lsz] for d in range(3)},
               "args": [l.args for l in launches], "kernel_index": kernel_index,
               "footprint_bytes": [exact_bytes(fp) for fp in footprints]}
    devices = {l.device["device_id"]: l.device for l in launches}
    source_columns = {name: [s[name] for s in sources.values()] for name in ("source_id", "lang", "source")}
    return LaunchColumns(columns), LaunchColumns(source_columns), devices, kernels


def static_footprints(launches: list[Launch]) -> list:
    """The static footprint (:mod:`kgraph.analysis.footprint`) of each launch: a
    :class:`~kgraph.analysis.footprint.FootprintResult`, or None when the kernel cannot be analysed.
    Made once per kernel from its one analysis (:func:`analysis_of`) and kept with it; the launches of a
    kernel are evaluated together (:meth:`~kgraph.analysis.footprint.StaticFootprint.evaluate_many`)."""
    import numpy as np

    by_kernel: dict[int, list[int]] = {}
    for i, launch in enumerate(launches):
        by_kernel.setdefault(id(launch.graph), []).append(i)
    out = [None] * len(launches)
    for idx in by_kernel.values():
        fp = kernel_footprint(launches[idx[0]].graph)
        if fp is None:
            continue
        group = [launches[i] for i in idx]
        dims = [len(l.global_size) for l in group]
        shapes = sorted(set(dims))
        for shape in shapes:  # one array shape per dimensionality (most kernels' launches have one)
            at, same = (idx, group) if len(shapes) == 1 else (
                [i for i, d in zip(idx, dims) if d == shape], [l for l, d in zip(group, dims) if d == shape])
            args = {name: np.array([l.args[name] for l in same]) for name in same[0].args}
            results = fp.evaluate_many(args, [l.global_size for l in same], [l.local_size for l in same])
            for i, result in zip(at, results):
                out[i] = result
    return out


def with_static_footprint(launches: list[Launch], predictions: list[dict], footprints: list | None = None,
                          in_place: bool = False) -> list[dict]:
    """``predictions`` with ``footprint_bytes`` replaced by the static footprint where it is exact
    (``footprint_source`` = ``"static"``), else the model's (``"model"``), but never more than the launch's buffers
    hold where it gave every buffer's length (``--buffer``; ``"buffers"``: the sum of their bytes, an upper bound).
    ``footprints``: the launches' :func:`static_footprints` when the caller has them already (computed here
    otherwise). ``in_place``: update the dicts of ``predictions`` themselves (a caller's own, made for this call),
    not copies of them."""
    out = []
    for launch, fp, pred in zip(launches, footprints if footprints is not None else static_footprints(launches),
                                predictions):
        pred = pred if in_place else dict(pred)
        exact = exact_bytes(fp)
        if not math.isnan(exact):
            pred["footprint_bytes"], pred["footprint_source"] = exact, "static"
        else:
            pred["footprint_source"] = "model"
            held = buffer_bytes(launch)
            if held is not None and pred["footprint_bytes"] > held:
                pred["footprint_bytes"], pred["footprint_source"] = held, "buffers"
        out.append(pred)
    return out


def buffer_bytes(launch: Launch) -> float | None:
    """The bytes of all the launch's global buffers where it gave every buffer parameter's length, else None."""
    if not launch.buffers:
        return None
    params = [p for p in launch.graph.function.params if p.kind == "buffer"]
    if any(p.name not in launch.buffers for p in params):
        return None
    return float(sum(launch.buffers[p.name] * p.elem_bytes for p in params))
