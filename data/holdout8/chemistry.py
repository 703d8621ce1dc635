"""Holdout8 kernels, group chemistry (written by hand; see docs/HOLDOUT8.md): chemistry and molecular modelling as
application programmers write them: the real-space Ewald sum of a water box over a CSR neighbour list with uint32
indices (erfc for other molecules, an erf correction for the excluded intramolecular pairs), SHAKE bond constraints
per united-atom chain in fp64 with a tolerance loop, and a radial distribution function of integer (xtc-style)
coordinates staged in __local tiles and counted into a __local histogram with integer atomics. Only the RDF kernel
uses atomics (integer counts, exact); the group's other three kernels are in :mod:`.chemistry_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _f64, _spec, pow2, round_up

EW_SKIN = 0.1  # ewald_real_excl_nlist: neighbour-list skin beyond the cutoff (nm)
EW_DENSITY = 33.4  # ewald_real_excl_nlist: water molecules per nm^3
TIP3P_Q = (-0.834, 0.417, 0.417)  # ewald_real_excl_nlist: O, H, H charges (e)
SHAKE_BOND, SHAKE_ANGLE = 0.153, np.deg2rad(111.0)  # shake_chain_fp64: C-C bond (nm), C-C-C angle
RDF_DENSITY = 20.4  # rdf_xtc_int_local: atoms per nm^3 (liquid argon); 1 unit = 1/1000 nm


# --- Ewald real space over a CSR neighbour list, water box, intramolecular exclusions ---------------------------------
def _ew_box(m):
    return float(np.float32((m / EW_DENSITY) ** (1 / 3)))


def _ew_cap(m, c):
    return 3 * m * (c**3 * 5 // 8 + 25)


def _inputs_ewald(rng, sz):
    """M rigid TIP3P-like waters (O-H 0.09572 nm, 104.52 degrees, random orientations) with their oxygens on a
    simple cubic lattice (random sites of the smallest n^3 holding M, jitter 0.02 nm) at 33.4 molecules / nm^3;
    atoms molecule by molecule (O, H, H). Full neighbour list (both directions, sorted) within the cutoff plus a
    0.1 nm skin by a periodic k-d tree, in a buffer with 8-15% headroom (the rest zero)."""
    from scipy.spatial import cKDTree

    m, c = sz["M"], sz["C"]
    box = _ew_box(m)
    n = int(np.ceil(m ** (1 / 3) - 1e-9))
    sites = np.sort(rng.choice(n**3, m, replace=False))
    ijk = np.stack([sites // (n * n), (sites // n) % n, sites % n], axis=1)
    ox = (ijk + 0.5) * (box / n) + rng.normal(0.0, 0.02, (m, 3))
    u1 = rng.normal(size=(m, 3))
    u1 /= np.linalg.norm(u1, axis=1, keepdims=True)
    v = rng.normal(size=(m, 3))
    v -= (v * u1).sum(axis=1, keepdims=True) * u1
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    th = np.deg2rad(104.52)
    h1 = ox + 0.09572 * u1
    h2 = ox + 0.09572 * (np.cos(th) * u1 + np.sin(th) * v)
    xyz = np.stack([ox, h1, h2], axis=1).reshape(-1, 3)
    xyz = np.mod(np.mod(xyz, box).astype(np.float32).astype(np.float64), box)
    natom = 3 * m
    pairs = cKDTree(xyz, boxsize=box).query_pairs(c / 10 + EW_SKIN, output_type="ndarray")
    key = np.concatenate([pairs[:, 0] * natom + pairs[:, 1], pairs[:, 1] * natom + pairs[:, 0]])
    key.sort()
    start = np.zeros(natom + 1, np.int64)
    start[1:] = np.cumsum(np.bincount(key // natom, minlength=natom))
    cap = _ew_cap(m, c)
    if start[-1] > cap:
        raise ValueError(f"ewald_real_excl_nlist: {start[-1]} neighbour entries exceed the capacity {cap}")
    nbr = np.zeros(cap, np.int64)
    nbr[:start[-1]] = key % natom
    return {"x": xyz[:, 0], "y": xyz[:, 1], "z": xyz[:, 2], "charge": np.tile(TIP3P_Q, m),
            "mol": np.arange(natom) // 3, "nbr_start": start, "nbr_list": nbr}


def _ref_ewald(inp, sz):
    from scipy.special import erf, erfc

    natom = 3 * sz["M"]
    box, alpha = float(inp["box"]), float(inp["alpha"])
    rc2 = float(inp["rcut"]) ** 2
    start = np.asarray(inp["nbr_start"]).astype(np.int64)
    i = np.repeat(np.arange(natom), np.diff(start))
    j = np.asarray(inp["nbr_list"]).astype(np.int64)[:start[-1]]
    d = [_f64(inp[k])[i] - _f64(inp[k])[j] for k in ("x", "y", "z")]
    d = [a - box * np.rint(a / box) for a in d]
    r2 = d[0] ** 2 + d[1] ** 2 + d[2] ** 2
    r = np.sqrt(r2)
    q = _f64(inp["charge"])
    qq = q[i] * q[j]
    mol = np.asarray(inp["mol"])
    same = mol[i] == mol[j]
    inside = ~same & (r2 < rc2)
    g = 2.0 * alpha / np.sqrt(np.pi) * np.exp(-(alpha * r) ** 2)
    e_same, e_in = -qq * erf(alpha * r) / r, qq * erfc(alpha * r) / r
    epair = np.where(same, e_same, np.where(inside, e_in, 0.0))
    fscal = np.where(same, (e_same + qq * g) / r2, np.where(inside, (e_in + qq * g) / r2, 0.0))
    out = {f"f{k}": np.bincount(i, fscal * dk, minlength=natom) for k, dk in zip("xyz", d)}
    out["energy"] = 0.5 * np.bincount(i, epair, minlength=natom)
    return out


def ewald_real_excl_nlist() -> KernelSpec:
    return _spec(
        "ewald_real_excl_nlist", tol=(1e-3, 1e-3),
        idiom="Ewald real space per atom over a CSR uint neighbour list: rint minimum image, erfc inside the cutoff, "
              "erf correction for same-molecule pairs",
        sizes={"M": pow2(9, 14), "C": [6, 9]}, check={"M": 400, "C": 6},
        constraints=["M * C ** 3 <= 2 ** 14 * 216"],
        args=[Arg("natom", "scalar", "int32", "3 * M"),
              Arg("box", "scalar", "float32", f"(M / {EW_DENSITY}) ** (1 / 3)"),
              Arg("alpha", "scalar", "float32", "32.0 / C"), Arg("rcut", "scalar", "float32", "C / 10"),
              Arg("x", "buffer", "float32", "3 * M"), Arg("y", "buffer", "float32", "3 * M"),
              Arg("z", "buffer", "float32", "3 * M"), Arg("charge", "buffer", "float32", "3 * M"),
              Arg("mol", "buffer", "int32", "3 * M"), Arg("nbr_start", "buffer", "uint32", "3 * M + 1"),
              Arg("nbr_list", "buffer", "uint32", "3 * M * (C ** 3 * 5 // 8 + 25)"),
              Arg("fx", "buffer", "float32", "3 * M", "out"), Arg("fy", "buffer", "float32", "3 * M", "out"),
              Arg("fz", "buffer", "float32", "3 * M", "out"), Arg("energy", "buffer", "float32", "3 * M", "out")],
        gsize=[round_up("3 * M")], local=L1, reference=_ref_ewald, make_inputs=_inputs_ewald)


# --- SHAKE per united-atom chain, fp64, sweeps until converged --------------------------------------------------------
def _shake_topology(a):
    """Constraints (i, j, length) of an a-atom chain: the bonds, then the 1-3 distances; inverse masses (CH3 ends,
    CH2 inside, an ether oxygen in the middle)."""
    d13 = 2.0 * SHAKE_BOND * np.sin(SHAKE_ANGLE / 2)
    ci = np.concatenate([np.arange(a - 1), np.arange(a - 2)])
    cj = np.concatenate([np.arange(1, a), np.arange(2, a)])
    length = np.concatenate([np.full(a - 1, SHAKE_BOND), np.full(a - 2, d13)])
    mass = np.full(a, 14.027)
    mass[[0, a - 1]] = 15.035
    mass[a // 2] = 15.999
    return ci, cj, length, 1.0 / mass


def _inputs_shake(rng, sz):
    """M chains of A united atoms built bond by bond with the fixed bond length and angle and dihedrals trans or
    gauche (+-60) with 10 degree noise, placed at random in a 6 nm box; the unconstrained step moves each atom by
    a Gaussian of sd sqrt(kT/m) dt (kT = 2.494 kJ/mol, dt = 2 fs), four times larger in 10% of the chains."""
    m, a = sz["M"], sz["A"]
    ci, cj, length, inv_mass = _shake_topology(a)
    pos = np.zeros((m, a, 3))
    th = SHAKE_ANGLE
    pos[:, 1, 0] = SHAKE_BOND
    pos[:, 2, 0] = SHAKE_BOND - SHAKE_BOND * np.cos(th)
    pos[:, 2, 1] = SHAKE_BOND * np.sin(th)
    for k in range(3, a):
        phi = np.deg2rad(rng.choice([180.0, 60.0, -60.0], m, p=[0.6, 0.2, 0.2]) + rng.normal(0.0, 10.0, m))
        b, c, d = pos[:, k - 3], pos[:, k - 2], pos[:, k - 1]
        bc = (d - c) / np.linalg.norm(d - c, axis=1, keepdims=True)
        nrm = np.cross(c - b, bc)
        nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
        mv = np.cross(nrm, bc)
        loc = np.stack([-np.cos(th) * np.ones(m), np.sin(th) * np.cos(phi), np.sin(th) * np.sin(phi)], axis=1)
        pos[:, k] = d + SHAKE_BOND * (loc[:, :1] * bc + loc[:, 1:2] * mv + loc[:, 2:] * nrm)
    pos += rng.uniform(0.0, 6.0, (m, 1, 3))
    hot = np.where(rng.random(m) < 0.1, 4.0, 1.0)
    sd = np.sqrt(2.494 * inv_mass) * 0.002
    new = pos + rng.normal(0.0, 1.0, (m, a, 3)) * sd[None, :, None] * hot[:, None, None]
    return {"ref_pos": pos, "new_pos": new, "inv_mass": inv_mass, "cons_i": ci, "cons_j": cj, "cons_len": length}


def _ref_shake(inp, sz):
    m, a = sz["M"], sz["A"]
    nc, maxit, tol = int(inp["ncons"]), int(inp["maxit"]), float(inp["tol"])
    r0 = _f64(inp["ref_pos"]).reshape(m, a, 3)
    p = _f64(inp["new_pos"]).reshape(m, a, 3).copy()
    w = _f64(inp["inv_mass"])
    ci, cj = np.asarray(inp["cons_i"]).astype(np.int64), np.asarray(inp["cons_j"]).astype(np.int64)
    ln = _f64(inp["cons_len"])
    it = np.zeros(m, np.int64)
    active = np.ones(m, bool)
    while active.any():
        moved = np.zeros(m, bool)
        for c in range(nc):
            ia, ib = ci[c], cj[c]
            s = p[:, ia] - p[:, ib]
            d2 = ln[c] * ln[c]
            diff = d2 - (s * s).sum(axis=1)
            fix = active & (np.abs(diff) > 2.0 * tol * d2)
            if not fix.any():
                continue
            r = r0[fix, ia] - r0[fix, ib]
            g = diff[fix] / (2.0 * (r * s[fix]).sum(axis=1) * (w[ia] + w[ib]))
            p[fix, ia] += (g * w[ia])[:, None] * r
            p[fix, ib] -= (g * w[ib])[:, None] * r
            moved |= fix
        it[active] += 1
        active &= moved & (it < maxit)
    return {"out_pos": p, "sweeps": it}


def shake_chain_fp64() -> KernelSpec:
    return _spec(
        "shake_chain_fp64", precision="fp64", tol=FP64,
        idiom="SHAKE per united-atom chain in fp64: private positions, Gauss-Seidel sweeps over bond and 1-3 "
              "constraints until converged (data-dependent count)",
        sizes={"M": pow2(8, 14, 2), "A": [8, 16, 24]}, check={"M": 400, "A": 8},
        constraints=["M * A <= 2 ** 17"],
        args=[Arg("nmol", "scalar", "int32", "M"), Arg("natom", "scalar", "int32", "A"),
              Arg("ncons", "scalar", "int32", "2 * A - 3"), Arg("maxit", "scalar", "int32", "1000"),
              Arg("tol", "scalar", "float64", "1e-7"),
              Arg("ref_pos", "buffer", "float64", "3 * M * A"), Arg("new_pos", "buffer", "float64", "3 * M * A"),
              Arg("inv_mass", "buffer", "float64", "A"), Arg("cons_i", "buffer", "int32", "2 * A - 3"),
              Arg("cons_j", "buffer", "int32", "2 * A - 3"), Arg("cons_len", "buffer", "float64", "2 * A - 3"),
              Arg("out_pos", "buffer", "float64", "3 * M * A", "out"), Arg("sweeps", "buffer", "int32", "M", "out")],
        gsize=[round_up("M")], local=L1, reference=_ref_shake, make_inputs=_inputs_shake)


# --- radial distribution function, integer coordinates, __local tiles and histogram, atomics --------------------------
def _rdf_box(n):
    return int((n * int(1e9 / RDF_DENSITY)) ** (1 / 3) // 1)


def _inputs_rdf(rng, sz):
    """N atoms of a liquid-argon-like frame (20.4 atoms / nm^3): random sites of the smallest simple cubic n^3
    lattice holding N, Gaussian jitter of 0.06 nm, rounded to 1/1000 nm and wrapped into [0, box)."""
    n = sz["N"]
    box = _rdf_box(n)
    k = int(np.ceil(n ** (1 / 3) - 1e-9))
    sites = rng.choice(k**3, n, replace=False)
    ijk = np.stack([sites // (k * k), (sites // k) % k, sites % k], axis=1)
    xyz = (ijk + 0.5) * (box / k) + rng.normal(0.0, 60.0, (n, 3))
    return {"pos": np.mod(np.rint(xyz).astype(np.int64), box)}


def _ref_rdf(inp, sz):
    n, nb = sz["N"], int(inp["nbins"])
    box, bw = int(inp["box"]), int(inp["bin_width"])
    half = box // 2
    p = np.asarray(inp["pos"]).astype(np.int64).reshape(n, 3)
    hist = np.zeros(nb, np.int64)
    for i0 in range(0, n, 512):
        ii, jj = np.nonzero(np.arange(i0, min(i0 + 512, n))[:, None] < np.arange(n)[None, :])
        d = p[jj] - p[ii + i0]
        d = np.where(d > half, d - box, np.where(d < -half, d + box, d))
        r2 = (d * d).sum(axis=1)
        r2 = r2[r2 < (nb * bw) ** 2]
        r = np.floor(np.sqrt(r2)).astype(np.int64)
        r -= r * r > r2
        r += (r + 1) * (r + 1) <= r2
        hist += np.bincount(r // bw, minlength=nb)
    return {"hist": hist}


def rdf_xtc_int_local() -> KernelSpec:
    return _spec(
        "rdf_xtc_int_local",
        idiom="RDF of integer xtc-style coordinates: j tiles in __local, integer minimum image and square root, "
              "__local histogram by atomic_inc, atomic_add merge",
        sizes={"N": pow2(10, 14), "B": [125, 250, 500]}, check={"N": 1500, "B": 125},
        args=[Arg("natom", "scalar", "int32", "N"),
              Arg("box", "scalar", "int32", f"(N * {int(1e9 / RDF_DENSITY)}) ** (1 / 3) // 1"),
              Arg("bin_width", "scalar", "int32", "1000 // B"), Arg("nbins", "scalar", "int32", "B"),
              Arg("pos", "buffer", "int32", "3 * N"), Arg("hist", "buffer", "uint32", "B", "out"),
              Arg("tile", "local", "int32", "3 * l0"), Arg("lhist", "local", "uint32", "B")],
        gsize=[round_up("N")], local=L1, reference=_ref_rdf, make_inputs=_inputs_rdf)


#: this group's spec builders, in order
BUILDERS = (ewald_real_excl_nlist, shake_chain_fp64, rdf_xtc_int_local)
