"""Exact and near-duplicate removal across the whole corpus (first occurrence wins, in config order).

Exact: SHA-256 of the text with whitespace runs collapsed. Near: MinHash over byte shingles of that
normalised text (``shingle_bytes`` long; a consistent 1-in-``sample_every`` subsample of the shingle
hashes keeps it fast), ``permutations`` multiply-shift hash functions, banded LSH (``bands`` bands), and a
candidate counts as a duplicate when the signatures agree on at least ``threshold`` of their positions
(the estimated Jaccard similarity). Pure numpy: no extra dependency, ~100 MB/s on one core.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from .sources import DedupSettings

_SPACE = re.compile(r"\s+")
_P = np.uint64(0x100000001B3)  # FNV prime: the rolling polynomial's base
_MIX = np.uint64(0xBF58476D1CE4E5B9)


def normalise(text: str) -> bytes:
    return _SPACE.sub(" ", text).strip().encode("utf-8", "replace")


def exact_key(text: str) -> bytes:
    return hashlib.sha256(normalise(text)).digest()[:16]


def shingle_hashes(norm: bytes, k: int, sample_every: int) -> np.ndarray:
    """64-bit hashes of every ``k``-byte window (``k`` <= 16; a consistent subsample of them), at least one.

    Each window is read as two overlapping little-endian 64-bit words (unaligned strided views), mixed."""
    k = max(1, min(int(k), 16))
    n = max(1, len(norm) - k + 1)
    buf = np.frombuffer(norm + bytes(24), dtype=np.uint8)
    words = np.ndarray((n + 8,), dtype="<u8", buffer=buf, strides=(1,))
    lo = words[:n]
    with np.errstate(over="ignore"):
        if k < 8:
            lo = lo & np.uint64((1 << (8 * k)) - 1)
        h = lo * _MIX
        if k > 8:  # the window's last 8 bytes (overlapping the first word when k < 16)
            hi = words[k - 8:k - 8 + n]
            h ^= (hi * _P) ^ (hi >> np.uint64(17))
        h ^= h >> np.uint64(31)
        h *= _MIX
        h ^= h >> np.uint64(29)
    if sample_every > 1:
        kept = h[h % np.uint64(sample_every) == 0]
        h = kept if len(kept) else h[np.argmin(h)][None]
    return h


class MinHasher:
    def __init__(self, permutations: int, seed: int = 1):
        rng = np.random.default_rng(seed)
        self.a = (rng.integers(0, 2**63, permutations, dtype=np.uint64) << np.uint64(1)) | np.uint64(1)
        self.b = rng.integers(0, 2**63, permutations, dtype=np.uint64)

    def signature(self, hashes: np.ndarray) -> np.ndarray:
        out = np.empty(len(self.a), dtype=np.uint32)
        with np.errstate(over="ignore"):
            for i in range(0, len(self.a), 8):
                a, b = self.a[i:i + 8, None], self.b[i:i + 8, None]
                out[i:i + 8] = ((hashes[None, :] * a + b) >> np.uint64(32)).min(axis=1)
        return out


class Deduper:
    """``check(text)`` -> None for a new text (now remembered), ``"exact"`` or ``"near"`` for a duplicate."""

    def __init__(self, settings: DedupSettings = DedupSettings()):
        if settings.permutations % settings.bands:
            raise ValueError("dedup: permutations must be a multiple of bands")
        self.s = settings
        self.hasher = MinHasher(settings.permutations)
        self.rows = settings.permutations // settings.bands
        self.exact: set[bytes] = set()
        self.tables: list[dict[bytes, int]] = [{} for _ in range(settings.bands)]
        self.signatures: list[np.ndarray] = []

    def check(self, text: str) -> str | None:
        norm = normalise(text)
        key = hashlib.sha256(norm).digest()[:16]
        if key in self.exact:
            return "exact"
        self.exact.add(key)
        sig = self.hasher.signature(shingle_hashes(norm, self.s.shingle_bytes, self.s.sample_every))
        bands = [sig[i * self.rows:(i + 1) * self.rows].tobytes() for i in range(self.s.bands)]
        tried = set()
        for table, band in zip(self.tables, bands):
            other = table.get(band)
            if other is not None and other not in tried:
                tried.add(other)
                if np.mean(self.signatures[other] == sig) >= self.s.threshold:
                    return "near"
        idx = len(self.signatures)
        self.signatures.append(sig)
        for table, band in zip(self.tables, bands):
            table.setdefault(band, idx)
        return None
