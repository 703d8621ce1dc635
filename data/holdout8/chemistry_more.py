"""Holdout8 kernels, group chemistry, continued (written by hand; see docs/HOLDOUT8.md): Metropolis Monte Carlo of
Lennard-Jones clusters in fp64 with an LCG + murmur3 finaliser RNG per walker, a fingerprint similarity screen
(Tanimoto by popcount on uint32 words, Swamidass-Baldi bound) on a 2-D (compound, query) NDRange, and the overlap
and kinetic-energy matrices of contracted s-type Gaussians (STO-3G or 6-31G) on a 2-D (function, function) NDRange
with primitive-pair screening. None of these three uses atomics. Split from :mod:`.chemistry` to keep each module
short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f64, _spec, pow2, round_up

MC_SEED = 20250321  # mc_cluster_metropolis_fp64: the run's seed
TANI_THRESH = 0.3  # tanimoto_baldi_screen_2d: similarity threshold
GTO_SCREEN = 25.0  # gto_overlap_kinetic_2d: primitive pairs with mu R^2 above this are skipped


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
BUILDERS = (mc_cluster_metropolis_fp64, tanimoto_baldi_screen_2d, gto_overlap_kinetic_2d)
