"""Per-package extraction: fetched archive -> filtered files in ``OUT/extracted/<kind>-<name>.jsonl.gz``
(one JSON object a line: path, language, text) plus ``<kind>-<name>.json`` (version, license, counts).
A package whose files are there, made with the same filter settings, is not read again."""
from __future__ import annotations

import gzip
import hashlib
import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from .archives import open_package
from .filters import check
from .sources import Filters, Source


def settings_key(src: Source, filters: Filters) -> str:
    blob = json.dumps([asdict(filters), list(src.include), 1], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def extracted_paths(src: Source, out: Path) -> tuple[Path, Path]:
    folder = Path(out) / "extracted"  # (not with_suffix: names like linux-source-6.1 hold dots)
    return folder / f"{src.key}.jsonl.gz", folder / f"{src.key}.json"


def load_meta(src: Source, out: Path, filters: Filters) -> dict | None:
    files, meta = extracted_paths(src, out)
    if not (files.exists() and meta.exists()):
        return None
    info = json.loads(meta.read_text())
    return info if info.get("settings") == settings_key(src, filters) else None


def extract(src: Source, fetched: Path, out: Path, filters: Filters) -> dict:
    """Filter ``src``'s files into its extracted file; returns (and writes) its metadata."""
    cached = load_meta(src, out, filters)
    if cached is not None:
        return cached
    files, meta = extracted_paths(src, out)
    files.parent.mkdir(parents=True, exist_ok=True)
    tmp = files.with_name(files.name + ".partial")
    pkg, members = open_package(src, fetched, filters.max_bytes)
    reasons: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    kept_bytes = 0
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=1) as f:
        for path, data in members:
            lang, text = check(path, data, filters)
            if lang is None:
                reasons[text] += 1
                continue
            langs[lang] += 1
            kept_bytes += len(data)
            f.write(json.dumps({"path": path, "lang": lang, "text": text}, ensure_ascii=False) + "\n")
    reasons["large"] += pkg.skipped_large
    info = {"name": src.name, "kind": src.kind, "split": src.split, "version": pkg.version, "license": pkg.license,
            "kept": sum(langs.values()), "kept_bytes": kept_bytes, "languages": dict(langs),
            "dropped": dict(reasons), "settings": settings_key(src, filters)}
    tmp.rename(files)
    meta.write_text(json.dumps(info, indent=1) + "\n")
    return info
