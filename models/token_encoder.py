"""Token encoder: a Hugging Face encoder loaded from a local directory, pooled to one vector per source.

Nothing is ever downloaded (``local_files_only=True``). The default directory ``models/code_lm/weights``
holds the code LM pretrained on registry code (docs/LM.md), read by :func:`kgraph.models.code_lm.model.load`;
any other local Hugging Face encoder folder loads through ``AutoModel`` (the project's first small RoBERTa,
``kgraph pretrain-lm --out models/lm``, is no longer tracked: rebuild it with that command).
Tokenisation happens once per source in :mod:`kgraph.data.graph_dataset`, never here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn

from kgraph.errors import ModelError
from kgraph.resources import resolve_model_dir



@dataclass
class TokenEncoderConfig:
    """Token encoder settings.

    Args:
        path: local directory of a Hugging Face model + tokenizer (relative paths are tried from the
            working directory, then, for ``models/...``, inside the installed package).
        freeze: keep the encoder's weights fixed (only pooling output is used) or fine-tune them.
        pooling: ``mean`` over non-padding tokens or the first (``cls``) token state.
        max_length: tokens kept per source (longer sources are truncated).
    """

    path: str = "models/code_lm/weights"
    freeze: bool = True
    pooling: Literal["mean", "cls"] = "mean"
    max_length: int = 512


class TokenEncoder(nn.Module):
    """Pooled states of a local Hugging Face encoder.

    Args:
        config: :class:`TokenEncoderConfig`.

    Shapes:
        - input_ids, attention_mask: Long[S, L] (one row per distinct source)
        - returns (token_states Float[S, L, D], pooled Float[S, D]) with D = ``out_dim``
    """

    def __init__(self, config: TokenEncoderConfig):
        super().__init__()
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        self.config = config
        directory = resolve_model_dir(config.path)
        verbosity = hf_logging.get_verbosity()
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()  # an MLM checkpoint loads into AutoModel with an unused LM head
        from kgraph.models.code_lm.model import is_code_lm, load

        try:
            # kgraph's code LM (int8/fp16 safetensors of models/code_lm) loads through its own reader
            self.encoder = (load(directory).model if is_code_lm(directory)
                            else AutoModel.from_pretrained(str(directory), local_files_only=True))
        except (OSError, ValueError) as exc:
            raise ModelError(f"token encoder: cannot load the model in {directory}: {exc}") from exc
        finally:
            hf_logging.set_verbosity(verbosity)
        limit = _position_limit(self.encoder.config)
        if limit is not None and config.max_length > limit:
            raise ModelError(f"model.arch.tokens.max_length={config.max_length} is longer than the token encoder "
                             f"in {directory} can read ({limit} tokens): set it to {limit} or less")
        if config.freeze:
            self.encoder.requires_grad_(False)
            self.encoder.eval()

    @property
    def out_dim(self) -> int:
        return int(self.encoder.config.hidden_size)

    def train(self, mode: bool = True) -> "TokenEncoder":
        super().train(mode)
        if self.config.freeze:
            self.encoder.eval()  # a frozen encoder never uses dropout
        return self

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> tuple[Tensor, Tensor]:
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.config.freeze):
            states = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        # states: [S, L, D]
        if self.config.pooling == "cls":
            return states, states[:, 0]
        mask = attention_mask.unsqueeze(-1).to(states.dtype)  # [S, L, 1]
        pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)  # [S, D]
        return states, pooled


def _position_limit(hf_config) -> int | None:
    """Tokens a HF encoder can take: its position table, less RoBERTa's padding offset."""
    positions = getattr(hf_config, "max_position_embeddings", None)
    if positions is None:
        return None
    offset = getattr(hf_config, "pad_token_id", 0) + 1 if hf_config.model_type in ("roberta", "camembert") else 0
    return int(positions) - offset
