"""Holdout13 kernels, group power (written by hand; see docs/HOLDOUT13.md): two steady-state analyses of a
transmission grid as a GPU power-flow or security tool runs them: the power mismatch of Newton-Raphson power flow in
fp64, a work-item per bus gathering its row of the complex bus admittance matrix (CSR, double2 (G, B) entries) with
a sincos of every angle difference, P and Q masked by the bus type (PQ, PV, slack: an early exit); and N-1
contingency screening with line outage distribution factors on a 2-D (monitored branch, word of 32 outages)
NDRange, the post-outage flow of each pair against the branch rating, overloads packed into uint32 bit words and
the worst loading of each word beside them. Neither uses atomics or __local memory; the group's other two kernels
are in :mod:`.power_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, round_up

PF_NNZ = "N * (2 * K + 1)"  # pf_mismatch_polar_csr_fp64: K branches leave every bus: N diagonal + 2NK entries
PF_PV = 0.2  # pf_mismatch_polar_csr_fp64: share of generator (PV) buses; bus 0 is the slack
LODF_WORDS = "(K + 31) // 32"  # lodf_n1_screen_bits_2d: uint32 words of 32 outages
LODF_BIG = 0.03  # lodf_n1_screen_bits_2d: share of strongly coupled (monitored, outage) pairs


# --- Newton power flow: per-bus P / Q mismatch from the CSR admittance matrix, fp64 ------------------------------
def _pf_offsets(rng, n, k):
    """Every bus i gets K outgoing branches to i + d (mod N), the r-th offset d drawn from the r-th of disjoint
    ranges 1, [2, 3 + N/256), [3 + N/256, 4 + N/16), [4 + N/16, N/2): a numbering that keeps most lines local
    with a few long ones, and no branch twice."""
    bounds = [1, 2, 3 + n // 256, 4 + n // 16, n // 2]
    return np.stack([rng.integers(bounds[r], max(bounds[r + 1], bounds[r] + 1), n) for r in range(k)], axis=1)


def _inputs_pf(rng, sz):
    """Lines of r in [0.005, 0.05), x in [0.02, 0.3) per unit and total line charging b in [0, 0.1); voltages
    near 1 per unit with angles within +-0.3 rad; specified P, Q in [-1, 1)."""
    n, k = sz["N"], sz["K"]
    src = np.repeat(np.arange(n, dtype=np.int64), k)
    dst = (src + _pf_offsets(rng, n, k).reshape(-1)) % n
    y = 1.0 / (rng.uniform(0.005, 0.05, n * k) + 1j * rng.uniform(0.02, 0.3, n * k))
    half_b = 0.5j * rng.uniform(0.0, 0.1, n * k)
    diag = np.bincount(src, (y + half_b).real, n) + np.bincount(dst, (y + half_b).real, n) \
        + 1j * (np.bincount(src, (y + half_b).imag, n) + np.bincount(dst, (y + half_b).imag, n))
    rows = np.concatenate([np.arange(n), src, dst])
    cols = np.concatenate([np.arange(n), dst, src])
    vals = np.concatenate([diag, -y, -y])
    order = np.argsort(rows * n + cols)
    yval = np.empty((rows.size, 2))
    yval[:, 0], yval[:, 1] = vals.real[order], vals.imag[order]
    rowptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=rowptr[1:])
    btype = np.where(rng.random(n) < PF_PV, 1, 0)
    btype[0] = 2
    return {"rowptr": rowptr, "colidx": cols[order], "yval": yval,
            "vm": rng.uniform(0.95, 1.05, n), "va": rng.uniform(-0.3, 0.3, n),
            "pspec": rng.uniform(-1.0, 1.0, n), "qspec": rng.uniform(-1.0, 1.0, n), "btype": btype}


def _ref_pf(inp, sz):
    n = sz["N"]
    rowptr = np.asarray(inp["rowptr"]).astype(np.int64)
    row = np.repeat(np.arange(n), np.diff(rowptr))
    col = np.asarray(inp["colidx"]).astype(np.int64)
    y = _f64(inp["yval"]).reshape(-1, 2)
    vm, va = _f64(inp["vm"]), _f64(inp["va"])
    th = va[row] - va[col]
    c, s = np.cos(th), np.sin(th)
    p = vm * np.bincount(row, vm[col] * (y[:, 0] * c + y[:, 1] * s), n)
    q = vm * np.bincount(row, vm[col] * (y[:, 0] * s - y[:, 1] * c), n)
    btype = np.asarray(inp["btype"])
    return {"dp": np.where(btype == 2, 0.0, _f64(inp["pspec"]) - p),
            "dq": np.where(btype == 0, _f64(inp["qspec"]) - q, 0.0)}


def pf_mismatch_polar_csr_fp64() -> KernelSpec:
    return _spec(
        "pf_mismatch_polar_csr_fp64", tol=FP64, precision="fp64",
        idiom="Newton power-flow mismatch in fp64, an item per bus: CSR row of double2 admittances, sincos of the "
              "angle difference per entry, P and Q sums, masked by bus type (slack: early exit)",
        sizes={"N": [4096, 32768, 131072, 524288, 1048576], "K": [2, 4]}, check={"N": 300, "K": 3},
        args=[Arg("nbus", "scalar", "int32", "N"), Arg("rowptr", "buffer", "int32", "N + 1"),
              Arg("colidx", "buffer", "int32", PF_NNZ), Arg("yval", "buffer", "float64", f"2 * {PF_NNZ}"),
              Arg("vm", "buffer", "float64", "N"), Arg("va", "buffer", "float64", "N"),
              Arg("pspec", "buffer", "float64", "N"), Arg("qspec", "buffer", "float64", "N"),
              Arg("btype", "buffer", "int32", "N"), Arg("dp", "buffer", "float64", "N", "out"),
              Arg("dq", "buffer", "float64", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_pf, make_inputs=_inputs_pf)


# --- N-1 contingency screening with LODFs: overload bits per (monitored branch, 32 outages) ----------------------
def _inputs_lodf(rng, sz):
    """2M branches with base flows in [-1, 1) (per unit of a common base); M monitored branches (sorted, distinct)
    rated 1.05 .. 1.6 x their base flow magnitude (at least 0.2); K outages, distinct branches where K <= 2M. LODFs
    mostly small (normal, sd 0.05), a LODF_BIG share strongly coupled (uniform in [-1, 1))."""
    m, k = sz["M"], sz["K"]
    flow = rng.uniform(-1.0, 1.0, 2 * m)
    mon = np.sort(rng.choice(2 * m, m, replace=False))
    rating = np.maximum(np.abs(flow[mon]) * rng.uniform(1.05, 1.6, m), 0.2)
    lodf = rng.standard_normal((k, m), dtype=np.float32) * np.float32(0.05)
    big = rng.random((k, m), dtype=np.float32) < LODF_BIG
    lodf[big] = rng.uniform(-1.0, 1.0, int(big.sum()))
    return {"outline": rng.choice(2 * m, k, replace=k > 2 * m), "monline": mon, "lodf": lodf,
            "flow": flow, "rating": rating}


def _ref_lodf(inp, sz):
    """Post-outage flows in float64 from the float32 data (a flag flips only within an ulp of the rating)."""
    m, k = sz["M"], sz["K"]
    nwords = (k + 31) // 32
    out = np.asarray(inp["outline"]).astype(np.int64)
    mon = np.asarray(inp["monline"]).astype(np.int64)
    flow = _f64(np.asarray(inp["flow"], dtype=np.float32))
    lim = _f64(np.asarray(inp["rating"], dtype=np.float32))
    lodf = _f64(np.asarray(inp["lodf"], dtype=np.float32)).reshape(k, m)
    post = np.abs(flow[mon][None, :] + lodf * flow[out][:, None])
    post[out[:, None] == mon[None, :]] = 0.0
    pad = np.zeros((nwords * 32, m))
    pad[:k] = post
    over = (pad > lim[None, :]).reshape(nwords, 32, m).astype(np.uint64)
    bits = (over << np.arange(32, dtype=np.uint64)[None, :, None]).sum(axis=1)
    peak = np.maximum(pad.reshape(nwords, 32, m).max(axis=1), np.abs(flow[mon])[None, :])
    return {"viol": bits, "worst": peak / lim[None, :]}


def lodf_n1_screen_bits_2d() -> KernelSpec:
    return _spec(
        "lodf_n1_screen_bits_2d", tol=SUMS,
        idiom="N-1 LODF contingency screening, 2-D (monitored branch, 32-outage word): post-outage flow "
              "f_m + LODF * f_k with branch gathers, overloads packed into uint32 bits, worst loading per word",
        sizes={"M": [512, 2048, 8192, 32768, 131072], "K": [256, 2048, 8192]}, check={"M": 96, "K": 200},
        constraints=["M * K <= 2**26"],
        args=[Arg("nmon", "scalar", "int32", "M"), Arg("nout", "scalar", "int32", "K"),
              Arg("nwords", "scalar", "int32", LODF_WORDS), Arg("outline", "buffer", "int32", "K"),
              Arg("monline", "buffer", "int32", "M"), Arg("lodf", "buffer", "float32", "K * M"),
              Arg("flow", "buffer", "float32", "2 * M"), Arg("rating", "buffer", "float32", "M"),
              Arg("viol", "buffer", "uint32", f"({LODF_WORDS}) * M", "out"),
              Arg("worst", "buffer", "float32", f"({LODF_WORDS}) * M", "out")],
        gsize=[round_up("M", 32), round_up(LODF_WORDS, 16)], local=L2, reference=_ref_lodf,
        make_inputs=_inputs_lodf)


#: this group's builders, in the order of ``specs()``
BUILDERS = (pf_mismatch_polar_csr_fp64, lodf_n1_screen_bits_2d)
