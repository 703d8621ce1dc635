"""Sizes of the code LM. ``small`` is what ships (about 6 M parameters: ~6 MB as int8 safetensors);
``tiny`` is for CPU tests."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class CodeLMSize:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    seq_len: int
    local_attention: int
    global_every: int = 3

    def to_dict(self) -> dict:
        return asdict(self)


PRESETS = {
    "small": CodeLMSize(hidden=256, layers=6, heads=4, intermediate=512, seq_len=1024, local_attention=256),
    "tiny": CodeLMSize(hidden=32, layers=2, heads=2, intermediate=64, seq_len=64, local_attention=32,
                       global_every=2),
}


def hf_config(size: CodeLMSize, vocab_size: int, special: dict[str, int]):
    """The ``transformers.ModernBertConfig`` of ``size`` (SDPA attention, sparse MLM prediction)."""
    from transformers import ModernBertConfig

    return ModernBertConfig(
        vocab_size=vocab_size, hidden_size=size.hidden, num_hidden_layers=size.layers,
        num_attention_heads=size.heads, intermediate_size=size.intermediate,
        max_position_embeddings=size.seq_len, local_attention=size.local_attention,
        global_attn_every_n_layers=size.global_every, pad_token_id=special["pad"], bos_token_id=special["bos"],
        eos_token_id=special["eos"], cls_token_id=special["bos"], sep_token_id=special["eos"],
        mask_token_id=special["mask"], sparse_prediction=True, attn_implementation="sdpa",
        tie_word_embeddings=True, embedding_dropout=0.0, attention_dropout=0.0, mlp_dropout=0.0)
