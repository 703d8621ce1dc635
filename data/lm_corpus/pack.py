"""Token-id arrays for pretraining: documents -> one flat ``uint16`` file (``</s>`` after each document).

Packing runs where the training runs (a GPU host has many cores; ``tokenizers`` encodes in parallel), from
the text shards or the xz subset, and is cached next to them keyed by the tokenizer's hash.
"""
from __future__ import annotations

import hashlib
import json
import lzma
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

BATCH = 512


def read_jsonl(path: str | Path) -> Iterator[dict]:
    """Documents of a ``.jsonl`` or ``.jsonl.xz`` file."""
    path = Path(path)
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def tokenizer_hash(tokenizer_json: str | Path) -> str:
    return hashlib.sha256(Path(tokenizer_json).read_bytes()).hexdigest()[:12]


def pack(texts: Iterable[str], tok, out: str | Path) -> np.memmap:
    """Encode ``texts`` (no specials), each followed by ``</s>``, into ``out`` (uint16); the array."""
    eos = tok.token_to_id("</s>")
    if tok.get_vocab_size() > 65535:
        raise ValueError("pack: a vocabulary over 65535 ids does not fit uint16")
    out = Path(out)
    tmp = out.with_name(out.name + ".partial")
    n = 0
    with open(tmp, "wb") as f:
        batch: list[str] = []

        def flush() -> None:
            nonlocal n
            for enc in tok.encode_batch(batch, add_special_tokens=False):
                ids = np.asarray(enc.ids + [eos], dtype=np.uint16)
                f.write(ids.tobytes())
                n += len(ids)
            batch.clear()

        for text in texts:
            batch.append(text)
            if len(batch) >= BATCH:
                flush()
        if batch:
            flush()
    tmp.rename(out)
    return np.memmap(out, dtype=np.uint16, mode="r", shape=(n,)) if n else np.zeros(0, np.uint16)


def packed(sources: list[Path], tok, tokenizer_json: Path, cache: Path, name: str) -> np.ndarray:
    """``pack`` of every document of ``sources`` (jsonl / jsonl.xz), cached as ``cache/<name>-<hash>.u16``
    (the hash covers the tokenizer and the sources' names, sizes and times: a rebuilt subset is packed anew)."""
    cache = Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(tokenizer_hash(tokenizer_json).encode())
    for src in sources:
        st = Path(src).stat()
        key.update(f"{Path(src).name}:{st.st_size}:{st.st_mtime_ns}".encode())
    out = cache / f"{name}-{key.hexdigest()[:12]}.u16"
    if out.exists():
        return np.memmap(out, dtype=np.uint16, mode="r") if out.stat().st_size else np.zeros(0, np.uint16)
    return pack((doc["text"] for src in sources for doc in read_jsonl(src)), tok, out)
