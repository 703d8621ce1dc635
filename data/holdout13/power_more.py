"""Holdout13 kernels, group power, continued (written by hand; see docs/HOLDOUT13.md): one backward-Euler step of
many small independent RC networks, a work-group per circuit (looping by the number of groups) assembling the
dense nodal matrix in __local memory row by row from the branch list (ground endpoints skipped), then a fixed
number of Jacobi sweeps between barriers and a max tree of the last sweep's change; and a battery-pack drive-cycle
simulation, a work-item per cell integrating a second-order Thevenin equivalent circuit with hysteresis over the
shared current profile, its parameters from a uint32 temperature-bin row and the open-circuit voltage
interpolated from a table at a uint32 index. Neither uses atomics. Split from :mod:`.power` to keep each module
short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f64, _spec, round_up

MNA_BRANCHES = "3 * N"  # mna_be_jacobi_local: branches per circuit (a chain, then random pairs)
MNA_GROUND = 0.1  # mna_be_jacobi_local: share of the random branches that end at ground
MNA_SWEEPS = 12  # mna_be_jacobi_local: Jacobi sweeps per time step
MNA_INV_H = 1000.0  # mna_be_jacobi_local: 1 / time step (h = 1 ms)

ECM_BINS = 8  # cell_ecm_rc2_drive_u32: temperature bins (rows of 7 parameters)
ECM_OCV = 100  # cell_ecm_rc2_drive_u32: OCV table intervals over SOC 0 .. 1
ECM_DT = 1.0  # cell_ecm_rc2_drive_u32: sample period of the profile (s)
ECM_ETA = 0.995  # cell_ecm_rc2_drive_u32: coulombic efficiency when charging


# --- transient circuit simulation: backward-Euler step, nodal matrix in __local, Jacobi sweeps --------------------
def _inputs_mna(rng, sz):
    """C circuits of N nodes: branches 0 .. N - 2 a chain (i, i + 1), the rest random distinct-node pairs, a
    MNA_GROUND share of them to ground (-1); conductances in [0.2, 1) S, capacitors in [1, 4) mF, sources in
    [-1, 1) A, previous voltages in [-1, 1) V."""
    c, n = sz["C"], sz["N"]
    e = 3 * n
    a = rng.integers(0, n, (c, e))
    b = (a + rng.integers(1, n, (c, e))) % n
    a[:, :n - 1] = np.arange(n - 1)
    b[:, :n - 1] = np.arange(1, n)
    ground = rng.random((c, e)) < MNA_GROUND
    ground[:, :n - 1] = False
    b[ground] = -1
    return {"br_a": a, "br_b": b, "br_g": rng.uniform(0.2, 1.0, (c, e)), "cap": rng.uniform(1e-3, 4e-3, c * n),
            "isrc": rng.uniform(-1.0, 1.0, c * n), "vprev": rng.uniform(-1.0, 1.0, c * n)}


def _ref_mna(inp, sz):
    c, n = sz["C"], sz["N"]
    e = 3 * n
    a = np.asarray(inp["br_a"]).astype(np.int64).reshape(c, e)
    b = np.asarray(inp["br_b"]).astype(np.int64).reshape(c, e)
    g = _f64(inp["br_g"]).reshape(c, e)
    gc = _f64(inp["cap"]).reshape(c, n) * float(inp["inv_h"])
    vprev = _f64(inp["vprev"]).reshape(c, n)
    mat = np.zeros((c, n + 1, n + 1))  # node n stands for ground, dropped below
    b = np.where(b < 0, n, b)
    cc = np.repeat(np.arange(c), e)
    for (p, r) in ((a, a), (b, b)):
        np.add.at(mat, (cc, p.reshape(-1), r.reshape(-1)), g.reshape(-1))
    for (p, r) in ((a, b), (b, a)):
        np.add.at(mat, (cc, p.reshape(-1), r.reshape(-1)), -g.reshape(-1))
    mat = mat[:, :n, :n]
    idx = np.arange(n)
    mat[:, idx, idx] += gc
    rhs = _f64(inp["isrc"]).reshape(c, n) + gc * vprev
    diag = mat[:, idx, idx]
    off = mat.copy()
    off[:, idx, idx] = 0.0
    x = vprev.copy()
    change = np.zeros(c)
    for _ in range(int(inp["nsweep"])):
        xn = (rhs - np.einsum("cij,cj->ci", off, x)) / diag
        change = np.abs(xn - x).max(axis=1)
        x = xn
    return {"vnext": x, "resid": change}


def mna_be_jacobi_local() -> KernelSpec:
    return _spec(
        "mna_be_jacobi_local", tol=SUMS,
        idiom="batched backward-Euler RC step, a group per circuit (num_groups loop): dense nodal matrix stamped "
              "row-wise into __local from a branch list, fixed Jacobi sweeps between barriers, max-change tree",
        sizes={"N": [24, 48, 96], "C": [64, 512, 4096]}, check={"N": 20, "C": 9},
        args=[Arg("ncirc", "scalar", "int32", "C"), Arg("n", "scalar", "int32", "N"),
              Arg("nbr", "scalar", "int32", MNA_BRANCHES), Arg("nsweep", "scalar", "int32", str(MNA_SWEEPS)),
              Arg("inv_h", "scalar", "float32", str(MNA_INV_H)),
              Arg("br_a", "buffer", "int32", f"C * {MNA_BRANCHES}"),
              Arg("br_b", "buffer", "int32", f"C * {MNA_BRANCHES}"),
              Arg("br_g", "buffer", "float32", f"C * {MNA_BRANCHES}"), Arg("cap", "buffer", "float32", "C * N"),
              Arg("isrc", "buffer", "float32", "C * N"), Arg("vprev", "buffer", "float32", "C * N"),
              Arg("vnext", "buffer", "float32", "C * N", "out"), Arg("resid", "buffer", "float32", "C", "out"),
              Arg("gmat", "local", "float32", "N * N"), Arg("rhs", "local", "float32", "N"),
              Arg("x", "local", "float32", "N"), Arg("xnew", "local", "float32", "N"),
              Arg("red", "local", "float32", "l0")],
        gsize=["C * 64"], local=L1, reference=_ref_mna, make_inputs=_inputs_mna)


# --- battery pack over a drive cycle: 2-RC equivalent circuit with hysteresis per cell, uint32 lookups -----------
def _inputs_ecm(rng, sz):
    """A drive cycle of T one-second samples: segments of 5 .. 40 s, each idle (0 A), cruising (2 .. 15 A) or
    braking (-12 .. -2 A); cells at SOC 0.5 .. 1 with shares 0.9 .. 1.1 and capacities 4.75 .. 5.25 Ah; a smooth
    increasing OCV curve (3.0 .. 4.2 V); parameters per temperature bin, resistances higher in the cold."""
    c, t = sz["C"], sz["T"]
    seg = np.repeat(np.arange(t), rng.integers(5, 41, t))[:t]
    kind = rng.choice(3, t, p=(0.2, 0.6, 0.2))[seg]
    level = np.where(kind == 0, 0.0, np.where(kind == 1, rng.uniform(2.0, 15.0, t)[seg],
                                              -rng.uniform(2.0, 12.0, t)[seg]))
    z = np.linspace(0.0, 1.0, ECM_OCV + 1)
    ocv = 3.0 + 0.9 * z + 0.25 * (1.0 - np.exp(-12.0 * z)) + 0.05 * np.sin(3.0 * np.pi * z) * z
    cold = np.linspace(2.0, 0.8, ECM_BINS)[:, None]
    par = np.column_stack([0.01 * cold[:, 0], 0.008 * cold[:, 0], np.full(ECM_BINS, 20.0), 0.012 * cold[:, 0],
                           np.full(ECM_BINS, 400.0), np.full(ECM_BINS, 0.02), np.full(ECM_BINS, 40.0)])
    return {"profile": level + rng.normal(0.0, 0.3, t) * (kind != 0), "share": rng.uniform(0.9, 1.1, c),
            "cap_as": 3600.0 * rng.uniform(4.75, 5.25, c), "tbin": rng.integers(0, ECM_BINS, c), "ocv": ocv,
            "rcpar": par, "soc": rng.uniform(0.5, 1.0, c), "v1": rng.uniform(0.0, 0.02, c),
            "v2": rng.uniform(0.0, 0.02, c), "hyst": rng.uniform(-1.0, 1.0, c)}


def _ref_ecm(inp, sz):
    """The kernel's recurrence over all cells at once, in float64 from the float32 data."""
    dt, eta, nocv = float(inp["dt"]), float(inp["eta_c"]), int(inp["nocv"])
    par = _f64(np.asarray(inp["rcpar"], dtype=np.float32)).reshape(ECM_BINS, 7)[np.asarray(inp["tbin"])]
    r0, r1, r2, mh, gam = par[:, 0], par[:, 1], par[:, 3], par[:, 5], par[:, 6]
    a1, a2 = np.exp(-dt / par[:, 2]), np.exp(-dt / par[:, 4])
    sh = _f64(np.asarray(inp["share"], dtype=np.float32))
    inv_q = 1.0 / _f64(np.asarray(inp["cap_as"], dtype=np.float32))
    ocv = _f64(np.asarray(inp["ocv"], dtype=np.float32))
    z, u1, u2, h = (_f64(np.asarray(inp[k], dtype=np.float32)) for k in ("soc", "v1", "v2", "hyst"))
    lo, v = np.full(z.size, np.inf), np.zeros(z.size)
    for p in _f64(np.asarray(inp["profile"], dtype=np.float32)):
        cur = p * sh
        dz = np.where(cur < 0.0, eta, 1.0) * cur * dt * inv_q
        ah = np.exp(-np.abs(dz) * gam)
        h = ah * h - (1.0 - ah) * np.sign(cur)
        z = np.clip(z - dz, 0.0, 1.0)
        u1 = a1 * u1 + r1 * (1.0 - a1) * cur
        u2 = a2 * u2 + r2 * (1.0 - a2) * cur
        pos = z * nocv
        k = np.minimum(pos.astype(np.int64), nocv - 1)
        v = ocv[k] + (pos - k) * (ocv[k + 1] - ocv[k]) + mh * h - r0 * cur - u1 - u2
        lo = np.minimum(lo, v)
    return {"soc": z, "v1": u1, "v2": u2, "hyst": h, "vmin": lo, "vend": v}


def cell_ecm_rc2_drive_u32() -> KernelSpec:
    return _spec(
        "cell_ecm_rc2_drive_u32", tol=SUMS,
        idiom="battery-pack drive cycle, an item per cell: 2-RC Thevenin model with hysteresis over a shared "
              "current profile (exp per step, charge / discharge branch), uint32 parameter-row and OCV-table lookups",
        sizes={"C": [1024, 8192, 65536, 524288], "T": [60, 600, 3600]}, check={"C": 300, "T": 80},
        constraints=["C * T <= 2**25"],
        args=[Arg("ncell", "scalar", "int32", "C"), Arg("nstep", "scalar", "int32", "T"),
              Arg("nocv", "scalar", "uint32", str(ECM_OCV)), Arg("dt", "scalar", "float32", str(ECM_DT)),
              Arg("eta_c", "scalar", "float32", str(ECM_ETA)), Arg("profile", "buffer", "float32", "T"),
              Arg("share", "buffer", "float32", "C"), Arg("cap_as", "buffer", "float32", "C"),
              Arg("tbin", "buffer", "uint32", "C"), Arg("ocv", "buffer", "float32", str(ECM_OCV + 1)),
              Arg("rcpar", "buffer", "float32", str(ECM_BINS * 7)), Arg("soc", "buffer", "float32", "C", "inout"),
              Arg("v1", "buffer", "float32", "C", "inout"), Arg("v2", "buffer", "float32", "C", "inout"),
              Arg("hyst", "buffer", "float32", "C", "inout"), Arg("vmin", "buffer", "float32", "C", "out"),
              Arg("vend", "buffer", "float32", "C", "out")],
        gsize=[round_up("C")], local=L1, reference=_ref_ecm, make_inputs=_inputs_ecm)


#: this group's builders, in the order of ``specs()``
BUILDERS = (mna_be_jacobi_local, cell_ecm_rc2_drive_u32)
