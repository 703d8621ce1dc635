"""Default random inputs generated on the device: a counter-based hash per element, seeded.

Generating the biggest inputs of a kernel on the host (up to 2^26 elements per buffer) and copying
them to the device costs seconds per visit; a fill kernel writes them in microseconds on a GPU.
Element ``i`` of a buffer is a function of ``(seed, buffer name, i)`` only, so inputs are
deterministic given the seed, identical for every launch configuration and every device, and a
prefix of a bigger fill equals the smaller fill.

Values follow ``KernelSpec.inputs``' defaults: floats uniform in [-1, 1), integers uniform in
[0, 100); ``out`` buffers are zero-filled. ``reference_fill`` computes the same values with numpy
(tests, and host-side inputs when needed).
"""
from __future__ import annotations

import zlib

import numpy as np

from kgraph.data.dtypes import OPENCL_TYPES

# dtype name -> expression of the value from the 32-bit hash h (its OpenCL type: kgraph.data.dtypes)
_VALUES = {
    "float32": "(float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f",
    "float64": "(double)h * (2.0 / 4294967296.0) - 1.0",
    "int32": "(int)(h % 100u)",
    "uint32": "h % 100u",
    "int64": "(long)(h % 100u)",
    "uint64": "(ulong)(h % 100u)",
    "int16": "(short)(h % 100u)",
    "uint16": "(ushort)(h % 100u)",
    "int8": "(char)(h % 100u)",
    "uint8": "(uchar)(h % 100u)",
}
# dtype name -> (OpenCL type, expression of the value from the 32-bit hash h)
_TYPES = {name: (OPENCL_TYPES[name], value) for name, value in _VALUES.items()}
FILL_DTYPES = tuple(_TYPES)

_HASH = r"""
uint kg_hash(uint x)
{
    x ^= x >> 16; x *= 0x7feb352dU;
    x ^= x >> 15; x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}
"""


def fill_source(dtypes=FILL_DTYPES, fp64: bool = True) -> str:
    """OpenCL source with one ``kg_fill_<dtype>(out, n, key)`` kernel per dtype."""
    parts = ["#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if fp64 else "", _HASH]
    for name in dtypes:
        if name == "float64" and not fp64:
            continue
        ctype, expr = _TYPES[name]
        parts.append(f"__kernel void kg_fill_{name}(__global {ctype} *out, uint n, uint key)\n"
                     "{\n    uint i = get_global_id(0);\n    if (i >= n) return;\n"
                     "    uint h = kg_hash(kg_hash(i ^ key) + key);\n"
                     f"    out[i] = {expr};\n}}\n")
    return "".join(parts)


def buffer_key(seed: int, name: str) -> int:
    """The 32-bit key of one buffer's stream."""
    return zlib.crc32(f"{seed}|{name}".encode()) & 0xFFFFFFFF


def _hash(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint32)
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def reference_fill(dtype: str, count: int, key: int) -> np.ndarray:
    """The values ``kg_fill_<dtype>`` writes, computed with numpy."""
    i = np.arange(count, dtype=np.uint32)
    k = np.uint32(key)
    with np.errstate(over="ignore"):
        h = _hash(_hash(i ^ k) + k)
    if dtype == "float32":
        return ((h >> np.uint32(8)).astype(np.float32) * np.float32(2.0 / 16777216.0) - np.float32(1.0))
    if dtype == "float64":
        return h.astype(np.float64) * (2.0 / 4294967296.0) - 1.0
    return (h % np.uint32(100)).astype(dtype)


class DeviceFiller:
    """Fills device buffers with the seeded default inputs (one program per context).

    Args:
        ctx, queue: the pyopencl context and a queue on it.
    """

    def __init__(self, ctx, queue):
        import pyopencl as cl

        self.queue = queue
        fp64 = bool(getattr(ctx.devices[0], "double_fp_config", 0))
        try:
            self.program = cl.Program(ctx, fill_source(fp64=fp64)).build()
        except cl.Error:
            if not fp64:
                raise
            fp64 = False  # a driver that advertises fp64 but rejects the pragma: fill doubles on the host
            self.program = cl.Program(ctx, fill_source(fp64=False)).build()
        self.dtypes = tuple(d for d in FILL_DTYPES if fp64 or d != "float64")
        self._kernels = {}

    def fill(self, buffer, dtype: str, count: int, key: int) -> None:
        """Write ``count`` elements of ``dtype`` into ``buffer`` (enqueued; not waited for)."""
        import pyopencl as cl

        if count <= 0:
            return
        if dtype not in self.dtypes or count >= 2**32:
            raise ValueError(f"cannot fill {count} elements of {dtype} on the device")
        kernel = self._kernels.get(dtype)
        if kernel is None:
            kernel = self._kernels[dtype] = cl.Kernel(self.program, f"kg_fill_{dtype}")
        kernel.set_args(buffer, np.uint32(count), np.uint32(key))
        group = 256
        cl.enqueue_nd_range_kernel(self.queue, kernel, ((count + group - 1) // group * group,), None)

    def zero(self, buffer, nbytes: int) -> None:
        import pyopencl as cl

        if nbytes > 0:
            cl.enqueue_fill_buffer(self.queue, buffer, np.uint8(0), 0, nbytes)
