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
