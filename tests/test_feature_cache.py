"""Launch features: computed once and cached on disk (kgraph.data.feature_cache), and the same when the
per-kernel static analysis runs on a process pool (kgraph.data.pool)."""
from __future__ import annotations

import numpy as np
import pytest

from kgraph.data import feature_cache, features, pool
from kgraph.data.datamodule import read_dataset
from tests.test_datamodule import datasets  # noqa: F401 - the module fixture


@pytest.fixture()
def inputs(datasets):  # noqa: F811
    parts = [read_dataset(d) for d in datasets]
    import pandas as pd

    launches = pd.concat([p[0] for p in parts], ignore_index=True)
    sources = pd.concat([p[1] for p in parts], ignore_index=True).drop_duplicates("source_id")
    return launches, sources, {p[2]["device_id"]: p[2] for p in parts}


def test_cached_features_equal_fresh_and_are_reused(inputs, tmp_path, monkeypatch):
    launches, sources, devices = inputs
    fresh = features.to_launch_features(launches, sources, devices)
    first = feature_cache.cached_launch_features(tmp_path, launches, sources, devices)
    np.testing.assert_array_equal(first, fresh)
    assert len(list((tmp_path / "processed").glob("features-*.npy"))) == 1

    def boom(*a, **k):
        raise AssertionError("recomputed although cached")

    monkeypatch.setattr(features, "to_launch_features", boom)
    np.testing.assert_array_equal(feature_cache.cached_launch_features(tmp_path, launches, sources, devices), fresh)


def test_key_changes_with_launches_sources_devices_and_code(inputs, monkeypatch):
    launches, sources, devices = inputs
    key = feature_cache.features_key(launches, sources, devices)
    changed = launches.copy()
    changed.loc[0, "g0"] = changed.loc[0, "g0"] * 2
    assert feature_cache.features_key(changed, sources, devices) != key
    edited = sources.copy()
    edited.loc[edited.index[0], "source"] += "\n"
    assert feature_cache.features_key(launches, edited, devices) != key
    other = {k: {**v, "compute_units": 7} for k, v in devices.items()}
    assert feature_cache.features_key(launches, sources, other) != key
    monkeypatch.setattr(feature_cache, "code_fingerprint", lambda: "other code")
    assert feature_cache.features_key(launches, sources, devices) != key


def test_damaged_cache_file_is_recomputed(inputs, tmp_path):
    launches, sources, devices = inputs
    first = feature_cache.cached_launch_features(tmp_path, launches, sources, devices)
    path = next((tmp_path / "processed").glob("features-*.npy"))
    path.write_bytes(b"not numpy")
    np.testing.assert_array_equal(feature_cache.cached_launch_features(tmp_path, launches, sources, devices), first)


def test_static_counts_on_a_pool_equal_serial(inputs, monkeypatch):
    launches, sources, devices = inputs
    serial = features.to_launch_features(launches, sources, devices)
    monkeypatch.setattr(pool, "default_jobs", lambda: 2)
    monkeypatch.setattr(pool, "POOL_MIN_ITEMS", 1)
    np.testing.assert_array_equal(features.to_launch_features(launches, sources, devices), serial)
