"""The CPU this process runs on, from /proc and /sys only (no compiler, no harness dependencies, so the
StarPU CPU-worker export can use it on a bare host): its model name and device-id slug, caches, clock,
memory, vendor, and whether a dataset folder was measured on it (``check_same_machine``)."""
from __future__ import annotations

import os
import re
from pathlib import Path


def _proc_field(path: str, name: str) -> str | None:
    """The value of the first ``name ...: value`` line of ``path`` (``/proc/cpuinfo``, ``/proc/meminfo``),
    else None (no such line, or the file cannot be read)."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(name):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``)."""
    import platform

    return _proc_field("/proc/cpuinfo", "model name") or platform.processor() or "cpu"


def model_slug(name: str | None = None) -> str:
    """``AMD EPYC 9654 96-Core Processor`` -> ``amd-epyc-9654``: a device-id friendly model name.

    ``KGRAPH_C_SLUG`` overrides it: virtual machines of different hosts can report the same model name
    ("Intel(R) Xeon(R) Processor"), and their folders must not share a device id."""
    if name is None and os.environ.get("KGRAPH_C_SLUG"):
        return os.environ["KGRAPH_C_SLUG"]
    name = (name or cpu_model()).lower()
    name = re.sub(r"\(r\)|\(tm\)|cpu|processor|@.*$|\d+-core", " ", name)
    return "-".join(re.findall(r"[a-z0-9]+", name)[:4]) or "cpu"


def cache_sizes(cpu: int = 0) -> list[dict]:
    """The caches of ``cpu`` from ``/sys/devices/system/cpu/cpuN/cache``: level, type, bytes, sharing CPUs."""
    out = []
    base = Path(f"/sys/devices/system/cpu/cpu{cpu}/cache")
    for index in sorted(base.glob("index*")):
        try:
            size = (index / "size").read_text().strip()
            mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(size[-1], 1)
            out.append({"level": int((index / "level").read_text()), "type": (index / "type").read_text().strip(),
                        "bytes": int(size.rstrip("KMG")) * mult,
                        "shared_cpu_list": (index / "shared_cpu_list").read_text().strip()})
        except (OSError, ValueError):
            continue
    return out


def clock_mhz() -> int:
    for path in ("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",):
        try:
            return int(Path(path).read_text()) // 1000
        except (OSError, ValueError):
            pass
    mhz = _proc_field("/proc/cpuinfo", "cpu MHz")
    try:
        return int(float(mhz)) if mhz else 1000
    except ValueError:
        return 1000


def mem_bytes() -> int:
    total = _proc_field("/proc/meminfo", "MemTotal")  # "23456789 kB"
    try:
        return int(total.split()[0]) * 1024 if total else 1 << 30
    except ValueError:
        return 1 << 30


def vendor() -> str:
    return _proc_field("/proc/cpuinfo", "vendor_id") or "unknown"


def check_same_machine(descriptor: dict, folder) -> None:
    """Refuse to add this machine's rows to a folder measured on another one: its last-level cache or
    memory size differs from this machine's (the model name alone cannot tell two VMs apart)."""
    from kgraph.errors import UsageError

    llc = max((c["bytes"] for c in cache_sizes()), default=None)
    mem = mem_bytes()
    theirs_llc, theirs_mem = descriptor.get("llc_bytes"), descriptor.get("global_mem_bytes")
    if (llc and theirs_llc and llc != theirs_llc) or (theirs_mem and abs(mem - theirs_mem) > 0.02 * theirs_mem):
        raise UsageError(f"--out {folder}: measured on another machine (last-level cache {theirs_llc} B, memory "
                         f"{theirs_mem} B; this one: {llc} B, {mem} B); give another --out or set KGRAPH_C_SLUG")
