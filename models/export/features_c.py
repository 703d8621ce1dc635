"""C code for ``kgraph_features``: the launch + static feature vector, built as ``data/features.py`` does.

The compact head's launch part is ``LAUNCH_FEATURES + STATIC_FEATURES`` of :mod:`kgraph.data.features`.
Launch features are plain arithmetic on the NDRange and scalar arguments; static features come from
the kernel's symbolic per-work-item counts (``kgraph.analysis``), which are printed here as C with
``sympy.ccode`` once per registered kernel, so C evaluates exactly the expressions Python lambdifies.

C API (added to ``kgraph_model.h``)::

    int kgraph_features(int kernel, int dims, const double global[3], const double local[3],
                        const double *args, int n_args, int device, double *out);

``args`` are the kernel's scalar arguments in parameter order (the ``args`` JSON order of the
datasets); ``out`` receives ``KGRAPH_N_LAUNCH`` values, ready for ``kgraph_predict_index``.
Inputs are validated first (codes and limits of :mod:`kgraph.models.export.c_api`); on an error ``out``
is all NaN.
"""
from __future__ import annotations

import sympy

from kgraph.analysis.result import C_FUNCTIONS, FLOOR_LOG2_C
from kgraph.data.features import LAUNCH_FEATURES, NUM_SCALAR_ARGS, STATIC_COUNTS, STATIC_FEATURES
from kgraph.data.static_counts import KNOWN_ASSUMED, KNOWN_EXACT, static_count_exprs
from kgraph.parsers.errors import ModelError

FEATURE_ORDER = (*LAUNCH_FEATURES, *STATIC_FEATURES)
# kgraph.analysis functions -> C helpers defined in the generated source: the C forms of the numeric
# definitions in kgraph/analysis/result.py (floor_log2_value), defined there
_C_HELPERS = FLOOR_LOG2_C + ("#ifndef M_LN2 /* sympy prints log(x, 2) as log(x)/M_LN2 (a bisection's trip count); not in C99 */\n"
                             "#define M_LN2 0.69314718055994530942\n#endif\n")
_WORK_SYMBOLS = tuple(f"{p}{d}" for p in ("gsz", "lsz", "ngrp") for d in range(3))


def _static_function(index: int, exprs: list, scalars: list[str], assumed: bool) -> str:
    """C of one kernel's static counts; returns 1 (2 when a trip count is assumed: ``static_known`` is then
    ``KNOWN_ASSUMED``)."""
    head = f"static int kgraph_static_{index}(const double *kg_w, const double *kg_args, int kg_n, double *kg_c) {{"
    known = set(_WORK_SYMBOLS) | set(scalars)
    lines = [head]
    # C names v_<symbol>: no clash with C keywords, math functions or the locals above
    for d, name in enumerate(_WORK_SYMBOLS):
        lines.append(f"  const double v_{name} = kg_w[{d}];")
    for i, name in enumerate(scalars):
        lines.append(f"  const double v_{name} = kg_n > {i} ? kg_args[{i}] : NAN;")
    for i, e in enumerate(exprs):
        unknown = sorted(s.name for s in e.free_symbols if s.name not in known)
        if unknown:  # a symbol Python's env lacks too (trip_<line>, a loaded value): NaN there, the same here
            lines.append(f"  kg_c[{i}] = NAN; /* free symbols {unknown} */")
            continue
        renamed = e.xreplace({s: sympy.Symbol(f"v_{s.name}") for s in e.free_symbols})
        code = sympy.ccode(renamed, standard="c99", user_functions=C_FUNCTIONS)
        if "Not supported" in code:  # a function C has no translation for: no static features
            return (f"{head}\n  (void)kg_w; (void)kg_args; (void)kg_n; (void)kg_c;\n"
                    f"  return 0; /* count {STATIC_COUNTS[i]} uses a function with no C translation */\n}}\n")
        lines.append(f"  kg_c[{i}] = {code};")
    used = " ".join(f"(void)v_{n};" for n in (*_WORK_SYMBOLS, *scalars))
    lines.append(f"  {used}")
    lines.append(f"  return {2 if assumed else 1};{' /* a trip count is assumed (kgraph.analysis.trips) */' if assumed else ''}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_features_c(kernel_names: list[str], sources: dict[str, tuple[str, str]], device_names: list[str],
                  on_kernel=None, launch_names: list[str] | None = None) -> str:
    """C for ``kgraph_features`` over ``kernel_names`` (the sorted names of the C export);
    ``on_kernel(name)`` is called after each kernel's static counts (e.g. a progress bar).

    ``launch_names`` are the head's own launch features (its ``CompactConfig.launch_names``; None: today's
    :data:`FEATURE_ORDER`). The C computes today's whole layout and hands the head the ones it reads, by
    name, as Python does: a head made before a count key was added keeps its inputs.

    ``sources`` maps a kernel name to ``(source text, lang)`` or ``(source text, lang, function name)``
    (when the registered name is a corpus id, not the function); kernels without one get no static
    features (``static_known`` = 0).
    """
    n_static = len(STATIC_COUNTS)
    funcs, table = [], []
    for i, name in enumerate(kernel_names):
        src = sources.get(name)
        parsed = static_count_exprs(src[0], src[1], src[2] if len(src) > 2 else name) if src else None
        if on_kernel is not None:
            on_kernel(name)
        if parsed is None:
            table.append("0")
            continue
        funcs.append(_static_function(i, *parsed))
        table.append(f"kgraph_static_{i}")
    if len(FEATURE_ORDER) != 15 + 1 + 2 * n_static + 1:
        raise ModelError("data/features.py changed its feature layout; update models/export/features_c.py")
    launch_names = list(FEATURE_ORDER) if launch_names is None else list(launch_names)
    unknown = [n for n in launch_names if n not in FEATURE_ORDER]
    if unknown:
        raise ModelError(f"the head reads launch feature(s) {unknown[:3]} this kgraph does not make")
    pick = ", ".join(str(FEATURE_ORDER.index(n)) for n in launch_names)
    decls = """#define KGRAPH_HAS_FEATURES 1
/* Launch + static features of registered kernel `kernel` (see kgraph_launch_feature_names).
   dims: 1, 2 or 3; global/local[3]: whole numbers >= 1, local <= global, unused dimensions 1, at most
   KGRAPH_MAX_ITEMS work-items; args: the kernel's n_args (0..KGRAPH_MAX_ARGS) finite scalar arguments in
   parameter order. Returns KGRAPH_OK or KGRAPH_E_NULL, KGRAPH_E_KERNEL, KGRAPH_E_DEVICE, KGRAPH_E_DIMS,
   KGRAPH_E_SIZE, KGRAPH_E_ARGS (then out is all NaN). */
int kgraph_features(int kernel, int dims, const double global[3], const double local[3],
                    const double *args, int n_args, int device, double *out);
"""
    i_flops32, i_flops64 = STATIC_COUNTS.index("flops_fp32"), STATIC_COUNTS.index("flops_fp64")
    i_load, i_store = STATIC_COUNTS.index("global_load_bytes"), STATIC_COUNTS.index("global_store_bytes")
    if "hw_log2_compute_units" not in device_names:
        raise ModelError("the device features lack hw_log2_compute_units, needed by kgraph_features")
    defs = f"""#define KGRAPH_HW_LOG2_CU {device_names.index("hw_log2_compute_units")}
{_C_HELPERS}typedef int (*kgraph_static_fn)(const double *, const double *, int, double *);
{chr(10).join(funcs)}
static const kgraph_static_fn kgraph_static_table[KGRAPH_N_KERNELS] = {{{", ".join(table)}}};
/* where each of the head's KGRAPH_N_LAUNCH inputs sits in the full layout below (by name) */
#define KGRAPH_N_FULL {len(FEATURE_ORDER)}
static const int kgraph_feature_pick[KGRAPH_N_LAUNCH > 0 ? KGRAPH_N_LAUNCH : 1] = {{{pick}}};
/* compute units per device, for launch_log2_groups_per_cu */
static double kgraph_device_cus(int device) {{
  return exp2(kgraph_device_table[device][KGRAPH_HW_LOG2_CU]);
}}

/* KGRAPH_OK or the code of the first invalid input of kgraph_features (see kgraph_model.h). */
static int kgraph_check_launch(int kernel, int dims, const double global[3], const double local[3],
                               const double *args, int n_args, int device) {{
  double items = 1.0;
  int d, i;
  if (kernel < 0 || kernel >= KGRAPH_N_KERNELS) return KGRAPH_E_KERNEL;
  if (device < 0 || device >= KGRAPH_N_DEVICES) return KGRAPH_E_DEVICE;
  if (!global || !local) return KGRAPH_E_NULL;
  if (dims < 1 || dims > 3) return KGRAPH_E_DIMS;
  for (d = 0; d < 3; ++d) {{
    if (d >= dims ? global[d] != 1.0 || local[d] != 1.0
                  : !(global[d] >= 1.0 && global[d] <= KGRAPH_MAX_ITEMS && floor(global[d]) == global[d] &&
                      local[d] >= 1.0 && local[d] <= global[d] && floor(local[d]) == local[d]))
      return KGRAPH_E_SIZE;
    items *= global[d];
  }}
  if (items > KGRAPH_MAX_ITEMS) return KGRAPH_E_SIZE;
  if (n_args < 0 || n_args > KGRAPH_MAX_ARGS || (n_args > 0 && !args)) return KGRAPH_E_ARGS;
  for (i = 0; i < n_args; ++i)
    if (!isfinite(args[i])) return KGRAPH_E_ARGS;
  return KGRAPH_OK;
}}

/* Today's whole launch + static layout (FEATURE_ORDER of models/export/features_c.py) of a valid launch. */
static void kgraph_full_features(int kernel, int dims, const double global[3], const double local[3],
                                 const double *args, int n_args, int device, double *out) {{
  double w[9], c[{n_static}], items = 1.0, group = 1.0, groups = 1.0, cus;
  int d, i, rc;
  (void)kgraph_floor_log2; /* used by some kernels' static counts only */
  cus = kgraph_device_cus(device);
  if (cus < 1.0) cus = 1.0;
  out[0] = (double)dims;
  for (d = 0; d < 3; ++d) {{
    double ng = ceil(global[d] / (local[d] > 1.0 ? local[d] : 1.0));
    out[1 + d] = log2(global[d]);
    out[4 + d] = log2(local[d]);
    items *= global[d];
    group *= local[d];
    groups *= ng;
    w[d] = global[d]; w[3 + d] = local[d]; w[6 + d] = ng;
  }}
  out[7] = log2(items);
  out[8] = log2(group);
  out[9] = log2(groups);
  out[10] = log2(groups / cus);
  for (i = 0; i < {NUM_SCALAR_ARGS}; ++i) {{
    double v = i < n_args ? args[i] : 0.0;
    out[11 + i] = v > 0 ? log1p(v) : (v < 0 ? -log1p(-v) : 0.0);
  }}
  for (i = 0; i < {1 + 2 * n_static + 1}; ++i) out[{15} + i] = 0.0;
  if (kgraph_static_table[kernel] && (rc = kgraph_static_table[kernel](w, args, n_args, c)) != 0) {{
    double flops, nbytes;
    /* as Python: a count that does not evaluate is 0 and the counts are not known (0); with a trip count
       assumed (rc 2) they are known at the assumption */
    out[15] = rc == 1 ? {KNOWN_EXACT!r} : {KNOWN_ASSUMED!r};
    for (i = 0; i < {n_static}; ++i) if (!isfinite(c[i])) {{ c[i] = 0.0; out[15] = 0.0; }}
    for (i = 0; i < {n_static}; ++i) {{
      double per_item = c[i] > 0.0 ? c[i] : 0.0;
      out[16 + i] = log1p(per_item);
      out[16 + {n_static} + i] = log1p(per_item * items);
    }}
    flops = (c[{i_flops32}] > 0 ? c[{i_flops32}] : 0) * items + (c[{i_flops64}] > 0 ? c[{i_flops64}] : 0) * items;
    nbytes = (c[{i_load}] > 0 ? c[{i_load}] : 0) * items + (c[{i_store}] > 0 ? c[{i_store}] : 0) * items;
    out[16 + 2 * {n_static}] = log1p(flops / (nbytes > 1.0 ? nbytes : 1.0));
  }}
}}

int kgraph_features(int kernel, int dims, const double global[3], const double local[3],
                    const double *args, int n_args, int device, double *out) {{
  double full[KGRAPH_N_FULL];
  int i, rc;
  if (!out) return KGRAPH_E_NULL;
  rc = kgraph_check_launch(kernel, dims, global, local, args, n_args, device);
  if (rc != KGRAPH_OK) {{
    for (i = 0; i < KGRAPH_N_LAUNCH; ++i) out[i] = NAN;
    return rc;
  }}
  kgraph_full_features(kernel, dims, global, local, args, n_args, device, full);
  for (i = 0; i < KGRAPH_N_LAUNCH; ++i) out[i] = full[kgraph_feature_pick[i]];
  return KGRAPH_OK;
}}
"""
    return decls + "\n/* definitions */\n" + defs
