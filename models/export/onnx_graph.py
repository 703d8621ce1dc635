"""The compact head as an ONNX graph (opset 17, dynamic batch).

The graph is written directly with ``onnx.helper`` and does not depend on the torch exporter of the
day: ``Sub``/``Div`` by the feature normalisation, Gemm + Relu per layer, ``Mul``/``Add`` by the target
normalisation — the operations of :meth:`CompactHead.forward` in the same order, so float32 results
agree with torch to ~1e-6. (Folding the normalisation into the first layer, as the C export does,
loses ~2e-5 to cancellation on a trained head; ONNX gains nothing from folding.)
Input ``features`` ``[batch, in_dim]`` float32 raw features; outputs ``log_targets`` ``[batch, 5]``
and ``bound_logits`` ``[batch, 3]``, and for a head with interval outputs ``log_time_interval``
``[batch, 2]`` (ln time at the ends of :data:`kgraph.data.targets.TIME_INTERVAL`, as
:meth:`CompactHead.log_time_interval`: ``point + [-1, 1] * max(softplus(raw) * s + margin, 0)``). The model's metadata carries the targets table of
:mod:`kgraph.data.targets` (``log_targets``, ``target_keys``, ``target_units``, ``target_transforms``,
``target_inverses``, ``bound_classes``), so a reader can turn the log outputs into natural units.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from kgraph.data import targets
from kgraph.data.targets import BOUND_CLASSES, LOG_TARGETS, TIME_INTERVAL
from kgraph.models.compact import CompactHead
from kgraph.parsers.errors import ModelError

OPSET = 17


def to_onnx(head: CompactHead, path: str | Path) -> Path:
    """Write ``head`` (normalisation folded in) as an ONNX model at ``path``; returns the path."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    f32 = lambda t: t.detach().float().numpy()  # noqa: E731
    layers = [(layer.weight, layer.bias) for layer in head.layers]
    n_t = len(LOG_TARGETS)
    inits = [numpy_helper.from_array(f32(head.feature_mean), "feature_mean"),
             numpy_helper.from_array(f32(head.feature_std), "feature_std"),
             numpy_helper.from_array(f32(head.target_std), "target_std"),
             numpy_helper.from_array(f32(head.target_mean), "target_mean")]
    nodes = [helper.make_node("Sub", ["features", "feature_mean"], ["centred"], name="centre"),
             helper.make_node("Div", ["centred", "feature_std"], ["h_in"], name="scale")]
    prev = "h_in"
    for i, (w, b) in enumerate(layers):
        last = i == len(layers) - 1
        w, b = f32(w), f32(b)
        n_c = n_t + len(BOUND_CLASSES)
        parts = [("t", w[:n_t], b[:n_t], "t_norm"), ("c", w[n_t:n_c], b[n_t:n_c], "bound_logits")] if last \
            else [("", w, b, f"h{i}")]
        if last and head.config.interval:
            parts.append(("i", w[n_c:], b[n_c:], "interval_raw"))
        for tag, wp, bp, out in parts:
            inits += [numpy_helper.from_array(wp, f"W{i}{tag}"), numpy_helper.from_array(bp, f"B{i}{tag}")]
            gemm_out = out if last else f"z{i}"
            nodes.append(helper.make_node("Gemm", [prev, f"W{i}{tag}", f"B{i}{tag}"], [gemm_out], transB=1,
                                          name=f"gemm{i}{tag}"))
            if not last:
                nodes.append(helper.make_node("Relu", [gemm_out], [out], name=f"relu{i}"))
        prev = f"h{i}"
    nodes += [helper.make_node("Mul", ["t_norm", "target_std"], ["t_scaled"], name="unscale"),
              helper.make_node("Add", ["t_scaled", "target_mean"], ["log_targets"], name="uncentre")]
    outputs = [helper.make_tensor_value_info("log_targets", TensorProto.FLOAT, ["batch", n_t]),
               helper.make_tensor_value_info("bound_logits", TensorProto.FLOAT, ["batch", len(BOUND_CLASSES)])]
    if head.config.interval:
        nodes += _interval_nodes(head, inits)
        outputs.append(helper.make_tensor_value_info("log_time_interval", TensorProto.FLOAT, ["batch", 2]))
    graph = helper.make_graph(
        nodes, "kgraph_compact",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", head.config.in_dim])],
        outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="kgraph")
    model.ir_version = 8  # readable by onnxruntime >= 1.14
    meta = {"launch_names": ",".join(head.config.launch_names), "device_names": ",".join(head.config.device_names),
            "code_dim": str(head.config.code_dim), **targets.metadata()}
    for k, v in meta.items():
        model.metadata_props.add(key=k, value=v)
    onnx.checker.check_model(model)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, path)
    return path


def _interval_nodes(head: CompactHead, inits: list) -> list:
    """Nodes from ``interval_raw`` and ``log_targets`` to ``log_time_interval`` (adds their constants)."""
    from onnx import helper, numpy_helper

    inits += [numpy_helper.from_array(np.array([0], np.int64), "i_start"),
              numpy_helper.from_array(np.array([1], np.int64), "i_end"),
              numpy_helper.from_array(np.array([1], np.int64), "i_axis"),
              numpy_helper.from_array(np.array(float(head.target_std[0]), np.float32), "time_std"),
              numpy_helper.from_array(np.array(float(head.interval_margin), np.float32), "interval_margin"),
              numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
              numpy_helper.from_array(np.array([[-1.0, 1.0]], np.float32), "interval_sign")]
    return [helper.make_node("Slice", ["log_targets", "i_start", "i_end", "i_axis"], ["log_time"], name="point"),
            helper.make_node("Softplus", ["interval_raw"], ["i_soft"], name="spread"),
            helper.make_node("Mul", ["i_soft", "time_std"], ["i_scaled"], name="spread_unscale"),
            helper.make_node("Add", ["i_scaled", "interval_margin"], ["i_margin"], name="conformal_margin"),
            helper.make_node("Max", ["i_margin", "zero"], ["i_pos"], name="never_cross"),
            helper.make_node("Mul", ["i_pos", "interval_sign"], ["i_signed"], name="signed"),
            helper.make_node("Add", ["log_time", "i_signed"], ["log_time_interval"], name="interval")]


def onnx_session(path: str | Path, threads: int = 1):
    """An onnxruntime CPU session on ``threads`` intra-op threads."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def check_onnx(head: CompactHead, path: str | Path, x: torch.Tensor, tol: float = 1e-5) -> float:
    """Run the ONNX model and ``head`` on ``x``; return the max abs error on the log outputs.

    Raises :class:`ModelError` when it exceeds ``tol``, or when a bound logit differs by more than
    ``tol`` relative to ``max(|logit|, 1)`` (logits reach ~40, where float32 rounding alone is ~4e-6).
    """
    with torch.no_grad():
        ref_t, ref_c = head(x.float())
    got_t, got_c = onnx_session(path).run(["log_targets", "bound_logits"], {"features": x.float().numpy()})
    err = float(np.abs(got_t - ref_t.numpy()).max())
    ref_c = ref_c.numpy()
    logit_rel = float((np.abs(got_c - ref_c) / np.maximum(np.abs(ref_c), 1.0)).max())
    if not err <= tol:
        raise ModelError(f"{path}: ONNX log outputs differ from torch by {err:.3g} (> {tol:g})")
    if not logit_rel <= tol:
        raise ModelError(f"{path}: ONNX bound logits differ from torch by {logit_rel:.3g} relative (> {tol:g})")
    if head.config.interval:
        with torch.no_grad():
            ref_i = head.log_time_interval(x.float()).numpy()
        got_i = onnx_session(path).run(["log_time_interval"], {"features": x.float().numpy()})[0]
        err_i = float(np.abs(got_i - ref_i).max())
        if not err_i <= tol:
            raise ModelError(f"{path}: ONNX time interval differs from torch by {err_i:.3g} (> {tol:g})")
        err = max(err, err_i)
    return err
