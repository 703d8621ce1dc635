"""Holdout6 kernels: classical ML and LLM inference as application programmers write them: gradient-boosted tree
ensembles walked per sample with NaN default directions, a GPTQ-packed 4-bit weight-only linear layer dequantized in
its loop, Mamba-2's gated RMSNorm with a __local reduction per row, product-quantization distance tables scanned from
__local on a 2-D NDRange, a mixture-of-experts router counting tokens per expert with atomic_inc, and the CTC forward
recursion in fp64 log space. The router's atomics are integer increments, so no output depends on the work-items'
order."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2, round_up

HIGGS_FEATURES = 28  # gbdt_forest_predict: features per sample (as in the HIGGS benchmark)
Q4_GROUP = 128  # q4_group_dequant_mv: rows per quantization group
PQ_CENT = 256  # pq_adc_scan_local: centroids per subspace (one-byte codes)
CTC_CLASSES = 29  # ctc_alpha_logspace_fp64: blank, 26 letters, space, apostrophe


# --- tree ensemble inference: a sample per item walks every tree, NaN features take the default branch --------------
def _forest(rng, ntrees, depth):
    """Trees grown level by level (breadth-first node order, children side by side): from level 2 on a node is a
    leaf with probability 0.3, at ``depth`` always. Returns the node fields and each tree's root."""
    feat, thresh, left, dleft, value, roots = [], [], [], [], [], []
    base = 0
    for _ in range(ntrees):
        roots.append(base)
        width, level = 1, 0
        while width:
            leaf = np.full(width, level >= depth) | ((level >= 2) & (rng.random(width) < 0.3))
            nsplit = int((~leaf).sum())
            first_child = base + width  # the next level starts right after this one
            child = np.full(width, -1)
            child[~leaf] = first_child + 2 * np.arange(nsplit)
            feat.append(np.where(leaf, -1, rng.integers(0, HIGGS_FEATURES, width)))
            thresh.append(np.where(leaf, 0.0, rng.normal(0.0, 0.8, width)))
            left.append(child)
            dleft.append(rng.integers(0, 2, width))
            value.append(np.where(leaf, rng.normal(0.0, 0.1, width), 0.0))
            base, width, level = first_child, 2 * nsplit, level + 1
    cat = np.concatenate
    return {"node_feat": cat(feat), "node_thresh": cat(thresh).astype(np.float32), "node_left": cat(left),
            "node_default_left": cat(dleft), "node_value": cat(value).astype(np.float32),
            "tree_root": np.array(roots)}


def _nodes(t):
    """The node arrays' length for ``t`` trees: 1024 a tree on average (the inputs maker pads the forest to it)."""
    return f"{t} * 1024"


def _inputs_gbdt(rng, sz):
    """Samples: HIGGS-like standard-normal features, 4% missing (NaN). A forest of few deep trees (T < 100: up to
    12 levels, a random forest's shape) or many shallow ones (up to 6, boosting's); node arrays padded with unused
    leaves to 1024 nodes a tree."""
    n, t = sz["n"], sz["T"]
    x = rng.standard_normal((n, HIGGS_FEATURES)).astype(np.float32)
    x[rng.random(x.shape) < 0.04] = np.nan
    forest = _forest(rng, t, 12 if t < 100 else 6)
    total = 1024 * t
    used = forest["node_feat"].size
    assert used <= total, used
    pad = {"node_feat": -1, "node_thresh": 0.0, "node_left": -1, "node_default_left": 0, "node_value": 0.0}
    for name, fill in pad.items():
        forest[name] = np.concatenate([forest[name], np.full(total - used, fill, dtype=forest[name].dtype)])
    return {"x": x, **forest}


def _ref_gbdt(inp, sz):
    x = inp["x"].reshape(sz["n"], HIGGS_FEATURES)
    feat, thresh, left = inp["node_feat"], inp["node_thresh"], inp["node_left"]
    dleft, value = inp["node_default_left"].astype(bool), inp["node_value"]
    rows = np.arange(x.shape[0])
    margin = np.full(x.shape[0], float(inp["base_score"]))
    for root in inp["tree_root"]:
        node = np.full(x.shape[0], root)
        while True:
            active = feat[node] >= 0
            if not active.any():
                break
            v = x[rows, np.maximum(feat[node], 0)]
            with np.errstate(invalid="ignore"):
                go_left = np.where(np.isnan(v), dleft[node], v < thresh[node])
            node = np.where(active, np.where(go_left, left[node], left[node] + 1), node)
        margin += _f64(value[node])
    return {"margin": margin, "prob": 1.0 / (1.0 + np.exp(-margin))}


def gbdt_forest_predict() -> KernelSpec:
    return _spec(
        "gbdt_forest_predict", tol=SUMS,
        idiom="tree-ensemble inference, a sample per item: walk every tree, NaN default direction, sum leaves, sigmoid",
        sizes={"n": pow2(10, 20, 2), "T": [16, 64, 256]}, check={"n": 2000, "T": 20},
        constraints=["n * T <= 2**24"],
        args=[Arg("nsamples", "scalar", "int32", "n"), Arg("nfeat", "scalar", "int32", str(HIGGS_FEATURES)),
              Arg("ntrees", "scalar", "int32", "T"), Arg("base_score", "scalar", "float32", "-0.25"),
              Arg("x", "buffer", "float32", f"n * {HIGGS_FEATURES}"), Arg("tree_root", "buffer", "int32", "T"),
              Arg("node_feat", "buffer", "int32", _nodes("T")), Arg("node_thresh", "buffer", "float32", _nodes("T")),
              Arg("node_left", "buffer", "int32", _nodes("T")),
              Arg("node_default_left", "buffer", "uint8", _nodes("T")),
              Arg("node_value", "buffer", "float32", _nodes("T")),
              Arg("margin", "buffer", "float32", "n", "out"), Arg("prob", "buffer", "float32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_gbdt, make_inputs=_inputs_gbdt)


# --- 4-bit weight-only quantized linear layer (GPTQ packing), dequantized in the loop ---------------------------------
def _inputs_q4(rng, sz):
    """Activations ~ N(0, 1); 4-bit weights uniform; per-group scales 0.005 .. 0.02 and zero points 6 .. 9 (a
    symmetric-ish quantizer); a small bias."""
    k, n, m = sz["K"], sz["N"], sz["M"]
    g = k // Q4_GROUP
    return {"x": rng.standard_normal(m * k), "qweight": rng.integers(0, 2**32, (k // 8, n), dtype=np.uint64),
            "scales": rng.uniform(0.005, 0.02, (g, n)),
            "qzeros": _pack4(rng.integers(6, 10, (g, n)), axis=1), "bias": rng.normal(0.0, 0.1, n)}


def _pack4(q, axis):
    """Eight 4-bit values to a uint32 along ``axis`` (the lowest index in the lowest bits)."""
    q = np.moveaxis(np.asarray(q, dtype=np.uint64), axis, -1)
    q = q.reshape(*q.shape[:-1], -1, 8) << (4 * np.arange(8, dtype=np.uint64))
    return np.moveaxis(q.sum(axis=-1), -1, axis).astype(np.uint32)


def _unpack4(words, axis):
    w = np.moveaxis(words.astype(np.int64), axis, -1)
    q = (w[..., None] >> (4 * np.arange(8))) & 0xF
    return np.moveaxis(q.reshape(*w.shape[:-1], -1), -1, axis)


def _ref_q4(inp, sz):
    k, n, m = sz["K"], sz["N"], sz["M"]
    g = k // Q4_GROUP
    q = _unpack4(inp["qweight"].reshape(k // 8, n), axis=0)  # (K, N)
    zero = _unpack4(inp["qzeros"].reshape(g, n // 8), axis=1)  # (G, N)
    scale = _f64(inp["scales"]).reshape(g, n)
    w = np.repeat(scale, Q4_GROUP, axis=0) * (q - np.repeat(zero, Q4_GROUP, axis=0))
    return {"out": _f64(inp["x"]).reshape(m, k) @ w + _f64(inp["bias"])[None, :]}


def q4_group_dequant_mv() -> KernelSpec:
    return _spec(
        "q4_group_dequant_mv", tol=SUMS,
        idiom="4-bit GPTQ linear layer for a few tokens: a column per item, nibbles unpacked along k, group scale/zero",
        sizes={"N": pow2(9, 15, 2), "K": [1024, 4096], "M": [1, 4]}, check={"N": 200, "K": 512, "M": 3},
        args=[Arg("ntok", "scalar", "int32", "M"), Arg("k_dim", "scalar", "int32", "K"),
              Arg("n_dim", "scalar", "int32", "N"), Arg("group_size", "scalar", "int32", str(Q4_GROUP)),
              Arg("x", "buffer", "float32", "M * K"), Arg("qweight", "buffer", "uint32", "K // 8 * N"),
              Arg("scales", "buffer", "float32", f"K // {Q4_GROUP} * N"),
              Arg("qzeros", "buffer", "uint32", f"K // {Q4_GROUP} * (N // 8)"), Arg("bias", "buffer", "float32", "N"),
              Arg("out", "buffer", "float32", "M * N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_q4, make_inputs=_inputs_q4)


# --- gated RMSNorm (Mamba-2): a row per work-group, __local tree sum of squares ---------------------------------------
def _inputs_gated_norm(rng, sz):
    """Hidden states ~ N(0, 1), gate pre-activations ~ N(0, 2), learnt weights around one."""
    t, h = sz["T"], sz["H"]
    return {"x": rng.standard_normal(t * h), "z": rng.normal(0.0, 2.0, t * h), "weight": rng.normal(1.0, 0.1, h)}


def _ref_gated_norm(inp, sz):
    t, h = sz["T"], sz["H"]
    z = _f64(inp["z"]).reshape(t, h)
    g = _f64(inp["x"]).reshape(t, h) * z / (1.0 + np.exp(-z))
    inv = 1.0 / np.sqrt((g * g).mean(axis=1) + float(inp["eps"]))
    return {"y": g * inv[:, None] * _f64(inp["weight"])[None, :], "rstd": inv}


def rmsnorm_gate_silu_rows() -> KernelSpec:
    return _spec(
        "rmsnorm_gate_silu_rows", tol=SUMS,
        idiom="Mamba-2 gated RMSNorm: rows by num_groups, x*silu(z) sum of squares in a __local tree, rescale pass",
        sizes={"T": pow2(6, 14, 2), "H": [768, 2048, 5120]}, check={"T": 37, "H": 300},
        constraints=["T * H <= 2**24"],
        args=[Arg("nrows", "scalar", "int32", "T"), Arg("hidden", "scalar", "int32", "H"),
              Arg("eps", "scalar", "float32", "1e-5"), Arg("x", "buffer", "float32", "T * H"),
              Arg("z", "buffer", "float32", "T * H"), Arg("weight", "buffer", "float32", "H"),
              Arg("y", "buffer", "float32", "T * H", "out"), Arg("rstd", "buffer", "float32", "T", "out"),
              Arg("partial", "local", "float32", "l0")],
        gsize=["256 * min(T, 512)"], local=L1, reference=_ref_gated_norm, make_inputs=_inputs_gated_norm)


# --- product-quantization distance scan: (vector, query) NDRange, the query's table in __local ------------------------
def _inputs_pq(rng, sz):
    """Codes uniform over the 256 centroids (a trained quantizer uses them all about equally); each query's table
    holds the squared distances from its 4-dimensional subvectors to random centroids."""
    n, q, m = sz["N"], sz["Q"], sz["M"]
    cent = rng.standard_normal((m, PQ_CENT, 4))
    query = rng.standard_normal((q, m, 1, 4))
    return {"codes": rng.integers(0, PQ_CENT, n * m), "tables": ((query - cent[None]) ** 2).sum(axis=-1)}


def _ref_pq(inp, sz):
    n, q, m = sz["N"], sz["Q"], sz["M"]
    tab = _f64(inp["tables"]).reshape(q, m, PQ_CENT)
    codes = inp["codes"].astype(np.int64).reshape(n, m)
    return {"dist": tab[:, np.arange(m)[None, :], codes].sum(axis=-1)}


def pq_adc_scan_local() -> KernelSpec:
    return _spec(
        "pq_adc_scan_local", tol=SUMS,
        idiom="product-quantization ADC, 2-D (vector, query): query's nsub x 256 table to __local, sum of byte lookups",
        sizes={"N": pow2(12, 21, 3), "Q": [4, 32], "M": [8, 16]}, check={"N": 1000, "Q": 3, "M": 8},
        constraints=["N * Q * M <= 2**28"],
        args=[Arg("nvec", "scalar", "int32", "N"), Arg("nsub", "scalar", "int32", "M"),
              Arg("codes", "buffer", "uint8", "N * M"), Arg("tables", "buffer", "float32", f"Q * M * {PQ_CENT}"),
              Arg("dist", "buffer", "float32", "Q * N", "out"), Arg("ltab", "local", "float32", f"M * {PQ_CENT}")],
        gsize=[round_up("N"), "Q"], local=[[256, 1], [128, 1], [64, 1]], reference=_ref_pq, make_inputs=_inputs_pq)


# --- mixture-of-experts router: softmax, top-k by repeated selection, renormalise, atomic_inc counts -----------------
def _inputs_moe(rng, sz):
    """Router logits ~ N(0, 1) plus a per-expert bias ~ N(0, 0.7): some experts are popular (unbalanced load)."""
    t, e = sz["T"], sz["E"]
    return {"logits": rng.standard_normal((t, e)) + rng.normal(0.0, 0.7, e)[None, :]}


def _ref_moe(inp, sz):
    t, e, k = sz["T"], sz["E"], int(inp["topk"])
    logits = inp["logits"].reshape(t, e)
    ids = np.argsort(-logits, axis=1, kind="stable")[:, :k]  # largest first, the lower index on a tie
    p = np.exp(_f64(logits) - _f64(logits).max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    w = np.take_along_axis(p, ids, axis=1)
    if int(inp["renorm"]):
        w = w / w.sum(axis=1, keepdims=True)
    return {"expert_id": ids, "expert_weight": w, "expert_count": np.bincount(ids.reshape(-1), minlength=e)}


def moe_router_topk_count() -> KernelSpec:
    return _spec(
        "moe_router_topk_count", tol=SUMS,
        idiom="MoE router per token: softmax, top-k by repeated selection with a private bitmask, atomic_inc counts",
        sizes={"T": pow2(10, 20, 2), "E": [8, 64]}, check={"T": 2000, "E": 24},
        constraints=["T * E <= 2**24"],
        args=[Arg("ntok", "scalar", "int32", "T"), Arg("nexp", "scalar", "int32", "E"),
              Arg("topk", "scalar", "int32", "E // 32 + 2"), Arg("renorm", "scalar", "int32", "min(1, 32 // E)"),
              Arg("logits", "buffer", "float32", "T * E"),
              Arg("expert_id", "buffer", "int32", "T * (E // 32 + 2)", "out"),
              Arg("expert_weight", "buffer", "float32", "T * (E // 32 + 2)", "out"),
              Arg("expert_count", "buffer", "int32", "E", "out")],
        gsize=[round_up("T")], local=L1, reference=_ref_moe, make_inputs=_inputs_moe)


# --- CTC loss forward recursion in fp64 log space, an utterance per item ----------------------------------------------
def _ctc_max_labels(t):
    return f"min(64, {t} // 4)"


def _inputs_ctc(rng, sz):
    """Frame log-probabilities: log-softmax of N(0, 1.5) logits over 29 classes. Utterances use T/2 .. T frames;
    label sequences 1 .. min(max_labels, frames/3) characters (letters frequent, repeats allowed), zero-padded."""
    b, t = sz["B"], sz["T"]
    lmax = min(64, t // 4)
    logits = rng.normal(0.0, 1.5, (b, t, CTC_CLASSES))
    logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    in_len = rng.integers(t // 2, t + 1, b)
    lab_len = 1 + (rng.random(b) * np.minimum(lmax, in_len // 3)).astype(np.int64)
    labels = rng.integers(1, CTC_CLASSES, (b, lmax))
    labels[np.arange(lmax)[None, :] >= lab_len[:, None]] = 0
    return {"log_probs": logp, "labels": labels, "input_len": in_len, "label_len": lab_len}


def _ref_ctc(inp, sz):
    b, t = sz["B"], sz["T"]
    lmax = int(inp["max_labels"])
    lp = _f64(inp["log_probs"]).reshape(b, t, CTC_CLASSES)
    lab = inp["labels"].astype(np.int64).reshape(b, lmax)
    in_len, lab_len = inp["input_len"].astype(np.int64), inp["label_len"].astype(np.int64)
    smax = 2 * lmax + 1
    ext = np.zeros((b, smax), dtype=np.int64)
    ext[:, 1::2] = lab
    skip = np.zeros((b, smax), dtype=bool)
    skip[:, 3::2] = lab[:, 1:] != lab[:, :-1]
    rows = np.arange(b)[:, None]
    alpha = np.full((b, smax), -np.inf)
    alpha[:, 0] = lp[:, 0, 0]
    alpha[:, 1] = lp[np.arange(b), 0, ext[:, 1]]
    neg = np.full((b, 1), -np.inf)
    for step in range(1, t):
        a = np.logaddexp(alpha, np.concatenate([neg, alpha[:, :-1]], axis=1))
        a = np.where(skip, np.logaddexp(a, np.concatenate([neg, neg, alpha[:, :-2]], axis=1)), a)
        a = a + lp[rows, step, ext]
        alpha = np.where((step < in_len)[:, None], a, alpha)
    s = 2 * lab_len + 1
    end = np.logaddexp(alpha[np.arange(b), s - 1], alpha[np.arange(b), s - 2])
    return {"nll": -end}


def ctc_alpha_logspace_fp64() -> KernelSpec:
    return _spec(
        "ctc_alpha_logspace_fp64", precision="fp64", tol=FP64,
        idiom="CTC forward per utterance in fp64 log space: private alpha updated in place downward, blank-skip rule",
        sizes={"B": pow2(5, 13, 2), "T": [64, 256, 1024]}, check={"B": 50, "T": 60},
        constraints=[f"B * T * {_ctc_max_labels('T')} <= 2**23"],
        args=[Arg("nbatch", "scalar", "int32", "B"), Arg("max_frames", "scalar", "int32", "T"),
              Arg("nclass", "scalar", "int32", str(CTC_CLASSES)),
              Arg("max_labels", "scalar", "int32", _ctc_max_labels("T")),
              Arg("log_probs", "buffer", "float64", f"B * T * {CTC_CLASSES}"),
              Arg("labels", "buffer", "int32", f"B * {_ctc_max_labels('T')}"), Arg("input_len", "buffer", "int32", "B"),
              Arg("label_len", "buffer", "int32", "B"), Arg("nll", "buffer", "float64", "B", "out")],
        gsize=[round_up("B")], local=L1, reference=_ref_ctc, make_inputs=_inputs_ctc)


#: this group's builders, in the order of ``specs()``
BUILDERS = (gbdt_forest_predict, q4_group_dequant_mv, rmsnorm_gate_silu_rows, pq_adc_scan_local,
            moe_router_topk_count, ctc_alpha_logspace_fp64)
