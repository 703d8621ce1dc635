"""Holdout kernels: images, grids and stencils, particles, clustering and distances."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L2, _f64, _spec

# images, grids, stencils
def _ref_sobel(inp, sz):
    w, h = sz["W"], sz["H"]
    img = np.pad(inp["src"].reshape(h, w).astype(np.int64), 1, mode="edge")
    p = lambda dy, dx: img[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]  # noqa: E731
    gx = -p(-1, -1) + p(-1, 1) - 2 * p(0, -1) + 2 * p(0, 1) - p(1, -1) + p(1, 1)
    gy = -p(-1, -1) - 2 * p(-1, 0) - p(-1, 1) + p(1, -1) + 2 * p(1, 0) + p(1, 1)
    return {"dst": np.minimum(np.abs(gx) + np.abs(gy), 255)}


def _inputs_image(rng, sz):
    h, w = sz["H"], sz["W"]
    rows = np.cos(np.arange(h, dtype=np.float32) / 11.0)
    cols = np.sin(np.arange(w, dtype=np.float32) / 7.0)
    img = 100.0 * np.outer(rows, cols) + 127.5
    img += 20.0 * rng.standard_normal((h, w), dtype=np.float32)
    return {"src": np.clip(img, 0, 255).astype(np.uint8)}


def sobel_l1_uchar() -> KernelSpec:
    return _spec(
        "sobel_l1_uchar", precision="uint8", idiom="Sobel |Gx|+|Gy| on uchar, clamp-to-edge pixel helper",
        sizes={"W": [64, 512, 2048, 8192], "H": [64, 512, 2048, 8192]}, check={"W": 96, "H": 80},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("src", "buffer", "uint8", "W * H"), Arg("dst", "buffer", "uint8", "W * H", "out")],
        gsize=["W", "H"], local=L2, reference=_ref_sobel, make_inputs=_inputs_image)


def _ref_gray(inp, sz):
    p = inp["rgba"].reshape(-1, 4).astype(np.int64)
    return {"gray": (77 * p[:, 0] + 150 * p[:, 1] + 29 * p[:, 2] + 128) >> 8}


def _inputs_rgba(rng, sz):
    return {"rgba": rng.integers(0, 256, 4 * sz["W"] * sz["H"], dtype=np.uint8)}


def rgba_to_gray_uchar4() -> KernelSpec:
    return _spec(
        "rgba_to_gray_uchar4", precision="uint8", idiom="RGBA uchar4 to luma with fixed-point integer weights",
        sizes={"W": [64, 512, 2048, 8192], "H": [64, 512, 2048, 8192]}, check={"W": 96, "H": 48},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("rgba", "buffer", "uint8", "4 * W * H"), Arg("gray", "buffer", "uint8", "W * H", "out")],
        gsize=["W", "H"], local=L2, reference=_ref_gray, make_inputs=_inputs_rgba)


def _ref_jacobi(inp, sz):
    nx, ny = sz["nx"], sz["ny"]
    u = _f64(inp["u"]).reshape(ny, nx)
    f = _f64(inp["f"]).reshape(ny, nx)
    out = u.copy()
    nb = u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1]
    out[1:-1, 1:-1] = 0.25 * (nb + float(inp["h2"]) * f[1:-1, 1:-1])
    return {"unew": out}


def jacobi5_poisson() -> KernelSpec:
    return _spec(
        "jacobi5_poisson", idiom="Jacobi sweep for 2-D Poisson, boundary items copy and leave",
        sizes={"nx": [64, 512, 4096, 8192], "ny": [64, 512, 4096, 8192]}, check={"nx": 96, "ny": 64},
        constraints=["nx * ny <= 2**26"],
        args=[Arg("nx", "scalar", "int32", "nx"), Arg("ny", "scalar", "int32", "ny"),
              Arg("h2", "scalar", "float32", "0.001"), Arg("u", "buffer", "float32", "nx * ny"),
              Arg("f", "buffer", "float32", "nx * ny"), Arg("unew", "buffer", "float32", "nx * ny", "out")],
        gsize=["nx", "ny"], local=[[16, 16], [32, 4], [64, 2]], reference=_ref_jacobi)


def _ref_gradient(inp, sz):
    nx, ny, nz = sz["X"], sz["Y"], sz["Z"]
    v = _f64(inp["vol"]).reshape(nz, ny, nx)
    gz, gy, gx = np.gradient(v)  # central inside, one-sided (unit step) on the faces
    return {"grad": float(inp["inv_h"]) * np.sqrt(gx * gx + gy * gy + gz * gz)}


def volume_gradient_3d() -> KernelSpec:
    return _spec(
        "volume_gradient_3d", idiom="3-D NDRange, central differences with clamped faces, gradient magnitude",
        sizes={"X": [16, 64, 256, 512], "Y": [16, 64, 256, 512], "Z": [16, 64, 256, 512]},
        check={"X": 32, "Y": 24, "Z": 20}, constraints=["X * Y * Z <= 2**26"],
        args=[Arg("nx", "scalar", "int32", "X"), Arg("ny", "scalar", "int32", "Y"), Arg("nz", "scalar", "int32", "Z"),
              Arg("inv_h", "scalar", "float32", "0.5"), Arg("vol", "buffer", "float32", "X * Y * Z"),
              Arg("grad", "buffer", "float32", "X * Y * Z", "out")],
        gsize=["X", "Y", "Z"], local=[[8, 8, 4], [16, 8, 2], [32, 4, 2]], reference=_ref_gradient, tol=(1e-5, 1e-5))


def _ref_transpose(inp, sz):
    return {"out": inp["in"].reshape(sz["R"], sz["C"]).T}


def transpose_tile32x8_uint() -> KernelSpec:
    return _spec(
        "transpose_tile32x8_uint", precision="uint32", idiom="32x32 tile with +1 padding moved by a 32x8 group, uint",
        sizes={"R": [64, 512, 2048, 8192], "C": [64, 512, 2048, 8192]}, check={"R": 96, "C": 64},
        constraints=["R % 32 == 0", "C % 32 == 0", "R * C <= 2**26"],
        args=[Arg("rows", "scalar", "int32", "R"), Arg("cols", "scalar", "int32", "C"),
              Arg("in", "buffer", "uint32", "R * C"), Arg("out", "buffer", "uint32", "R * C", "out")],
        gsize=["C", "R // 4"], local=[[32, 8]], reference=_ref_transpose)


# ---------------------------------------------------------------------------------------------
# particles, clustering, distances
def _inputs_nbody(rng, sz):
    n = sz["n"]
    pos = rng.uniform(-1.0, 1.0, (n, 4))
    pos[:, 3] = rng.uniform(0.5, 1.0, n) / n
    vel = rng.uniform(-0.1, 0.1, (n, 4))
    vel[:, 3] = 0.0
    return {"pos": pos.reshape(-1), "vel": vel.reshape(-1)}


def _ref_nbody(inp, sz):
    n = sz["n"]
    pos = _f64(inp["pos"]).reshape(n, 4)
    vel = _f64(inp["vel"]).reshape(n, 4)
    dt, eps2 = float(inp["dt"]), float(inp["eps2"])
    d = pos[None, :, :3] - pos[:, None, :3]
    inv = 1.0 / np.sqrt((d * d).sum(axis=2) + eps2)
    acc = (d * (pos[None, :, 3] * inv**3)[:, :, None]).sum(axis=1)
    v = vel.copy()
    v[:, :3] += acc * dt
    v[:, 3] = 0.0
    p = pos.copy()
    p[:, :3] += v[:, :3] * dt
    return {"pos_out": p, "vel_out": v}


def nbody_leapfrog_float4() -> KernelSpec:
    return _spec(
        "nbody_leapfrog_float4", idiom="all-pairs n-body on float4 with dot and rsqrt, kick-drift update",
        sizes={"n": [512, 1024, 2048, 4096, 8192]}, check={"n": 384},
        args=[Arg("n", "scalar", "int32", "n"), Arg("dt", "scalar", "float32", "0.01"),
              Arg("eps2", "scalar", "float32", "0.01"), Arg("pos", "buffer", "float32", "4 * n"),
              Arg("vel", "buffer", "float32", "4 * n"), Arg("pos_out", "buffer", "float32", "4 * n", "out"),
              Arg("vel_out", "buffer", "float32", "4 * n", "out")],
        gsize=["n"], local=[[128], [64], [256]], reference=_ref_nbody, make_inputs=_inputs_nbody, tol=(1e-4, 1e-5))


def _inputs_kmeans(rng, sz):
    n, k, d = sz["N"], sz["K"], sz["D"]
    centroids = rng.uniform(-10.0, 10.0, (k, d))
    label = rng.integers(0, k, n)
    points = centroids[label] + rng.normal(0.0, 0.01, (n, d))
    return {"points": points.reshape(-1), "centroids": centroids.reshape(-1)}


def _ref_kmeans(inp, sz):
    n, k, d = sz["N"], sz["K"], sz["D"]
    p = _f64(inp["points"]).reshape(n, 1, d)
    c = _f64(inp["centroids"]).reshape(1, k, d)
    return {"membership": ((p - c) ** 2).sum(axis=2).argmin(axis=1)}


def kmeans_assign() -> KernelSpec:
    return _spec(
        "kmeans_assign", precision="fp32", idiom="k-means assignment, runtime loops over K centroids and D dims, argmin",
        sizes={"N": [1024, 16384, 262144, 1048576], "K": [4, 16, 64], "D": [2, 8, 32]},
        check={"N": 2000, "K": 13, "D": 5}, constraints=["N * K * D <= 2**28"],
        args=[Arg("npoints", "scalar", "int32", "N"), Arg("nclusters", "scalar", "int32", "K"),
              Arg("dim", "scalar", "int32", "D"), Arg("points", "buffer", "float32", "N * D"),
              Arg("centroids", "buffer", "float32", "K * D"), Arg("membership", "buffer", "int32", "N", "out")],
        gsize=["(N + 127) // 128 * 128"], local=[[128], [256], [64]], reference=_ref_kmeans,
        make_inputs=_inputs_kmeans)


def _ref_total_distance(inp, sz):
    pts = np.stack([_f64(inp["px"]), _f64(inp["py"]), _f64(inp["pz"])], axis=1)
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))
    return {"total": d.sum(axis=1)}


def total_distance_soa() -> KernelSpec:
    return _spec(
        "total_distance_soa", idiom="sum of Euclidean distances to all points, structure-of-arrays inputs",
        sizes={"n": [256, 1024, 4096, 8192, 16384]}, check={"n": 640},
        args=[Arg("n", "scalar", "int32", "n"), Arg("px", "buffer", "float32", "n"),
              Arg("py", "buffer", "float32", "n"), Arg("pz", "buffer", "float32", "n"),
              Arg("total", "buffer", "float32", "n", "out")],
        gsize=["n"], local=[[128], [256], [64]], reference=_ref_total_distance, tol=(1e-4, 1e-4))


#: The builders, in the order of ``specs()``.
