"""Holdout14 kernels, group quantum, continued (written by hand): a Trotter step of the transverse-field Ising
chain on a float2 state vector, blocked as state-vector simulators block it: a work-group per block of 2^nlow
amplitudes (looping by the number of groups) loads it into __local memory with each amplitude's ZZ bond phase
(spin signs from the index bits, a loop over the chain's bonds), then applies the exp(i dt h X) rotation of each
low qubit in turn between barriers and writes the block back in place; and the sampling of measurement shots
with readout noise, a work-item per shot hashing a counter-based random uint, binary-searching the float32
cumulative distribution of the state and flipping each measured bit of the outcome with a 16-bit fixed-point
probability, stored as uint32. Neither uses atomics. Split from :mod:`.quantum` to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _as_complex, _as_pairs, _f64, _spec, pow2, round_up

DT = 0.05  # tfim_trotter_lowq_local: the time step
SEED = 0x2545F491  # qsim_shot_readout_bsearch_u32: the random stream's seed
FLIP_Q16 = 1311  # qsim_shot_readout_bsearch_u32: readout flip probability (~2 %) in 1/65536
M32 = np.uint64(0xFFFFFFFF)


# --- transverse-field Ising Trotter step, low qubits blocked in __local ------------------------------------------
def _inputs_tfim(rng, sz):
    """Bond couplings 0.5 .. 1.5, transverse fields 0.2 .. 1.2 and a normalised random complex state."""
    q = sz["Q"]
    psi = rng.standard_normal(2 << q, dtype=np.float32)
    psi /= np.float32(np.linalg.norm(psi))
    return {"jbond": rng.uniform(0.5, 1.5, q - 1), "hx": rng.uniform(0.2, 1.2, q), "psi": psi}


def _ref_tfim(inp, sz):
    q, nlow = sz["Q"], sz["B"]
    dt = float(np.float32(inp["dt"]))
    jb, hx = _f64(inp["jbond"])[:q - 1], _f64(inp["hx"])
    z = np.arange(1 << q, dtype=np.int64)
    d = z ^ (z >> 1)
    e = np.zeros(z.size)
    for b in range(q - 1):
        e += np.where((d >> b) & 1, -jb[b], jb[b])
    psi = _as_complex(inp["psi"]) * np.exp(1j * dt * e)
    for t in range(nlow):
        c, s = np.cos(dt * hx[t]), np.sin(dt * hx[t])
        v = psi.reshape(-1, 2, 1 << t)
        a0, a1 = v[:, 0, :].copy(), v[:, 1, :].copy()
        v[:, 0, :], v[:, 1, :] = c * a0 + 1j * s * a1, 1j * s * a0 + c * a1
    return {"psi": _as_pairs(psi)}


def tfim_trotter_lowq_local() -> KernelSpec:
    return _spec(
        "tfim_trotter_lowq_local", tol=SUMS,
        idiom="TFIM Trotter step blocked in __local, a group per 2^B-amplitude block (num_groups loop): ZZ bond "
              "phase from index-bit signs on load, then one RX pair sweep per low qubit between barriers, in place",
        sizes={"Q": [12, 14, 16, 18, 21], "B": [8, 10]}, check={"Q": 11, "B": 6},
        args=[Arg("nq", "scalar", "int32", "Q"), Arg("nlow", "scalar", "int32", "B"),
              Arg("dt", "scalar", "float32", str(DT)), Arg("jbond", "buffer", "float32", "Q - 1"),
              Arg("hx", "buffer", "float32", "Q"), Arg("psi", "buffer", "float32", "2 * 2 ** Q", "inout"),
              Arg("blk", "local", "float32", "2 * 2 ** B")],
        gsize=["2 ** Q // 8"], local=L1, reference=_ref_tfim, make_inputs=_inputs_tfim)


# --- measurement shots: counter-based RNG, binary search of the CDF, readout bit flips -----------------------------
def _mix32(h):
    h = h & M32
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & M32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & M32
    return h ^ (h >> np.uint64(16))


def _inputs_shots(rng, sz):
    """The float32 CDF of a product state's probabilities (each qubit 1 with probability 0.05 .. 0.95) mixed with
    5 % of a random distribution, cumulated in float64, rounded to float32 (still non-decreasing), last entry 1."""
    q = sz["Q"]
    p = np.ones(1)
    for pq in rng.uniform(0.05, 0.95, q):
        p = np.kron([1.0 - pq, pq], p)
    p = 0.95 * p + 0.05 * rng.dirichlet(np.ones(p.size))
    cdf = np.cumsum(p / p.sum()).astype(np.float32)
    cdf[-1] = 1.0
    return {"cdf": cdf}


def _ref_shots(inp, sz):
    q, ns = sz["Q"], sz["S"]
    seed, flip = np.uint64(int(inp["seed"])), np.uint64(int(inp["flip_q16"]))
    i = np.arange(ns, dtype=np.uint64)
    h = _mix32(seed ^ _mix32(i * np.uint64(0x9E3779B9) + np.uint64(1)))
    u = (h >> np.uint64(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    cdf = np.asarray(inp["cdf"], dtype=np.float32)
    z = np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1).astype(np.uint64)
    for b in range(q):
        h = _mix32(h + np.uint64(0x6D2B79F5))
        z ^= np.where((h >> np.uint64(16)) < flip, np.uint64(1 << b), np.uint64(0))
    return {"shot": z.astype(np.uint32)}


def qsim_shot_readout_bsearch_u32() -> KernelSpec:
    return _spec(
        "qsim_shot_readout_bsearch_u32",
        idiom="measurement shots, an item per shot: murmur-finaliser counter RNG, 24-bit uniform, binary search of "
              "the float32 CDF, per-bit readout flips against a 16-bit threshold, uint32 outcome",
        sizes={"Q": [12, 17, 22], "S": pow2(15, 21, 3)}, check={"Q": 9, "S": 3000},
        args=[Arg("nshot", "scalar", "int32", "S"), Arg("dim", "scalar", "int32", "2 ** Q"),
              Arg("nq", "scalar", "int32", "Q"), Arg("seed", "scalar", "uint32", str(SEED)),
              Arg("flip_q16", "scalar", "uint32", str(FLIP_Q16)), Arg("cdf", "buffer", "float32", "2 ** Q"),
              Arg("shot", "buffer", "uint32", "S", "out")],
        gsize=[round_up("S")], local=L1, reference=_ref_shots, make_inputs=_inputs_shots)


#: this group's builders, in the order of ``specs()``
BUILDERS = (tfim_trotter_lowq_local, qsim_shot_readout_bsearch_u32)
