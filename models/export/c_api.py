"""The C API's return codes and input limits: defined once here, generated into ``kgraph_model.h``
(``#define``s and their comments), into ``kgraph_strerror`` and into docs/tests through :data:`ERRORS`.

Every C entry point validates its inputs before any arithmetic and answers a distinct negative code;
on any error it fills ``out`` with NaN (``bound`` = -1), so a caller that ignores the code still never
sees a plausible number.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CError:
    """One return code of the C API.

    Attributes:
        name: the macro (``KGRAPH_E_KERNEL``).
        value: its value (0 for ``KGRAPH_OK``, negative for errors).
        meaning: what it says, as ``kgraph_strerror`` returns it.
    """

    name: str
    value: int
    meaning: str


#: Largest |value| accepted for any raw model input (launch feature, code embedding, device feature).
#: Every feature of ``kgraph.data.features`` is a log or a small count: for finite doubles none exceeds
#: ln(DBL_MAX) ≈ 710, and the code embeddings and device features of the shipped head stay below 50.
MAX_ABS_INPUT = 1024.0
#: Largest number of work-items of one launch (the product of the global sizes): 2^64, a size_t NDRange.
MAX_ITEMS = 2.0 ** 64
#: Largest ``n_args`` of ``kgraph_features``.
MAX_ARGS = 64

ERRORS: tuple[CError, ...] = (
    CError("KGRAPH_OK", 0, "ok"),
    CError("KGRAPH_E_KERNEL", -1, "kernel name not in the table, or kernel index out of range"),
    CError("KGRAPH_E_DEVICE", -2, "device index out of range"),
    CError("KGRAPH_E_NULL", -3, "a required pointer argument is NULL"),
    CError("KGRAPH_E_FEATURE", -4, "a launch feature is NaN, infinite or beyond +-KGRAPH_MAX_ABS_INPUT"),
    CError("KGRAPH_E_EMBEDDING", -5, "a code embedding value is NaN, infinite or beyond +-KGRAPH_MAX_ABS_INPUT"),
    CError("KGRAPH_E_DEVICE_FEATURE", -6,
           "a device feature is NaN, infinite or beyond +-KGRAPH_MAX_ABS_INPUT"),
    CError("KGRAPH_E_DIMS", -7, "dims is not 1, 2 or 3"),
    CError("KGRAPH_E_SIZE", -8, "a global or local size is not a whole number >= 1, a local size exceeds its "
                                "global size, an unused dimension is not 1, or the launch has more than "
                                "KGRAPH_MAX_ITEMS work-items"),
    CError("KGRAPH_E_ARGS", -9, "n_args is negative or above KGRAPH_MAX_ARGS, args is NULL with n_args > 0, "
                                "or a scalar argument is NaN or infinite"),
    CError("KGRAPH_E_RANGE", -10, "the prediction is not finite (inputs far outside the trained range)"),
)


def code(name: str) -> int:
    """The value of the return code ``name`` (``"KGRAPH_E_SIZE"`` → -8)."""
    return next(e.value for e in ERRORS if e.name == name)


def header_defines() -> str:
    """The ``#define``s of the return codes and limits, each with its meaning."""
    lines = [f"#define {e.name} {f'({e.value})' if e.value else 0} /* {e.meaning} */" for e in ERRORS]
    lines += [f"#define KGRAPH_MAX_ABS_INPUT {float(MAX_ABS_INPUT)!r} /* largest |raw input| accepted */",
              f"#define KGRAPH_MAX_ITEMS {float(MAX_ITEMS)!r} /* most work-items in one launch (2^64) */",
              f"#define KGRAPH_MAX_ARGS {MAX_ARGS} /* most scalar arguments of kgraph_features */"]
    return "\n".join(lines)


def strerror_c() -> str:
    """C definition of ``const char *kgraph_strerror(int code)``."""
    cases = "\n".join(f'  case {e.name}: return "{e.meaning}";' for e in ERRORS)
    return f"""const char *kgraph_strerror(int code) {{
  switch (code) {{
{cases}
  default: return "unknown kgraph return code";
  }}
}}"""


def check_finite_c() -> str:
    """C helpers shared by the entry points: range checks of double and float vectors."""
    return """static int kgraph_bad_double(const double *v, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (!(fabs(v[i]) <= KGRAPH_MAX_ABS_INPUT)) return 1; /* NaN fails the comparison too */
  return 0;
}

static int kgraph_bad_float(const float *v, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (!(fabsf(v[i]) <= (float)KGRAPH_MAX_ABS_INPUT)) return 1;
  return 0;
}"""
