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

DEVICE_FEATURES = (
    "is_gpu",                     # 1.0 for GPUs, 0.0 otherwise
    "log2_compute_units",
    "log10_max_clock_mhz",
    "log2_global_mem_bytes",
    "log2_local_mem_bytes",
    "log2_max_work_group_size",
    "log2_global_cache_bytes",
    "log10_copy_bw_gbs",
    "log10_fp32_gflops",
    "log10_fp64_gflops",
    "log10_local_bw_gbs",
    "log10_launch_overhead_us",
    "log10_ridge_fp32_flop_per_byte",  # fp32 peak / copy bandwidth: where the roofline bends
    "fp64_to_fp32_ratio",
)
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

    from .roofline import measure_roofline

    device = info.open()
    ctx = ctx or cl.Context([device])
    queue = queue or cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    descriptor = opencl_properties(info, device)
    descriptor["roofline"] = measure_roofline(ctx, queue, device)
    return descriptor


def save_descriptor(descriptor: dict, directory) -> Path:
    """Write ``directory/device.json`` atomically (temp file + rename)."""
    path = Path(directory) / "device.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(descriptor, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return path


def load_descriptor(directory_or_file) -> dict:
    """Read a ``device.json`` (the file or its dataset folder); InputError when missing or invalid."""
    path = Path(directory_or_file)
    if path.is_dir():
        path = path / "device.json"
    try:
        descriptor = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"{path}: no device descriptor (run a campaign on the device to measure it)") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    missing = [k for k in ROOFLINE_KEYS if k not in descriptor.get("roofline", {})]
    if missing:
        raise InputError(f"{path}: roofline lacks {', '.join(missing)}")
    return descriptor


def _log(value, base) -> float:
    value = float(value)
    if value <= 0 or math.isnan(value):
        return 0.0
    return math.log2(value) if base == 2 else math.log10(value)


def to_feature_vector(descriptor: dict) -> list[float]:
    """The hardware features of a descriptor, in ``DEVICE_FEATURES`` order (non-positive -> 0)."""
    r = descriptor["roofline"]
    fp32 = float(r["fp32_gflops"])
    features = {
        "is_gpu": 1.0 if descriptor.get("type") == "GPU" else 0.0,
        "log2_compute_units": _log(descriptor["compute_units"], 2),
        "log10_max_clock_mhz": _log(descriptor["max_clock_mhz"], 10),
        "log2_global_mem_bytes": _log(descriptor["global_mem_bytes"], 2),
        "log2_local_mem_bytes": _log(descriptor["local_mem_bytes"], 2),
        "log2_max_work_group_size": _log(descriptor["max_work_group_size"], 2),
        "log2_global_cache_bytes": _log(descriptor["global_cache_bytes"], 2),
        "log10_copy_bw_gbs": _log(r["copy_bw_gbs"], 10),
        "log10_fp32_gflops": _log(fp32, 10),
        "log10_fp64_gflops": _log(r["fp64_gflops"], 10),
        "log10_local_bw_gbs": _log(r["local_bw_gbs"], 10),
        "log10_launch_overhead_us": _log(r["launch_overhead_us"], 10),
        "log10_ridge_fp32_flop_per_byte": _log(fp32 / float(r["copy_bw_gbs"]), 10) if r["copy_bw_gbs"] else 0.0,
        "fp64_to_fp32_ratio": float(r["fp64_gflops"]) / fp32 if fp32 > 0 else 0.0,
    }
    return [float(features[name]) for name in DEVICE_FEATURES]
