"""The project's own OpenCL kernel corpus: template families instantiated into KernelSpecs.

    from kgraph.data.corpus import all_specs, get_spec
    spec = get_spec("gemm_tiled.t16.fp32")

One module per family group under ``data/corpus/families/``; each defines ``specs() -> list[KernelSpec]``.
"""
from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path

from kgraph.parsers.errors import InputError

from .spec import Arg, KernelSpec, MAX_LAUNCH_BYTES, evaluate

#: The family-group modules, in the order their kernels appear in ``all_specs()``.
FAMILY_MODULES = (
    "blas1", "gemm", "gemv", "factor", "sparse", "transpose", "stencil", "reduce_scan", "histogram", "conv", "nbody", "finance", "mandelbrot", "sort", "nn",
)


def tile_kernel_files() -> list[Path]:
    """The OpenCL tile kernels of a tiled Cholesky/GEMM (GEMM, SYRK, TRSM, POTRF) that the StarPU
    workload (``kgraph/app/runtime/starpu``) runs; package data under ``data/corpus/tiles/``."""
    return sorted((Path(__file__).resolve().parent / "tiles").glob("*.cl"))


@lru_cache(maxsize=1)
def _load() -> tuple[KernelSpec, ...]:
    specs: list[KernelSpec] = []
    seen: dict[str, str] = {}
    for name in FAMILY_MODULES:
        module = importlib.import_module(f"{__name__}.families.{name}")
        for spec in module.specs():
            if spec.kernel_id in seen:
                raise InputError(f"kernel id {spec.kernel_id} defined twice "
                                 f"(families/{seen[spec.kernel_id]}.py and families/{name}.py)")
            seen[spec.kernel_id] = name
            specs.append(spec)
    return tuple(specs)


def all_specs() -> list[KernelSpec]:
    """Every corpus kernel, in a deterministic order, with unique ``kernel_id``s."""
    return list(_load())


def get_spec(kernel_id: str) -> KernelSpec:
    """The spec with this id; InputError names a near match when there is none."""
    for spec in _load():
        if spec.kernel_id == kernel_id:
            return spec
    family = kernel_id.split(".")[0]
    near = [s.kernel_id for s in _load() if s.family == family][:5]
    hint = f" (family {family} has: {', '.join(near)}, ...)" if near else ""
    raise InputError(f"no corpus kernel {kernel_id!r}{hint}")


def families() -> list[str]:
    """The distinct family names, in corpus order."""
    return list(dict.fromkeys(s.family for s in _load()))


__all__ = ["Arg", "KernelSpec", "MAX_LAUNCH_BYTES", "evaluate", "all_specs", "get_spec", "families"]
