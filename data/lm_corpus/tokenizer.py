"""Byte-level BPE for C-family code (``kgraph lm tokenizer``), aware of OpenCL/CUDA qualifiers.

Pre-tokenisation keeps whole C identifiers together (GPT-2's rule splits at ``_``, so ``__global__`` or
``get_global_id`` could never become one token), then maps bytes to the byte-level alphabet. The
qualifiers of ``conf/lm/qualifiers.json`` are added tokens (each with and without its leading space)
matched as whole words only: ``__global`` is one token, and so is ``__global__``, but ``__global_x`` is
not split around it. Special tokens, in id
order: ``<s> <pad> </s> <unk> <mask>`` (an encoder's CLS/PAD/SEP/UNK/MASK).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

SPECIAL_TOKENS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
# identifiers (with the space before them), numbers, runs of punctuation, whitespace (indentation kept whole)
CODE_PATTERN = (r" ?[A-Za-z_][A-Za-z0-9_]*| ?[0-9][0-9A-Za-z_.]*| ?[^\sA-Za-z0-9_]{1,3}|\n[ \t]+(?=\S)|"
                r"[ \t]+(?!\S)|\s+")


def load_qualifiers(path: str | Path) -> list[str]:
    """Every identifier listed in a qualifiers JSON file (lists under any key but ``comment``), in order."""
    data = json.loads(Path(path).read_text())
    out = [q for key, values in data.items() if key != "comment" for q in values]
    return list(dict.fromkeys(out))


def _base_tokenizer():
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    tok = Tokenizer(models.BPE(unk_token=None, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(CODE_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    return tok


def train_tokenizer(texts: Iterable[str], vocab_size: int, qualifiers: list[str] = (), min_frequency: int = 2):
    """A ``tokenizers.Tokenizer`` of ``vocab_size`` ids (specials and qualifiers included)."""
    from tokenizers import AddedToken, pre_tokenizers, processors, trainers

    tok = _base_tokenizer()
    trainer = trainers.BpeTrainer(vocab_size=max(len(SPECIAL_TOKENS) + 256, vocab_size - 2 * len(qualifiers)),
                                  min_frequency=min_frequency, special_tokens=list(SPECIAL_TOKENS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
                                  max_token_length=32)
    tok.train_from_iterator(texts, trainer)
    if qualifiers:
        # each qualifier with and without the space before it (BPE tokens carry their leading space)
        tok.add_tokens([AddedToken(f"{lead}{q}", single_word=True, normalized=False)
                        for q in qualifiers for lead in ("", " ")])
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                                       special_tokens=[("<s>", bos), ("</s>", eos)])
    return tok


def wrap(tok, max_length: int = 1024):
    """The ``transformers`` fast tokenizer around a ``tokenizers.Tokenizer`` (save_pretrained, offsets)."""
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", mask_token="<mask>", cls_token="<s>", sep_token="</s>",
                                   model_max_length=max_length)


def save_tokenizer(tok, folder: str | Path, max_length: int = 1024) -> Path:
    """``tokenizer.json`` (+ ``tokenizer_config.json``) in ``folder``; returns the tokenizer.json path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    wrap(tok, max_length).save_pretrained(str(folder))
    return folder / "tokenizer.json"


def load_tokenizer(path: str | Path):
    """A ``tokenizers.Tokenizer`` from a tokenizer.json file or a folder holding one."""
    from tokenizers import Tokenizer

    path = Path(path)
    return Tokenizer.from_file(str(path / "tokenizer.json" if path.is_dir() else path))


def stats(tok, texts: list[str], qualifiers: list[str] = ()) -> dict:
    """Bytes per token over ``texts`` and which qualifiers stay single tokens."""
    enc = tok.encode_batch(texts, add_special_tokens=False)
    n_tokens = sum(len(e.ids) for e in enc)
    n_bytes = sum(len(t.encode("utf-8")) for t in texts)
    single = [q for q in qualifiers
              if {q, f" {q}", f"\u0120{q}"} & set(tok.encode(f"x = {q}(y);", add_special_tokens=False).tokens)]
    return {"vocab_size": tok.get_vocab_size(), "tokens": n_tokens, "bytes": n_bytes,
            "bytes_per_token": n_bytes / max(n_tokens, 1), "qualifiers": len(qualifiers),
            "qualifiers_single_token": len(single)}
