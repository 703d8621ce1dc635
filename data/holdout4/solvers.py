"""Holdout4 kernels: numerical solvers and linear algebra as scientists write them (a red-black SOR sweep with
obstacle flags, Clenshaw sums of Chebyshev series, a fused preconditioned-CG update, closed-form symmetric 3x3
eigenvalues, a band matrix-vector product in LAPACK storage and Sturm-sequence bisection)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, pow2, round_up


# --- red-black SOR, one colour per launch, int32 obstacle flags, 2-D --------------------------------------
def _inputs_sor(rng, sz):
    return {"flag": (rng.random(sz["NX"] * sz["NY"]) < 0.15).astype(np.int32)}


def _ref_sor(inp, sz):
    nx, ny = sz["NX"], sz["NY"]
    u = _f64(inp["u"]).reshape(ny, nx).copy()
    fluid = inp["flag"].reshape(ny, nx) == 0
    total, cnt = np.zeros_like(u), np.zeros(u.shape, dtype=np.int64)
    for shift, axis in ((1, 0), (-1, 0), (1, 1), (-1, 1)):  # the interior never sees the wrap of np.roll
        wet = np.roll(fluid, shift, axis)
        total += np.where(wet, np.roll(u, shift, axis), 0.0)
        cnt += wet
    jj, ii = np.mgrid[0:ny, 0:nx]
    inner = (ii > 0) & (jj > 0) & (ii < nx - 1) & (jj < ny - 1)
    upd = inner & fluid & (((ii + jj) & 1) == int(inp["colour"])) & (cnt > 0)
    gs = (total + float(inp["h2"]) * _f64(inp["f"]).reshape(ny, nx)) / np.maximum(cnt, 1)
    u[upd] += float(inp["omega"]) * (gs[upd] - u[upd])
    return {"u": u}


def redblack_sor_flags() -> KernelSpec:
    return _spec(
        "redblack_sor_flags", precision="fp32",
        idiom="one colour of a red-black SOR sweep in place, full NDRange with a parity return, int32 obstacle flags",
        sizes={"NX": [64, 256, 1024, 4096], "NY": [64, 256, 1024, 4096]}, check={"NX": 37, "NY": 29},
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NY"),
              Arg("colour", "scalar", "int32", "1"), Arg("omega", "scalar", "float32", "1.6"),
              Arg("h2", "scalar", "float32", "0.01"), Arg("flag", "buffer", "int32", "NX * NY"),
              Arg("f", "buffer", "float32", "NX * NY"), Arg("u", "buffer", "float32", "NX * NY", "inout")],
        gsize=[round_up("NX", 32), round_up("NY", 16)], local=L2, reference=_ref_sor, make_inputs=_inputs_sor)


# --- Chebyshev series by the Clenshaw recurrence, (point, series) NDRange, fp64 ---------------------------
def _inputs_cheb(rng, sz):
    return {"x": rng.uniform(-2.0, 3.0, sz["n"])}


def _ref_cheb(inp, sz):
    lo, hi = float(inp["a"]), float(inp["b"])
    t = (2.0 * _f64(inp["x"]) - lo - hi) / (hi - lo)
    coef = _f64(inp["coef"]).reshape(sz["S"], sz["M"])
    return {"y": np.polynomial.chebyshev.chebval(t, coef.T)}  # (S, n)


def clenshaw_cheb_fp64() -> KernelSpec:
    return _spec(
        "clenshaw_cheb_fp64", precision="fp64",
        idiom="Chebyshev series by backward Clenshaw recurrence in a helper, 2-D (point, series), runtime length, fp64",
        sizes={"n": pow2(10, 20, 2), "S": [1, 32], "M": [12, 100]}, check={"n": 500, "S": 3, "M": 9},
        constraints=["n * S <= 2**22"],
        args=[Arg("npts", "scalar", "int32", "n"), Arg("m", "scalar", "int32", "M"),
              Arg("a", "scalar", "float64", "-2.0"), Arg("b", "scalar", "float64", "3.0"),
              Arg("x", "buffer", "float64", "n"), Arg("coef", "buffer", "float64", "S * M"),
              Arg("y", "buffer", "float64", "S * n", "out")],
        gsize=[round_up("n", 256), "S"], local=[[64, 1], [256, 1]], reference=_ref_cheb, make_inputs=_inputs_cheb,
        tol=FP64)


# --- fused PCG update with per-group partial r.z, several right-hand sides --------------------------------
def _inputs_pcg(rng, sz):
    return {"alpha": rng.uniform(0.1, 1.0, sz["R"]), "inv_diag": rng.uniform(0.2, 1.0, sz["n"])}


def _ref_pcg(inp, sz):
    n, nrhs = sz["n"], sz["R"]
    alpha = _f64(inp["alpha"])[:, None]
    x = _f64(inp["x"]).reshape(nrhs, n) + alpha * _f64(inp["p"]).reshape(nrhs, n)
    r = _f64(inp["r"]).reshape(nrhs, n) - alpha * _f64(inp["q"]).reshape(nrhs, n)
    z = r * _f64(inp["inv_diag"])[None, :]
    groups = (n + 255) // 256
    rz = np.zeros((nrhs, groups * 256))
    rz[:, :n] = r * z
    return {"x": x, "r": r, "z": z, "partial": rz.reshape(nrhs, groups, 256).sum(axis=2)}


def pcg_update_partials() -> KernelSpec:
    return _spec(
        "pcg_update_partials", precision="fp32",
        idiom="fused PCG update x, r, z = M^-1 r for several systems, then a __local tree of r.z per (system, group)",
        sizes={"n": pow2(10, 24), "R": [1, 2, 8]}, check={"n": 1000, "R": 3}, constraints=["n * R <= 2**24"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("alpha", "buffer", "float32", "R"),
              Arg("p", "buffer", "float32", "n * R"), Arg("q", "buffer", "float32", "n * R"),
              Arg("inv_diag", "buffer", "float32", "n"), Arg("x", "buffer", "float32", "n * R", "inout"),
              Arg("r", "buffer", "float32", "n * R", "inout"), Arg("z", "buffer", "float32", "n * R", "out"),
              Arg("partial", "buffer", "float32", "R * ((n + 255) // 256)", "out")],
        gsize=[round_up("n"), "R"], local=[[256, 1]], reference=_ref_pcg, make_inputs=_inputs_pcg, tol=SUMS)


# --- eigenvalues of symmetric 3x3 matrices, closed-form trigonometric method, fp64 ------------------------
_UPPER3 = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]


def _inputs_eig3(rng, sz):
    a = rng.uniform(-2.0, 2.0, (sz["n"], 6))
    a[::16, [1, 2, 4]] = 0.0  # every 16th matrix is diagonal: the kernel's sorting branch
    return {"a": a}


def _ref_eig3(inp, sz):
    p = _f64(inp["a"]).reshape(sz["n"], 6)
    mats = np.zeros((sz["n"], 3, 3))
    for k, (r, c) in enumerate(_UPPER3):
        mats[:, r, c] = mats[:, c, r] = p[:, k]
    return {"eig": np.linalg.eigvalsh(mats)}


def sym3x3_eig_trig_fp64() -> KernelSpec:
    return _spec(
        "sym3x3_eig_trig_fp64", precision="fp64",
        idiom="batched symmetric 3x3 eigenvalues in closed form: shift, scale, det, acos/cos, clamp and diagonal branch",
        sizes={"n": pow2(10, 21)}, check={"n": 1000},
        args=[Arg("nmat", "scalar", "int32", "n"), Arg("a", "buffer", "float64", "6 * n"),
              Arg("eig", "buffer", "float64", "3 * n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_eig3, make_inputs=_inputs_eig3, tol=FP64)


# --- band matrix-vector product, LAPACK general band storage --------------------------------------------
def _band_rows(sz):
    """(column j, band row r) of every stored entry of ab, and the matrix row i = j + r - ku it holds."""
    n, ld = sz["n"], sz["KL"] + sz["KU"] + 1
    j, r = np.divmod(np.arange(n * ld), ld)
    return j, r, j + r - sz["KU"]


def _inputs_gbmv(rng, sz):
    _, _, i = _band_rows(sz)
    ab = rng.uniform(-1.0, 1.0, i.size)
    ab[(i < 0) | (i >= sz["n"])] = 1.0e4  # the unused corners of the band storage: never read
    return {"ab": ab}


def _ref_gbmv(inp, sz):
    j, _, i = _band_rows(sz)
    ok = (i >= 0) & (i < sz["n"])
    ax = np.zeros(sz["n"])
    np.add.at(ax, i[ok], _f64(inp["ab"])[ok] * _f64(inp["x"])[j[ok]])
    return {"y": float(inp["alpha"]) * ax + float(inp["beta"]) * _f64(inp["y"])}


def gbmv_band_lapack() -> KernelSpec:
    return _spec(
        "gbmv_band_lapack", precision="fp32",
        idiom="GBMV in LAPACK band storage ab(ku + i - j, j): a row per item, loop clipped to the band by kl, ku",
        sizes={"n": [1000, 8192, 65536, 1048576], "KL": [1, 8, 64], "KU": [2, 32]},
        check={"n": 300, "KL": 3, "KU": 5}, constraints=["n * (KL + KU + 1) <= 2**27"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("kl", "scalar", "int32", "KL"),
              Arg("ku", "scalar", "int32", "KU"), Arg("ldab", "scalar", "int32", "KL + KU + 1"),
              Arg("alpha", "scalar", "float32", "1.25"), Arg("beta", "scalar", "float32", "-0.5"),
              Arg("ab", "buffer", "float32", "(KL + KU + 1) * n"), Arg("x", "buffer", "float32", "n"),
              Arg("y", "buffer", "float32", "n", "inout")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_gbmv, make_inputs=_inputs_gbmv, tol=SUMS)


# --- tridiagonal eigenvalues by Sturm-count bisection, fp64 ---------------------------------------------
def _ref_sturm(inp, sz):
    b, n = sz["B"], sz["N"]
    d, e = _f64(inp["d"]).reshape(b, n), _f64(inp["e"]).reshape(b, n)
    t = np.zeros((b, n, n))
    k = np.arange(n)
    t[:, k, k] = d
    t[:, k[1:], k[:-1]] = t[:, k[:-1], k[1:]] = e[:, 1:]
    return {"evals": np.linalg.eigvalsh(t)}


def sturm_bisect_tridiag_fp64() -> KernelSpec:
    return _spec(
        "sturm_bisect_tridiag_fp64", precision="fp64",
        idiom="k-th eigenvalue of a batched symmetric tridiagonal per item: Gershgorin bounds, bisection on Sturm counts",
        sizes={"N": [16, 64, 256, 1024], "B": [1, 16, 256, 4096]}, check={"N": 20, "B": 7},
        constraints=["B * N * N <= 2**22"],
        args=[Arg("nmat", "scalar", "int32", "B"), Arg("n", "scalar", "int32", "N"),
              Arg("iters", "scalar", "int32", "50"), Arg("d", "buffer", "float64", "B * N"),
              Arg("e", "buffer", "float64", "B * N"), Arg("evals", "buffer", "float64", "B * N", "out")],
        gsize=[round_up("B * N")], local=L1, reference=_ref_sturm, tol=FP64)


#: this group's builders, in the order of ``specs()``
BUILDERS = (redblack_sor_flags, clenshaw_cheb_fp64, pcg_update_partials, sym3x3_eig_trig_fp64, gbmv_band_lapack,
            sturm_bisect_tridiag_fp64)
