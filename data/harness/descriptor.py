"""Device descriptors (``device.json``): OpenCL properties plus the measured roofline, and the
numeric hardware feature vector the models consume.

``DEVICE_FEATURES`` fixes the order of :func:`to_feature_vector`; quantities spanning decades are
log-scaled (log2 for counts and sizes, log10 for rates and times).
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from kgraph.errors import InputError

from .devices import DeviceInfo, device_type_name

# Each hardware feature, once: its name and its value from a descriptor, in the vector's order.
_DEVICE_FEATURE_VALUES = {
    "is_gpu": lambda d: 1.0 if d.get("type") == "GPU" else 0.0,  # 1.0 for GPUs, 0.0 otherwise
    "log2_compute_units": lambda d: _log(d["compute_units"], 2),
    "log10_max_clock_mhz": lambda d: _log(d["max_clock_mhz"], 10),
    "log2_global_mem_bytes": lambda d: _log(d["global_mem_bytes"], 2),
    "log2_local_mem_bytes": lambda d: _log(d["local_mem_bytes"], 2),
    "log2_max_work_group_size": lambda d: _log(d["max_work_group_size"], 2),
    "log2_global_cache_bytes": lambda d: _log(d["global_cache_bytes"], 2),
    "log10_copy_bw_gbs": lambda d: _log(d["roofline"]["copy_bw_gbs"], 10),
    "log10_fp32_gflops": lambda d: _log(d["roofline"]["fp32_gflops"], 10),
    "log10_fp64_gflops": lambda d: _log(d["roofline"]["fp64_gflops"], 10),
    "log10_local_bw_gbs": lambda d: _log(d["roofline"]["local_bw_gbs"], 10),
    "log10_launch_overhead_us": lambda d: _log(d["roofline"]["launch_overhead_us"], 10),
    # fp32 peak / copy bandwidth: where the roofline bends
    "log10_ridge_fp32_flop_per_byte": lambda d: (
        _log(float(d["roofline"]["fp32_gflops"]) / float(d["roofline"]["copy_bw_gbs"]), 10)
        if d["roofline"]["copy_bw_gbs"] else 0.0),
    "fp64_to_fp32_ratio": lambda d: (float(d["roofline"]["fp64_gflops"]) / float(d["roofline"]["fp32_gflops"])
                                     if float(d["roofline"]["fp32_gflops"]) > 0 else 0.0),
}
DEVICE_FEATURES = tuple(_DEVICE_FEATURE_VALUES)
ROOFLINE_KEYS = ("copy_bw_gbs", "fp32_gflops", "fp64_gflops", "local_bw_gbs", "launch_overhead_us")


def opencl_properties(info: DeviceInfo, device) -> dict:
    """The descriptor fields read from the OpenCL device (everything but ``roofline``)."""
    return {
        "device_id": info.device_id, "name": info.name, "vendor": info.vendor,
        "type": device_type_name(device), "platform": info.platform,
        "driver": str(device.driver_version), "opencl_version": str(device.version),
        "compute_units": int(device.max_compute_units), "max_clock_mhz": int(device.max_clock_frequency),
        "global_mem_bytes": int(device.global_mem_size), "local_mem_bytes": int(device.local_mem_size),
        "max_work_group_size": int(device.max_work_group_size),
        "max_work_item_sizes": [int(x) for x in device.max_work_item_sizes],
        "global_cache_bytes": int(device.global_mem_cache_size),
        "max_mem_alloc_bytes": int(device.max_mem_alloc_size),
        "has_fp64": bool(getattr(device, "double_fp_config", 0)),
    }


def measure_descriptor(info: DeviceInfo, ctx=None, queue=None) -> dict:
    """Build the full descriptor of a device: properties + roofline micro-benchmarks (a few seconds)."""
    import pyopencl as cl

    from .roofline import measure_roofline, roofline_method

    device = info.open()
    ctx = ctx or cl.Context([device])
    queue = queue or cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    descriptor = opencl_properties(info, device)
    descriptor["roofline"] = measure_roofline(ctx, queue, device)
    descriptor["roofline_method"] = roofline_method(bool(device.type & cl.device_type.GPU))
    return descriptor


def save_descriptor(descriptor: dict, directory) -> Path:
    """Write ``directory/device.json`` atomically (temp file + rename)."""
    path = Path(directory) / "device.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(descriptor, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return path


#: Numeric fields every descriptor needs (the hardware feature vector reads them): finite and > 0.
REQUIRED_FIELDS = ("compute_units", "max_clock_mhz", "global_mem_bytes", "local_mem_bytes", "max_work_group_size",
                   "global_cache_bytes")
#: Roofline fields: finite and > 0, except ``fp64_gflops`` (>= 0: 0 for a device without fp64).
OPTIONAL_POSITIVE = ("max_mem_alloc_bytes", "llc_bytes")
DEVICE_TYPES = ("GPU", "CPU", "ACCELERATOR")
MAX_DESCRIPTOR_BYTES = 2**20  # a device.json is a few hundred bytes; /dev/zero or a huge file is refused


def _number(value, field: str, where: str, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: field '{field}' must be a number, got {json.dumps(value)[:40]}")
    if isinstance(value, int) and abs(value) > 2**1023:  # beyond any double (math.isfinite would overflow)
        raise InputError(f"{where}: field '{field}' must be finite, got an integer of {len(str(abs(value)))} digits")
    if not math.isfinite(value):
        raise InputError(f"{where}: field '{field}' must be finite, got {value}")
    if value < 0 or (value == 0 and not allow_zero):
        raise InputError(f"{where}: field '{field}' must be {'>= 0' if allow_zero else 'positive'}, got {value}")
    return float(value)


def validate_descriptor(descriptor, where: str = "device descriptor") -> dict:
    """``descriptor`` itself when it is a usable ``device.json`` dict; else InputError naming the field.

    Needs ``device_id`` (non-empty text), ``type`` (GPU|CPU|ACCELERATOR), the numeric
    ``REQUIRED_FIELDS`` and ``roofline`` with ``ROOFLINE_KEYS`` (finite, > 0; ``fp64_gflops`` >= 0);
    ``launch_wall_us``, ``max_mem_alloc_bytes``, ``llc_bytes`` and ``max_work_item_sizes`` are checked
    when present. See docs/DEVICES.md.
    """
    if not isinstance(descriptor, dict):
        raise InputError(f"{where}: a device descriptor is a JSON object, got {type(descriptor).__name__}")
    device_id = descriptor.get("device_id")
    if not isinstance(device_id, str) or not device_id.strip():
        raise InputError(f"{where}: field 'device_id' must be a non-empty string")
    if descriptor.get("type") not in DEVICE_TYPES:
        raise InputError(f"{where}: field 'type' must be one of {', '.join(DEVICE_TYPES)}, "
                         f"got {json.dumps(descriptor.get('type'))}")
    for field in REQUIRED_FIELDS:
        if field not in descriptor:
            raise InputError(f"{where}: field '{field}' is missing")
        _number(descriptor[field], field, where)
    for field in OPTIONAL_POSITIVE:
        if descriptor.get(field) is not None:
            _number(descriptor[field], field, where)
    sizes = descriptor.get("max_work_item_sizes")
    if sizes is not None and (not isinstance(sizes, list) or not sizes
                              or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in sizes)):
        raise InputError(f"{where}: field 'max_work_item_sizes' must be a list of positive integers")
    roofline = descriptor.get("roofline")
    if not isinstance(roofline, dict):
        raise InputError(f"{where}: field 'roofline' is missing or not an object "
                         f"(needs {', '.join(ROOFLINE_KEYS)})")
    for key in ROOFLINE_KEYS:
        if key not in roofline:
            raise InputError(f"{where}: field 'roofline.{key}' is missing")
        _number(roofline[key], f"roofline.{key}", where, allow_zero=key == "fp64_gflops")
    if roofline.get("launch_wall_us") is not None:
        _number(roofline["launch_wall_us"], "roofline.launch_wall_us", where)
    return descriptor


def load_descriptor(directory_or_file) -> dict:
    """Read a ``device.json`` (the file or its dataset folder); InputError when missing or invalid
    (:func:`validate_descriptor`: the message names the field)."""
    path = Path(directory_or_file)
    if path.is_dir():
        path = path / "device.json"
    if path.exists() and not path.is_file():
        raise InputError(f"{path}: not a regular file (a device descriptor is a device.json file)")
    if path.is_file() and path.stat().st_size > MAX_DESCRIPTOR_BYTES:
        raise InputError(f"{path}: {path.stat().st_size} bytes, too large for a device descriptor (at most "
                         f"{MAX_DESCRIPTOR_BYTES})")
    try:
        descriptor = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"{path}: no device descriptor (run a campaign on the device to measure it, or "
                         f"make one: kgraph device describe / kgraph device from-spec)") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the device descriptor ({exc.__class__.__name__})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to be a device descriptor") from None
    return validate_descriptor(descriptor, str(path))


#: ``descriptor_from_spec`` defaults per device type for what a spec sheet may not give.
SPEC_DEFAULTS = {
    "GPU": {"compute_units": 108, "max_clock_mhz": 1500, "global_mem_bytes": 40 * 2**30, "local_mem_bytes": 48 * 2**10,
            "max_work_group_size": 1024, "global_cache_bytes": 4 * 2**20, "local_bw_factor": 5.0,
            "launch_overhead_us": 5.0, "launch_wall_us": 15.0, "fp64_ratio": 0.5},
    "CPU": {"compute_units": 16, "max_clock_mhz": 3000, "global_mem_bytes": 64 * 2**30, "local_mem_bytes": 512 * 2**10,
            "max_work_group_size": 4096, "global_cache_bytes": 32 * 2**20, "local_bw_factor": 1.0,
            "launch_overhead_us": 1.0, "launch_wall_us": 8.0, "fp64_ratio": 0.5},
}


def descriptor_from_spec(name: str, copy_bw_gbs: float, fp32_gflops: float, *, fp64_gflops: float | None = None,
                         local_bw_gbs: float | None = None, launch_overhead_us: float | None = None,
                         device_type: str = "GPU", vendor: str = "", device_id: str | None = None,
                         compute_units: int | None = None, max_clock_mhz: float | None = None,
                         global_mem_bytes: int | None = None, local_mem_bytes: int | None = None,
                         max_work_group_size: int | None = None, global_cache_bytes: int | None = None,
                         llc_bytes: int | None = None) -> dict:
    """A descriptor from spec-sheet numbers (validated). What is not given takes ``SPEC_DEFAULTS`` of
    the type (fp64 = fp32 x ratio, local bandwidth = copy bandwidth x factor); those fields are listed in
    ``spec_defaults``. ``device_id`` defaults to the slug of ``vendor name``."""
    from .devices import slug_of

    if device_type not in SPEC_DEFAULTS:
        raise InputError(f"device type {device_type!r}: expected one of {', '.join(SPEC_DEFAULTS)}")
    if not isinstance(name, str) or not name.strip():
        raise InputError("field 'name' must be a non-empty string")
    d = SPEC_DEFAULTS[device_type]
    defaulted: list[str] = []

    def pick(field, value, default):
        if value is None:
            defaulted.append(field)
            return default
        return value

    copy = _number(copy_bw_gbs, "roofline.copy_bw_gbs", "from-spec")
    fp32 = _number(fp32_gflops, "roofline.fp32_gflops", "from-spec")
    descriptor = {
        "device_id": device_id or slug_of("", f"{vendor} {name}".strip(), vendor),
        "name": name.strip(), "vendor": vendor, "type": device_type, "platform": "spec sheet", "driver": "",
        "opencl_version": "", "source": "spec",
        "compute_units": pick("compute_units", compute_units, d["compute_units"]),
        "max_clock_mhz": pick("max_clock_mhz", max_clock_mhz, d["max_clock_mhz"]),
        "global_mem_bytes": pick("global_mem_bytes", global_mem_bytes, d["global_mem_bytes"]),
        "local_mem_bytes": pick("local_mem_bytes", local_mem_bytes, d["local_mem_bytes"]),
        "max_work_group_size": pick("max_work_group_size", max_work_group_size, d["max_work_group_size"]),
        "global_cache_bytes": pick("global_cache_bytes", global_cache_bytes, d["global_cache_bytes"]),
        "roofline": {
            "copy_bw_gbs": copy, "fp32_gflops": fp32,
            "fp64_gflops": pick("roofline.fp64_gflops", fp64_gflops, fp32 * d["fp64_ratio"]),
            "local_bw_gbs": pick("roofline.local_bw_gbs", local_bw_gbs, copy * d["local_bw_factor"]),
            "launch_overhead_us": pick("roofline.launch_overhead_us", launch_overhead_us, d["launch_overhead_us"]),
            "launch_wall_us": d["launch_wall_us"],
        },
    }
    descriptor["max_work_item_sizes"] = [int(descriptor["max_work_group_size"])] * 3
    descriptor["max_mem_alloc_bytes"] = int(descriptor["global_mem_bytes"]) // 4
    descriptor["has_fp64"] = float(descriptor["roofline"]["fp64_gflops"]) > 0
    if llc_bytes is not None:
        descriptor["llc_bytes"] = llc_bytes
    descriptor["spec_defaults"] = defaulted
    return validate_descriptor(descriptor, f"device {name!r}")


def _log(value, base) -> float:
    value = float(value)
    if value <= 0 or math.isnan(value):
        return 0.0
    return math.log2(value) if base == 2 else math.log10(value)


def to_feature_vector(descriptor: dict) -> list[float]:
    """The hardware features of a descriptor, in ``DEVICE_FEATURES`` order (non-positive -> 0)."""
    return [float(value(descriptor)) for value in _DEVICE_FEATURE_VALUES.values()]
