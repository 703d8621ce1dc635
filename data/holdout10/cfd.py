"""Holdout10 kernels, group cfd (written by hand; see docs/HOLDOUT10.md): computational fluid dynamics and lattice
methods as application programmers write them: the numerical flux of the 1-D Euler equations at the faces of many
periodic lines by fifth-order WENO-JS reconstruction of the local-Lax-Friedrichs split fluxes in fp64 (a face per
work-item, six cells loaded), immersed-boundary force spreading from Lagrangian markers onto a periodic grid with
the 4 x 4 cubic B-spline delta function, summed as 16.16 fixed-point ints by atomic_add, and the multigrid step from
fine grid to coarse on a 2-D NDRange: the 5-point Poisson residual staged in __local memory, then full-weighting
restriction. One of these three kernels uses atomics, on integers; the group's other three kernels are in
:mod:`.cfd_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f64, _spec, pow2, round_up

WENO_GAMMA, WENO_PMIN = 1.4, 1e-10  # weno5_lf_euler_faces_fp64: ratio of specific heats, pressure floor

IB_FSCALE = np.float32(65536.0)  # ib_spread_bspline4_fixed: 16.16 fixed point (FSCALE in the source)
IB_SIXTH = np.float32(0.16666667)  # ib_spread_bspline4_fixed: ONE_SIXTH in the source

#: mg_fullweight_resid_local: float32 residuals cancel terms ~inv_h2 |u| (6400 at the check size): absolute 1e-2
MG_TOL = (1e-3, 1e-2)


# --- WENO5-JS flux of the 1-D Euler equations, local Lax-Friedrichs splitting, fp64 -------------------------------
def _inputs_weno(rng, sz):
    """Each line a periodic Riemann problem: a random left state outside [a, b), a random right state inside, with a
    smooth sine ripple on the density and velocity (rho 0.09 .. 1.65, |u| < 1.05, p 0.1 .. 1.5)."""
    n, nl = sz["N"], sz["L"]
    idx = np.arange(n)[None, :]
    ab = np.sort(rng.integers(0, n, (nl, 2)), axis=1)
    inside = (idx >= ab[:, :1]) & (idx < ab[:, 1:])
    x = (idx + 0.5) / n
    wave = np.sin(2 * np.pi * rng.integers(1, 6, (nl, 1)) * x + rng.uniform(0, 2 * np.pi, (nl, 1)))
    rho = np.where(inside, rng.uniform(0.1, 1.0, (nl, 1)), rng.uniform(0.5, 1.5, (nl, 1))) * (1 + 0.1 * wave)
    u = np.where(inside, rng.uniform(-1, 1, (nl, 1)), rng.uniform(-1, 1, (nl, 1))) + 0.05 * wave
    p = np.where(inside, rng.uniform(0.1, 1.5, (nl, 1)), rng.uniform(0.1, 1.5, (nl, 1)))
    ener = p / (WENO_GAMMA - 1) + 0.5 * rho * u * u
    return {"q": np.stack([rho, rho * u, ener])}


def _weno5(a, b, c, d, e, eps=1e-6):
    q0 = (2 * a - 7 * b + 11 * c) / 6
    q1 = (-b + 5 * c + 2 * d) / 6
    q2 = (2 * c + 5 * d - e) / 6
    b0 = 13 / 12 * (a - 2 * b + c) ** 2 + 0.25 * (a - 4 * b + 3 * c) ** 2
    b1 = 13 / 12 * (b - 2 * c + d) ** 2 + 0.25 * (b - d) ** 2
    b2 = 13 / 12 * (c - 2 * d + e) ** 2 + 0.25 * (3 * c - 4 * d + e) ** 2
    a0, a1, a2 = 0.1 / (eps + b0) ** 2, 0.6 / (eps + b1) ** 2, 0.3 / (eps + b2) ** 2
    return (a0 * q0 + a1 * q1 + a2 * q2) / (a0 + a1 + a2)


def _ref_weno(inp, sz):
    n, nl = sz["N"], sz["L"]
    gam, pmin = float(inp["gamma"]), float(inp["pmin"])
    q = _f64(inp["q"]).reshape(3, nl, n)
    cells = [np.roll(q, 2 - s, axis=-1) for s in range(6)]  # cells[s][..., i] = q[..., i + s - 2]
    qs, fs, alpha = [], [], 0.0
    for c in cells:
        rho, mom, ener = c
        u = mom / rho
        p = np.maximum((gam - 1) * (ener - 0.5 * mom * u), pmin)
        alpha = np.maximum(alpha, np.abs(u) + np.sqrt(gam * p / rho))
        qs.append(c)
        fs.append(np.stack([mom, mom * u + p, u * (ener + p)]))
    fp = [0.5 * (fs[s] + alpha * qs[s]) for s in range(5)]
    fm = [0.5 * (fs[s] - alpha * qs[s]) for s in range(1, 6)]
    return {"flux": _weno5(*fp) + _weno5(fm[4], fm[3], fm[2], fm[1], fm[0])}


def weno5_lf_euler_faces_fp64() -> KernelSpec:
    return _spec(
        "weno5_lf_euler_faces_fp64", tol=FP64, precision="fp64",
        idiom="Euler face flux per work-item in fp64: six periodic cells, pressure and sound speed, local "
              "Lax-Friedrichs split, WENO5-JS weights for f+ and mirrored f-",
        sizes={"N": [256, 4096], "L": pow2(1, 11, 2)}, check={"N": 100, "L": 7},
        constraints=["N * L <= 2**21"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("nline", "scalar", "int32", "L"),
              Arg("gamma", "scalar", "float64", str(WENO_GAMMA)), Arg("pmin", "scalar", "float64", str(WENO_PMIN)),
              Arg("q", "buffer", "float64", "3 * N * L"), Arg("flux", "buffer", "float64", "3 * N * L", "out")],
        gsize=[round_up("N * L")], local=L1, reference=_ref_weno, make_inputs=_inputs_weno)


# --- immersed-boundary force spreading, cubic B-spline delta, fixed-point atomic_add -------------------------------
def _inputs_ib(rng, sz):
    """Closed bodies (ellipses of radius N/40 .. N/10, at least 3 .. 6 cells, axis ratio 0.6 .. 1, turned at random)
    dropped anywhere on the periodic N x N grid, markers about half a cell apart, arc-length weights ds; the force
    density a penalty pull towards a wavy target shape (normal, modes 2 .. 5) plus a small tangential part; a third
    of the bodies at rest (zero force)."""
    m, n = sz["M"], sz["N"]
    rmin, rmax = max(3.0, n / 40), max(6.0, n / 10)
    radius = rng.uniform(rmin, rmax, 16)
    while (cnt := np.maximum((4 * np.pi * radius).astype(np.int64), 8)).sum() < m:
        radius = np.concatenate([radius, rng.uniform(rmin, rmax, radius.size)])
    nb = int(np.searchsorted(np.cumsum(cnt), m)) + 1
    radius, cnt = radius[:nb], cnt[:nb].copy()
    cnt[-1] -= int(cnt.sum()) - m
    body = np.repeat(np.arange(nb), cnt)
    k = np.arange(m) - (np.cumsum(cnt) - cnt)[body]
    theta = 2 * np.pi * k / cnt[body]
    ratio, turn = rng.uniform(0.6, 1.0, nb)[body], rng.uniform(0, np.pi, nb)[body]
    r = radius[body]
    lx, ly = r * np.cos(theta), r * ratio * np.sin(theta)
    cx, cy = rng.uniform(0, n, nb)[body], rng.uniform(0, n, nb)[body]
    x = (cx + lx * np.cos(turn) - ly * np.sin(turn)) % n
    y = (cy + lx * np.sin(turn) + ly * np.cos(turn)) % n
    x, y = x.astype(np.float32), y.astype(np.float32)
    x[x >= n], y[y >= n] = 0.0, 0.0
    amp = rng.uniform(0.2, 1.0, nb)[body] * np.cos(rng.integers(2, 6, nb)[body] * theta + rng.uniform(0, 6.3, nb)[body])
    nrm = np.arctan2(np.sin(theta) / ratio, np.cos(theta)) + turn  # outward normal of the ellipse
    tang = 0.1 * rng.standard_normal(m)
    moving = (rng.random(nb) >= 1 / 3)[body]
    fx = np.where(moving, amp * np.cos(nrm) - tang * np.sin(nrm), 0.0)
    fy = np.where(moving, amp * np.sin(nrm) + tang * np.cos(nrm), 0.0)
    ds = 2 * np.pi * r * (1 + ratio) / 2 / cnt[body]
    return {"mx": x, "my": y, "fmx": fx, "fmy": fy, "ds": ds}


def _bspline4_f32(t):
    """The kernel's weights, the same float32 operations in the same order."""
    f = np.float32
    s = f(1) - t
    t2 = t * t
    t3 = t2 * t
    return [s * s * s * IB_SIXTH, (f(3) * t3 - f(6) * t2 + f(4)) * IB_SIXTH,
            (f(-3) * t3 + f(3) * t2 + f(3) * t + f(1)) * IB_SIXTH, t3 * IB_SIXTH]


def _ref_ib(inp, sz):
    n = sz["N"]
    x, y = np.asarray(inp["mx"], np.float32), np.asarray(inp["my"], np.float32)
    ds = np.asarray(inp["ds"], np.float32)
    sx = np.asarray(inp["fmx"], np.float32) * ds * IB_FSCALE
    sy = np.asarray(inp["fmy"], np.float32) * ds * IB_FSCALE
    x0, y0 = np.floor(x), np.floor(y)
    wx, wy = _bspline4_f32(x - x0), _bspline4_f32(y - y0)
    ix, iy = x0.astype(np.int64) - 1, y0.astype(np.int64) - 1
    gfx, gfy = np.zeros(n * n), np.zeros(n * n)
    for b in range(4):
        gy = (iy + b) % n
        ay, by = sx * wy[b], sy * wy[b]
        for a in range(4):
            node = gy * n + (ix + a) % n
            gfx += np.bincount(node, (ay * wx[a]).astype(np.int64), n * n)
            gfy += np.bincount(node, (by * wx[a]).astype(np.int64), n * n)
    return {"grid_fx": gfx.astype(np.int64), "grid_fy": gfy.astype(np.int64)}


def ib_spread_bspline4_fixed() -> KernelSpec:
    return _spec(
        "ib_spread_bspline4_fixed", precision="int32",
        idiom="immersed-boundary spreading per marker: cubic B-spline 4x4 delta weights, periodic wrap, 16.16 "
              "fixed-point atomic_add of both force components",
        sizes={"M": pow2(10, 20, 2), "N": [256, 1024, 2048]}, check={"M": 3000, "N": 128},
        constraints=["M <= N * N // 4"],
        args=[Arg("nmark", "scalar", "int32", "M"), Arg("nx", "scalar", "int32", "N"),
              Arg("ny", "scalar", "int32", "N"),
              *(Arg(a, "buffer", "float32", "M") for a in ("mx", "my", "fmx", "fmy", "ds")),
              Arg("grid_fx", "buffer", "int32", "N * N", "out"), Arg("grid_fy", "buffer", "int32", "N * N", "out")],
        gsize=[round_up("M")], local=L1, reference=_ref_ib, make_inputs=_inputs_ib)


# --- multigrid: fine 5-point residual in __local, full-weighting restriction, 2-D ----------------------------------
def _inputs_mg(rng, sz):
    """A fine iterate after smoothing: a smooth field plus 1% high-frequency noise, zero on the boundary; a smooth
    right-hand side plus a point source."""
    nfx, nfy = 2 * sz["NX"] + 1, 2 * sz["NY"] + 1
    xs, ys = np.linspace(0, 1, nfx)[None, :], np.linspace(0, 1, nfy)[:, None]
    kx, ky = rng.integers(1, 4, 2)
    u = np.sin(np.pi * kx * xs) * np.sin(np.pi * ky * ys) + 0.01 * rng.standard_normal((nfy, nfx))
    u[0, :], u[-1, :], u[:, 0], u[:, -1] = 0.0, 0.0, 0.0, 0.0
    f = 2 * np.pi**2 * np.sin(np.pi * xs) * np.sin(2 * np.pi * ys)
    f[rng.integers(1, nfy - 1), rng.integers(1, nfx - 1)] += 50.0
    return {"u": u, "f": f}


def _ref_mg(inp, sz):
    ncx, ncy = sz["NX"], sz["NY"]
    nfx, nfy = 2 * ncx + 1, 2 * ncy + 1
    u, f = _f64(inp["u"]).reshape(nfy, nfx), _f64(inp["f"]).reshape(nfy, nfx)
    r = np.zeros((nfy, nfx))
    r[1:-1, 1:-1] = f[1:-1, 1:-1] - float(inp["inv_h2"]) * (
        4 * u[1:-1, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:] - u[:-2, 1:-1] - u[2:, 1:-1])
    rc = np.zeros((ncy + 1, ncx + 1))
    c = r[2:-1:2, 2:-1:2]
    rc[1:-1, 1:-1] = (0.25 * c + 0.125 * (r[2:-1:2, 1:-2:2] + r[2:-1:2, 3::2] + r[1:-2:2, 2:-1:2] + r[3::2, 2:-1:2])
                      + 0.0625 * (r[1:-2:2, 1:-2:2] + r[1:-2:2, 3::2] + r[3::2, 1:-2:2] + r[3::2, 3::2]))
    return {"rc": rc}


def mg_fullweight_resid_local() -> KernelSpec:
    return _spec(
        "mg_fullweight_resid_local", tol=MG_TOL,
        idiom="multigrid fine-to-coarse, 2-D: fine u tile + halo in __local, 5-point residual tile in __local, "
              "3x3 full-weighting restriction per coarse point",
        sizes={"NX": pow2(5, 11), "NY": [32, 256, 2048]}, check={"NX": 40, "NY": 23},
        constraints=["NX * NY <= 2**22"],
        args=[Arg("ncx", "scalar", "int32", "NX"), Arg("ncy", "scalar", "int32", "NY"),
              Arg("inv_h2", "scalar", "float32", "4 * NX * NX"),
              Arg("u", "buffer", "float32", "(2 * NX + 1) * (2 * NY + 1)"),
              Arg("f", "buffer", "float32", "(2 * NX + 1) * (2 * NY + 1)"),
              Arg("rc", "buffer", "float32", "(NX + 1) * (NY + 1)", "out"),
              Arg("ut", "local", "float32", "(2 * l0 + 3) * (2 * l1 + 3)"),
              Arg("rt", "local", "float32", "(2 * l0 + 1) * (2 * l1 + 1)")],
        gsize=[round_up("NX + 1", 32), round_up("NY + 1", 16)], local=L2, reference=_ref_mg, make_inputs=_inputs_mg)


#: this group's builders, in the order of ``specs()``
BUILDERS = (weno5_lf_euler_faces_fp64, ib_spread_bspline4_fixed, mg_fullweight_resid_local)
