"""A C campaign never mixes two machines in one folder: ``KGRAPH_C_SLUG`` names a machine whose CPU model
name is shared with another (two VMs both "Intel(R) Xeon(R) Processor"), and a folder whose descriptor's
cache or memory size is not this machine's is refused (benchmarks/c_host_import.py repairs what happened
before the check existed)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgraph.data.harness.c_campaign import device_id_for
from kgraph.data.harness.cpu_host import cache_sizes, check_same_machine, mem_bytes, model_slug
from kgraph.errors import UsageError

REPO = Path(__file__).resolve().parents[1]


def this_machine() -> dict:
    return {"llc_bytes": max((c["bytes"] for c in cache_sizes()), default=None), "global_mem_bytes": mem_bytes()}


def test_slug_override(monkeypatch):
    monkeypatch.delenv("KGRAPH_C_SLUG", raising=False)
    assert model_slug("AMD EPYC 9654 96-Core Processor") == "amd-epyc-9654"
    assert model_slug("Intel(R) Xeon(R) Processor") == "intel-xeon"
    monkeypatch.setenv("KGRAPH_C_SLUG", "xeon-gpu-host")
    assert model_slug() == "xeon-gpu-host" and device_id_for(4) == "cpu-c-xeon-gpu-host-4c"
    assert model_slug("Intel(R) Xeon(R) Processor") == "intel-xeon"  # an explicit name is not overridden


def test_folder_of_another_machine_is_refused(tmp_path):
    check_same_machine(this_machine(), tmp_path)  # this machine's own folder: fine
    other = this_machine()
    other["global_mem_bytes"] = other["global_mem_bytes"] * 5 + (1 << 30)
    with pytest.raises(UsageError, match="measured on another machine"):
        check_same_machine(other, tmp_path)
    if this_machine()["llc_bytes"]:
        other = {**this_machine(), "llc_bytes": this_machine()["llc_bytes"] + 4096}
        with pytest.raises(UsageError, match="last-level cache"):
            check_same_machine(other, tmp_path)


def test_host_folders_are_their_own_device():
    """The GPU host's rows live under their own id, with descriptors whose caches differ from the dev box's."""
    host = sorted((REPO / "data/datasets/c-xeon-gpu-host").glob("cpu-c-xeon-gpu-host-*c"))
    assert {p.name for p in host} == {f"cpu-c-xeon-gpu-host-{k}c" for k in (1, 2, 4, 8, 12)}
    dev = json.loads((REPO / "data/datasets/c-intel-xeon/cpu-c-intel-xeon-1c/device.json").read_text())
    one = json.loads((REPO / "data/datasets/c-xeon-gpu-host/cpu-c-xeon-gpu-host-1c/device.json").read_text())
    assert one["compute_units"] == 1 and one["device_id"] == "cpu-c-xeon-gpu-host-1c"
    assert one["llc_bytes"] != dev["llc_bytes"]
    assert one["roofline"]["fp32_gflops"] == one["per_core"]["fp32_fma_gflops"]  # the 1-core rule
