"""The FMA-peak micro-benchmark's kernels (kgraph.data.harness.roofline) at both vector widths."""
from __future__ import annotations

import numpy as np
import pytest

from kgraph.data.harness import roofline


def test_lanes_by_device_type_and_flops_per_iteration():
    assert (roofline.fma_lanes(is_gpu=True), roofline.fma_lanes(is_gpu=False)) == (8, 16)
    assert roofline.flops_per_item_per_iter(16) == 2 * roofline.flops_per_item_per_iter(8) == 512
    # a GPU runs version 1's procedure (8 lanes): its descriptors keep saying so, so a merge does not let one
    # new GPU campaign supersede every earlier one
    assert (roofline.roofline_method(is_gpu=True), roofline.roofline_method(is_gpu=False)) == (1, 2)


@pytest.mark.parametrize("name,dtype", [("fma32", np.float32), ("fma64", np.float64)])
def test_sixteen_lanes_sum_twice_what_eight_lanes_sum(pocl_context, name, dtype):
    """Every lane of a chain holds the same value, so the 16-lane kernel's per-item sum is twice the 8-lane
    one's: the lanes the FLOP count assumes are the lanes the kernel computes."""
    cl, ctx = pocl_context
    if dtype == np.float64 and not getattr(ctx.devices[0], "double_fp_config", 0):
        pytest.skip("no fp64")
    queue = cl.CommandQueue(ctx)
    items, out = 64, {}
    for lanes in (8, 16):
        program = cl.Program(ctx, roofline._SOURCE).build(options=[f"-DLANES={lanes}", "-DHAS_FP64"]
                                                           if dtype == np.float64 else [f"-DLANES={lanes}"])
        buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, items * np.dtype(dtype).itemsize)
        getattr(program, name)(queue, (items,), (16,), buf, dtype(0.5), dtype(1.0), np.int32(3))
        out[lanes] = np.empty(items, dtype)
        cl.enqueue_copy(queue, out[lanes], buf).wait()
    assert np.all(out[8] > 0) and np.allclose(out[16], 2 * out[8], rtol=1e-5)
