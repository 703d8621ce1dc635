"""What the corpus is made of: ``conf/lm/corpus.json`` (sources, filter and dedup settings)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from kgraph.errors import UsageError

KINDS = ("deb", "dsc", "pypi")
SPLITS = ("train", "validation")


@dataclass(frozen=True)
class Source:
    """One package: ``kind`` deb (Debian binary), dsc (Debian source) or pypi (sdist)."""

    name: str
    kind: str
    split: str = "train"
    version: str | None = None
    include: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """File-name-safe identity (cache and per-package files)."""
        return f"{self.kind}-{self.name}"


@dataclass(frozen=True)
class Filters:
    min_bytes: int = 200
    max_bytes: int = 1_000_000
    max_line_length: int = 1000
    max_mean_line_length: float = 160.0
    max_nonprint_share: float = 0.01


@dataclass(frozen=True)
class DedupSettings:
    shingle_bytes: int = 16
    sample_every: int = 8
    permutations: int = 64
    bands: int = 8
    threshold: float = 0.8


@dataclass(frozen=True)
class CorpusConfig:
    sources: tuple[Source, ...]
    debian_mirror: str = "http://deb.debian.org/debian"
    debian_suite: str = "bookworm"
    pypi_url: str = "https://pypi.org/pypi"
    filters: Filters = field(default_factory=Filters)
    dedup: DedupSettings = field(default_factory=DedupSettings)


def parse_config(data: dict) -> CorpusConfig:
    """Validate the JSON document; UsageError names the first bad entry."""
    if not isinstance(data, dict) or not isinstance(data.get("sources"), list) or not data["sources"]:
        raise UsageError("corpus config: expected an object with a non-empty 'sources' list")
    sources, seen = [], set()
    for i, entry in enumerate(data["sources"]):
        if not isinstance(entry, dict) or not entry.get("name"):
            raise UsageError(f"corpus config: sources[{i}] needs a 'name'")
        unknown = set(entry) - {"name", "kind", "split", "version", "include"}
        if unknown:
            raise UsageError(f"corpus config: sources[{i}] ({entry['name']}): unknown keys {sorted(unknown)}")
        src = Source(name=str(entry["name"]), kind=entry.get("kind", "deb"), split=entry.get("split", "train"),
                     version=entry.get("version"), include=tuple(entry.get("include", ())))
        if src.kind not in KINDS:
            raise UsageError(f"corpus config: {src.name}: kind must be one of {KINDS}, got {src.kind!r}")
        if src.split not in SPLITS:
            raise UsageError(f"corpus config: {src.name}: split must be one of {SPLITS}, got {src.split!r}")
        if src.kind == "pypi" and not src.version:
            raise UsageError(f"corpus config: {src.name}: a pypi source needs a pinned 'version'")
        if "/" in src.name or src.name.startswith("."):
            raise UsageError(f"corpus config: bad package name {src.name!r}")
        if src.key in seen:
            raise UsageError(f"corpus config: {src.name} ({src.kind}) is listed twice")
        seen.add(src.key)
        sources.append(src)
    kw = {k: data[k] for k in ("debian_mirror", "debian_suite", "pypi_url") if k in data}
    try:
        filters = Filters(**data.get("filters", {}))
        dedup = DedupSettings(**data.get("dedup", {}))
    except TypeError as exc:
        raise UsageError(f"corpus config: {exc}") from None
    return CorpusConfig(sources=tuple(sources), filters=filters, dedup=dedup, **kw)


def load_config(path: str | Path) -> CorpusConfig:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"corpus config {path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"corpus config {path}: not valid JSON ({exc})") from None
    return parse_config(data)
