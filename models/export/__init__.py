"""Export of the compact head: ONNX graph (:mod:`.onnx_graph`) and C99 source (:mod:`.c_source`)."""
from kgraph.models.export.c_source import to_c
from kgraph.models.export.onnx_graph import check_onnx, to_onnx

__all__ = ["to_c", "to_onnx", "check_onnx"]
