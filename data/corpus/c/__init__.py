"""The C corpus: tile kernels of a sparse direct solver as plain C99 functions, for CPU cores.

Five families (``gemm``, ``syrk``, ``trsm``, ``potrf``, ``getrf``), four variants each (``naive`` plain
loops, ``vec`` a vectorisable loop order, ``blocked`` KG_NB=64 cache blocks, ``omp`` OpenMP
``parallel for``), two element types (``fp32``: symbols ``<family>_<variant>_s``, ``fp64``:
``..._d``): 40 kernels. Each family is one ``<family>.c`` file compiled twice (``-DKG_FP32`` or not);
matrices are column-major with explicit leading dimensions (``kg_c.h``).

For each kernel the catalog gives its signature, the exact flop count of the algorithm (LAPACK's
operation counts; square roots and divisions count as one flop each), the compulsory bytes (every
operand read once, every output written once), how to make valid inputs (SPD for POTRF, diagonally
dominant for TRSM and GETRF, which does not pivot) and a numpy reference.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

C_DIR = Path(__file__).resolve().parent
FAMILIES = ("gemm", "syrk", "trsm", "potrf", "getrf")
VARIANTS = ("naive", "vec", "blocked", "omp")
DTYPES = {"fp32": ("_s", np.float32), "fp64": ("_d", np.float64)}

#: Argument order of each family's functions: a size name (int), an array name (pointer) or
#: ``ld<array>`` (the array's leading dimension: its number of rows, int).
SIGNATURES = {
    "gemm": ("m", "n", "k", "A", "ldA", "B", "ldB", "C", "ldC"),
    "syrk": ("n", "k", "A", "ldA", "C", "ldC"),
    "trsm": ("m", "n", "L", "ldL", "B", "ldB"),
    "potrf": ("n", "A", "ldA"),
    "getrf": ("m", "n", "A", "ldA"),
}
#: arrays each family writes (the rest are read only)
OUTPUTS = {"gemm": ("C",), "syrk": ("C",), "trsm": ("B",), "potrf": ("A",), "getrf": ("A",)}
DESCRIPTIONS = {
    "gemm": "C (m x n) -= A (m x k) * B (n x k)^T",
    "syrk": "lower(C) (n x n) -= A (n x k) * A^T",
    "trsm": "B (m x n) := B * L^-T, L (n x n) lower, diagonally dominant",
    "potrf": "A (n x n, SPD) = L L^T in place, lower",
    "getrf": "A (m x n, m >= n, diagonally dominant) = L U in place, no pivoting",
}
C_SIGNATURES = {
    "gemm": "void gemm_<v>_<s|d>(int m, int n, int k, const REAL *A, int lda, const REAL *B, int ldb, REAL *C, int ldc)",
    "syrk": "void syrk_<v>_<s|d>(int n, int k, const REAL *A, int lda, REAL *C, int ldc)",
    "trsm": "void trsm_<v>_<s|d>(int m, int n, const REAL *L, int ldl, REAL *B, int ldb)",
    "potrf": "void potrf_<v>_<s|d>(int n, REAL *A, int lda)",
    "getrf": "void getrf_<v>_<s|d>(int m, int n, REAL *A, int lda)",
}
FLOP_FORMULAS = {
    "gemm": "2 m n k",
    "syrk": "k n (n + 1)",
    "trsm": "m n^2",
    "potrf": "n (n + 1) (2n + 1) / 6  (= n^3/3 + n^2/2 + n/6, n square roots included)",
    "getrf": "sum_{j<n} [(m-j-1) + 1 + 2 (m-j-1)(n-j-1)]  (= m n^2 - n^3/3 - n^2/2 + 5n/6 for m = n)",
}
BYTE_FORMULAS = {
    "gemm": "s (m k + n k + m n) loaded, s m n stored",
    "syrk": "s (n k + n (n + 1) / 2) loaded, s n (n + 1) / 2 stored",
    "trsm": "s (n (n + 1) / 2 + m n) loaded, s m n stored",
    "potrf": "s n (n + 1) / 2 loaded and stored",
    "getrf": "s m n loaded and stored",
}


def flops(family: str, s: dict) -> int:
    """The exact flop count of a call with sizes ``s`` (see FLOP_FORMULAS)."""
    if family == "gemm":
        return 2 * s["m"] * s["n"] * s["k"]
    if family == "syrk":
        return s["k"] * s["n"] * (s["n"] + 1)
    if family == "trsm":
        return s["m"] * s["n"] ** 2
    if family == "potrf":
        n = s["n"]
        return n * (n + 1) * (2 * n + 1) // 6
    if family == "getrf":
        m, n = s["m"], s["n"]
        return sum((m - j - 1) + 1 + 2 * (m - j - 1) * (n - j - 1) for j in range(min(m, n)))
    raise KeyError(family)


def transcendentals(family: str, s: dict) -> int:
    """Square roots of a call (POTRF's diagonal); 0 for the other families."""
    return s["n"] if family == "potrf" else 0


def bytes_moved(family: str, s: dict, itemsize: int) -> tuple[int, int]:
    """(loaded, stored) compulsory bytes of a call (see BYTE_FORMULAS)."""
    if family == "gemm":
        m, n, k = s["m"], s["n"], s["k"]
        return itemsize * (m * k + n * k + m * n), itemsize * m * n
    if family == "syrk":
        n, k = s["n"], s["k"]
        tri = n * (n + 1) // 2
        return itemsize * (n * k + tri), itemsize * tri
    if family == "trsm":
        m, n = s["m"], s["n"]
        return itemsize * (n * (n + 1) // 2 + m * n), itemsize * m * n
    if family == "potrf":
        tri = s["n"] * (s["n"] + 1) // 2
        return itemsize * tri, itemsize * tri
    if family == "getrf":
        return itemsize * s["m"] * s["n"], itemsize * s["m"] * s["n"]
    raise KeyError(family)


def shapes(family: str, s: dict) -> dict:
    """Each array's (rows, columns)."""
    if family == "gemm":
        return {"A": (s["m"], s["k"]), "B": (s["n"], s["k"]), "C": (s["m"], s["n"])}
    if family == "syrk":
        return {"A": (s["n"], s["k"]), "C": (s["n"], s["n"])}
    if family == "trsm":
        return {"L": (s["n"], s["n"]), "B": (s["m"], s["n"])}
    if family == "potrf":
        return {"A": (s["n"], s["n"])}
    if family == "getrf":
        return {"A": (s["m"], s["n"])}
    raise KeyError(family)


def leading_dims(family: str, s: dict) -> dict:
    """Each array's leading dimension (its allocated rows): ``s["ld<array>"]`` (``lda``, ``ldb``, ``ldc``,
    ``ldl``: the C parameter names) when the launch gives one, else the array's rows (a tight array).
    ValueError when a given one is smaller than the rows."""
    out = {}
    for name, (r, _) in shapes(family, s).items():
        ld = int(s.get(f"ld{name.lower()}", r))
        if ld < r:
            raise ValueError(f"{family}: ld{name.lower()} = {ld} < {r} rows of {name}")
        out[name] = ld
    return out


def make_inputs(family: str, s: dict, dtype, seed: int = 0) -> dict:
    """Valid inputs (column-major, Fortran-ordered arrays of ``dtype``): uniform(-1, 1) entries; TRSM's L
    and GETRF's A get ``n + 1`` / ``m`` added on the diagonal (diagonally dominant), POTRF's A is
    symmetric with ``n`` added on the diagonal (SPD). An array whose leading dimension exceeds its rows
    (:func:`leading_dims`) is allocated ``ld x cols``; its padding rows hold uniform(-1, 1) values drawn
    after the array's own (a tight array draws exactly what it did before), and a function must leave
    them as they are (the reference keeps them)."""
    rng = np.random.default_rng(seed)
    lds = leading_dims(family, s)
    out = {}
    for name, (r, c) in shapes(family, s).items():
        a = rng.uniform(-1.0, 1.0, size=(r, c))
        if family == "trsm" and name == "L":
            a = np.tril(a) + (s["n"] + 1) * np.eye(r)
        elif family == "potrf":
            a = (a + a.T) / 2 + s["n"] * np.eye(r)
        elif family == "getrf":
            a[np.arange(c), np.arange(c)] += s["m"]
        if lds[name] > r:
            a = np.vstack([a, rng.uniform(-1.0, 1.0, size=(lds[name] - r, c))])
        out[name] = np.asfortranarray(a.astype(dtype))
    return out


def reference(family: str, inputs: dict, sizes: dict | None = None) -> dict:
    """The expected outputs (float64 numpy) of a call on ``inputs``; for SYRK and POTRF only the lower
    triangle is meaningful (compare with :func:`compare_mask`). With ``sizes``, arrays with more rows
    than the sizes give (a leading dimension larger than the rows) are computed on their leading rows
    and returned at their full height, the padding rows as they were."""
    if sizes is not None:
        logical = shapes(family, sizes)
        if any(inputs[name].shape[0] != r for name, (r, _) in logical.items()):
            views = {name: a[:logical[name][0]] for name, a in inputs.items()}
            out = {}
            for name, value in reference(family, views).items():
                full = inputs[name].astype(np.float64)
                full[:value.shape[0]] = value
                out[name] = full
            return out
    x = {k: v.astype(np.float64) for k, v in inputs.items()}
    if family == "gemm":
        return {"C": x["C"] - x["A"] @ x["B"].T}
    if family == "syrk":
        return {"C": x["C"] - x["A"] @ x["A"].T}
    if family == "trsm":
        return {"B": np.linalg.solve(x["L"], x["B"].T).T}
    if family == "potrf":
        return {"A": np.linalg.cholesky(x["A"])}
    if family == "getrf":
        return {"A": _lu_nopivot(x["A"])}
    raise KeyError(family)


def _lu_nopivot(a: np.ndarray, nb: int = 64) -> np.ndarray:
    """LU without pivoting, right-looking in column blocks of ``nb`` (numpy's matrix products do the
    trailing updates: a 1024 x 512 panel takes ~0.1 s, the column-at-a-time loop seconds)."""
    a = a.copy()
    m, n = a.shape
    for j0 in range(0, min(m, n), nb):
        j1 = min(j0 + nb, min(m, n))
        for j in range(j0, j1):  # the panel a[j0:, j0:j1], column by column
            a[j + 1:, j] /= a[j, j]
            a[j + 1:, j + 1:j1] -= np.outer(a[j + 1:, j], a[j, j + 1:j1])
        if j1 < n:  # U12 = L11^-1 A12 (L11 unit lower), then the trailing update
            l11 = np.tril(a[j0:j1, j0:j1], -1) + np.eye(j1 - j0)
            a[j0:j1, j1:] = np.linalg.solve(l11, a[j0:j1, j1:])
            a[j1:, j1:] -= a[j1:, j0:j1] @ a[j0:j1, j1:]
    return a


def compare_mask(family: str, shape) -> np.ndarray | None:
    """Elements to compare (lower triangle for SYRK and POTRF), None for all."""
    if family in ("syrk", "potrf"):
        return np.tril(np.ones(shape, dtype=bool))
    return None


def relative_error(family: str, name: str, got: np.ndarray, want: np.ndarray) -> float:
    """Frobenius norm of the difference over that of the reference, on the compared elements."""
    mask = compare_mask(family, want.shape)
    g, w = got.astype(np.float64), want
    if mask is not None:
        g, w = g[mask], w[mask]
    return float(np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-300))


TOLERANCE = {"fp32": 1e-4, "fp64": 1e-10}

#: problem sizes a campaign visits: tile sizes b; GEMM/SYRK k = b, TRSM m = b, GETRF panels m = b, 2b, 4b
TILES = (16, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512)
NAIVE_MAX_TILE = 384  # plain loops beyond this take seconds per call


def sizes_for(family: str, b: int) -> list[dict]:
    """The size dicts of a campaign visit at tile size ``b``."""
    if family == "gemm":
        return [{"m": b, "n": b, "k": b}]
    if family == "syrk":
        return [{"n": b, "k": b}]
    if family == "trsm":
        return [{"m": b, "n": b}]
    if family == "potrf":
        return [{"n": b}]
    if family == "getrf":
        return [{"m": mult * b, "n": b} for mult in (1, 2, 4) if mult * b <= 1024]
    raise KeyError(family)


@dataclass(frozen=True)
class CKernel:
    """One catalog entry: kernel ``c.<family>.<variant>.<dtype>`` = symbol ``<family>_<variant><sfx>`` of
    ``<family>.c`` compiled for ``dtype``."""

    family: str
    variant: str
    dtype: str
    file: str = field(default="")

    @property
    def kernel_id(self) -> str:
        return f"c.{self.family}.{self.variant}.{self.dtype}"

    @property
    def symbol(self) -> str:
        return f"{self.family}_{self.variant}{DTYPES[self.dtype][0]}"

    @property
    def np_dtype(self):
        return DTYPES[self.dtype][1]

    @property
    def path(self) -> Path:
        return C_DIR / self.file

    @property
    def uses_openmp(self) -> bool:
        return self.variant == "omp"

    def source(self) -> str:
        """The text a dataset stores for this kernel: its file with ``kg_c.h`` resolved for its dtype
        (:func:`kgraph.data.corpus.c.sources.stored_source`, the one definition)."""
        from kgraph.data.corpus.c.sources import stored_source
        return stored_source(self)

    def spec(self) -> dict:
        """What the dataset's ``spec_json`` records about the kernel."""
        return {"lang": "c", "family": self.family, "variant": self.variant, "dtype": self.dtype,
                "symbol": self.symbol, "file": self.file, "signature": C_SIGNATURES[self.family],
                "args": list(SIGNATURES[self.family]), "outputs": list(OUTPUTS[self.family]),
                "computes": DESCRIPTIONS[self.family], "flops": FLOP_FORMULAS[self.family],
                "bytes": BYTE_FORMULAS[self.family], "openmp": self.uses_openmp}

    def spec_json(self) -> str:
        return json.dumps(self.spec(), sort_keys=True)


def catalog() -> list[CKernel]:
    """Every kernel of the C corpus (family, variant, dtype order)."""
    return [CKernel(f, v, d, f"{f}.c") for f in FAMILIES for v in VARIANTS for d in DTYPES]


def by_id(kernel_id: str) -> CKernel:
    for k in catalog():
        if k.kernel_id == kernel_id:
            return k
    raise KeyError(kernel_id)
