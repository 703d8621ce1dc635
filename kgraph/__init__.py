"""kgraph: predict how compute kernels (OpenCL C, CUDA, C) perform, from source, launch and hardware.

Public API (every name is imported on first use, so ``import kgraph`` and the low layers stay cheap)::

    m = kgraph.load_model()                                        # the shipped default model
    m.estimate("saxpy.cl", kernel="saxpy", global_size=1 << 20, local_size=256,
               args={"n": 1 << 20, "a": 2.0}, device="h200")       # dict: time_ns, bandwidth_gbs, ...
    graphs = kgraph.from_file("examples/opencl/sgemm_tiled.cl")    # one KernelGraph per kernel
    data = kgraph.to_pyg(graphs[0])                                # torch_geometric Data
    kgraph.to_png(graphs[0], "out/sgemm.png")

Packages, lowest layer first (imports only run down; docs/DESIGN.md): ``kgraph.parsers`` (front ends),
``kgraph`` graphs and ``kgraph.analysis``, ``kgraph.data`` (corpus, harness, datasets), ``kgraph.models``
(nets, training, prediction, export), ``kgraph.app`` (CLI, this API, runtime, scheduling, reports).
"""
from __future__ import annotations

import importlib

# public name -> module that defines it (imported lazily by __getattr__)
_EXPORTS = {
    "from_file": "kgraph.graphs", "from_source": "kgraph.graphs", "from_unit": "kgraph.graphs",
    "to_pyg": "kgraph.graphs", "to_dot": "kgraph.graphs", "to_png": "kgraph.graphs",
    "KernelGraph": "kgraph.graph", "Node": "kgraph.graph", "Edge": "kgraph.graph",
    "Flow": "kgraph.schema", "NodeType": "kgraph.schema", "VOCAB_VERSION": "kgraph.schema",
    "load_model": "kgraph.app.api", "Model": "kgraph.app.api",
    "KGraphError": "kgraph.errors", "InputError": "kgraph.errors", "SourceError": "kgraph.errors",
    "UsageError": "kgraph.errors", "ModelError": "kgraph.errors", "MeasurementError": "kgraph.errors",
    "LimitError": "kgraph.errors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kgraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
