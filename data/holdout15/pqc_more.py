"""Holdout15 kernels, group pqc, continued (written by hand; see docs/HOLDOUT15.md): the expansion of ML-KEM's
public matrix, a work-item per matrix entry absorbing rho || j || i into a Keccak-f[1600] state of 25 ulong lanes
(SHAKE128) and squeezing 168-byte blocks, split into 12-bit candidates and rejection-sampled below q = 3329 until
256 coefficients are accepted (a data-dependent number of permutations), int16 coefficients and the block count
out; and floating-point LLL reduction of many small q-ary lattice bases in fp64, a work-item per basis with the
Gram-Schmidt coefficients in private arrays, size reduction by rounded mu, the Lovasz test deciding between
advancing and a swap followed by a partial re-orthogonalisation, bounded by a step count. Neither uses atomics or
__local memory. Split from :mod:`.pqc` to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import hashlib

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _spec, round_up

KQ = 3329  # mlkem_shake128_rej_uniform: the ML-KEM modulus

LLL_Q = 2**20  # lll_qary_small_bases_fp64: modulus of the q-ary bases
DELTA = 0.99  # lll_qary_small_bases_fp64: Lovasz constant
MAX_ITER = 20000  # lll_qary_small_bases_fp64: step bound


# --- ML-KEM matrix expansion: SHAKE128 per entry, 12-bit rejection sampling below q ------------------------------
def _inputs_xof(rng, sz):
    """S keys' 32-byte seeds rho as 8 uint32 words each."""
    return {"rho": rng.integers(0, 2**32, sz["S"] * 8, dtype=np.uint64).astype(np.uint32)}


def _ref_xof(inp, sz):
    ne, k = int(inp["nentries"]), int(inp["k"])
    rho = np.asarray(inp["rho"]).astype("<u4")
    out, blocks = np.zeros((ne, 256), dtype=np.int64), np.zeros(ne, dtype=np.int64)
    for e in range(ne):
        key, i, j = e // (k * k), (e // k) % k, e % k
        stream = hashlib.shake_128(rho[8 * key:8 * key + 8].tobytes() + bytes([j, i])).digest(168 * 12)
        ctr, pos = 0, 0
        while ctr < 256:
            if pos % 168 == 0:
                blocks[e] += 1
            b0, b1, b2 = stream[pos], stream[pos + 1], stream[pos + 2]
            pos += 3
            for d in (b0 | ((b1 & 15) << 8), (b1 >> 4) | (b2 << 4)):
                if d < KQ and ctr < 256:
                    out[e, ctr] = d
                    ctr += 1
    return {"a_hat": out.reshape(-1), "nblocks": blocks}


def mlkem_shake128_rej_uniform() -> KernelSpec:
    return _spec(
        "mlkem_shake128_rej_uniform",
        idiom="ML-KEM matrix expansion, an entry per item: SHAKE128 absorb into 25 ulong lanes, Keccak-f[1600] "
              "(24 rounds, __constant tables, rotate), squeeze blocks until 256 12-bit candidates below 3329 accepted",
        sizes={"S": [8, 256, 6144], "K": [2, 3, 4]}, check={"S": 3, "K": 3},
        args=[Arg("nentries", "scalar", "int32", "S * K * K"), Arg("k", "scalar", "int32", "K"),
              Arg("rho", "buffer", "uint32", "S * 8"),
              Arg("a_hat", "buffer", "int16", "S * K * K * 256", "out"),
              Arg("nblocks", "buffer", "int32", "S * K * K", "out")],
        gsize=[round_up("S * K * K")], local=L1, reference=_ref_xof, make_inputs=_inputs_xof)


# --- floating-point LLL of many small q-ary bases, fp64 ----------------------------------------------------------
def _inputs_lll(rng, sz):
    """NB q-ary bases of dimension N: b_0 = (LLL_Q, 0, ..), b_i = (a_i, e_i) for uniform a_i in [0, LLL_Q)."""
    nb, n = sz["NB"], sz["N"]
    bas = np.zeros((nb, n, n), dtype=np.int64)
    bas[:, 0, 0] = LLL_Q
    bas[:, 1:, 0] = rng.integers(0, LLL_Q, (nb, n - 1))
    bas[:, np.arange(1, n), np.arange(1, n)] = 1
    return {"basis_in": bas.reshape(-1).astype(np.int32)}


def _gso_from(n, start, b, bs, mu, bn):
    for i in range(start, n):
        bs[i] = list(b[i])
        for j in range(i):
            d = 0.0
            for c in range(n):
                d += b[i][c] * bs[j][c]
            mu[i][j] = d / bn[j]
            for c in range(n):
                bs[i][c] -= mu[i][j] * bs[j][c]
        s = 0.0
        for c in range(n):
            s += bs[i][c] * bs[i][c]
        bn[i] = s


def _lll_one(rows, n, delta, max_iter):
    """The kernel's LLL on one basis, the same operations in the same order (Python floats are IEEE doubles)."""
    b = [[float(x) for x in r] for r in rows]
    bs, mu, bn = [[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)], [0.0] * n
    _gso_from(n, 0, b, bs, mu, bn)
    k, it, swaps = 1, 0, 0
    while k < n and it < max_iter:
        it += 1
        for j in range(k - 1, -1, -1):
            q = float(np.rint(mu[k][j]))
            if q != 0.0:
                for c in range(n):
                    b[k][c] -= q * b[j][c]
                for m in range(j):
                    mu[k][m] -= q * mu[j][m]
                mu[k][j] -= q
        m = mu[k][k - 1]
        if bn[k] >= (delta - m * m) * bn[k - 1]:
            k += 1
        else:
            b[k], b[k - 1] = b[k - 1], b[k]
            swaps += 1
            _gso_from(n, k - 1, b, bs, mu, bn)
            k = max(k - 1, 1)
    s = 0.0
    for c in range(n):
        s += b[0][c] * b[0][c]
    return [int(x) for r in b for x in r], s, swaps


def _ref_lll(inp, sz):
    nb, n = int(inp["nbases"]), int(inp["n"])
    delta, max_iter = float(inp["delta"]), int(inp["max_iter"])
    src = np.asarray(inp["basis_in"]).astype(np.int64)
    out, norm0, nsw = np.zeros(src.size, dtype=np.int64), np.zeros(nb), np.zeros(nb, dtype=np.int64)
    for i in range(nb):
        red, norm0[i], nsw[i] = _lll_one(src[i * n * n:(i + 1) * n * n].reshape(n, n), n, delta, max_iter)
        out[i * n * n:(i + 1) * n * n] = red
    return {"basis_out": out, "norm0": norm0, "nswaps": nsw}


def lll_qary_small_bases_fp64() -> KernelSpec:
    return _spec(
        "lll_qary_small_bases_fp64", tol=(1e-12, 1e-12), precision="fp64",
        idiom="floating-point LLL of small q-ary bases in fp64, a basis per item: private Gram-Schmidt mu / B, "
              "rint size reduction, Lovasz test -> advance or swap + partial re-orthogonalisation, step bound",
        sizes={"NB": [64, 2048, 49152], "N": [4, 6, 8]}, check={"NB": 20, "N": 5},
        args=[Arg("nbases", "scalar", "int32", "NB"), Arg("n", "scalar", "int32", "N"),
              Arg("max_iter", "scalar", "int32", str(MAX_ITER)), Arg("delta", "scalar", "float64", str(DELTA)),
              Arg("basis_in", "buffer", "int32", "NB * N * N"),
              Arg("basis_out", "buffer", "int32", "NB * N * N", "out"),
              Arg("norm0", "buffer", "float64", "NB", "out"),
              Arg("nswaps", "buffer", "int32", "NB", "out")],
        gsize=[round_up("NB")], local=L1, reference=_ref_lll, make_inputs=_inputs_lll)


#: this group's builders, in the order of ``specs()``
BUILDERS = (mlkem_shake128_rej_uniform, lll_qary_small_bases_fp64)
