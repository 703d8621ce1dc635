"""Holdout8 kernels, group quantum (written by hand; see docs/HOLDOUT8.md): quantum simulation and channel coding as
application programmers write them; here the quantum simulation: a multi-controlled single-qubit gate applied in
place to a float2 state vector (one amplitude pair per item), one two-qubit unitary per member of a batch of state
vectors on a 2-D (amplitude quadruple, member) NDRange, and Pauli-string expectation values of a qubit Hamiltonian
in fp64 (a work-group per term, partial sums in a __local tree). None of these three uses atomics; the channel
coding kernels are in :mod:`.quantum_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _as_complex, _as_pairs, _f64, _spec, round_up


def _unitaries(rng, n: int, d: int) -> np.ndarray:
    """``n`` Haar-like random d x d unitaries (QR of complex Gaussian matrices, phases fixed)."""
    z = (rng.normal(size=(n, d, d)) + 1j * rng.normal(size=(n, d, d))) / np.sqrt(2.0)
    q, r = np.linalg.qr(z)
    ph = np.diagonal(r, axis1=1, axis2=2)
    return q * (ph / np.abs(ph))[:, None, :]


def _product_state(rng, nq: int, noise: float) -> np.ndarray:
    """A product of random single-qubit states plus ``noise`` of a random state (so some entanglement), normalised;
    index bit q is qubit q."""
    psi = np.ones(1, dtype=np.complex128)
    for _ in range(nq):
        theta, phi = rng.uniform(0, np.pi), rng.uniform(0, 2 * np.pi)
        q = np.array([np.cos(theta / 2), np.exp(1j * phi) * np.sin(theta / 2)])
        psi = np.kron(q, psi)  # the new qubit is the highest bit
    dim = 1 << nq
    psi = psi + noise * (rng.normal(size=dim) + 1j * rng.normal(size=dim)) / np.sqrt(dim)
    return psi / np.linalg.norm(psi)


# --- multi-controlled single-qubit gate, one amplitude pair per item, in place ----------------------------------------
def _inputs_mcu(rng, sz):
    """A normalised random state vector (complex Gaussian amplitudes) and a random 2x2 unitary."""
    psi = rng.standard_normal(2 << sz["Q"], dtype=np.float32)
    psi /= np.float32(np.linalg.norm(psi))
    return {"psi": psi, "u": _as_pairs(_unitaries(rng, 1, 2)[0])}


def _ref_mcu(inp, sz):
    q, t, ctrl = sz["Q"], int(inp["target"]), int(inp["ctrl_mask"])
    psi = _as_complex(inp["psi"])
    u = _as_complex(inp["u"]).reshape(2, 2)
    idx = np.arange(1 << q, dtype=np.int64)
    i0 = idx[((idx >> t) & 1 == 0) & ((idx & ctrl) == ctrl)]
    i1 = i0 | (1 << t)
    a, b = psi[i0].copy(), psi[i1].copy()
    psi[i0], psi[i1] = u[0, 0] * a + u[0, 1] * b, u[1, 0] * a + u[1, 1] * b
    return {"psi": _as_pairs(psi)}


def qsim_mcu1q_pairs() -> KernelSpec:
    return _spec(
        "qsim_mcu1q_pairs", tol=(1e-5, 1e-6),
        idiom="multi-controlled 1-qubit gate on a float2 state vector: bit-inserted amplitude pair per item, control "
              "mask early exit, in place",
        sizes={"Q": [10, 14, 18, 21, 24], "P": [0, 1, 2]}, check={"Q": 11, "P": 1},
        args=[Arg("nq", "scalar", "int32", "Q"), Arg("target", "scalar", "int32", "P * (Q - 1) // 2"),
              Arg("ctrl_mask", "scalar", "uint32", "2 ** P - 1"), Arg("u", "buffer", "float32", "8"),
              Arg("psi", "buffer", "float32", "2 * 2 ** Q", "inout")],
        gsize=[round_up("2 ** (Q - 1)")], local=L1, reference=_ref_mcu, make_inputs=_inputs_mcu)


# --- batched two-qubit unitaries, 2-D (amplitude quadruple, batch member) ---------------------------------------------
def _inputs_u2q(rng, sz):
    """Per member a random 4x4 unitary and a normalised random state."""
    q, b = sz["Q"], sz["B"]
    psi = rng.standard_normal((b, 2 << q), dtype=np.float32)
    psi /= np.linalg.norm(psi, axis=1, keepdims=True).astype(np.float32)
    return {"gates": _as_pairs(_unitaries(rng, b, 4)), "states": psi}


def _ref_u2q(inp, sz):
    q, nb = sz["Q"], sz["B"]
    qa, qb = int(inp["qa"]), int(inp["qb"])
    g = _as_complex(inp["gates"]).reshape(nb, 2, 2, 2, 2)  # (member, row bit_qb, row bit_qa, col bit_qb, col bit_qa)
    psi = _as_complex(inp["states"]).reshape(nb, 1 << (q - 1 - qb), 2, 1 << (qb - qa - 1), 2, 1 << qa)
    out = np.einsum("zabcd,zxcyde->zxaybe", g, psi)
    return {"states": _as_pairs(out)}


def qsim_u2q_batch_2d() -> KernelSpec:
    return _spec(
        "qsim_u2q_batch_2d", tol=(1e-5, 1e-6),
        idiom="batch of state vectors, 2-D (amplitude quadruple, member): two bits inserted, member's 4x4 complex "
              "unitary applied in place",
        sizes={"Q": [10, 12, 14, 16, 18, 20], "B": [16, 64, 256]}, check={"Q": 8, "B": 20},
        constraints=["B * 2 ** Q <= 2**24"],
        args=[Arg("nq", "scalar", "int32", "Q"), Arg("nbatch", "scalar", "int32", "B"),
              Arg("qa", "scalar", "int32", "Q // 3"), Arg("qb", "scalar", "int32", "Q - 2"),
              Arg("gates", "buffer", "float32", "B * 32"),
              Arg("states", "buffer", "float32", "B * 2 * 2 ** Q", "inout")],
        gsize=["2 ** (Q - 2)", round_up("B", 16)], local=L2, reference=_ref_u2q, make_inputs=_inputs_u2q)


# --- Pauli-string expectation values, fp64, a work-group per term, __local tree ---------------------------------------
def _inputs_pauli(rng, sz):
    """A weakly entangled state (product state plus 30% random); terms of weight 1 .. 6 with random X/Y/Z letters,
    a quarter of them diagonal (Z only), as in a Jordan-Wigner Hamiltonian; coefficients +-0.01 .. 1."""
    q, t = sz["Q"], sz["T"]
    xm, zm = np.zeros(t, np.uint32), np.zeros(t, np.uint32)
    for k in range(t):
        qubits = rng.choice(q, size=rng.integers(1, min(q, 6) + 1), replace=False)
        letters = np.full(qubits.size, 3) if rng.random() < 0.25 else rng.integers(1, 4, qubits.size)  # 1 X 2 Y 3 Z
        for qb, let in zip(qubits, letters):
            if let in (1, 2):
                xm[k] |= np.uint32(1 << int(qb))
            if let in (2, 3):
                zm[k] |= np.uint32(1 << int(qb))
    coeff = rng.choice([-1.0, 1.0], t) * 10 ** rng.uniform(-2, 0, t)
    return {"psi": _as_pairs(_product_state(rng, q, 0.3)), "xmask": xm, "zmask": zm, "coeff": coeff}


def _ref_pauli(inp, sz):
    q, t = sz["Q"], sz["T"]
    psi = _as_complex(inp["psi"])
    idx = np.arange(1 << q, dtype=np.int64)
    xm, zm = np.asarray(inp["xmask"]).astype(np.int64), np.asarray(inp["zmask"]).astype(np.int64)
    out = np.empty(t)
    for k in range(t):
        par = np.zeros(idx.size, dtype=np.int64)
        v = idx & zm[k]
        while np.any(v):
            par ^= v & 1
            v = v >> 1
        s = np.sum(np.where(par == 1, -1.0, 1.0) * np.conj(psi[idx ^ xm[k]]) * psi)
        ny = bin(int(xm[k] & zm[k])).count("1")
        out[k] = ((1j ** ny) * s).real
    return {"expval": _f64(inp["coeff"]) * out}


def pauli_expval_local_fp64() -> KernelSpec:
    return _spec(
        "pauli_expval_local_fp64", precision="fp64", tol=FP64,
        idiom="Pauli-string expectations in fp64, a group per term (num_groups loop): X-mask partner gather, Z-parity "
              "sign, __local tree",
        sizes={"Q": [12, 14, 16, 18, 20], "T": [8, 32, 128]}, check={"Q": 9, "T": 13},
        constraints=["T * 2 ** Q <= 2**25"],
        args=[Arg("nq", "scalar", "int32", "Q"), Arg("nterm", "scalar", "int32", "T"),
              Arg("psi", "buffer", "float64", "2 * 2 ** Q"), Arg("xmask", "buffer", "uint32", "T"),
              Arg("zmask", "buffer", "uint32", "T"), Arg("coeff", "buffer", "float64", "T"),
              Arg("expval", "buffer", "float64", "T", "out"), Arg("red", "local", "float64", "l0")],
        gsize=["256 * min(T, 64)"], local=L1, reference=_ref_pauli, make_inputs=_inputs_pauli)


#: this group's builders, in the order of ``specs()``
BUILDERS = (qsim_mcu1q_pairs, qsim_u2q_batch_2d, pauli_expval_local_fp64)
