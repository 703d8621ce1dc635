"""The project's own code language model: a byte-level BPE tokenizer and a small RoBERTa encoder
pretrained with masked-LM on kernel sources (``kgraph pretrain-lm``).

The output directory is a normal Hugging Face model directory (``config.json``, ``model.safetensors``,
``tokenizer.json`` ...) that :class:`kgraph.models.token_encoder.TokenEncoder` loads with ``AutoModel``.
"""
from __future__ import annotations

import logging
import math
import random
from dataclasses import dataclass
from pathlib import Path

import torch

log = logging.getLogger(__name__)
SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


@dataclass
class LMConfig:
    """Size and training budget of the code LM.

    Args:
        vocab_size: BPE vocabulary size.
        hidden: hidden width; layers: transformer layers; heads: attention heads.
        max_length: longest token sequence (sources are cut into windows of this length).
        steps: optimiser steps; batch_size: windows per step; lr: AdamW peak learning rate.
        mask_prob: share of tokens masked for the MLM loss.
        seed: seed of initialisation, masking and window order.
    """

    vocab_size: int = 4096
    hidden: int = 256
    layers: int = 4
    heads: int = 4
    max_length: int = 512
    steps: int = 2000
    batch_size: int = 16
    lr: float = 5e-4
    mask_prob: float = 0.15
    seed: int = 0


def train_tokenizer(texts: list[str], vocab_size: int, max_length: int):
    """Byte-level BPE trained on ``texts``, wrapped as a ``PreTrainedTokenizerFast`` (RoBERTa specials)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer)
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")))
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                                   cls_token="<s>", sep_token="</s>", model_max_length=max_length)


def build_model(config: LMConfig, tokenizer):
    """A freshly initialised ``RobertaForMaskedLM`` sized by ``config``."""
    from transformers import RobertaConfig, RobertaForMaskedLM

    torch.manual_seed(config.seed)
    cfg = RobertaConfig(vocab_size=len(tokenizer), hidden_size=config.hidden,
                        num_hidden_layers=config.layers, num_attention_heads=config.heads,
                        intermediate_size=4 * config.hidden, max_position_embeddings=config.max_length + 2,
                        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
                        eos_token_id=tokenizer.eos_token_id, type_vocab_size=1)
    return RobertaForMaskedLM(cfg)


def to_windows(texts: list[str], tokenizer, max_length: int) -> list[list[int]]:
    """Token-id windows (with <s> ... </s>) covering every text, each at most ``max_length`` long."""
    body = max_length - 2
    windows = []
    for text in texts:
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        for start in range(0, max(1, len(ids)), body):
            windows.append([tokenizer.bos_token_id, *ids[start:start + body], tokenizer.eos_token_id])
    return windows


def pretrain(texts: list[str], out: str | Path, config: LMConfig, on_step=None) -> dict[str, float]:
    """Train tokenizer + MLM encoder on ``texts`` and save both to ``out``; returns first/last loss.
    ``on_step(step, loss)`` is called after every optimiser step (e.g. a progress bar)."""
    from transformers import DataCollatorForLanguageModeling

    if not texts:
        raise ValueError("no source text to pretrain on")
    random.seed(config.seed)
    tokenizer = train_tokenizer(texts, config.vocab_size, config.max_length)
    model = build_model(config, tokenizer)
    windows = to_windows(texts, tokenizer, config.max_length)
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=config.mask_prob)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.01)
    warm = max(1, config.steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, 0.5 * (
        1 + math.cos(math.pi * min(1.0, s / max(1, config.steps))))))
    gen = torch.Generator().manual_seed(config.seed)
    torch.manual_seed(config.seed)
    model.train()
    losses = []
    for step in range(config.steps):
        pick = torch.randint(len(windows), (config.batch_size,), generator=gen).tolist()
        batch = collator([{"input_ids": windows[i]} for i in pick])
        loss = model(**batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(), sched.step(), opt.zero_grad()
        losses.append(loss.item())
        if on_step is not None:
            on_step(step, losses[-1])
        if step % 100 == 0:
            log.info("step %d mlm loss %.4f", step, losses[-1])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)  # AutoModel loads its encoder part
    tokenizer.save_pretrained(out)
    k = max(1, len(losses) // 10)
    return {"first_loss": sum(losses[:k]) / k, "last_loss": sum(losses[-k:]) / k,
            "windows": float(len(windows)), "steps": float(config.steps)}
