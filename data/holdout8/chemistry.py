"""Holdout8 kernels, group chemistry (written by hand; see docs/HOLDOUT8.md): chemistry and molecular modelling as
application programmers write them: the real-space Ewald sum of a water box over a CSR neighbour list with uint32
indices (erfc for other molecules, an erf correction for the excluded intramolecular pairs), SHAKE bond constraints
per united-atom chain in fp64 with a tolerance loop, a radial distribution function of integer (xtc-style)
coordinates staged in __local tiles and counted into a __local histogram with integer atomics, Metropolis Monte
Carlo of Lennard-Jones clusters in fp64 with an LCG + murmur3 finaliser RNG per walker, a fingerprint similarity
screen (Tanimoto by popcount on uint32 words, Swamidass-Baldi bound) on a 2-D (compound, query) NDRange, and the
overlap and kinetic-energy matrices of contracted s-type Gaussians (STO-3G or 6-31G) on a 2-D (function, function)
NDRange with primitive-pair screening. Only the RDF kernel uses atomics (integer counts, exact)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2, round_up

EW_SKIN = 0.1  # ewald_real_excl_nlist: neighbour-list skin beyond the cutoff (nm)
EW_DENSITY = 33.4  # ewald_real_excl_nlist: water molecules per nm^3
TIP3P_Q = (-0.834, 0.417, 0.417)  # ewald_real_excl_nlist: O, H, H charges (e)
SHAKE_BOND, SHAKE_ANGLE = 0.153, np.deg2rad(111.0)  # shake_chain_fp64: C-C bond (nm), C-C-C angle
RDF_DENSITY = 20.4  # rdf_xtc_int_local: atoms per nm^3 (liquid argon); 1 unit = 1/1000 nm
MC_SEED = 20250321  # mc_cluster_metropolis_fp64: the run's seed
TANI_THRESH = 0.3  # tanimoto_baldi_screen_2d: similarity threshold
GTO_SCREEN = 25.0  # gto_overlap_kinetic_2d: primitive pairs with mu R^2 above this are skipped


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


# --- Metropolis Monte Carlo of LJ clusters per walker, fp64, LCG + murmur3 finaliser RNG -----------------------------
def _fmix32(h):
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def _inputs_mc(rng, sz):
    """W walkers of A atoms: the A fcc sites nearest a lattice point (nearest-neighbour distance 2^(1/6)), each
    atom jittered by 0.03; temperatures log-uniform in 0.05 .. 0.6 (solid-like to evaporating)."""
    w, a = sz["W"], sz["A"]
    g = np.arange(-4, 5)
    pts = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    pts = pts[pts.sum(axis=1) % 2 == 0]
    pts = pts[np.argsort((pts * pts).sum(axis=1), kind="stable")][:a] * (2 ** (1 / 6) / np.sqrt(2))
    pos = pts[None] + rng.normal(0.0, 0.03, (w, a, 3))
    return {"temperature": np.exp(rng.uniform(np.log(0.05), np.log(0.6), w)), "pos": pos}


def _lj(r2):
    s6 = 1.0 / (r2 * r2 * r2)
    return 4.0 * (s6 * s6 - s6)


def _ref_mc(inp, sz):
    w, a, nstep = sz["W"], sz["A"], int(inp["nstep"])
    step, wall2 = float(inp["step"]), float(inp["r_wall"]) ** 2
    seed = np.uint32(int(inp["seed"]))
    p = _f64(inp["pos"]).reshape(w, a, 3).copy()
    beta = 1.0 / _f64(inp["temperature"])
    rows = np.arange(w)
    with np.errstate(over="ignore"):
        state = _fmix32(seed ^ _fmix32(np.arange(w, dtype=np.uint32) * np.uint32(0x9E3779B9) + np.uint32(1)))
        iu, ju = np.triu_indices(a, 1)
        d = p[:, iu] - p[:, ju]
        e = _lj((d * d).sum(axis=2)).sum(axis=1)
        acc = np.zeros(w, np.int64)
        for _ in range(nstep):
            draws = []
            for _ in range(5):
                state = state * np.uint32(1664525) + np.uint32(1013904223)
                draws.append(_fmix32(state))
            k = (draws[0] % np.uint32(a)).astype(np.int64)
            mv = np.stack([step * (2.0 * draws[c].astype(np.float64) / 4294967296.0 - 1.0) for c in (1, 2, 3)], 1)
            u = draws[4].astype(np.float64) / 4294967296.0
            old = p[rows, k]
            new = old + mv
            ok = (new * new).sum(axis=1) <= wall2
            r2n = ((new[:, None, :] - p) ** 2).sum(axis=2)
            r2o = ((old[:, None, :] - p) ** 2).sum(axis=2)
            r2n[rows, k] = r2o[rows, k] = 1.0
            de = (_lj(r2n) - _lj(r2o)).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                take = ok & ((de <= 0.0) | (u < np.exp(-beta * de)))
            p[rows[take], k[take]] = new[take]
            e = np.where(take, e + de, e)
            acc += take
    return {"pos": p, "energy": e, "accepted": acc}


def mc_cluster_metropolis_fp64() -> KernelSpec:
    return _spec(
        "mc_cluster_metropolis_fp64", precision="fp64", tol=(1e-8, 1e-9),
        idiom="Metropolis MC of LJ clusters, a walker per item in fp64: LCG + murmur3 draws, wall rejection, "
              "one-atom dE loop, exp acceptance, in-place positions",
        sizes={"W": pow2(8, 14, 2), "A": [13, 38], "S": [256, 2048]}, check={"W": 100, "A": 13, "S": 300},
        constraints=["W * A * S <= 2 ** 28"],
        args=[Arg("nwalk", "scalar", "int32", "W"), Arg("natom", "scalar", "int32", "A"),
              Arg("nstep", "scalar", "int32", "S"), Arg("seed", "scalar", "uint32", str(MC_SEED)),
              Arg("step", "scalar", "float64", "0.12"), Arg("r_wall", "scalar", "float64", "1.3 * A ** (1 / 3) + 0.8"),
              Arg("temperature", "buffer", "float64", "W"), Arg("pos", "buffer", "float64", "3 * W * A", "inout"),
              Arg("energy", "buffer", "float64", "W", "out"), Arg("accepted", "buffer", "int32", "W", "out")],
        gsize=[round_up("W")], local=L1, reference=_ref_mc, make_inputs=_inputs_mc)


# --- Tanimoto screen of fingerprints, 2-D (compound, query), Swamidass-Baldi bound ------------------------------------
def _fp_words(rng, rows, nw):
    """Random fingerprints with a per-row density of 1/16, 1/8, ~3/16, 1/4 or ~7/16 (ANDs and ORs of random
    words), generated in chunks."""
    out = np.empty((rows, nw), np.uint32)
    level = rng.integers(0, 5, rows)
    for r0 in range(0, rows, 1 << 14):
        sl = slice(r0, min(r0 + (1 << 14), rows))
        shape = (sl.stop - sl.start, nw)
        r = [rng.integers(0, 2**32, shape, dtype=np.uint32) for _ in range(6)]
        a2 = r[0] & r[1]
        a3 = a2 & r[2]
        a4 = a3 & r[3]
        b4 = r[4] & r[5] & r[2] & r[1]
        lv = level[sl][:, None]
        out[sl] = np.select([lv == 0, lv == 1, lv == 2, lv == 3], [a4, a3, a3 | b4, a2], a2 | (r[4] & r[5]))
    return out


def _mutate(rng, fp):
    """Analogues: about 1/16 of the bits flipped (as an AND of four random words)."""
    flip = rng.integers(0, 2**32, fp.shape, dtype=np.uint32)
    for _ in range(3):
        flip &= rng.integers(0, 2**32, fp.shape, dtype=np.uint32)
    return fp ^ flip


def _inputs_tani(rng, sz):
    """A library of D fingerprints of NW words: half random, half analogues of D/32 parent scaffolds; Q queries
    that are analogues of random parents, so each query has a few dozen close neighbours; bit counts per row."""
    d, q, nw = sz["D"], sz["Q"], sz["NW"]
    nparent = max(d // 32, 2)
    parents = _fp_words(rng, nparent, nw)
    db = _fp_words(rng, d, nw)
    fam = rng.random(d) < 0.5
    db[fam] = _mutate(rng, parents[rng.integers(0, nparent, int(fam.sum()))])
    qf = _mutate(rng, parents[rng.integers(0, nparent, q)])
    return {"db_fp": db, "db_count": np.bitwise_count(db).sum(axis=1), "q_fp": qf,
            "q_count": np.bitwise_count(qf).sum(axis=1)}


def _ref_tani(inp, sz):
    d, q, nw = sz["D"], sz["Q"], sz["NW"]
    th = np.float32(inp["thresh"])
    db = np.asarray(inp["db_fp"]).reshape(d, nw)
    qf = np.asarray(inp["q_fp"]).reshape(q, nw)
    a = np.asarray(inp["db_count"]).astype(np.int64)
    sim = np.zeros((q, d))
    for k in range(q):
        b = int(inp["q_count"][k])
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        go = (hi > 0) & (lo.astype(np.float32) >= th * hi.astype(np.float32))
        c = np.bitwise_count(db & qf[k]).sum(axis=1).astype(np.int64)
        u = a + b - c
        keep = go & (c.astype(np.float32) >= th * u.astype(np.float32))
        sim[k] = np.where(keep, c / np.where(keep, u, 1), 0.0)
    return {"sim": sim}


def tanimoto_baldi_screen_2d() -> KernelSpec:
    return _spec(
        "tanimoto_baldi_screen_2d",
        idiom="fingerprint screen, 2-D (compound, query): Swamidass-Baldi count bound skips the row, else popcount "
              "of ANDed uint words, thresholded Tanimoto",
        sizes={"D": pow2(12, 18, 2), "Q": [8, 32], "NW": [16, 64]}, check={"D": 3000, "Q": 8, "NW": 16},
        constraints=["D * Q * NW <= 2 ** 28"],
        args=[Arg("ndb", "scalar", "int32", "D"), Arg("nquery", "scalar", "int32", "Q"),
              Arg("nwords", "scalar", "int32", "NW"), Arg("thresh", "scalar", "float32", str(TANI_THRESH)),
              Arg("db_fp", "buffer", "uint32", "D * NW"), Arg("db_count", "buffer", "uint32", "D"),
              Arg("q_fp", "buffer", "uint32", "Q * NW"), Arg("q_count", "buffer", "uint32", "Q"),
              Arg("sim", "buffer", "float32", "Q * D", "out")],
        gsize=[round_up("D"), "Q"], local=[[64, 4], [32, 8], [128, 2]], reference=_ref_tani,
        make_inputs=_inputs_tani)


# --- overlap and kinetic matrices of contracted s Gaussians, 2-D, primitive screening ---------------------------------
#: (exponents, contraction coefficients) of the s shells of O and H: STO-3G (K = 3) and 6-31G (K = 6)
GTO_BASIS = {
    3: {"O": [([130.7093200, 23.8088610, 6.4436083], [0.15432897, 0.53532814, 0.44463454]),
              ([5.0331513, 1.1695961, 0.3803890], [-0.09996723, 0.39951283, 0.70011547])],
        "H": [([3.42525091, 0.62391373, 0.16885540], [0.15432897, 0.53532814, 0.44463454])]},
    6: {"O": [([5484.67166, 824.234323, 188.046958, 52.9645000, 16.8975704, 5.79963534],
               [0.00183107, 0.0139501, 0.0684451, 0.232714, 0.470193, 0.358521]),
              ([15.5396162, 3.59993359, 1.01376175], [-0.110778, -0.148026, 1.130767]),
              ([0.270005823], [1.0])],
        "H": [([18.7311370, 2.82539370, 0.640121700], [0.0334946, 0.23472695, 0.81375733]),
              ([0.161277800], [1.0])]},
}


def _shell(exps, coefs):
    """Exponents and coefficients with the primitive normalisation (2 a / pi)^(3/4) folded in, scaled so that
    the contracted function has unit norm."""
    e, c = np.asarray(exps, float), np.asarray(coefs, float) * (2.0 * np.asarray(exps) / np.pi) ** 0.75
    p = e[:, None] + e[None, :]
    norm = (c[:, None] * c[None, :] * (np.pi / p) ** 1.5).sum()
    return e, c / np.sqrt(norm)


def _inputs_gto(rng, sz):
    """W water molecules (O-H 1.809 bohr, 104.52 degrees, random orientations), oxygens on a jittered simple cubic
    lattice of 5.8 bohr (random sites); per molecule the s functions of O, H, H from STO-3G (K = 3) or 6-31G
    (K = 6), so W * (K + 1) functions and W * (2K + 6) primitives."""
    w, kk = sz["W"], sz["K"]
    n = int(np.ceil(w ** (1 / 3) - 1e-9))
    sites = np.sort(rng.choice(n**3, w, replace=False))
    ox = np.stack([sites // (n * n), (sites // n) % n, sites % n], axis=1) * 5.8 + rng.normal(0.0, 0.3, (w, 3))
    u1 = rng.normal(size=(w, 3))
    u1 /= np.linalg.norm(u1, axis=1, keepdims=True)
    v = rng.normal(size=(w, 3))
    v -= (v * u1).sum(axis=1, keepdims=True) * u1
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    th = np.deg2rad(104.52)
    xyz = np.stack([ox, ox + 1.809 * u1, ox + 1.809 * (np.cos(th) * u1 + np.sin(th) * v)], axis=1).reshape(-1)
    shells = {el: [_shell(e, c) for e, c in GTO_BASIS[kk][el]] for el in "OH"}
    mol_center, mol_e, mol_c = [], [], []
    for atom, el in enumerate("OHH"):
        for e, c in shells[el]:
            mol_center.append(atom)
            mol_e.append(e)
            mol_c.append(c)
    nprim1 = np.array([len(e) for e in mol_e])
    center = (np.arange(w)[:, None] * 3 + np.array(mol_center)[None]).reshape(-1)
    nprim = np.tile(nprim1, w)
    off = np.zeros(len(nprim), np.int64)
    off[1:] = np.cumsum(nprim)[:-1]
    return {"atom_xyz": xyz, "center": center, "prim_off": off, "nprim": nprim,
            "expo": np.tile(np.concatenate(mol_e), w), "coef": np.tile(np.concatenate(mol_c), w)}


def _ref_gto(inp, sz):
    nbf, kk = sz["W"] * (sz["K"] + 1), sz["K"]
    screen = float(inp["screen"])
    xyz = _f64(inp["atom_xyz"]).reshape(-1, 3)[np.asarray(inp["center"])]
    off, npr = np.asarray(inp["prim_off"]).astype(np.int64), np.asarray(inp["nprim"]).astype(np.int64)
    expo, coef = _f64(inp["expo"]), _f64(inp["coef"])
    idx = off[:, None] + np.arange(kk)[None, :]
    have = np.arange(kk)[None, :] < npr[:, None]
    idx = np.where(have, idx, 0)
    e = np.where(have, expo[idx], 1.0)
    c = np.where(have, coef[idx], 0.0)
    S, T = np.zeros((nbf, nbf)), np.zeros((nbf, nbf))
    for i0 in range(0, nbf, 64):
        sl = slice(i0, min(i0 + 64, nbf))
        r2 = ((xyz[sl, None, :] - xyz[None, :, :]) ** 2).sum(axis=2)[:, :, None, None]
        al, be = e[sl, None, :, None], e[None, :, None, :]
        p = al + be
        mu = al * be / p
        x = mu * r2
        s = np.where(x > screen, 0.0, c[sl, None, :, None] * c[None, :, None, :] * (np.pi / p) ** 1.5 * np.exp(-x))
        S[sl] = s.sum(axis=(2, 3))
        T[sl] = (mu * (3.0 - 2.0 * x) * s).sum(axis=(2, 3))
    return {"S": S, "T": T}


def gto_overlap_kinetic_2d() -> KernelSpec:
    return _spec(
        "gto_overlap_kinetic_2d", tol=SUMS,
        idiom="overlap and kinetic matrices of contracted s Gaussians, 2-D (function, function): runtime primitive "
              "loops per function, mu R^2 screening, exp and sqrt per pair",
        sizes={"W": pow2(5, 10), "K": [3, 6]}, check={"W": 24, "K": 6},
        args=[Arg("nbf", "scalar", "int32", "W * (K + 1)"), Arg("screen", "scalar", "float32", str(GTO_SCREEN)),
              Arg("atom_xyz", "buffer", "float32", "9 * W"), Arg("center", "buffer", "int32", "W * (K + 1)"),
              Arg("prim_off", "buffer", "int32", "W * (K + 1)"), Arg("nprim", "buffer", "int32", "W * (K + 1)"),
              Arg("expo", "buffer", "float32", "W * (2 * K + 6)"), Arg("coef", "buffer", "float32", "W * (2 * K + 6)"),
              Arg("S", "buffer", "float32", "W * W * (K + 1) ** 2", "out"),
              Arg("T", "buffer", "float32", "W * W * (K + 1) ** 2", "out")],
        gsize=[round_up("W * (K + 1)", 64), round_up("W * (K + 1)", 16)], local=[[16, 16], [32, 8], [64, 4]],
        reference=_ref_gto, make_inputs=_inputs_gto)


#: this group's spec builders, in order
BUILDERS = (ewald_real_excl_nlist, shake_chain_fp64, rdf_xtc_int_local, mc_cluster_metropolis_fp64,
            tanimoto_baldi_screen_2d, gto_overlap_kinetic_2d)
