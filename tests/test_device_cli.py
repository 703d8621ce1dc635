"""kgraph device: descriptors measured (PoCL) or made from spec-sheet numbers, and load_descriptor's
validation (a message naming the field, never a traceback)."""
from __future__ import annotations

import json
import math

import pytest

from kgraph.app.cli.main import main
from kgraph.data.harness.descriptor import load_descriptor, to_feature_vector

GOOD = {"device_id": "d", "name": "d", "type": "GPU", "compute_units": 10, "max_clock_mhz": 1000,
        "global_mem_bytes": 2**30, "local_mem_bytes": 2**15, "max_work_group_size": 1024, "global_cache_bytes": 2**20,
        "roofline": {"copy_bw_gbs": 100.0, "fp32_gflops": 1000.0, "fp64_gflops": 0.0, "local_bw_gbs": 500.0,
                     "launch_overhead_us": 5.0}}


def _with(path, value):
    d = json.loads(json.dumps(GOOD))
    keys = path.split(".")
    target = d
    for k in keys[:-1]:
        target = target[k]
    if value is KeyError:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return d


@pytest.mark.parametrize("path, value, message", [
    ("compute_units", KeyError, "field 'compute_units' is missing"),
    ("roofline.fp32_gflops", KeyError, "field 'roofline.fp32_gflops' is missing"),
    ("roofline", KeyError, "field 'roofline' is missing"),
    ("roofline.copy_bw_gbs", "fast", "field 'roofline.copy_bw_gbs' must be a number"),
    ("roofline.copy_bw_gbs", 0, "field 'roofline.copy_bw_gbs' must be positive"),
    ("roofline.local_bw_gbs", -3.0, "field 'roofline.local_bw_gbs' must be positive"),
    ("roofline.fp64_gflops", -1.0, "field 'roofline.fp64_gflops' must be >= 0"),
    ("roofline.launch_overhead_us", math.nan, "field 'roofline.launch_overhead_us' must be finite"),
    ("global_mem_bytes", math.inf, "field 'global_mem_bytes' must be finite"),
    # found by the slow fuzz suite: an integer beyond any double overflowed math.isfinite
    ("compute_units", 10 ** 400, "field 'compute_units' must be finite, got an integer of 401 digits"),
    ("max_clock_mhz", True, "field 'max_clock_mhz' must be a number"),
    ("type", "FPGA", "field 'type' must be one of GPU, CPU, ACCELERATOR"),
    ("device_id", "", "field 'device_id' must be a non-empty string"),
])
def test_load_descriptor_rejects_bad_fields(tmp_path, path, value, message):
    from kgraph.errors import InputError

    f = tmp_path / "device.json"
    f.write_text(json.dumps(_with(path, value)))  # NaN/Infinity written as JSON's extensions
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        load_descriptor(tmp_path)
    f.write_text("[1, 2]")
    with pytest.raises(InputError, match="a JSON object"):
        load_descriptor(f)
    f.write_text(json.dumps(GOOD))
    assert load_descriptor(f)["device_id"] == "d"


def test_from_spec_and_check(tmp_path, capsys):
    out = tmp_path / "rtx"
    rc = main(["device", "from-spec", "--name", "RTX 4090", "--vendor", "NVIDIA", "--copy-bw-gbs", "900",
               "--fp32-gflops", "82600", "--fp64-gflops", "1290", "--compute-units", "128", "--memory-gb", "24",
               "--out", str(out)])
    assert rc == 0 and "defaulted" in capsys.readouterr().out
    d = load_descriptor(out)
    assert d["device_id"] == "nvidia-rtx-4090" and d["compute_units"] == 128 and d["global_mem_bytes"] == 24 * 2**30
    assert d["roofline"]["local_bw_gbs"] == 4500.0 and "compute_units" not in d["spec_defaults"]
    assert all(math.isfinite(v) for v in to_feature_vector(d))
    assert main(["device", "check", str(out / "device.json")]) == 0
    rc = main(["device", "from-spec", "--name", "X", "--copy-bw-gbs", "nan", "--fp32-gflops", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and "--copy-bw-gbs" in err and "must be finite" in err and "Traceback" not in err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "device.json").write_text('{"device_id": "x"}')
    assert main(["device", "check", str(bad)]) == 1
    assert "field 'type' must be one of" in capsys.readouterr().err


def test_describe_measures_pocl(tmp_path, capsys):
    pytest.importorskip("pyopencl")
    from kgraph.data.harness.devices import list_devices

    if not any("pocl" in d.device_id for d in list_devices()):
        pytest.skip("no PoCL device")
    assert main(["device", "describe", "--device", "pocl", "--out", str(tmp_path)]) == 0
    d = load_descriptor(tmp_path)
    assert d["type"] == "CPU" and d["roofline"]["copy_bw_gbs"] > 0 and d["roofline"]["fp32_gflops"] > 0
    assert d["roofline_method"] == 2  # the micro-benchmarks' version (16-lane FMA chains on CPUs)
    assert "wrote" in capsys.readouterr().out
