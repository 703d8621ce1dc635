"""kgraph's code language model: a ModernBERT-style encoder (``transformers``) pretrained with masked-LM
on the C/C++/CUDA/HIP/OpenCL corpus of :mod:`kgraph.data.lm_corpus` (docs/LM.md).

:mod:`.config` (sizes), :mod:`.model` (build, FLOPs, int8/fp16 safetensors), :mod:`.pretrain` (the
one-GPU pretraining run, ``python -m kgraph.models.code_lm.pretrain``). Shipped files: ``weights/``.
"""
from pathlib import Path

WEIGHTS = Path(__file__).resolve().parent / "weights"
