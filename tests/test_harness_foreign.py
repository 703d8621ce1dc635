"""``kgraph measure`` specs: buffer sizes inferred by one instrumented run when not given (PoCL)."""
from __future__ import annotations

import pytest

pytest.importorskip("pyopencl")

GATHER = """__kernel void gather(__global const float *in, __global float *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  out[2 * i + 1] = in[3 * i];
}
"""


def test_buffer_sizes_inferred_then_given(tmp_path):
    from kgraph.data.harness.foreign import foreign_spec

    path = tmp_path / "gather.cl"
    path.write_text(GATHER)
    spec = foreign_spec(str(path), "gather", [1024], [64], {})
    # n defaults to the NDRange (1024): in[3 * 1023] and out[2 * 1023 + 1] are the last elements
    assert [(a.name, a.kind, a.count) for a in spec.args] == [
        ("in", "buffer", "3070"), ("out", "buffer", "2048"), ("n", "scalar", "1024")]
    spec = foreign_spec(str(path), "gather", [1024], [64], {"n": "10", "in": "5000"})
    assert [(a.name, a.count) for a in spec.args] == [("in", "5000"), ("out", "20"), ("n", "10")]


def test_probe_never_writes_out_of_bounds():
    """A bounded sizing run redirects an out-of-range store into the buffer and records its index."""
    import numpy as np

    from kgraph.data.instrumented.launch import run_instrumented
    from kgraph.instrument import instrument
    from kgraph.parsers import parse_source

    src = "__kernel void fill(__global float *y) { y[get_global_id(0)] = 1.0f; }"
    unit = parse_source(src, "opencl")
    kernel = instrument(unit, "fill", bounded=True)
    assert kernel.bounded and not kernel.unchecked and "__KG_BOUNDED" in kernel.source
    y = np.zeros(64, dtype=np.float32)
    counts = run_instrumented(kernel, unit, [4096], [64], {"y": y})
    extent = counts.buffers["y"]
    assert extent.max_index == 4095 and extent.out_of_range == 4096 - 64 and extent.capacity == 64
    assert (y == 1.0).all()  # the 64 in-range stores (and the redirected ones) landed inside


def test_probe_grows_buffers_past_first_capacity():
    from kgraph.data.instrumented.extents import infer_extents

    src = ("__kernel void k(__global const float *x, __global float4 *y) {\n"
           "  int i = get_global_id(0); y[i] = (float4)(x[2 * i]); }\n")
    extents, counts = infer_extents(src, "k", [1 << 17], [128], {}, capacity=1 << 10)
    assert extents == {"x": 2 * ((1 << 17) - 1) + 1, "y": 1 << 17}
    assert counts.global_store_bytes == 16 << 17


def test_no_probe_when_every_buffer_is_sized(tmp_path, monkeypatch):
    import kgraph.data.instrumented.extents as extents
    from kgraph.data.harness.foreign import foreign_spec

    def no_probe(*args, **kwargs):
        raise AssertionError("probe ran although every buffer was sized")

    monkeypatch.setattr(extents, "infer_extents", no_probe)
    path = tmp_path / "gather.cl"
    path.write_text(GATHER)
    spec = foreign_spec(str(path), "gather", [1 << 20], [64], {"n": "100"}, {"in": "300", "out": "200"})
    assert [(a.name, a.count) for a in spec.args] == [("in", "300"), ("out", "200"), ("n", "100")]
    with pytest.raises(Exception, match="--buffer n=.*no global buffer parameter"):
        foreign_spec(str(path), "gather", [64], [64], {}, {"n": "4"})


def test_probe_refuses_unchecked_accesses_and_shows_build_log(tmp_path):
    from kgraph.data.harness.foreign import foreign_spec
    from kgraph.errors import MeasurementError

    path = tmp_path / "walk.cl"
    path.write_text("__kernel void walk(__global float *p, int n) {\n"
                    "  for (int i = 0; i < n; ++i) *p++ = 1.0f; }\n")
    with pytest.raises(MeasurementError, match=r"(?s)cannot infer the size of buffer\(s\) p.*bounds-checked"
                                               r".*--buffer NAME=ELEMENTS"):
        foreign_spec(str(path), "walk", [64], [64], {"n": "8"})
    bad = tmp_path / "bad.cl"
    bad.write_text("__kernel void k(__global float *x) {\n  x[get_global_id(0)] = undefined_name;\n}\n")
    with pytest.raises(MeasurementError, match="(?s)does not build.*undefined_name"):
        foreign_spec(str(bad), "k", [64], [64], {})


def test_measure_readme_example_over_64k_work_items(tmp_path):
    """The README's example (1M work-items) used to crash the probe (writes past 65,536 elements)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    saxpy = Path(__file__).resolve().parents[1] / "examples/opencl/saxpy.cl"
    cmd = [sys.executable, "-m", "kgraph.app.cli.main", "measure", str(saxpy), "--kernel", "saxpy",
           "--global", "1048576", "--local", "128", "--arg", "n=1048576", "--arg", "a=2", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    row = json.loads(done.stdout)
    assert row["status"] == "ok" and row["g0"] == 1048576
    assert row["global_store_bytes"] == 4 * 1048576


def test_defines_reach_parser_probe_and_build(tmp_path):
    from kgraph.data.harness.foreign import foreign_spec

    path = tmp_path / "tile.cl"
    path.write_text("#ifndef TILE\n#define TILE 1\n#endif\n__kernel void k(__global float *a) {\n"
                    "  int i = get_global_id(0);\n#if TILE > 1\n  for (int j = 0; j < TILE; ++j) a[i * TILE + j] = 1.0f;\n"
                    "#else\n  a[i] = 0.0f;\n#endif\n}\n")
    assert foreign_spec(str(path), "k", [64], [64], {}).args[0].count == "64"
    assert foreign_spec(str(path), "k", [64], [64], {}, defines={"TILE": "16"}).args[0].count == "1024"
