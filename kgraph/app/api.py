"""The Python API: ``kgraph.load_model()`` and :class:`Model`, the same path ``kgraph estimate`` takes.

    import kgraph
    m = kgraph.load_model()
    r = m.estimate("saxpy.cl", kernel="saxpy", global_size=1 << 20, local_size=256,
                   args={"n": 1 << 20, "a": 2.0}, device="h200")
    df = m.estimate_batch([{"file": "saxpy.cl", "kernel": "saxpy", "global": [1 << 20], "args": {...},
                            "device": "h200"}, ...])

Each distinct source file is parsed once, and each kernel launched analysed once, per :class:`Model`: the kernels of a
file are kept (up to ``KERNEL_CACHE`` files, keyed by the file's content, its ``-D`` macros and its includes' stamps),
so a later call on the same file reuses its graphs and their one analysis; each distinct device is resolved once per
call; launches are validated before the model is loaded; the footprint is the exact static one where the analysis
proves it (``footprint_source``), else the model's; so are the FLOPs and bytes (``flops_source``, ``bytes_source``: the
kernel's static counts evaluated at the launch, where they are exact; :mod:`kgraph.app.static_checks`), the bandwidth
is those bytes ÷ the time, and there the bound class follows from them and the time (``bound_source``,
:mod:`kgraph.app.static_outputs`). ``warnings`` names launches that cover only part of the problem their arguments
describe. CUDA launches can be given as ``grid=``/``block=`` (blocks per grid and threads per block) instead of
``global_size`` (threads per dimension, grid x block) and ``local_size``; ``defines`` are ``-D`` macros.
"""
from __future__ import annotations

import functools
import gc
import hashlib
import json
import math
import os
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Sequence

from kgraph.errors import KGraphError, UsageError

KERNEL_CACHE = 256  # source files whose kernels (graphs and their analyses) a Model keeps


def _sizes(value, at: str, option: str) -> list[int] | None:
    """An int, a sequence of ints, or ``"G0,G1"`` text -> list of ints (validated by ``make_launch``).

    Args:
        value: the sizes as given (None or "" for none).
        at, option: the message prefix and the option the messages name (``--global`` ...), joined only there.
    """
    if value is None or value == "":
        return None
    if type(value) is list and 1 <= len(value) <= 3:  # the common case of a batch, without the per-part checks
        for p in value:
            if type(p) is not int or p <= 0:
                break
        else:
            return list(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = [value]
    parts = value if isinstance(value, (list, tuple)) else str(value).split(",")
    out = [_size(p, value, at + option) for p in parts]
    if not 1 <= len(out) <= 3:
        raise UsageError(f"{at}{option} {value}: {len(out)} dimensions; expected 1 to 3")
    return out


def _size(part, value, option: str) -> int:
    """One positive integer size (exact for integers of any magnitude: 2^64 + 1 stays itself)."""
    if type(part) is int and part > 0:  # the common case, without the text round trip
        return part
    text = str(part).strip()
    if isinstance(part, bool) or not text:
        number = None
    else:
        try:
            number = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                number = None
    if number is None:
        raise UsageError(f"{option} {value}: '{part}' is not an integer (expected 1 to 3 comma-separated "
                         "positive integers, e.g. 4096,4096)")
    if isinstance(number, float) and (not math.isfinite(number) or number != int(number)) or number <= 0:
        raise UsageError(f"{option} {value}: sizes must be positive integers, got {part}")
    return int(number)


_BIG = 2 ** 1000  # an int argument below this in magnitude converts to a finite float


def _scalar_args(args, at: str) -> dict[str, float]:
    """Scalar argument values by name: numbers (or numeric text, a vector's lanes: :func:`check_lanes`), finite;
    UsageError naming one that is not.

    Args:
        args: the request's ``args`` (a dict, or None).
        at: message prefix.
    """
    if args is None:
        return {}
    if not isinstance(args, dict):
        raise UsageError(f"{at}--arg: scalar arguments are an object of NAME: number, got a "
                         f"{type(args).__name__}")
    out = {}
    for name, value in args.items():
        if type(name) is str and (type(value) is float and value - value == 0.0 or  # finite: the common case
                                  type(value) is int and -_BIG < value < _BIG):
            out[name] = float(value)
            continue
        number = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value) if not isinstance(value, int) or abs(value) < 2**1023 else math.inf
        elif isinstance(value, (str, list, tuple)):
            try:  # a vector scalar (uint2, float4) is given as its lanes a,b[,...] (or a list, a dataset row's) as for
                # measure; the counts read lane 0 (the analysis never follows a vector scalar's lanes symbolically)
                lanes = [float(v) for v in (value.split(",") if isinstance(value, str) else value)]
                number = lanes[0] if all(math.isfinite(v) for v in lanes) else math.inf
            except (ValueError, TypeError, IndexError):  # not numbers, or no lane
                number = None
        if number is None:
            raise UsageError(f"{at}--arg {name}={str(value)[:40]}: not a number")
        if not math.isfinite(number):
            raise UsageError(f"{at}--arg {name}={str(value)[:40]}: the value must be finite")
        out[str(name)] = number
    return out


def _defines(defines, at: str) -> dict[str, str]:
    """``-D`` macros of a request as text by name; UsageError when they are not an object of values."""
    if defines is None:
        return {}
    if not isinstance(defines, dict) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                                for v in defines.values()):
        raise UsageError(f"{at}-D: macros are an object of NAME: value (text or a number)")
    return {str(k): str(v) for k, v in defines.items()}


def _collector_paused(method):
    """``method`` with Python's cyclic garbage collector paused while it runs (enabled again after, if it
    was): a batch allocates many short-lived objects, and each collection they trigger walks every object
    of the model, torch and sympy (a fifth of the CPU time of 20,000 launches)."""

    @functools.wraps(method)
    def paused(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return method(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused


class Model:
    """A loaded model directory, ready to estimate launches.

    Args:
        directory: a default-model directory (``model.safetensors`` + ``config.json``); the shipped
            default when None. The weights are loaded on the first estimate, after validation.
    """

    def __init__(self, directory: str | Path | None = None):
        from kgraph.models.shipped import DEFAULT_DIR

        from kgraph.models.predictor import read_config

        self.directory = Path(directory) if directory is not None else DEFAULT_DIR
        self.config, self._config_error = {}, None
        if (self.directory / "config.json").is_file():
            try:
                self.config = read_config(self.directory)
            except KGraphError as exc:  # raised when the devices or the weights are needed
                self._config_error = exc
        self._predictor = None
        self._kernels: OrderedDict = OrderedDict()  # (path, lang, defines) -> (stamp, kernel graphs)

    def kernels(self, file: str | Path, lang: str | None = None, defines: dict[str, str] | None = None) -> dict:
        """Kernel name -> ``KernelGraph`` of ``file`` (parsed with ``-D`` ``defines``), kept for later calls
        while the file's content and its includes are unchanged; each graph's analysis is made on first
        use and kept with it (``kgraph.graphs.analysis_of``). Raises as the parsers do."""
        from kgraph.models.launches import kernels_of

        defines = dict(defines or {})
        key = (os.path.abspath(str(file)), lang, json.dumps(defines, sort_keys=True))
        stamp = _stamp(str(file))
        hit = self._kernels.get(key)
        if hit is not None and stamp is not None and hit[0] == stamp and all(_stamp(p) == t for p, t in hit[2]):
            self._kernels.move_to_end(key)
            return hit[1]
        graphs = kernels_of(file, lang) if not defines else _kernels_with_defines(str(file), lang, defines)
        if stamp is not None:
            unit = next(iter(graphs.values())).unit if graphs else None
            includes = [(p, _stamp(p)) for _, p in (getattr(unit, "includes", None) or []) if p]
            self._kernels[key] = (stamp, graphs, includes)
            while len(self._kernels) > KERNEL_CACHE:
                self._kernels.popitem(last=False)
        return graphs

    @property
    def devices(self) -> dict[str, dict]:
        """Descriptors of the devices the model knows by name (``device_id`` -> ``device.json`` dict);
        the ModelError of a damaged ``config.json``."""
        if self._config_error is not None:
            raise self._config_error
        return dict(self.config.get("devices", {}))

    @property
    def predictor(self):
        if self._predictor is None:
            from kgraph.models.predictor import Predictor

            self._predictor = Predictor.from_directory(self.directory)
        return self._predictor

    def estimate(self, file: str | Path, kernel: str, global_size=None, local_size=None,
                 args: dict[str, float] | None = None, device: str | dict | None = None,
                 lang: str | None = None, *, grid=None, block=None,
                 defines: dict[str, str] | None = None, buffers: dict[str, int] | None = None,
                 inputs: dict | None = None) -> dict[str, Any]:
        """One launch: ``time_ns, bandwidth_gbs, footprint_bytes, footprint_source, flops, flops_source,
        bytes, bytes_source, bound, bound_probability, counts_note, time_at_bound_ns, warnings`` plus the launch
        (``file, kernel, device, global, local, args, buffers, derived_trips``). ``time_at_bound_ns``: where loops
        of data-dependent trip count are read at one iteration and their conditions bound them, the time with every
        one at its bound (else None). Give ``global_size`` [and ``local_size``], or (CUDA) ``grid`` and ``block``.
        ``buffers`` (buffer parameter -> elements) gives the mean trip count of loops over one segment of an
        offsets array (:mod:`kgraph.analysis.segments`), reported in ``derived_trips``; ``inputs`` (buffer -> its
        contents: an array or a ``.npy`` path) also of loops bounded by its elements (kgraph.analysis.data_trips)."""
        request = {"file": file, "kernel": kernel, "global": global_size, "local": local_size,
                   "args": dict(args or {}), "device": device, "grid": grid, "block": block,
                   "defines": dict(defines or {}), "buffers": buffers, "inputs": inputs}
        return self.estimate_many([request], lang=lang)[0]

    def estimate_batch(self, requests: Iterable[dict], lang: str | None = None):
        """Many launches (dicts with ``file, kernel, global`` and optional ``local, args, device``) as a
        pandas DataFrame, one row per launch in order."""
        import pandas as pd

        return pd.DataFrame(self.estimate_many(list(requests), lang=lang))

    def launches_of(self, requests: Sequence[dict], lang: str | None = None,
                    default_file: str | Path | None = None, default_device: str | dict | None = None) -> tuple:
        """The validated launches of :meth:`estimate_many`'s requests, each file parsed once:
        ``(launches, inputs, as_grid)`` — the :class:`~kgraph.models.launches.Launch` of each request, the
        launch as its record echoes it (``file, kernel, device, global, local, args``), and whether it was
        given as CUDA ``grid``/``block``. UsageError/InputError as :meth:`estimate_many`."""
        import dataclasses

        from kgraph.app.launch_checks import check_lanes, check_launch
        from kgraph.models.launches import make_launch

        files, devices, launches, inputs, as_grid = {}, {}, [], [], []
        checked: set = set()  # (kernel, device, work-group, as grid) whose device checks passed
        last = (object(), None)  # the previous request's device value and descriptor (a batch repeats one)
        for n, req in enumerate(requests):
            if not isinstance(req, dict):
                raise UsageError(f"request {n}: a launch is a dict (file, kernel, global, ...), got a "
                                 f"{type(req).__name__}")
            at = f"{req['where']}: " if req.get("where") else ""
            file = req.get("file") or default_file
            if not file:
                raise UsageError(f"{at}no source file (give FILE or a file column)")
            file = str(file)
            defines = _defines(req.get("defines"), at)
            fkey = (file, tuple(sorted((str(k), str(v)) for k, v in defines.items())) if defines else ())
            if fkey not in files:
                files[fkey] = self.kernels(file, lang, defines)
            device = req.get("device") or default_device
            descriptor = last[1] if device is last[0] else self._device(device, at, devices)
            last = (device, descriptor)
            only = next(iter(files[fkey])) if len(files[fkey]) == 1 else None  # a one-kernel file needs no --kernel
            kernel = req.get("kernel") or only
            if not kernel or not isinstance(kernel, str):
                raise UsageError(f"{at}--kernel: required (a kernel name); kernels in {file}: "
                                 f"{', '.join(files[fkey])}")
            g, local = _launch_sizes(req, at)
            args = _scalar_args(req.get("args"), at)
            launch = make_launch(files[fkey], kernel, g, local, args, descriptor, req.get("where", ""),
                                 req.get("buffers"), req.get("inputs"))
            check_lanes(req.get("args"), launch.graph, at)
            as_grid.append(bool(req.get("grid")))
            check_launch(launch, at, as_grid[-1], checked)
            if defines:  # the model reads the source text: the macros go in front of it
                launch = dataclasses.replace(launch, source=_with_defines(launch.source, defines))
            launches.append(launch)
            inputs.append({"file": file, "kernel": kernel, "device": launch.device["device_id"],
                           "global": launch.global_size, "local": launch.local_size,
                           "args": {k: v for k, v in launch.args.items() if k not in launch.derived} if launch.derived
                           else launch.args, "buffers": launch.buffers, "derived_trips": launch.derived})
        return launches, inputs, as_grid

    @_collector_paused
    def estimate_many(self, requests: Sequence[dict], lang: str | None = None,
                      default_file: str | Path | None = None, default_device: str | dict | None = None) -> list[dict]:
        """The records of :meth:`estimate` for each request; ``where`` in a request (``file:line``)
        prefixes its error messages. A request may give ``grid``/``block`` instead of ``global``/``local``,
        ``defines`` (``-D`` macros) and ``buffers`` (buffer lengths, :meth:`estimate`)."""
        from kgraph.app.launch_checks import peak_warnings_many
        from kgraph.app.static_outputs import assumed_flags, static_facts, with_static_outputs
        from kgraph.data.floors import device_rates

        launches, inputs, as_grid = self.launches_of(requests, lang, default_file, default_device)
        keys = [(launch.key(), grid) for launch, grid in zip(launches, as_grid)]  # a repeated launch: predicted once
        first: dict = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        distinct = list(first.values())
        unique = [launches[i] for i in distinct]
        facts = static_facts(unique)  # exact counts first: they (and assumed trip counts) pick the interval margins
        points = self.predictor.predict(unique, [c is not None for c in facts[0]], assumed_flags(unique, facts[3]))
        predictions = with_static_outputs(unique, points, [as_grid[i] for i in distinct], self.predictor.predict, facts,
                                          in_place=True)
        per_device: dict = {}  # each device's rates and range warning, derived once per batch
        for launch in unique:
            if id(launch.device) not in per_device:
                per_device[id(launch.device)] = device_rates(launch.device), self.predictor.range_warning(launch.device)
        devices = [per_device[id(launch.device)] for launch in unique]
        peaks = peak_warnings_many(unique, predictions, [rates for rates, _ in devices])  # the batch tested at once
        for pred, extra, (_, clipped) in zip(predictions, peaks, devices):  # a prediction past the peaks is flagged
            pred["warnings"] = list(pred["warnings"] or []) + extra + clipped
        if len(unique) < len(launches):  # a repeated launch's record is a copy of the first one's
            slot = {key: j for j, key in enumerate(first)}
            predictions = [predictions[slot[key]] for key in keys]
            return [{**i, **p, "warnings": list(p["warnings"])} for i, p in zip(inputs, predictions)]
        return [{**i, **p} for i, p in zip(inputs, predictions)]  # each record's warnings are its own list already

    def _device(self, device, at: str, resolved: dict) -> dict:
        """The descriptor of a request's device (an id, part of one, a ``device.json`` path or a
        descriptor dict, validated), resolved once per distinct value in ``resolved``.

        Args:
            device: the request's device.
            at: message prefix.
            resolved: key -> descriptor of the devices resolved so far (updated).
        """
        from kgraph.data.harness.descriptor import validate_descriptor
        from kgraph.models.predictor import resolve_device

        if not device:
            raise UsageError(f"{at}--device: required (a device id such as "
                             f"{', '.join(sorted(self.devices)) or 'h200'}, or a device.json file)")
        if not isinstance(device, (str, dict, os.PathLike)):
            raise UsageError(f"{at}--device: a device id, a device.json path or a descriptor dict, got a "
                             f"{type(device).__name__}")
        key = json.dumps(device, sort_keys=True, default=str) if isinstance(device, dict) else str(device)
        if key not in resolved:
            resolved[key] = (validate_descriptor(device, f"{at}--device (a descriptor dict)")
                             if isinstance(device, dict) else resolve_device(str(device), self.devices))
        return resolved[key]

    def unseen_devices(self, records: list[dict]) -> list[str]:
        """Device ids in ``records`` whose measurements the model was not trained on."""
        trained = self.predictor.trained_on
        return sorted({r["device"] for r in records} - set(trained)) if trained else []


def _launch_sizes(req: dict, at: str) -> tuple[list[int], list[int] | None]:
    """(global, local) of a request: ``global``/``local`` as given, or ``grid`` x ``block`` and ``block``."""
    if req.get("grid") in (None, "") and req.get("block") in (None, ""):  # the common case, two parses fewer
        g, local = _sizes(req.get("global"), at, "--global"), _sizes(req.get("local"), at, "--local")
        if g is None:
            raise UsageError(f"{at}--global: required (or --grid and --block for a CUDA launch)")
        return g, local
    grid, block = _sizes(req.get("grid"), at, "--grid"), _sizes(req.get("block"), at, "--block")
    g, local = _sizes(req.get("global"), at, "--global"), _sizes(req.get("local"), at, "--local")
    if grid is None and block is None:
        if g is None:
            raise UsageError(f"{at}--global: required (or --grid and --block for a CUDA launch)")
        return g, local
    if g is not None or local is not None:
        raise UsageError(f"{at}--grid/--block: give either --global [--local] or --grid and --block, not both")
    if grid is None or block is None:
        raise UsageError(f"{at}--grid and --block go together (blocks per grid and threads per block)")
    if len(grid) != len(block):
        raise UsageError(f"{at}--grid {','.join(map(str, grid))} has {len(grid)} dimension(s), --block "
                         f"{','.join(map(str, block))} has {len(block)}")
    return [gd * bd for gd, bd in zip(grid, block)], block


def _kernels_with_defines(file: str, lang: str | None, defines: dict[str, str]) -> dict:
    """Kernel name -> ``KernelGraph`` of ``file`` parsed with ``-D`` macros (no analysis)."""
    import kgraph

    return {g.name: g for g in kgraph.from_file(file, lang, analyze=False, defines=defines)}


def _stamp(path: str) -> str | None:
    """sha1 of the file's bytes, or None when it cannot be read (the parser then reports why)."""
    try:
        return hashlib.sha1(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _with_defines(source: str, defines: dict[str, str]) -> str:
    return "".join(f"#define {k} {v}\n" for k, v in defines.items()) + source


def load_model(directory: str | Path | None = None) -> Model:
    """The shipped default model (or the model directory ``directory``), ready to estimate."""
    return Model(directory)
