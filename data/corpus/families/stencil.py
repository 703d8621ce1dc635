"""Stencils with clamped (edge-replicating) borders: 1D, 2D star/box (global or local-memory
tile), 3D star/box on a 3D NDRange, and a 3D star swept along z by a 2D NDRange."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, LOCAL_2D, LOCAL_3D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, render

CLAMP = """
int clampi(int v, int n)
{
    return min(max(v, 0), n - 1);
}
"""

S1D = CLAMP + """
__kernel void stencil1d(const int n, __global const $T* in, __global $T* out)
{
    const int i = get_global_id(0);
    $T acc = 0;
$BODY
    out[i] = acc;
}
"""

S2D = CLAMP + """
__kernel void stencil2d(const int W, const int H, __global const $T* in, __global $T* out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    $T acc = 0;
$BODY
    out[y * W + x] = acc;
}
"""

# The work-group loads its (TS+2R)^2 tile with halo into local memory, then reads only from it.
S2D_LOCAL = CLAMP + """
#define TS $TS
#define RAD $RAD
#define TW (TS + 2 * RAD)
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void stencil2d_local(const int W, const int H, __global const $T* in, __global $T* out)
{
    __local $T tile[TW][TW];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int x0 = get_group_id(0) * TS - RAD;
    const int y0 = get_group_id(1) * TS - RAD;
    for (int ty = ly; ty < TW; ty += TS) {
        for (int tx = lx; tx < TW; tx += TS) {
            tile[ty][tx] = in[clampi(y0 + ty, H) * W + clampi(x0 + tx, W)];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = lx + RAD;
    const int y = ly + RAD;
    $T acc = 0;
$BODY
    out[get_global_id(1) * W + get_global_id(0)] = acc;
}
"""

S3D = CLAMP + """
__kernel void stencil3d(const int X, const int Y, const int Z, __global const $T* in,
                        __global $T* out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int z = get_global_id(2);
    $T acc = 0;
$BODY
    out[(z * Y + y) * X + x] = acc;
}
"""

S3D_ZSWEEP = CLAMP + """
__kernel void stencil3d_zsweep(const int X, const int Y, const int Z, __global const $T* in,
                               __global $T* out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    for (int z = 0; z < Z; ++z) {
        $T acc = 0;
$BODY
        out[(z * Y + y) * X + x] = acc;
    }
}
"""


def _offsets(dims: int, radius: int, shape: str) -> list[tuple[int, ...]]:
    """Star: the axes out to ``radius``; box: the full cube."""
    rng = range(-radius, radius + 1)
    if shape == "box":
        grids = np.meshgrid(*([np.array(list(rng))] * dims), indexing="ij")
        return [tuple(int(g) for g in p) for p in zip(*(g.ravel() for g in grids))]
    offs = [(0,) * dims]
    for d in range(dims):
        for r in rng:
            if r:
                offs.append(tuple(r if e == d else 0 for e in range(dims)))
    return offs


def _weights(offsets) -> list[float]:
    """Deterministic weights summing to ~1, exactly representable in binary (multiples of 1/1024)."""
    raw = [1.0 / (1 + sum(abs(o) for o in off)) for off in offsets]
    total = sum(raw)
    return [round(r / total * 1024) / 1024 for r in raw]


def _lit(w: float, prec: Precision) -> str:
    return f"{w!r}{prec.suffix}"


def _apply(arr: np.ndarray, offsets, weights, radius: int) -> np.ndarray:
    """Reference: edge-replicated padding, then weighted shifted sums (axis order as arr)."""
    pad = np.pad(arr.astype(np.float64), radius, mode="edge")
    out = np.zeros(arr.shape)
    for off, w in zip(offsets, weights):
        sl = tuple(slice(radius + o, radius + o + n) for o, n in zip(off, arr.shape))
        out += w * pad[sl]
    return out


def _spec(family, parts, variant, prec, source, sizes, check, names, gsize, local, offsets, weights,
          radius, constraints=()):
    def reference(inp, sz):
        shape = tuple(sz[n] for n in reversed(names))  # slowest dimension first
        return {"out": _apply(inp["in"].reshape(shape), [o[::-1] for o in offsets], weights, radius)}

    count = " * ".join(names)
    return KernelSpec(
        kernel_id=kernel_id(family, *parts, prec.name), family=family,
        variant={**variant, "precision": prec.name}, kernel_name=family, source=source,
        sizes=sizes, check_sizes=check, constraints=list(constraints),
        args=[*(Arg(n, "scalar", "int32", n) for n in names), Arg("in", "buffer", prec.dtype, count),
              Arg("out", "buffer", prec.dtype, count, "out")],
        global_size=gsize, local_sizes=local, reference=reference,
        rtol=prec.rtol * 10, atol=prec.atol * 10)


def _s1d(prec, radius):
    offs = _offsets(1, radius, "star")
    w = _weights(offs)
    body = "\n".join(f"    acc += {_lit(wi, prec)} * in[clampi(i + {o[0]}, n)];" for o, wi in zip(offs, w))
    return _spec("stencil1d", [f"r{radius}"], {"radius": radius}, prec,
                 render(S1D, prec, BODY=body), {"n": dense_sizes(10, 26, 4, step=2)}, {"n": 4096}, ["n"], ["n"],
                 LOCAL_1D, offs, w, radius)


def _idx2(off, src="in", x="x", y="y", clamp=True):
    if clamp:
        return f"{src}[clampi({y} + {off[1]}, H) * W + clampi({x} + {off[0]}, W)]"
    return f"{src}[{y} + {off[1]}][{x} + {off[0]}]"


def _s2d(prec, radius, shape, local_tile):
    offs = _offsets(2, radius, shape)
    w = _weights(offs)
    sizes, check = {"W": pow2(6, 14), "H": pow2(6, 14)}, {"W": 96, "H": 64}
    if local_tile:
        body = "\n".join(f"    acc += {_lit(wi, prec)} * {_idx2(o, 'tile', clamp=False)};"
                         for o, wi in zip(offs, w))
        sizes = {"W": dense_sizes(6, 14, 2), "H": dense_sizes(6, 14, 2)}  # holds the pow2 grid
        return _spec("stencil2d_local", [f"t{local_tile}", f"r{radius}", shape],
                     {"tile": local_tile, "radius": radius, "shape": shape}, prec,
                     render(S2D_LOCAL, prec, TS=local_tile, RAD=radius, BODY=body), sizes, check,
                     ["W", "H"], ["W", "H"], [[local_tile, local_tile]], offs, w, radius,
                     [f"W % {local_tile} == 0", f"H % {local_tile} == 0"])
    body = "\n".join(f"    acc += {_lit(wi, prec)} * {_idx2(o)};" for o, wi in zip(offs, w))
    return _spec("stencil2d", [f"r{radius}", shape], {"radius": radius, "shape": shape}, prec,
                 render(S2D, prec, BODY=body), sizes, check, ["W", "H"], ["W", "H"], LOCAL_2D,
                 offs, w, radius)


def _idx3(off, indent="    "):
    return (f"{indent}acc += $W * in[(clampi(z + {off[2]}, Z) * Y + clampi(y + {off[1]}, Y)) * X"
            f" + clampi(x + {off[0]}, X)];")


def _s3d(prec, radius, shape, zsweep):
    offs = _offsets(3, radius, shape)
    w = _weights(offs)
    indent = "        " if zsweep else "    "
    body = "\n".join(_idx3(o, indent).replace("$W", _lit(wi, prec)) for o, wi in zip(offs, w))
    sizes = {"X": pow2(4, 10, 2), "Y": pow2(4, 10, 2), "Z": pow2(4, 10, 2)}
    check = {"X": 32, "Y": 16, "Z": 8}
    names = ["X", "Y", "Z"]
    if zsweep:
        return _spec("stencil3d_zsweep", [f"r{radius}", shape], {"radius": radius, "shape": shape},
                     prec, render(S3D_ZSWEEP, prec, BODY=body), sizes, check, names, ["X", "Y"],
                     LOCAL_2D, offs, w, radius)
    return _spec("stencil3d", [f"r{radius}", shape], {"radius": radius, "shape": shape}, prec,
                 render(S3D, prec, BODY=body), sizes, check, names, ["X", "Y", "Z"], LOCAL_3D,
                 offs, w, radius)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_s1d(prec, r) for r in (1, 2, 4, 8)]
        out += [_s2d(prec, r, sh, None) for r, sh in ((1, "star"), (2, "star"), (1, "box"), (2, "box"))]
        out += [_s2d(prec, r, "star", t) for t in (8, 16) for r in (1, 2)]
        out += [_s3d(prec, r, sh, False) for r, sh in ((1, "star"), (2, "star"), (1, "box"))]
        out += [_s3d(prec, r, sh, True) for r, sh in ((1, "star"), (2, "star"))]
    return out
