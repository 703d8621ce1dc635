"""Kernel embeddings from the code LM: one pooled vector per kernel and one per graph node, the mean of
the final hidden states of the tokens overlapping the node's byte span (the front end keeps exact byte
spans). Long sources are encoded in windows of the model's length; every token is seen once."""
from __future__ import annotations

import numpy as np
import torch


def _char_offsets_to_bytes(text: str, offsets: list[tuple[int, int]]) -> np.ndarray:
    """Token (start, end) character offsets -> byte offsets of ``text``'s UTF-8 encoding."""
    if text.isascii():
        return np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    byte_at = np.zeros(len(text) + 1, dtype=np.int64)
    byte_at[1:] = np.cumsum([len(c.encode("utf-8")) for c in text])
    return byte_at[np.asarray(offsets, dtype=np.int64).reshape(-1, 2)]


@torch.no_grad()
def token_states(model, tok, text: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One LM pass over ``text``: ``(pooled Float[H], states Float[T, H], byte offsets Long[T, 2])``.

    Long sources are encoded in windows of the model's length; every token is seen once."""
    enc = tok.encode(text, add_special_tokens=False)
    ids = enc.ids or [tok.token_to_id("</s>")]
    body = model.config.max_position_embeddings - 2
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    device = next(model.parameters()).device
    hidden = []
    for i in range(0, len(ids), body):
        window = torch.tensor([[bos, *ids[i:i + body], eos]], device=device)
        hidden.append(model.model(input_ids=window).last_hidden_state[0, 1:-1].float())
    states = torch.cat(hidden)[: len(enc.ids)] if enc.ids else torch.cat(hidden)  # [T, H]
    offsets = torch.from_numpy(_char_offsets_to_bytes(text, enc.offsets)) if enc.ids else torch.zeros((0, 2), dtype=torch.long)
    return states.mean(dim=0), states, offsets.to(device)


def span_means(states: torch.Tensor, offsets: torch.Tensor, pooled: torch.Tensor,
               spans) -> torch.Tensor:
    """Float[len(spans), H]: the mean state of the tokens overlapping each byte span ``[start, end)``; a span
    that covers no token (or ``(-1, -1)``, a node without text) gets ``pooled``."""
    if not len(spans):
        return states.new_zeros((0, states.shape[1]))
    sp = torch.as_tensor(spans, dtype=torch.int64, device=states.device).reshape(-1, 2)
    overlap = (offsets[None, :, 0] < sp[:, None, 1]) & (offsets[None, :, 1] > sp[:, None, 0])  # [nodes, tokens]
    counts = overlap.sum(dim=1, keepdim=True)
    nodes = overlap.to(states.dtype) @ states / counts.clamp_min(1)
    return torch.where(counts > 0, nodes, pooled[None, :])


@torch.no_grad()
def embed(model, tok, text: str, spans: list[tuple[int, int]] = ()) -> tuple[torch.Tensor, torch.Tensor]:
    """``(pooled [hidden], nodes [len(spans), hidden])`` for ``text``; ``spans`` are byte ranges
    ``[start, end)``. A span that covers no token gets the pooled vector."""
    pooled, states, offsets = token_states(model, tok, text)
    return pooled, span_means(states, offsets, pooled, spans)
