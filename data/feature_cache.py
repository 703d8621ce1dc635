"""Launch features computed once per (launches, sources, devices, code) and kept on disk.

:func:`kgraph.data.features.to_launch_features` analyses every distinct kernel's source (its static counts)
— ~40 ms a kernel, minutes for a dataset of thousands of generated kernels — and every training, test and
prediction process of a grid needs the same matrix. The first process saves it under the DataModule's
``cache_dir``; the others load it. The file name hashes everything the matrix depends on: the launch rows'
columns that features read, the sources, the device descriptors, the feature names, and the text of the
code that computes them (parsers, analysis, features, floors), so a stale matrix is never reused.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

#: launch columns the features read (not the measured footprint: the floors take the static one)
FEATURE_COLUMNS = ("device_id", "source_id", "kernel_name", "dims", "g0", "g1", "g2", "l0", "l1", "l2", "args")
#: modules whose code decides the features (their package folders are hashed whole)
CODE_PACKAGES = ("kgraph.parsers", "kgraph.analysis")
CODE_MODULES = ("kgraph.data.features", "kgraph.data.static_counts", "kgraph.data.floors", "kgraph.data.static_footprint", "kgraph.count_keys",
                "kgraph.graphs", "kgraph.data.harness.descriptor")


def code_fingerprint() -> str:
    """sha1 of the source text of the code that computes launch features."""
    import importlib.util

    h = hashlib.sha1()
    files: list[Path] = []
    for name in CODE_PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in spec.submodule_search_locations or []:
            files += sorted(Path(folder).rglob("*.py")) + sorted(Path(folder).rglob("*.scm"))
    for name in CODE_MODULES:
        files.append(Path(importlib.util.find_spec(name).origin))
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def features_key(launches: pd.DataFrame, sources: pd.DataFrame, devices: dict[str, dict]) -> str:
    """The cache key of :func:`~kgraph.data.features.to_launch_features` of these inputs."""
    from kgraph.data.features import feature_names

    h = hashlib.sha1(code_fingerprint().encode())
    h.update(json.dumps(feature_names()).encode())
    cols = [c for c in FEATURE_COLUMNS if c in launches]
    h.update(json.dumps(cols).encode())
    h.update(pd.util.hash_pandas_object(launches[cols].astype(str), index=False).to_numpy().tobytes())
    used = sources[sources.source_id.isin(launches.source_id.unique())].sort_values("source_id")
    h.update(pd.util.hash_pandas_object(used[["source_id", "lang", "source"]], index=False).to_numpy().tobytes())
    h.update(json.dumps({k: devices[k] for k in sorted(devices)}, sort_keys=True, default=str).encode())
    return h.hexdigest()[:20]


def cached_launch_features(cache_dir: str | Path | None, launches: pd.DataFrame, sources: pd.DataFrame,
                           devices: dict[str, dict]) -> np.ndarray:
    """``to_launch_features(launches, sources, devices)``, loaded from ``cache_dir/processed`` when an
    earlier process saved it (else computed and saved there; ``cache_dir`` None: no cache).

    Shapes: returns Float32[len(launches), len(feature_names())].
    """
    from kgraph.data.features import to_launch_features

    if cache_dir is None:
        return to_launch_features(launches, sources, devices)
    path = Path(cache_dir) / "processed" / f"features-{features_key(launches, sources, devices)}.npy"
    if path.is_file():
        try:
            cached = np.load(path, allow_pickle=False)
            if cached.shape[0] == len(launches):
                return cached
        except (OSError, ValueError):  # damaged: computed again and replaced
            pass
    features = to_launch_features(launches, sources, devices)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npy")
    np.save(tmp, features, allow_pickle=False)
    os.replace(tmp, path)  # atomic: a process reading at the same time sees the whole file or none
    return features
