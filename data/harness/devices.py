"""OpenCL device discovery: list devices, pick one by name, and give each a stable ``device_id`` slug.

``device_id`` examples: ``nvidia-h200``, ``nvidia-h100``, ``pocl-amd-epyc``,
``pocl-intel-xeon-platinum-8480``. The slug depends only on the platform and device names, so a
campaign re-run on the same machine writes into the same dataset folder.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kgraph.errors import MeasurementError, UsageError

# Tokens of a GPU marketing name that tell memory size or form factor, not the chip (dropped).
_NOISE_TOKENS = re.compile(r"^(\d+gb|hbm\d*e?|pcie|sxm\d*|nvl|gddr\d*x?|mig.*|\d+c)$")


@dataclass(frozen=True)
class DeviceInfo:
    """One OpenCL device as found by :func:`list_devices`.

    Args:
        index: position in :func:`list_devices` order (platform order, then device order).
        device_id: stable slug naming the dataset folder.
        platform: platform name; name: device name; type: "GPU" | "CPU" | "ACCELERATOR".
    """

    index: int
    device_id: str
    platform: str
    name: str
    vendor: str
    type: str
    platform_index: int
    device_index: int

    def open(self):
        """The ``pyopencl.Device`` object (found again by position, so this works in a subprocess)."""
        import pyopencl as cl

        return cl.get_platforms()[self.platform_index].get_devices()[self.device_index]


def device_type_name(device) -> str:
    import pyopencl as cl

    if device.type & cl.device_type.GPU:
        return "GPU"
    if device.type & cl.device_type.CPU:
        return "CPU"
    return "ACCELERATOR"


def slug_of(platform: str, name: str, vendor: str = "") -> str:
    """The ``device_id`` for a platform/device name pair (lower case, dash separated)."""
    lowered = re.sub(r"\((r|tm|c)\)", " ", name.lower())
    lowered = re.sub(r"\b(cpu|processor|with radeon graphics)\b", " ", lowered)
    lowered = re.sub(r"\b\d+-core\b|@.*$", " ", lowered)
    tokens = [t for t in re.split(r"[^a-z0-9+.]+", lowered) if t]
    tokens = [t.replace("+", "").replace(".", "-").strip("-") for t in tokens]
    tokens = [t for t in tokens if t and not re.fullmatch(r"\d+(-\d+)?ghz|cores?", t)]
    tokens = [t for i, t in enumerate(tokens)
              if not (t.isdigit() and i + 1 < len(tokens) and tokens[i + 1] in ("core", "cores"))]
    is_pocl = "portable computing language" in platform.lower() or "pocl" in platform.lower()
    if is_pocl:
        # PoCL prefixes the CPU model with its driver ("pthread-", "cpu-", "cpu-haswell-").
        while tokens and tokens[0] in ("pthread", "cpu", "basic", "tbb") or (
                tokens and len(tokens) > 1 and re.fullmatch(r"[a-z]+\d*", tokens[0])
                and tokens[0] not in ("amd", "intel", "arm", "apple", "ampere", "hygon")
                and tokens[1] in ("amd", "intel", "arm", "apple", "ampere", "hygon")):
            tokens = tokens[1:]
        return "-".join(["pocl"] + tokens[:5]) if tokens else "pocl-cpu"
    tokens = [t for t in tokens if not _NOISE_TOKENS.match(t)]
    if "nvidia" in platform.lower() or "nvidia" in vendor.lower() or (tokens and tokens[0] == "nvidia"):
        if not tokens or tokens[0] != "nvidia":
            tokens = ["nvidia"] + tokens
        return "-".join(tokens[:4])
    platform_tokens = [t for t in re.split(r"[^a-z0-9]+", platform.lower()) if t]
    if not platform_tokens:  # a bare device name (e.g. from an imported table)
        return "-".join(tokens[:6]) or "unknown-device"
    prefix = platform_tokens[0] if platform_tokens else "opencl"
    if tokens and tokens[0] == prefix:
        tokens = tokens[1:]
    return "-".join([prefix] + tokens[:5])


def list_devices() -> list[DeviceInfo]:
    """Every OpenCL device of every platform; an empty list when no ICD is installed."""
    try:
        import pyopencl as cl

        platforms = cl.get_platforms()
    except Exception:  # no ICD loader or no platform: there is simply no device
        return []
    found = []
    for p_index, platform in enumerate(platforms):
        try:
            devices = platform.get_devices()
        except Exception:
            continue
        for d_index, device in enumerate(devices):
            found.append(DeviceInfo(
                index=len(found), device_id=slug_of(platform.name, device.name.strip(), device.vendor),
                platform=platform.name.strip(), name=device.name.strip(), vendor=device.vendor.strip(),
                type=device_type_name(device), platform_index=p_index, device_index=d_index))
    return found


def pick_device(query: str | None = None) -> DeviceInfo:
    """The device whose ``device_id``, platform or device name contains ``query`` (case-insensitive).

    ``None`` or "" picks the first GPU, else the first device. A number picks by index.
    Raises UsageError naming the candidates when nothing or several different devices match.
    """
    devices = list_devices()
    if not devices:
        raise MeasurementError("no OpenCL device found (is an ICD such as PoCL or the NVIDIA driver installed?)")
    if not query:
        gpus = [d for d in devices if d.type == "GPU"]
        return (gpus or devices)[0]
    if query.isdigit():
        if int(query) < len(devices):
            return devices[int(query)]
        raise UsageError(f"--device {query}: no device with that index; {_listing(devices)}")
    q = query.lower()
    matches = [d for d in devices if q in d.device_id or q in d.name.lower() or q in d.platform.lower()]
    if not matches:
        raise UsageError(f"--device {query!r}: no OpenCL device matches; {_listing(devices)}")
    ids = {d.device_id for d in matches}
    if len(ids) > 1:
        raise UsageError(f"--device {query!r} matches several devices; be more specific; {_listing(matches)}")
    return matches[0]


def _listing(devices: list[DeviceInfo]) -> str:
    return "available: " + "; ".join(f"[{d.index}] {d.device_id} ({d.platform} / {d.name}, {d.type})"
                                     for d in devices)
