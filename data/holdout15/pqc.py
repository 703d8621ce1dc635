"""Holdout15 kernels, group pqc (written by hand; see docs/HOLDOUT15.md): the arithmetic of module-lattice
post-quantum schemes over their rings of 256 coefficients. The forward number-theoretic transform of ML-DSA
(Dilithium) polynomials over Z_8380417 in uint32, a work-group per polynomial (looping by get_num_groups) with the
coefficients and the Montgomery-form twiddles in __local memory and the eight Cooley-Tukey layers between
barriers, zeta * a by a 32-bit Montgomery reduction of the 64-bit product; and the NTT-domain matrix-vector product
t = A o s + e of ML-KEM (Kyber) key generation for a batch of keys on a 2-D (coefficient pair, key row) NDRange in
int16, every work-item accumulating k base multiplications modulo X^2 - gamma with Barrett reductions by mul_hi.
Neither uses atomics; the group's other two kernels are in :mod:`.pqc_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _spec, round_up

DQ = 8380417  # mldsa_ntt_mont_local_u32: the ML-DSA modulus
DZETA = 1753  # mldsa_ntt_mont_local_u32: a primitive 512-th root of unity mod DQ
KQ = 3329  # mlkem_basemul_matvec_2d: the ML-KEM modulus
KZETA = 17  # mlkem_basemul_matvec_2d: a primitive 256-th root of unity mod KQ


def _brv(x: int, bits: int) -> int:
    return int(format(x, f"0{bits}b")[::-1], 2)


# --- ML-DSA forward NTT, a work-group per polynomial, layers in __local between barriers ------------------------
def _zetas_std():
    """zetas[k] = DZETA^brv8(k) mod DQ (k = 0 .. 255), the standard-domain twiddles."""
    return np.array([pow(DZETA, _brv(k, 8), DQ) for k in range(256)], dtype=np.int64)


def _inputs_ntt(rng, sz):
    """P polynomials of uniform coefficients in [0, DQ); the twiddles in Montgomery form (zeta * 2^32 mod DQ)."""
    return {"zetas": (_zetas_std() * 2**32 % DQ).astype(np.uint32),
            "coef_in": rng.integers(0, DQ, sz["P"] * 256, dtype=np.int64).astype(np.uint32)}


def _ref_ntt(inp, sz):
    npoly = int(inp["npoly"])
    a = np.asarray(inp["coef_in"]).astype(np.int64)[:npoly * 256].reshape(npoly, 256).copy()
    z = _zetas_std()
    k, ln = 0, 128
    while ln >= 1:
        for start in range(0, 256, 2 * ln):
            k += 1
            t = z[k] * a[:, start + ln:start + 2 * ln] % DQ
            lo = a[:, start:start + ln].copy()
            a[:, start + ln:start + 2 * ln] = (lo - t) % DQ
            a[:, start:start + ln] = (lo + t) % DQ
        ln //= 2
    return {"coef_out": a.reshape(-1)}


def mldsa_ntt_mont_local_u32() -> KernelSpec:
    return _spec(
        "mldsa_ntt_mont_local_u32",
        idiom="ML-DSA forward NTT over Z_8380417 in uint32, a work-group per polynomial (get_num_groups loop): "
              "Montgomery twiddles and 256 coefficients in __local, 8 butterfly layers between barriers",
        sizes={"P": [32, 96, 256, 768, 2048, 6144, 16384, 49152, 131072]}, check={"P": 44},
        args=[Arg("npoly", "scalar", "int32", "P"), Arg("zetas", "buffer", "uint32", "256"),
              Arg("coef_in", "buffer", "uint32", "P * 256"),
              Arg("coef_out", "buffer", "uint32", "P * 256", "out"),
              Arg("zl", "local", "uint32", "256"), Arg("a", "local", "uint32", "256")],
        gsize=["64 * min(P, 8192)"], local=L1, reference=_ref_ntt, make_inputs=_inputs_ntt)


# --- ML-KEM t = A o s + e in the NTT domain, 2-D over (coefficient pair, key row) ------------------------------
def _gammas():
    return np.array([pow(KZETA, 2 * _brv(x, 7) + 1, KQ) for x in range(128)], dtype=np.int64)


def _inputs_basemul(rng, sz):
    """B keys of rank K: A (K x K polynomials), s and e (K each), every coefficient uniform in [0, KQ)."""
    b, k = sz["B"], sz["K"]

    def coef(n):
        return rng.integers(0, KQ, n, dtype=np.int64).astype(np.int16)

    return {"gamma": _gammas().astype(np.int16), "a_hat": coef(b * k * k * 256), "s_hat": coef(b * k * 256),
            "e_hat": coef(b * k * 256)}


def _ref_basemul(inp, sz):
    nrows, k = int(inp["nrows"]), int(inp["k"])
    nkey = nrows // k
    a = np.asarray(inp["a_hat"]).astype(np.int64)[:nrows * k * 256].reshape(nkey, k, k, 128, 2)
    s = np.asarray(inp["s_hat"]).astype(np.int64)[:nrows * 256].reshape(nkey, 1, k, 128, 2)
    e = np.asarray(inp["e_hat"]).astype(np.int64)[:nrows * 256].reshape(nkey, k, 128, 2)
    g = _gammas()
    r0 = (a[..., 0] * s[..., 0] + (a[..., 1] * s[..., 1] % KQ) * g).sum(axis=2) + e[..., 0]
    r1 = (a[..., 0] * s[..., 1] + a[..., 1] * s[..., 0]).sum(axis=2) + e[..., 1]
    return {"t_hat": np.stack([r0 % KQ, r1 % KQ], -1).reshape(-1)}


def mlkem_basemul_matvec_2d() -> KernelSpec:
    return _spec(
        "mlkem_basemul_matvec_2d",
        idiom="ML-KEM t = A o s + e in the NTT domain, 2-D (coefficient pair, key row): int16 loads, k degree-1 "
              "base products mod X^2 - gamma accumulated with mul_hi Barrett reductions mod 3329",
        sizes={"B": [16, 128, 1024, 4096, 16384], "K": [2, 3, 4]}, check={"B": 7, "K": 3},
        args=[Arg("nrows", "scalar", "int32", "B * K"), Arg("k", "scalar", "int32", "K"),
              Arg("gamma", "buffer", "int16", "128"), Arg("a_hat", "buffer", "int16", "B * K * K * 256"),
              Arg("s_hat", "buffer", "int16", "B * K * 256"), Arg("e_hat", "buffer", "int16", "B * K * 256"),
              Arg("t_hat", "buffer", "int16", "B * K * 256", "out")],
        gsize=["128", round_up("B * K", 16)], local=L2, reference=_ref_basemul, make_inputs=_inputs_basemul)


#: this group's builders, in the order of ``specs()``
BUILDERS = (mldsa_ntt_mont_local_u32, mlkem_basemul_matvec_2d)
