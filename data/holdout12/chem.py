"""Holdout12 kernels, group chem (written by hand; see docs/HOLDOUT12.md): the quantum-chemistry half of a
molecular simulation code. The direct-SCF Coulomb matrix over contracted s-type shells in fp64, a work-item
per bra shell pair walking the ket pairs in descending Schwarz order (the loop ends at the first negligible
bound, a ket with a negligible density is skipped), every primitive quartet through the Boys function F0 with
its series below a threshold and its asymptotic form above; and the DFT integration grid, atom-centred radial
shells times angular points on a 2-D NDRange, the atoms and inverse inter-atomic distances staged in __local
memory behind a barrier, Becke's fuzzy-cell partition in Stratmann's form whose cell products stop at the first
zero factor. Neither uses atomics; the group's other two kernels are in :mod:`.chem_more`."""
from __future__ import annotations

import numpy as np
from scipy.special import erf

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, round_up

# --- direct-SCF Coulomb matrix over s shells, Boys F0, Schwarz-sorted kets, fp64 -----------------------------------
ERI_SPACING = 2.6  # coulomb_j_boys_schwarz_fp64: bohr between neighbouring atoms (two shells each)
ERI_RATIO = 3.5  # coulomb_j_boys_schwarz_fp64: ratio of successive primitive exponents of a shell
ERI_KMIN = 1e-15  # coulomb_j_boys_schwarz_fp64: primitive pairs with a smaller |K| are dropped by the host
ERI_PREF = np.sqrt(2.0) * np.pi ** 1.25  # sqrt(2 pi^(5/2)): folded into each primitive pair's K
ERI_TAU, ERI_DMAX, ERI_TASYM = "1e-11", "2.0", "30.0"  # screening threshold, density bound, Boys switch


def _boys0(t):
    t = np.asarray(t, dtype=np.float64)
    small = t < 1e-12
    ts = np.where(small, 1.0, t)
    return np.where(small, 1.0 - t / 3.0, 0.5 * np.sqrt(np.pi / ts) * erf(np.sqrt(ts)))


def _quartets(pa, pb):
    """Contracted (ab|cd) of every bra pair in ``pa`` with every ket pair in ``pb``: (exponents, centres, K) of
    shape (n, m), (n, m, 3), (n, m) each, absent primitive pairs with K = 0."""
    (ea, ca, ka), (eb, cb, kb) = pa, pb
    p, q = ea[:, None, :, None], eb[None, :, None, :]
    d = ca[:, None, :, None, :] - cb[None, :, None, :, :]
    t = p * q / (p + q) * np.einsum("...k,...k->...", d, d)
    val = ka[:, None, :, None] * kb[None, :, None, :] / (p * q * np.sqrt(p + q)) * _boys0(t)
    return val.sum(axis=(2, 3))


def _inputs_eri(rng, sz):
    """NS / 2 atoms on a jittered cubic lattice, a tight and a diffuse contracted s shell each (NPRIM
    primitives, exponents ERI_RATIO apart, random positive coefficients); every pair a <= b with its
    primitive pairs (those with |K| >= ERI_KMIN), its Schwarz bound, sorted by descending bound; a random
    density in [-1, 1], doubled off the diagonal."""
    ns, npr = sz["NS"], sz["NPRIM"]
    nat = ns // 2
    side = int(np.ceil(nat ** (1.0 / 3.0)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:nat]
    atoms = (grid + rng.uniform(-0.15, 0.15, grid.shape)) * ERI_SPACING
    centre = np.repeat(atoms, 2, axis=0)
    base = np.where(np.arange(ns) % 2 == 0, rng.uniform(1.5, 8.0, ns), rng.uniform(0.12, 0.6, ns))
    alpha = base[:, None] * ERI_RATIO ** np.arange(npr)[None, :]
    coef = rng.uniform(0.2, 1.0, (ns, npr)) * (2.0 * alpha / np.pi) ** 0.75
    ia, ib = np.triu_indices(ns)
    a1, a2 = alpha[ia][:, :, None], alpha[ib][:, None, :]
    p = a1 + a2
    rab2 = ((centre[ia] - centre[ib]) ** 2).sum(1)[:, None, None]
    k = ERI_PREF * coef[ia][:, :, None] * coef[ib][:, None, :] * np.exp(-a1 * a2 / p * rab2)
    ctr = (a1[..., None] * centre[ia][:, None, None, :] + a2[..., None] * centre[ib][:, None, None, :]) / p[..., None]
    npair = ia.size
    p, k, ctr = p.reshape(npair, -1), k.reshape(npair, -1), ctr.reshape(npair, -1, 3)
    keep = np.abs(k) >= ERI_KMIN
    k = np.where(keep, k, 0.0)
    dpq = ctr[:, :, None, :] - ctr[:, None, :, :]
    pq = p[:, :, None] * p[:, None, :]
    t = pq / (p[:, :, None] + p[:, None, :]) * np.einsum("...k,...k->...", dpq, dpq)
    diag = k[:, :, None] * k[:, None, :] / (pq * np.sqrt(p[:, :, None] + p[:, None, :])) * _boys0(t)
    q = np.sqrt(np.maximum(diag.sum(axis=(1, 2)), 0.0))  # sqrt((ab|ab))
    order = np.argsort(-q, kind="stable")
    q, p, k, ctr, keep = q[order], p[order], k[order], ctr[order], keep[order]
    cnt = keep.sum(1)
    off = np.concatenate([[0], np.cumsum(cnt)])
    cap = npair * npr * npr
    pp_exp, pp_k, pp_ctr = np.zeros(cap), np.zeros(cap), np.zeros((cap, 3))
    pp_exp[:off[-1]], pp_k[:off[-1]], pp_ctr[:off[-1]] = p[keep], k[keep], ctr[keep]
    same = (ia == ib)[order]
    dens = rng.uniform(-1.0, 1.0, npair) * np.where(same, 1.0, 2.0)
    return {"pp_off": off, "pp_exp": pp_exp, "pp_ctr": pp_ctr, "pp_k": pp_k, "schwarz": q, "dens": dens}


def _ref_eri(inp, sz):
    n = int(inp["npair"])
    off = np.asarray(inp["pp_off"]).astype(np.int64)
    width = max(int(np.diff(off).max()), 1)
    e, k, c = np.ones((n, width)), np.zeros((n, width)), np.zeros((n, width, 3))
    ctr = _f64(inp["pp_ctr"]).reshape(-1, 3)
    for ab in range(n):
        span = slice(off[ab], off[ab + 1])
        m = span.stop - span.start
        e[ab, :m], k[ab, :m], c[ab, :m] = inp["pp_exp"][span], inp["pp_k"][span], ctr[span]
    q, d = _f64(inp["schwarz"]), _f64(inp["dens"])
    eri = _quartets((e, c, k), (e, c, k))
    keep = (q[:, None] * q[None, :]) * np.abs(d)[None, :] >= float(inp["tau"])
    return {"jmat": (np.where(keep, eri, 0.0) * d[None, :]).sum(1)}


def coulomb_j_boys_schwarz_fp64() -> KernelSpec:
    npair = "NS * (NS + 1) // 2"
    cap = f"{npair} * NPRIM * NPRIM"
    return _spec(
        "coulomb_j_boys_schwarz_fp64", tol=FP64, precision="fp64",
        idiom="direct-SCF Coulomb matrix over contracted s shells in fp64, an item per bra pair: kets in "
              "descending Schwarz order with a break and a density skip, Boys F0 series or asymptotic per quartet",
        sizes={"NS": [16, 24, 32, 48, 64, 96], "NPRIM": [1, 3]}, check={"NS": 14, "NPRIM": 2},
        constraints=["NS * NPRIM <= 96"],
        args=[Arg("npair", "scalar", "int32", npair), Arg("tau", "scalar", "float64", ERI_TAU),
              Arg("dmax", "scalar", "float64", ERI_DMAX), Arg("t_asym", "scalar", "float64", ERI_TASYM),
              Arg("pp_off", "buffer", "int32", f"{npair} + 1"), Arg("pp_exp", "buffer", "float64", cap),
              Arg("pp_ctr", "buffer", "float64", f"3 * {cap}"), Arg("pp_k", "buffer", "float64", cap),
              Arg("schwarz", "buffer", "float64", npair), Arg("dens", "buffer", "float64", npair),
              Arg("jmat", "buffer", "float64", npair, "out")],
        gsize=[round_up(npair)], local=L1, reference=_ref_eri, make_inputs=_inputs_eri)


# --- DFT integration grid: atom-centred shells, Becke / Stratmann partition, __local atom tables --------------------
BECKE_SPACING = 2.7  # becke_stratmann_grid_2d: bohr between neighbouring atoms
BECKE_RM = (1.0, 1.3, 1.25, 1.15)  # becke_stratmann_grid_2d: radial scale of H, C, N, O (bohr)
BECKE_A = 0.64  # becke_stratmann_grid_2d: Stratmann's a


def _inputs_becke(rng, sz):
    """NAT atoms on a jittered cubic lattice, elements H / C / N / O at random; Treutler's M4 radial map (alpha
    0.6) on Chebyshev nodes of the second kind for a unit radius; NANG Fibonacci-sphere directions with equal
    weights (4 pi in all)."""
    nat, nrad, nang = sz["NAT"], sz["NRAD"], sz["NANG"]
    side = int(np.ceil(nat ** (1.0 / 3.0)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:nat]
    atoms = (grid + rng.uniform(-0.2, 0.2, grid.shape)) * BECKE_SPACING
    rm = np.asarray(BECKE_RM)[rng.integers(0, len(BECKE_RM), nat)]
    th = np.arange(1, nrad + 1) * np.pi / (nrad + 1)
    x = np.cos(th)
    t = (1.0 + x) ** 0.6 * np.log(2.0 / (1.0 - x)) / np.log(2.0)
    dt = (0.6 * (1.0 + x) ** -0.4 * np.log(2.0 / (1.0 - x)) + (1.0 + x) ** 0.6 / (1.0 - x)) / np.log(2.0)
    u = np.pi / (nrad + 1) * np.sin(th) * t * t * dt
    k = np.arange(nang) + 0.5
    z = 1.0 - 2.0 * k / nang
    phi = k * np.pi * (3.0 - np.sqrt(5.0))
    rho = np.sqrt(1.0 - z * z)
    ang = np.stack([rho * np.cos(phi), rho * np.sin(phi), z], 1)
    return {"atom_xyz": atoms, "atom_rm": rm, "rad_t": t, "rad_u": u, "ang_xyz": ang,
            "ang_w": np.full(nang, 4.0 * np.pi / nang)}


def _stratmann_s(mu):
    x = np.clip(mu / BECKE_A, -1.0, 1.0)
    g = (35.0 * x - 35.0 * x ** 3 + 21.0 * x ** 5 - 5.0 * x ** 7) / 16.0
    return 0.5 * (1.0 - g)


def _ref_becke(inp, sz):
    nat, nrad, nang = sz["NAT"], sz["NRAD"], sz["NANG"]
    atoms = _f64(inp["atom_xyz"]).reshape(nat, 3)
    rm = _f64(inp["atom_rm"])
    r = rm[:, None] * _f64(inp["rad_t"])[None, :]  # (atom, shell)
    ang = _f64(inp["ang_xyz"]).reshape(nang, 3)
    pts = atoms[:, None, None, :] + r[:, :, None, None] * ang[None, None, :, :]
    pts = pts.reshape(-1, 3)
    own = np.repeat(np.arange(nat), nrad * nang)
    d = np.sqrt(((pts[:, None, :] - atoms[None, :, :]) ** 2).sum(-1))  # (point, atom)
    rab = np.sqrt(((atoms[:, None, :] - atoms[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(rab, 1.0)
    s = _stratmann_s((d[:, :, None] - d[:, None, :]) / rab[None])
    idx = np.arange(nat)
    s[:, idx, idx] = 1.0
    cell = s.prod(axis=2)
    part = cell[np.arange(pts.shape[0]), own] / cell.sum(1)
    wr = (rm ** 3)[:, None] * _f64(inp["rad_u"])[None, :]
    w = wr[:, :, None] * _f64(inp["ang_w"])[None, None, :]
    return {"points": pts, "weights": w.reshape(-1) * part}


def becke_stratmann_grid_2d() -> KernelSpec:
    npts = "NAT * NRAD * NANG"
    return _spec(
        "becke_stratmann_grid_2d", tol=SUMS,
        idiom="DFT integration grid, 2-D (angular point, atom radial shell): atoms and inverse distances staged "
              "in __local behind a barrier, Stratmann-screened Becke cell products that stop at a zero factor",
        sizes={"NAT": [4, 12, 28, 48, 64], "NRAD": [32, 64], "NANG": [86, 194]},
        check={"NAT": 7, "NRAD": 12, "NANG": 40}, constraints=["NAT <= 64", "NAT ** 3 * NRAD * NANG <= 2 ** 30"],
        args=[Arg("natom", "scalar", "int32", "NAT"), Arg("nrad", "scalar", "int32", "NRAD"),
              Arg("nang", "scalar", "int32", "NANG"), Arg("atom_xyz", "buffer", "float32", "3 * NAT"),
              Arg("atom_rm", "buffer", "float32", "NAT"), Arg("rad_t", "buffer", "float32", "NRAD"),
              Arg("rad_u", "buffer", "float32", "NRAD"), Arg("ang_xyz", "buffer", "float32", "3 * NANG"),
              Arg("ang_w", "buffer", "float32", "NANG"), Arg("points", "buffer", "float32", f"3 * {npts}", "out"),
              Arg("weights", "buffer", "float32", npts, "out"), Arg("lxyz", "local", "float32", "3 * NAT"),
              Arg("lrinv", "local", "float32", "NAT * NAT")],
        gsize=[round_up("NANG", 32), round_up("NAT * NRAD", 16)], local=L2, reference=_ref_becke,
        make_inputs=_inputs_becke)


#: this group's builders, in the order of ``specs()``
BUILDERS = (coulomb_j_boys_schwarz_fp64, becke_stratmann_grid_2d)
