"""Holdout12 kernels, group chem, continued (written by hand; see docs/HOLDOUT12.md): the molecular-dynamics half.
Bonded angle forces, the GROMOS-96 cosine-harmonic angle plus a Urey-Bradley 1-3 spring for the angle types
that have one, a work-item per atom walking its own angles through uint32 incidence lists (angle << 2 | role),
so every angle is evaluated by each of its three atoms and no atomics are needed, the per-type parameters in a
__constant float4 table; and the force gather of smooth particle-mesh Ewald, a work-item per atom interpolating
the convolved potential grid with order-4 B-splines and their derivatives over 4 x 4 x 4 periodic grid points,
uncharged atoms skipped. Neither uses atomics. Split from :mod:`.chem` to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f64, _spec, round_up

# --- bonded angles: G96 cosine angle + Urey-Bradley, a work-item per atom over its own angles --------------------
ANG_MOL = 32  # angle_g96_ub_owner_u32: atoms per molecule (a branched chain)
ANG_PARENT = (0.6, 0.3, 0.1)  # angle_g96_ub_owner_u32: odds of bonding to atom i - 1, i - 2, i - 3 of the molecule
ANG_NTYPE = 24  # angle_g96_ub_owner_u32: angle types in the parameter table
ANG_UB = 0.4  # angle_g96_ub_owner_u32: share of angle types with a Urey-Bradley term
ANG_TOL = (1e-3, 1e-3)  # angle_g96_ub_owner_u32: forces reach a few hundred, float32 leaves ~1e-4 after cancelling


def _angle_topology(rng, n):
    """Branched chains of ANG_MOL atoms (the last one cut at n): atom i of a molecule bonds to i - 1, i - 2 or
    i - 3 (ANG_PARENT), so every atom has at most 4 neighbours; near-tetrahedral coordinates, each bond of 1.45
    .. 1.6 at 109.5 +- 6 degrees from the parent's own bond, siblings 120 degrees apart around it (a random
    start and orientation per molecule). Returns (positions n x 3, angles m x 3 as (i, j, k), i < k, by j)."""
    nmol = -(-n // ANG_MOL)
    m = np.arange(ANG_MOL)
    mols = np.arange(nmol)
    back = np.minimum(1 + rng.choice(3, (ANG_MOL, nmol), p=ANG_PARENT), m[:, None])  # [position, molecule]
    box = (nmol * ANG_MOL / 0.1) ** (1.0 / 3.0)
    xyz = np.zeros((ANG_MOL, nmol, 3))
    xyz[0] = rng.uniform(0.0, box, (nmol, 3))
    up = np.zeros((ANG_MOL, nmol, 3))  # unit vector from each atom to its parent
    up[0] = rng.standard_normal((nmol, 3))
    up[0] /= np.linalg.norm(up[0], axis=1)[:, None]
    phase = rng.uniform(0.0, 2.0 * np.pi, (ANG_MOL, nmol))
    nchild = np.zeros((ANG_MOL, nmol), dtype=np.int64)
    for k in range(1, ANG_MOL):
        pk = k - back[k]
        u = up[pk, mols]
        helper = np.where((np.abs(u[:, 0]) < 0.9)[:, None], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        v1 = np.cross(u, helper)
        v1 /= np.linalg.norm(v1, axis=1)[:, None]
        v2 = np.cross(u, v1)
        th = np.deg2rad(109.5 + rng.uniform(-6.0, 6.0, nmol))
        ph = phase[pk, mols] + 2.0 * np.pi / 3.0 * nchild[pk, mols] + rng.uniform(-0.15, 0.15, nmol)
        d = np.cos(th)[:, None] * u + np.sin(th)[:, None] * (np.cos(ph)[:, None] * v1 + np.sin(ph)[:, None] * v2)
        nchild[pk, mols] += 1
        xyz[k] = xyz[pk, mols] + rng.uniform(1.45, 1.6, nmol)[:, None] * d
        up[k] = -d
    back = back.T.reshape(-1)[:n]  # atom order: molecule by molecule
    atom = np.arange(n)
    nb = np.full((n, 4), n, dtype=np.int64)  # neighbours, n = none
    nb[:, 0] = np.where(back > 0, atom - back, n)
    for d in (1, 2, 3):
        child = atom[d:]
        nb[:-d, d] = np.where(back[d:] == d, child, n)
    nb.sort(axis=1)
    sx, sy = np.triu_indices(4, 1)  # the 6 neighbour pairs of a centre
    hit = np.flatnonzero(nb[:, sy] < n)
    centre, slot = hit // 6, hit % 6
    tri = np.stack([nb[centre, sx[slot]], centre, nb[centre, sy[slot]]], 1)
    return xyz.transpose(1, 0, 2).reshape(-1, 3)[:n], tri


def _inputs_angle(rng, sz):
    """The topology of _angle_topology, types at random; each atom's angles in angle order as (angle << 2 |
    role) words; types with theta0 in 100 .. 125 degrees, k_theta 300 .. 700, and for ANG_UB of them a 1-3
    spring (r_ub 2.35 .. 2.6, k_ub 20 .. 60). Arrays are sized for 3 angles an atom, the tail unused."""
    n = sz["N"]
    xyz, ang = _angle_topology(rng, n)
    m = ang.shape[0]
    rec = np.zeros((3 * n, 4), dtype=np.int64)
    rec[:m, :3] = ang
    rec[:m, 3] = rng.integers(0, ANG_NTYPE, m)
    atom = ang.reshape(-1)
    word = (np.repeat(np.arange(m), 3) << 2) | np.tile(np.arange(3), m)
    order = np.argsort(atom, kind="stable")
    inc = np.zeros(9 * n, dtype=np.int64)
    inc[:3 * m] = word[order]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(atom, minlength=n))])
    theta0 = np.deg2rad(rng.uniform(100.0, 125.0, ANG_NTYPE))
    ub = rng.random(ANG_NTYPE) < ANG_UB
    r_ub, k_ub = rng.uniform(2.35, 2.6, ANG_NTYPE), rng.uniform(20.0, 60.0, ANG_NTYPE)
    apar = np.stack([np.cos(theta0), rng.uniform(300.0, 700.0, ANG_NTYPE), np.where(ub, r_ub, 0.0),
                     np.where(ub, k_ub, 0.0)], 1)
    return {"pos": xyz, "inc_ptr": ptr, "inc": inc, "angle": rec, "apar": apar}


def _ref_angle(inp, sz):
    n = int(inp["natom"])
    ptr = np.asarray(inp["inc_ptr"]).astype(np.int64)
    m = int(ptr[-1]) // 3
    rec = np.asarray(inp["angle"]).astype(np.int64).reshape(-1, 4)[:m]
    par = _f64(inp["apar"]).reshape(-1, 4)[rec[:, 3]]
    x = _f64(inp["pos"]).reshape(n, 3)
    rij, rkj = x[rec[:, 0]] - x[rec[:, 1]], x[rec[:, 2]] - x[rec[:, 1]]
    lij, lkj = np.linalg.norm(rij, axis=1), np.linalg.norm(rkj, axis=1)
    uij, ukj = rij / lij[:, None], rkj / lkj[:, None]
    c = (uij * ukj).sum(1)
    dc = c - par[:, 0]
    e = 0.5 * par[:, 1] * dc * dc
    fi = -(par[:, 1] * dc / lij)[:, None] * (ukj - c[:, None] * uij)
    fk = -(par[:, 1] * dc / lkj)[:, None] * (uij - c[:, None] * ukj)
    rik = x[rec[:, 0]] - x[rec[:, 2]]
    r = np.linalg.norm(rik, axis=1)
    dr = r - par[:, 2]
    has = par[:, 3] != 0.0
    e += np.where(has, 0.5 * par[:, 3] * dr * dr, 0.0)
    fub = np.where(has, -par[:, 3] * dr / r, 0.0)[:, None] * rik
    force, epot = np.zeros((n, 3)), np.zeros(n)
    for col, f in ((0, fi + fub), (2, fk - fub), (1, -(fi + fk))):
        np.add.at(force, rec[:, col], f)
        np.add.at(epot, rec[:, col], e / 3.0)
    return {"force": force, "epot": epot}


def angle_g96_ub_owner_u32() -> KernelSpec:
    return _spec(
        "angle_g96_ub_owner_u32", tol=ANG_TOL,
        idiom="bonded angle forces, an item per atom over its own angles: uint32 incidence words (angle << 2 | "
              "role), G96 cosine angle + Urey-Bradley branch, __constant float4 type table, vload3 gathers",
        sizes={"N": [4096, 16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152]}, check={"N": 3000},
        args=[Arg("natom", "scalar", "uint32", "N"), Arg("pos", "buffer", "float32", "3 * N"),
              Arg("inc_ptr", "buffer", "uint32", "N + 1"), Arg("inc", "buffer", "uint32", "9 * N"),
              Arg("angle", "buffer", "uint32", "12 * N"), Arg("apar", "buffer", "float32", f"4 * {ANG_NTYPE}"),
              Arg("force", "buffer", "float32", "3 * N", "out"), Arg("epot", "buffer", "float32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_angle, make_inputs=_inputs_angle)


# --- SPME force gather: order-4 B-spline interpolation of the convolved potential grid ---------------------------
PME_H = 0.1125  # pme_gather_bspline4_forces: grid spacing (nm); the box is K * PME_H on a side
PME_ATOMS = "K * K * K * 3 // 16"  # pme_gather_bspline4_forces: atoms, about 100 / nm^3
PME_UNCHARGED = 0.3  # pme_gather_bspline4_forces: share of atoms without a charge
PME_SORT = 4  # pme_gather_bspline4_forces: atoms sorted by cells of this many grid points a side


def _inputs_pme(rng, sz):
    """Atoms uniform in the box, sorted by PME_SORT-point cells (z slowest); charges N(0, 0.5), PME_UNCHARGED
    of them zero; the potential grid uniform in [-1, 1]."""
    k = sz["K"]
    n = k * k * k * 3 // 16
    box = PME_H * k
    xyz = rng.uniform(0.0, box, (n, 3))
    cell = np.minimum((xyz / (PME_H * PME_SORT)).astype(np.int64), k // PME_SORT)
    side = k // PME_SORT + 1
    xyz = xyz[np.argsort((cell[:, 2] * side + cell[:, 1]) * side + cell[:, 0], kind="stable")]
    q = np.where(rng.random(n) < PME_UNCHARGED, 0.0, rng.normal(0.0, 0.5, n))
    return {"xq": np.concatenate([xyz, q[:, None]], 1).astype(np.float32),
            "grid": rng.uniform(-1.0, 1.0, k * k * k).astype(np.float32)}


def _bspline4(w):
    w1 = 1.0 - w
    th = np.stack([w1 ** 3, 3 * w ** 3 - 6 * w ** 2 + 4, -3 * w ** 3 + 3 * w ** 2 + 3 * w + 1, w ** 3], -1) / 6.0
    dth = np.stack([-0.5 * w1 ** 2, 1.5 * w ** 2 - 2 * w, -1.5 * w ** 2 + w + 0.5, 0.5 * w ** 2], -1)
    return th, dth


def _ref_pme(inp, sz):
    n = int(inp["natom"])
    kdim = np.array([int(inp["kx"]), int(inp["ky"]), int(inp["kz"])])
    box = np.array([float(inp["lx"]), float(inp["ly"]), float(inp["lz"])])
    xq = _f64(inp["xq"]).reshape(n, 4)
    s = xq[:, :3] / box
    u = (s - np.floor(s)) * kdim
    iu = np.floor(u).astype(np.int64)
    th, dth = _bspline4(u - iu)  # (atom, dim, 4)
    idx = (iu[:, :, None] - 3 + np.arange(4)) % kdim[None, :, None]
    g = _f64(inp["grid"]).reshape(*kdim)
    vals = g[idx[:, 0, :, None, None], idx[:, 1, None, :, None], idx[:, 2, None, None, :]]  # (atom, 4, 4, 4)
    tx, ty, tz = th[:, 0], th[:, 1], th[:, 2]
    fx = np.einsum("na,nb,nc,nabc->n", dth[:, 0], ty, tz, vals)
    fy = np.einsum("na,nb,nc,nabc->n", tx, dth[:, 1], tz, vals)
    fz = np.einsum("na,nb,nc,nabc->n", tx, ty, dth[:, 2], vals)
    phi = np.einsum("na,nb,nc,nabc->n", tx, ty, tz, vals)
    q = xq[:, 3]
    force = -q[:, None] * np.stack([fx, fy, fz], 1) * (kdim / box)[None, :]
    charged = q != 0.0
    return {"force": np.where(charged[:, None], force, 0.0), "phi": np.where(charged, phi, 0.0)}


def pme_gather_bspline4_forces() -> KernelSpec:
    box = f"{PME_H} * K"
    return _spec(
        "pme_gather_bspline4_forces", tol=SUMS,
        idiom="SPME force gather, an item per float4 (x, y, z, q) atom: order-4 B-spline weights and derivatives "
              "per axis, 4 x 4 x 4 periodic grid gather, uncharged atoms skipped, force and potential out",
        sizes={"K": [16, 24, 32, 48, 64, 80, 96, 128, 192, 256]}, check={"K": 20},
        args=[Arg("natom", "scalar", "int32", PME_ATOMS), Arg("kx", "scalar", "int32", "K"),
              Arg("ky", "scalar", "int32", "K"), Arg("kz", "scalar", "int32", "K"),
              Arg("lx", "scalar", "float32", box), Arg("ly", "scalar", "float32", box),
              Arg("lz", "scalar", "float32", box), Arg("xq", "buffer", "float32", f"4 * {PME_ATOMS}"),
              Arg("grid", "buffer", "float32", "K * K * K"),
              Arg("force", "buffer", "float32", f"3 * {PME_ATOMS}", "out"),
              Arg("phi", "buffer", "float32", PME_ATOMS, "out")],
        gsize=[round_up(PME_ATOMS)], local=L1, reference=_ref_pme, make_inputs=_inputs_pme)


#: this group's builders, in the order of ``specs()``
BUILDERS = (angle_g96_ub_owner_u32, pme_gather_bspline4_forces)
