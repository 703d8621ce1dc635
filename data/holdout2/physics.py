"""Holdout2 kernels: simulation and geometry (waves, particles, lattice Boltzmann, resampling, rotations, FFT)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f32, _f64, _spec, pow2, round_up


def _inputs_wave(rng, sz):
    nx, ny = sz["nx"], sz["ny"]
    ys, xs = np.mgrid[0:ny, 0:nx]
    bump = np.exp(-((xs - nx / 3.0) ** 2 + (ys - ny / 2.0) ** 2) / (0.02 * nx * ny))
    return {"u": bump.reshape(-1), "u_prev": 0.99 * bump.reshape(-1)}


def _ref_wave(inp, sz):
    nx, ny = sz["nx"], sz["ny"]
    u = inp["u"].reshape(ny, nx)
    prev = inp["u_prev"].reshape(ny, nx)
    out = np.zeros_like(u)
    c = u[2:-2, 2:-2]
    lap_x = -u[2:-2, :-4] + 16.0 * u[2:-2, 1:-3] - 30.0 * c + 16.0 * u[2:-2, 3:-1] - u[2:-2, 4:]
    lap_y = -u[:-4, 2:-2] + 16.0 * u[1:-3, 2:-2] - 30.0 * c + 16.0 * u[3:-1, 2:-2] - u[4:, 2:-2]
    out[2:-2, 2:-2] = 2.0 * c - prev[2:-2, 2:-2] + float(inp["c2"]) * (lap_x + lap_y) / 12.0
    return {"u_next": out}


def wave2d_fp64_r2() -> KernelSpec:
    return _spec(
        "wave2d_fp64_r2", precision="fp64", idiom="2-D wave leapfrog, fp64, 4th-order radius-2 cross, 3 time levels",
        sizes={"nx": [64, 512, 2048, 8192], "ny": [64, 512, 2048, 8192]}, check={"nx": 80, "ny": 48},
        constraints=["nx * ny <= 2**25"],
        args=[Arg("nx", "scalar", "int32", "nx"), Arg("ny", "scalar", "int32", "ny"),
              Arg("c2", "scalar", "float64", "0.2"), Arg("u_prev", "buffer", "float64", "nx * ny"),
              Arg("u", "buffer", "float64", "nx * ny"), Arg("u_next", "buffer", "float64", "nx * ny", "out")],
        gsize=["nx", "ny"], local=L2, reference=_ref_wave, make_inputs=_inputs_wave, tol=FP64)


def _inputs_lj(rng, sz):
    c = sz["c"]
    lattice = np.stack(np.meshgrid(*(np.arange(c),) * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    pos = 1.1 * (lattice + 0.5) + rng.uniform(-0.1, 0.1, lattice.shape)  # no pair closer than 0.9
    return {"pos": pos.reshape(-1)}


def _ref_lj(inp, sz):
    box, rc2 = np.float32(inp["box"]), float(inp["rc2"])
    pos = _f32(inp["pos"]).reshape(-1, 3)
    d = pos[:, None, :] - pos[None, :, :]  # float32 minimum image, like the kernel
    d = _f64(d - box * np.rint(d * (np.float32(1.0) / box)))
    r2 = (d * d).sum(axis=2)
    np.fill_diagonal(r2, np.inf)
    inside = r2 < rc2
    ir6 = np.where(inside, 1.0 / np.where(inside, r2, 1.0) ** 3, 0.0)
    f = np.where(inside, 24.0 * ir6 * (2.0 * ir6 - 1.0) / np.where(inside, r2, 1.0), 0.0)
    return {"force": (f[:, :, None] * d).sum(axis=1)}


def lj_forces_cutoff() -> KernelSpec:
    return _spec(
        "lj_forces_cutoff", idiom="all-pairs Lennard-Jones, periodic minimum image (rint), cutoff branch, packed xyz",
        sizes={"c": [6, 10, 16, 20, 24], "R2": [4, 9]}, check={"c": 7, "R2": 9},
        args=[Arg("n", "scalar", "int32", "c * c * c"), Arg("box", "scalar", "float32", "1.1 * c"),
              Arg("rc2", "scalar", "float32", "R2"), Arg("pos", "buffer", "float32", "3 * c * c * c"),
              Arg("force", "buffer", "float32", "3 * c * c * c", "out")],
        gsize=[round_up("c * c * c")], local=L1, reference=_ref_lj, make_inputs=_inputs_lj, tol=(1e-3, 1e-3))


def _inputs_particles(rng, sz):
    g = sz["G"]
    return {"pos": rng.uniform(0.0, g / 4.0, 2 * sz["n"]).astype(np.float32),
            "first": np.full(g * g, 2**31 - 1, dtype=np.int32)}


def _ref_binning(inp, sz):
    g = sz["G"]
    p = _f32(inp["pos"]).reshape(-1, 2)
    cell = np.clip(np.floor(p * np.float32(inp["inv_cell"])).astype(np.int64), 0, g - 1)
    c = cell[:, 1] * g + cell[:, 0]
    first = inp["first"].astype(np.int64)
    np.minimum.at(first, c, np.arange(c.size))
    return {"cell_of": c, "counts": np.bincount(c, minlength=g * g), "first": first}


def particle_binning_atomic() -> KernelSpec:
    return _spec(
        "particle_binning_atomic", precision="fp32", idiom="cell binning: float2, atomic_inc + atomic_min",
        sizes={"n": pow2(12, 24, 3), "G": [16, 256, 2048]}, check={"n": 5000, "G": 24},
        args=[Arg("n", "scalar", "int32", "n"), Arg("gx", "scalar", "int32", "G"), Arg("gy", "scalar", "int32", "G"),
              Arg("inv_cell", "scalar", "float32", "4.0"), Arg("pos", "buffer", "float32", "2 * n"),
              Arg("cell_of", "buffer", "int32", "n", "out"), Arg("counts", "buffer", "uint32", "G * G", "out"),
              Arg("first", "buffer", "int32", "G * G", "inout")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_binning, make_inputs=_inputs_particles)


_CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
_CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
_WQ = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)


def _inputs_lbm(rng, sz):
    cells = sz["nx"] * sz["ny"]
    return {"f_in": (_WQ[:, None] * (1.0 + 0.05 * rng.uniform(-1.0, 1.0, (9, cells)))).reshape(-1)}


def _ref_lbm(inp, sz):
    nx, ny = sz["nx"], sz["ny"]
    f_in = _f64(inp["f_in"]).reshape(9, ny, nx)
    f = np.stack([np.roll(f_in[q], (_CY[q], _CX[q]), axis=(0, 1)) for q in range(9)])  # pull from upstream
    rho = f.sum(axis=0)
    ux = (f * _CX[:, None, None]).sum(axis=0) / rho
    uy = (f * _CY[:, None, None]).sum(axis=0) / rho
    usq = 1.5 * (ux * ux + uy * uy)
    cu = 3.0 * (_CX[:, None, None] * ux + _CY[:, None, None] * uy)
    feq = _WQ[:, None, None] * rho * (1.0 + cu + 0.5 * cu * cu - usq)
    return {"f_out": f + float(inp["omega"]) * (feq - f)}


def lbm_d2q9() -> KernelSpec:
    return _spec(
        "lbm_d2q9", idiom="D2Q9 lattice Boltzmann pull-stream + BGK, 9 SoA planes, __constant lattice tables",
        sizes={"nx": [64, 256, 1024, 4096], "ny": [64, 256, 1024, 4096]}, check={"nx": 48, "ny": 32},
        constraints=["nx * ny <= 2**22"],
        args=[Arg("nx", "scalar", "int32", "nx"), Arg("ny", "scalar", "int32", "ny"),
              Arg("omega", "scalar", "float32", "1.2"), Arg("f_in", "buffer", "float32", "9 * nx * ny"),
              Arg("f_out", "buffer", "float32", "9 * nx * ny", "out")],
        gsize=["nx", "ny"], local=L2, reference=_ref_lbm, make_inputs=_inputs_lbm, tol=(1e-4, 1e-6))


def _inputs_volume(rng, sz):
    n, nz = sz["N"], sz["Z"]
    z, y, x = np.mgrid[0:nz, 0:n, 0:n].astype(np.float64)
    # zero on every face, so a source point just inside or just outside gives the same value
    vol = np.sin(np.pi * x / (n - 1)) * np.sin(np.pi * y / (n - 1)) * np.sin(np.pi * z / (nz - 1))
    return {"vol": (vol * (1.0 + 0.5 * np.cos(x / 3.0))).reshape(-1)}


def _ref_trilinear(inp, sz):
    n, nz = sz["N"], sz["Z"]
    vol = _f64(inp["vol"]).reshape(nz, n, n)
    ca, sa, zs = np.float32(inp["cos_a"]), np.float32(inp["sin_a"]), np.float32(inp["zscale"])
    z, y, x = np.mgrid[0:nz, 0:n, 0:n].astype(np.float32)
    cen = np.float32(0.5) * np.float32(n - 1)
    px = cen + ca * (x - cen) + sa * (y - cen)
    py = cen - sa * (x - cen) + ca * (y - cen)
    pz = z * zs
    inside = (px >= 0) & (py >= 0) & (pz >= 0) & (px <= n - 1) & (py <= n - 1) & (pz <= nz - 1)
    px, py, pz = (np.where(inside, v, 0).astype(np.float32) for v in (px, py, pz))
    x0, y0, z0 = px.astype(np.int64), py.astype(np.int64), pz.astype(np.int64)
    x1, y1, z1 = np.minimum(x0 + 1, n - 1), np.minimum(y0 + 1, n - 1), np.minimum(z0 + 1, nz - 1)
    ax, ay, az = _f64(px - x0), _f64(py - y0), _f64(pz - z0)
    lerp = lambda a, b, t: a + (b - a) * t  # noqa: E731
    c0 = lerp(lerp(vol[z0, y0, x0], vol[z0, y0, x1], ax), lerp(vol[z0, y1, x0], vol[z0, y1, x1], ax), ay)
    c1 = lerp(lerp(vol[z1, y0, x0], vol[z1, y0, x1], ax), lerp(vol[z1, y1, x0], vol[z1, y1, x1], ax), ay)
    return {"out": np.where(inside, lerp(c0, c1, az), 0.0)}


def trilinear_rotate_3d() -> KernelSpec:
    return _spec(
        "trilinear_rotate_3d", idiom="3-D NDRange volume rotation, trilinear mix() of 8 gathers, zero outside",
        sizes={"N": [32, 128, 256, 512], "Z": [8, 32, 64, 128]}, check={"N": 24, "Z": 8},
        constraints=["N * N * Z <= 2**24"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"), Arg("nz", "scalar", "int32", "Z"),
              Arg("cos_a", "scalar", "float32", "0.8"), Arg("sin_a", "scalar", "float32", "0.6"),
              Arg("zscale", "scalar", "float32", "0.75"), Arg("vol", "buffer", "float32", "N * N * Z"),
              Arg("out", "buffer", "float32", "N * N * Z", "out")],
        gsize=["N", "N", "Z"], local=[[8, 8, 4], [32, 4, 2]], reference=_ref_trilinear, make_inputs=_inputs_volume,
        tol=(1e-4, 1e-5))


def _inputs_quat(rng, sz):
    q = rng.standard_normal((sz["B"], 4))
    return {"body_of": rng.integers(0, sz["B"], sz["n"], dtype=np.int32),
            "quats": (q / np.linalg.norm(q, axis=1, keepdims=True)).reshape(-1)}


def _ref_quat(inp, sz):
    q = _f64(inp["quats"]).reshape(-1, 4)[inp["body_of"]]
    v = _f64(inp["pts"]).reshape(-1, 3)
    u, w = q[:, :3], q[:, 3:]
    t = 2.0 * np.cross(u, v)
    return {"out": v + w * t + np.cross(u, t)}


def quat_rotate_vload3() -> KernelSpec:
    return _spec(
        "quat_rotate_vload3", idiom="per-body unit quaternion rotation of packed xyz points, vload3/vstore3, cross",
        sizes={"n": pow2(10, 24, 2), "B": [1, 4096]}, check={"n": 3000, "B": 7},
        args=[Arg("npoints", "scalar", "int32", "n"), Arg("pts", "buffer", "float32", "3 * n"),
              Arg("body_of", "buffer", "int32", "n"), Arg("quats", "buffer", "float32", "4 * B"),
              Arg("out", "buffer", "float32", "3 * n", "out")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_quat, make_inputs=_inputs_quat, tol=(1e-5, 1e-5))


def _ref_fft_stage(inp, sz):
    n, span = sz["n"], sz["S"]
    z = _f64(inp["src"][0::2]) + 1j * _f64(inp["src"][1::2])
    t = np.arange(n // 2)
    k, group = t % span, t // span
    bw = z[t + n // 2] * np.exp(-1j * np.pi * k / span)
    out = np.empty(n, dtype=np.complex128)
    o = group * 2 * span + k
    out[o], out[o + span] = z[t] + bw, z[t] - bw
    return {"dst": np.stack([out.real, out.imag], axis=1)}


def fft_radix2_stage() -> KernelSpec:
    return _spec(
        "fft_radix2_stage", idiom="one Stockham radix-2 FFT stage on float2, sincos twiddle, runtime span",
        sizes={"n": pow2(10, 24, 2), "S": [1, 64, 4096]}, check={"n": 2048, "S": 16}, constraints=["2 * S <= n"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("span", "scalar", "int32", "S"),
              Arg("src", "buffer", "float32", "2 * n"), Arg("dst", "buffer", "float32", "2 * n", "out")],
        gsize=["n // 2"], local=[[256], [64]], reference=_ref_fft_stage, tol=(1e-4, 1e-5))
