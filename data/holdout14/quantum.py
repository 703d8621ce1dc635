"""Holdout14 kernels, group quantum (written by hand): steps of quantum-circuit and open-system simulation as a
GPU simulator launches them. The cost layer of QAOA for weighted MaxCut, a work-item per basis state of a float2
state vector counting its cut edges from uint32 edge masks by popcount (the weight added when exactly one of the
edge's two vertex bits is set), storing the cut value and rotating the amplitude by -gamma times it in place; and
a one-qubit noise channel on an fp64 density matrix, a 2-D (column, row) NDRange with a work-item per element
gathering the 2 x 2 block of the target qubit's bits and summing K rho K^dagger over a scalar number of Kraus
operators, out of place. Neither uses atomics or __local memory; the group's other two kernels are in
:mod:`.quantum_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import ELEMWISE, FP64, L1, L2, _as_complex, _as_pairs, _f32, _f64, _spec, round_up

GAMMA = 0.37  # qaoa_maxcut_phase_masks_u32: the layer's angle
W_MAX = 4  # qaoa_maxcut_phase_masks_u32: edge weights 1 .. W_MAX
NKRAUS = 3  # dm_kraus1q_channel_2d_fp64: Kraus operators of the channel


# --- QAOA MaxCut cost layer: popcount of edge masks per basis state, phase rotation in place ---------------------
def _inputs_qaoa(rng, sz):
    """A random graph of Q * D // 2 distinct edges on Q vertices (as uint masks of two bits), weights 1 .. W_MAX,
    and a normalised random complex state."""
    q, d = sz["Q"], sz["D"]
    iu, ju = np.triu_indices(q, 1)
    pick = rng.choice(iu.size, q * d // 2, replace=False)
    masks = (np.uint32(1) << iu[pick].astype(np.uint32)) | (np.uint32(1) << ju[pick].astype(np.uint32))
    psi = rng.standard_normal(2 << q, dtype=np.float32)
    psi /= np.float32(np.linalg.norm(psi))
    return {"edge_mask": masks.astype(np.uint32), "edge_w": rng.integers(1, W_MAX + 1, pick.size), "psi": psi}


def _ref_qaoa(inp, sz):
    q, ne = sz["Q"], sz["Q"] * sz["D"] // 2
    z = np.arange(1 << q, dtype=np.uint64)
    masks = np.asarray(inp["edge_mask"]).astype(np.uint64)[:ne]
    w = np.asarray(inp["edge_w"]).astype(np.int64)[:ne]
    c = np.zeros(z.size, dtype=np.int64)
    for m, wt in zip(masks, w):
        x = z & m
        c += np.where((x != 0) & ((x & (x - np.uint64(1))) == 0), wt, 0)
    phi = _f64(-np.float32(inp["gamma"]) * c.astype(np.float32))  # the kernel's float32 angle, then float64
    psi = _as_complex(inp["psi"]) * np.exp(1j * phi)
    return {"cut_val": c, "psi": _as_pairs(psi)}


def qaoa_maxcut_phase_masks_u32() -> KernelSpec:
    return _spec(
        "qaoa_maxcut_phase_masks_u32", tol=ELEMWISE,
        idiom="QAOA MaxCut cost layer, an item per basis state: loop over uint edge masks, popcount(z & mask) == 1 "
              "adds the edge weight, cut value stored, float2 amplitude rotated by sincos(-gamma C) in place",
        sizes={"Q": [12, 14, 16, 18, 20], "D": [4, 10]}, check={"Q": 10, "D": 4},
        args=[Arg("nstate", "scalar", "int32", "2 ** Q"), Arg("nedge", "scalar", "int32", "Q * D // 2"),
              Arg("gamma", "scalar", "float32", str(GAMMA)), Arg("edge_mask", "buffer", "uint32", "Q * D // 2"),
              Arg("edge_w", "buffer", "int32", "Q * D // 2"), Arg("cut_val", "buffer", "int32", "2 ** Q", "out"),
              Arg("psi", "buffer", "float32", "2 * 2 ** Q", "inout")],
        gsize=[round_up("2 ** Q")], local=L1, reference=_ref_qaoa, make_inputs=_inputs_qaoa)


# --- one-qubit Kraus channel on a density matrix, 2-D (column, row), fp64 ----------------------------------------
def _inputs_kraus(rng, sz):
    """A random CPTP map (NKRAUS 2 x 2 blocks of a random 2 NKRAUS x 2 isometry) and a random mixed state of rank
    4 (random pure states with random weights), Hermitian with unit trace."""
    dim = 1 << sz["Q"]
    z = rng.normal(size=(2 * NKRAUS, 2)) + 1j * rng.normal(size=(2 * NKRAUS, 2))
    iso, _ = np.linalg.qr(z)
    v = rng.normal(size=(dim, 4)) + 1j * rng.normal(size=(dim, 4))
    v /= np.linalg.norm(v, axis=0)
    p = rng.dirichlet(np.ones(4))
    rho = (v * p) @ v.conj().T
    return {"kraus": _as_pairs(iso), "rho_in": _as_pairs(rho)}


def _ref_kraus(inp, sz):
    nq = sz["Q"]
    q = int(inp["q"])
    k = _as_complex(inp["kraus"]).reshape(NKRAUS, 2, 2)
    hi, lo = 1 << (nq - 1 - q), 1 << q
    rho = _as_complex(inp["rho_in"]).reshape(hi, 2, lo, hi, 2, lo)
    out = np.zeros_like(rho)
    for kk in k:
        t = np.einsum("ab,xbyudw->xayudw", kk, rho)
        out += np.einsum("xayudw,cd->xayucw", t, kk.conj())
    return {"rho_out": _as_pairs(out)}


def dm_kraus1q_channel_2d_fp64() -> KernelSpec:
    return _spec(
        "dm_kraus1q_channel_2d_fp64", tol=FP64, precision="fp64",
        idiom="one-qubit Kraus channel on an fp64 density matrix, 2-D (column, row): 2x2 block gathered by clearing "
              "/ setting the target bit of row and column, sum over Kraus ops of K rho K^dagger, out of place",
        sizes={"Q": [5, 7, 9, 10, 11, 12], "H": [0, 1]}, check={"Q": 6, "H": 1},
        args=[Arg("dim", "scalar", "int32", "2 ** Q"), Arg("q", "scalar", "int32", "H * (Q - 1) + (1 - H) * (Q // 3)"),
              Arg("nkraus", "scalar", "int32", str(NKRAUS)), Arg("kraus", "buffer", "float64", str(8 * NKRAUS)),
              Arg("rho_in", "buffer", "float64", "2 * 4 ** Q"),
              Arg("rho_out", "buffer", "float64", "2 * 4 ** Q", "out")],
        gsize=["2 ** Q", "2 ** Q"], local=L2, reference=_ref_kraus, make_inputs=_inputs_kraus)


#: this group's builders, in the order of ``specs()``
BUILDERS = (qaoa_maxcut_phase_masks_u32, dm_kraus1q_channel_2d_fp64)
