"""Holdout16 kernels, group plasma (written by hand; see docs/HOLDOUT16.md): plasma physics and particle-in-cell
simulation. Test particles traced through the frozen fields of a periodic 2D3V PIC snapshot in fp64, a work-item
per particle over a runtime step count, gathering Ex, Ey and Bz by cloud-in-cell weights from four wrapped nodes
and advancing the momentum by the relativistic Boris scheme (half kicks around the rotation about the local plus
guide field) before moving and re-wrapping the particle; and the x-advection half step of a split
semi-Lagrangian Vlasov solver on a 1D1V phase-space grid, a work-group per velocity row (rows strided by the
number of groups) staging the row in __local memory between barriers and shifting it periodically by v dt / dx
with 4-point cubic Lagrange interpolation. Neither uses atomics; the group's other two kernels are in
:mod:`.plasma_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, round_up

QM = -1.0  # boris_rel_cic_gather_fp64: electrons, q / m in normalised units (c = 1, cell = 1)
DT = 0.2  # boris_rel_cic_gather_fp64: time step
B0 = (0.1, 0.0, 0.5)  # boris_rel_cic_gather_fp64: uniform guide field

VMAX = 6.0  # vlasov_xshift_rows_local: velocity grid [-VMAX, VMAX] in thermal speeds
DT_DX = 2.5  # vlasov_xshift_rows_local: dt / dx (shifts up to 15 cells)


# --- relativistic Boris push with CIC field gather, fp64 -------------------------------------------------------
def _inputs_boris(rng, sz):
    """Ex, Ey, Bz on a G x G periodic grid as sums of a few random Fourier modes (amplitudes 0.05 .. 0.1, as after
    a beam instability has grown); P particles uniform in the box, a thermal core (u ~ N(0, 0.1)) and a
    relativistic beam fifth (u_x around 2)."""
    g, npart = sz["G"], sz["P"]
    xx, yy = np.meshgrid(np.arange(g), np.arange(g))
    fields = []
    for amp in (0.05, 0.05, 0.1):
        f = np.zeros((g, g))
        for _ in range(4):
            kx, ky = rng.integers(1, 6, 2)
            f += amp * rng.uniform(0.3, 1.0) * np.cos(2 * np.pi * (kx * xx + ky * yy) / g + rng.uniform(0, 2 * np.pi))
        fields.append(f.reshape(-1))
    st = np.zeros((npart, 6))
    st[:, 0:2] = rng.uniform(0.0, g, (npart, 2))
    st[:, 2:5] = rng.normal(0.0, 0.1, (npart, 3))
    beam = rng.random(npart) < 0.2
    st[beam, 2] += 2.0
    return {"ex": fields[0], "ey": fields[1], "bz": fields[2], "state": st.reshape(-1)}


def _ref_boris(inp, sz):
    npart, nx, ny, ns = (int(inp[k]) for k in ("np", "nx", "ny", "nstep"))
    qm, dt = float(inp["qm"]), float(inp["dt"])
    bx0, by0, bz0 = float(inp["bx0"]), float(inp["by0"]), float(inp["bz0"])
    ex, ey, bz = (_f64(inp[k])[:nx * ny] for k in ("ex", "ey", "bz"))
    st = _f64(inp["state"])[:6 * npart].reshape(npart, 6).copy()
    x, y, u = st[:, 0].copy(), st[:, 1].copy(), st[:, 2:5].copy()
    h = 0.5 * qm * dt
    for _ in range(ns):
        fx, fy = np.floor(x), np.floor(y)
        ax, ay = x - fx, y - fy
        i0, j0 = fx.astype(np.int64) % nx, fy.astype(np.int64) % ny
        i1, j1 = (i0 + 1) % nx, (j0 + 1) % ny
        w = ((1 - ax) * (1 - ay), ax * (1 - ay), (1 - ax) * ay, ax * ay)
        nodes = (j0 * nx + i0, j0 * nx + i1, j1 * nx + i0, j1 * nx + i1)
        ga = [sum(wk * fld[nk] for wk, nk in zip(w, nodes)) for fld in (ex, ey, bz)]
        e = np.stack([ga[0], ga[1], np.zeros(npart)], -1)
        u = u + h * e
        ginv = 1.0 / np.sqrt(1.0 + (u * u).sum(-1))
        t = np.stack([h * bx0 * ginv, h * by0 * ginv, h * (bz0 + ga[2]) * ginv], -1)
        f = 2.0 / (1.0 + (t * t).sum(-1))
        p = u + np.cross(u, t)
        u = u + f[:, None] * np.cross(p, t)
        u = u + h * e
        g2 = 1.0 / np.sqrt(1.0 + (u * u).sum(-1))
        x = x + dt * u[:, 0] * g2
        y = y + dt * u[:, 1] * g2
        x -= nx * np.floor(x / nx)
        y -= ny * np.floor(y / ny)
    st[:, 0], st[:, 1], st[:, 2:5] = x, y, u
    return {"state": st.reshape(-1)}


def boris_rel_cic_gather_fp64() -> KernelSpec:
    return _spec(
        "boris_rel_cic_gather_fp64", tol=FP64, precision="fp64",
        idiom="relativistic Boris push in fp64, a particle per item over a runtime step count: CIC (bilinear) "
              "gather of Ex, Ey, Bz from four periodic nodes, half kicks around the t / s rotation, floor wrap",
        sizes={"P": [16384, 131072, 786432], "S": [4, 32], "G": [256, 1024]}, check={"P": 3000, "S": 6, "G": 40},
        constraints=["P * S <= 2**23"],
        args=[Arg("np", "scalar", "int32", "P"), Arg("nx", "scalar", "int32", "G"),
              Arg("ny", "scalar", "int32", "G"), Arg("nstep", "scalar", "int32", "S"),
              Arg("qm", "scalar", "float64", str(QM)), Arg("dt", "scalar", "float64", str(DT)),
              Arg("bx0", "scalar", "float64", str(B0[0])), Arg("by0", "scalar", "float64", str(B0[1])),
              Arg("bz0", "scalar", "float64", str(B0[2])),
              Arg("ex", "buffer", "float64", "G * G"), Arg("ey", "buffer", "float64", "G * G"),
              Arg("bz", "buffer", "float64", "G * G"), Arg("state", "buffer", "float64", "6 * P", "inout")],
        gsize=[round_up("P")], local=L1, reference=_ref_boris, make_inputs=_inputs_boris)


# --- semi-Lagrangian Vlasov x-advection, a row per work-group through __local ------------------------------------
def _inputs_vlasov(rng, sz):
    """A two-stream distribution f(x, v) = (1 + 0.05 cos(k x)) (M(v - 2.4) + M(v + 2.4)) / 2 with Maxwellians M of
    unit width, plus 1 % multiplicative noise, on an NV x NX grid (row j: velocity j)."""
    nx, nv = sz["X"], sz["V"]
    x = np.arange(nx) / nx
    v = -VMAX + (np.arange(nv) + 0.5) * (2 * VMAX / nv)
    fv = 0.5 * (np.exp(-0.5 * (v - 2.4) ** 2) + np.exp(-0.5 * (v + 2.4) ** 2)) / np.sqrt(2 * np.pi)
    f = fv[:, None] * (1.0 + 0.05 * np.cos(2 * np.pi * 3 * x))[None, :]
    f *= 1.0 + 0.01 * rng.standard_normal(f.shape)
    return {"f": f.reshape(-1)}


def _ref_vlasov(inp, sz):
    nx, nv = int(inp["nx"]), int(inp["nv"])
    vmin, dv, dtdx = (float(np.float32(inp[k])) for k in ("vmin", "dv", "dt_dx"))
    f = _f64(inp["f"])[:nx * nv].reshape(nv, nx)
    out = np.empty_like(f)
    i = np.arange(nx)
    for j in range(nv):
        p = i - (vmin + (j + 0.5) * dv) * dtdx
        ip = np.floor(p)
        a = p - ip
        c = ip.astype(np.int64)
        w = (-a * (a - 1) * (a - 2) / 6, (a + 1) * (a - 1) * (a - 2) / 2, -(a + 1) * a * (a - 2) / 2,
             (a + 1) * a * (a - 1) / 6)
        out[j] = sum(wk * f[j, (c + o) % nx] for wk, o in zip(w, (-1, 0, 1, 2)))
    return {"fout": out.reshape(-1)}


def vlasov_xshift_rows_local() -> KernelSpec:
    return _spec(
        "vlasov_xshift_rows_local", tol=SUMS,
        idiom="semi-Lagrangian Vlasov x-advection on a 1D1V grid: a velocity row per work-group (num_groups loop) "
              "staged in __local between barriers, periodic shift v dt / dx by 4-point cubic Lagrange weights",
        sizes={"X": [256, 1024, 4096], "V": [128, 1024, 4096]}, check={"X": 300, "V": 37},
        args=[Arg("nx", "scalar", "int32", "X"), Arg("nv", "scalar", "int32", "V"),
              Arg("vmin", "scalar", "float32", str(-VMAX)), Arg("dv", "scalar", "float32", f"{2 * VMAX} / V"),
              Arg("dt_dx", "scalar", "float32", str(DT_DX)),
              Arg("f", "buffer", "float32", "V * X"), Arg("fout", "buffer", "float32", "V * X", "out"),
              Arg("row", "local", "float32", "X")],
        gsize=["64 * V"], local=L1, reference=_ref_vlasov, make_inputs=_inputs_vlasov)


#: this group's builders, in the order of ``specs()``
BUILDERS = (boris_rel_cic_gather_fp64, vlasov_xshift_rows_local)
