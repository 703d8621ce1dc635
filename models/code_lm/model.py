"""Build the code LM, count its FLOPs, and save/load it as small safetensors (int8 or fp16).

int8: every 2-D weight is stored as int8 with one fp16 scale per output row (``<name>`` and
``<name>.scale``); 1-D weights (norms, biases) stay fp16. :func:`load` dequantises to float32.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch

from .config import CodeLMSize, hf_config

FORMATS = ("int8", "fp16")


def special_ids(tok) -> dict[str, int]:
    """Ids of ``<s> <pad> </s> <mask>`` in a ``tokenizers.Tokenizer``."""
    return {"bos": tok.token_to_id("<s>"), "pad": tok.token_to_id("<pad>"), "eos": tok.token_to_id("</s>"),
            "mask": tok.token_to_id("<mask>")}


def build_model(size: CodeLMSize, tok, seed: int = 0):
    """A freshly initialised ``ModernBertForMaskedLM``."""
    from transformers import ModernBertForMaskedLM

    torch.manual_seed(seed)
    return ModernBertForMaskedLM(hf_config(size, tok.get_vocab_size(), special_ids(tok)))


def parameter_counts(model) -> dict[str, int]:
    total = sum(p.numel() for p in model.parameters())
    embedding = model.model.embeddings.tok_embeddings.weight.numel()
    return {"total": total, "embedding": embedding, "non_embedding": total - embedding}


def train_flops_per_token(size: CodeLMSize, vocab: int, mask_rate: float) -> float:
    """Model FLOPs of one training token (forward + backward = 3x forward; PaLM-style MFU accounting):
    the dense layers, attention scores over the window each layer really attends to, and the MLM head on
    the masked share of tokens."""
    d, L, s, f = size.hidden, size.layers, size.seq_len, size.intermediate
    dense = L * (4 * d * d + 3 * d * f)  # Wqkv + Wo, GeGLU Wi (2f) + Wo (f)
    n_global = sum(1 for i in range(L) if i % size.global_every == 0)
    span = n_global * s + (L - n_global) * min(s, size.local_attention)
    attention = 2 * d * span  # QK^T and AV, per token
    head = mask_rate * (d * d + d * vocab)
    return 3 * 2 * (dense + attention + head)


def state_for(model, fmt: str) -> dict[str, torch.Tensor]:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}")
    out = {}
    for name, t in model.state_dict().items():
        if name == "decoder.weight":  # tied to the token embeddings
            continue
        t = t.detach().float().cpu()
        if fmt == "int8" and t.ndim == 2:
            scale = t.abs().amax(dim=1, keepdim=True).clamp_min(1e-8) / 127.0
            out[name] = torch.round(t / scale).clamp(-127, 127).to(torch.int8).contiguous()
            out[f"{name}.scale"] = scale.squeeze(1).to(torch.float16).contiguous()
        else:
            out[name] = t.to(torch.float16).contiguous()
    return out


def save(model, tok_json: Path | None, folder: str | Path, fmt: str = "int8", extra: dict | None = None) -> Path:
    """``config.json`` + ``model.safetensors`` (+ ``tokenizer.json``) in ``folder``; the weights' path."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.config.save_pretrained(str(folder))
    path = folder / "model.safetensors"
    save_file(state_for(model, fmt), str(path), metadata={"format": fmt, "kgraph": "code_lm",
                                                          **{k: str(v) for k, v in (extra or {}).items()}})
    if tok_json is not None and Path(tok_json).resolve() != (folder / "tokenizer.json").resolve():
        (folder / "tokenizer.json").write_bytes(Path(tok_json).read_bytes())
    return path


def is_code_lm(folder: str | Path) -> bool:
    """Whether ``folder`` holds weights written by :func:`save` (safetensors metadata ``kgraph=code_lm``)."""
    path = Path(folder) / "model.safetensors"
    if not path.is_file():
        return False
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        return (f.metadata() or {}).get("kgraph") == "code_lm"


def load(folder: str | Path):
    """The ``ModernBertForMaskedLM`` saved by :func:`save` (float32, eval mode)."""
    from safetensors import safe_open
    from transformers import ModernBertConfig, ModernBertForMaskedLM

    folder = Path(folder)
    config = ModernBertConfig.from_pretrained(str(folder))
    model = ModernBertForMaskedLM(config)
    state = {}
    with safe_open(str(folder / "model.safetensors"), framework="pt") as f:
        fmt = (f.metadata() or {}).get("format", "fp16")
        names = [n for n in f.keys() if not n.endswith(".scale")]
        for name in names:
            t = f.get_tensor(name)
            if fmt == "int8" and t.dtype == torch.int8:
                t = t.float() * f.get_tensor(f"{name}.scale").float()[:, None]
            state[name] = t.float()
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or [m for m in missing if m != "decoder.weight"]:
        raise ValueError(f"code LM weights do not match the config: missing {missing}, unexpected {unexpected}")
    model.tie_weights()
    return model.eval()


def size_report(folder: str | Path) -> dict:
    folder = Path(folder)
    return {p.name: p.stat().st_size for p in sorted(folder.iterdir()) if p.is_file()}


def describe(model) -> str:
    return json.dumps(parameter_counts(model))
