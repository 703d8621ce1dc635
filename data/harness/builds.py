"""Program builds: an on-disk binary cache shared by processes, and a pool that pre-builds in parallel.

pyopencl skips its own binary cache on PoCL and NVIDIA (``has_src_build_cache``: it trusts the ICD
to cache), so a fresh GPU machine compiles every kernel from source in the measuring process. This
module keeps program binaries itself, keyed by device, driver, options and source:
:func:`build_program` loads a cached binary when there is one (``hit``), else builds from source
and stores the binary (written to a temporary file and renamed, so concurrent writers are safe).

:class:`Prebuilder` starts ``jobs`` spawn processes at campaign start that build every source the
campaign will need (originals and instrumented versions), in visit order, for the campaign's
device, while the measuring worker starts at once and finds more cache hits as the pool advances.

The cache folder is ``$KGRAPH_BUILD_CACHE`` or ``~/.cache/kgraph/builds``.
"""
from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
from pathlib import Path


def cache_dir() -> Path:
    folder = os.environ.get("KGRAPH_BUILD_CACHE") or str(Path.home() / ".cache" / "kgraph" / "builds")
    return Path(folder)


def cache_key(device, source: str, options: str = "") -> str:
    """sha1 over the platform, device, driver, options and source text."""
    h = hashlib.sha1()
    for part in (device.platform.name, device.name, device.driver_version, device.version, options, source):
        h.update(str(part).encode("utf-8", "replace"))
        h.update(b"\0")
    return h.hexdigest()


def build_program(ctx, source: str, options: str = "", use_cache: bool = True):
    """``(program, hit)``: the built program, and whether it came from the binary cache.

    Raises ``pyopencl.Error`` (with the build log) when the source does not build.
    """
    import pyopencl as cl

    device = ctx.devices[0]
    path = cache_dir() / f"{cache_key(device, source, options)}.bin"
    if use_cache and path.exists():
        try:
            binary = path.read_bytes()
            return cl.Program(ctx, [device], [binary]).build(options=options), True
        except (cl.Error, OSError):  # stale or truncated entry: rebuild from source
            pass
    program = cl.Program(ctx, source).build(options=options)
    if use_cache:
        _store(path, program)
    return program, False


def _store(path: Path, program) -> None:
    import pyopencl as cl

    try:
        binaries = program.get_info(cl.program_info.BINARIES)
        if not binaries or not binaries[0]:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(bytes(binaries[0]))
        os.replace(tmp, path)
    except (cl.Error, OSError):
        pass  # a cache is an optimisation: never fail a build because of it


def default_jobs() -> int:
    """Build processes: the CPUs this process may use minus one for the measuring worker, 1..8."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus - 1))


# ---- the pool (functions below run in the pool's processes) ------------------------------------
_POOL_CTX = None


def _pool_init(platform_index: int, device_index: int, parent_pid: int | None = None) -> None:
    global _POOL_CTX
    import pyopencl as cl

    from .lifeline import die_with_parent

    die_with_parent(parent_pid)  # no pre-build outlives a killed campaign
    device = cl.get_platforms()[platform_index].get_devices()[device_index]
    _POOL_CTX = cl.Context([device])


def _pool_build(job: tuple) -> tuple[str, bool]:
    """Build one job: ``("source", text)`` or ``("instrumented", text, kernel_name)``."""
    import pyopencl as cl

    try:
        source = job[1] if job[0] == "source" else instrumented_source(job[1], job[2])
        if source is None:
            return job[0], False
        if (cache_dir() / f"{cache_key(_POOL_CTX.devices[0], source)}.bin").exists():
            return job[0], True  # the measuring worker (or an earlier run) got there first
        build_program(_POOL_CTX, source)
        return job[0], True
    except (cl.Error, Exception):  # noqa: BLE001 - a failed pre-build only means no cache entry
        return job[0], False


def instrumented_source(source: str, kernel_name: str) -> str | None:
    """The instrumented OpenCL text of ``kernel_name`` (None when the kernel cannot be instrumented)."""
    from kgraph.errors import KGraphError
    from kgraph.instrument import instrument
    from kgraph.parsers import parse_source

    try:
        return instrument(parse_source(source, "opencl", filename=f"<{kernel_name}>"), kernel_name).source
    except KGraphError:
        return None


class Prebuilder:
    """Builds ``jobs`` in the background into the binary cache (see the module doc).

    Args:
        info: the ``DeviceInfo`` of the campaign's device.
        jobs: build jobs in the order the campaign will need them: ``("source", text)`` or
            ``("instrumented", text, kernel_name)``.
        processes: pool size (0: do nothing).
    """

    def __init__(self, info, jobs: list[tuple], processes: int):
        self._pool = None
        self._result = None
        if processes <= 0 or not jobs:
            return
        context = mp.get_context("spawn")
        self._pool = context.Pool(processes, initializer=_pool_init,
                                  initargs=(info.platform_index, info.device_index, os.getpid()))
        self._result = self._pool.map_async(_pool_build, jobs, chunksize=1)

    @property
    def done(self) -> bool:
        return self._result is None or self._result.ready()

    def close(self) -> None:
        """Stop the pool now (unfinished builds are abandoned)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
