"""The whole ``kgraph lm corpus`` run: fetch -> extract/filter -> dedup -> split -> shards -> GPU subset
-> manifest.

Output directory (never committed)::

    OUT/cache/          downloaded packages (resumable)
    OUT/extracted/      filtered files per package (resumable)
    OUT/shards/         train-NNNNN.jsonl, validation-NNNNN.jsonl: {"package","file","lang","text"} a line
    OUT/gpu/            train.jsonl.xz + validation.jsonl.xz: a subset small enough to carry to a GPU host
                        (every GPU-kernel file first, then a uniform sample of the rest)
    OUT/manifest.tsv    one row per kept file (the committed manifest, conf/lm/corpus_manifest.json.xz, is
                        its columnar xz form with token counts)
    OUT/summary.json    per-package counts, drop reasons, totals
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import logging
import lzma
from collections.abc import Callable, Iterator
from pathlib import Path

from .dedup import Deduper
from .extract import extract, extracted_paths
from .fetch import NotServed, fetch
from .filters import GPU_LANGUAGES
from .sources import CorpusConfig

log = logging.getLogger(__name__)
MANIFEST_COLUMNS = ("package", "version", "split", "file", "sha256", "language", "bytes", "tokens", "license")
SHARD_BYTES = 64 << 20


class ShardWriter:
    def __init__(self, folder: Path, split: str, limit: int = SHARD_BYTES):
        self.folder, self.split, self.limit = folder, split, limit
        self.index, self.size, self.f = 0, 0, None

    def write(self, line: str) -> None:
        if self.f is None or self.size >= self.limit:
            self.close()
            self.f = open(self.folder / f"{self.split}-{self.index:05d}.jsonl", "w", encoding="utf-8")
            self.index, self.size = self.index + 1, 0
        self.f.write(line)
        self.size += len(line)

    def close(self) -> None:
        if self.f is not None:
            self.f.close()
            self.f = None


def iter_shards(out: Path, split: str) -> Iterator[dict]:
    """Documents of one split, in manifest order."""
    for shard in sorted((Path(out) / "shards").glob(f"{split}-*.jsonl")):
        with open(shard, encoding="utf-8") as f:
            for line in f:
                yield json.loads(line)


def _docs(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def build(config: CorpusConfig, out: Path, *, strict: bool = False, gpu_mb: float = 22.0,
          say: Callable[[str], None] = print) -> dict:
    """Run every step; returns the summary (also written to ``OUT/summary.json``)."""
    out = Path(out)
    cache = out / "cache"
    packages = []
    for src in config.sources:
        try:
            fetched = fetch(src, cache, config)
        except NotServed as exc:
            if strict:
                raise
            say(f"warning: {exc} (skipped)")
            packages.append({"name": src.name, "kind": src.kind, "split": src.split, "unavailable": str(exc)})
            continue
        info = extract(src, fetched, out, config.filters)
        say(f"{src.key}: {info['kept']} files, {info['kept_bytes'] / 1e6:.1f} MB kept")
        packages.append(info)

    shards = out / "shards"
    shards.mkdir(parents=True, exist_ok=True)
    for old in shards.glob("*.jsonl"):
        old.unlink()
    writers = {s: ShardWriter(shards, s) for s in ("train", "validation")}
    deduper = Deduper(config.dedup)
    rows = []
    for info in packages:
        if "unavailable" in info:
            continue
        info["duplicates"] = {"exact": 0, "near": 0}
        info["files"], info["bytes"], info["gpu_bytes"] = 0, 0, 0
        files, _ = extracted_paths(next(s for s in config.sources if s.name == info["name"]
                                        and s.kind == info["kind"]), out)
        for doc in _docs(files):
            dup = deduper.check(doc["text"])
            if dup:
                info["duplicates"][dup] += 1
                continue
            raw = doc["text"].encode("utf-8")
            writers[info["split"]].write(json.dumps({"package": info["name"], "file": doc["path"],
                                                     "lang": doc["lang"], "text": doc["text"]},
                                                    ensure_ascii=False) + "\n")
            rows.append([info["name"], info["version"], info["split"], doc["path"],
                         hashlib.sha256(raw).hexdigest()[:16], doc["lang"], len(raw), "", info["license"]])
            info["files"] += 1
            info["bytes"] += len(raw)
            if doc["lang"] in GPU_LANGUAGES:
                info["gpu_bytes"] += len(raw)
        say(f"{info['kind']}-{info['name']}: {info['files']} files after dedup "
            f"({info['duplicates']['exact']} exact, {info['duplicates']['near']} near duplicates)")
    for w in writers.values():
        w.close()
    write_manifest(out / "manifest.tsv", rows)
    rest = {split: sum(int(r[6]) for r in rows if r[2] == split and r[5] not in GPU_LANGUAGES)
            for split in ("train", "validation")}
    gpu = write_gpu_subset(out, gpu_mb, rest_bytes=rest)
    summary = summarise(packages, rows)
    summary["gpu_subset"] = gpu
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def summarise(packages: list[dict], rows: list[list]) -> dict:
    by_lang: dict[str, int] = {}
    for r in rows:
        by_lang[r[5]] = by_lang.get(r[5], 0) + int(r[6])
    return {"packages": packages, "files": len(rows), "bytes": sum(int(r[6]) for r in rows),
            "bytes_by_language": by_lang, "gpu_kernel_bytes": sum(v for k, v in by_lang.items() if k in GPU_LANGUAGES),
            "train_bytes": sum(int(r[6]) for r in rows if r[2] == "train"),
            "validation_bytes": sum(int(r[6]) for r in rows if r[2] == "validation")}


COMMITTED_SHA_HEX = 8  # the committed manifest keeps 32 bits of each SHA-256: enough to check a rebuilt file


def write_manifest(path: Path, rows: list[list], compress: bool = False) -> None:
    """Rows (in :data:`MANIFEST_COLUMNS` order) as TSV (gzip when ``compress``), or, for a ``.json.xz``
    path, as one JSON object of columns (``{"package": [...], ...}``) compressed with xz: the committed
    form, about a third smaller than row-wise text, with the SHA-256 cut to ``COMMITTED_SHA_HEX`` digits."""
    if str(path).endswith(".json.xz"):
        columns = {c: [r[i] for r in rows] for i, c in enumerate(MANIFEST_COLUMNS)}
        columns["sha256"] = [h[:COMMITTED_SHA_HEX] for h in columns["sha256"]]
        for c in ("bytes", "tokens"):
            columns[c] = [int(v or 0) for v in columns[c]]
        blob = ("{\n" + ",\n".join(f"{json.dumps(c)}: {json.dumps(v, ensure_ascii=False)}"
                                     for c, v in columns.items()) + "\n}\n").encode("utf-8")
        Path(path).write_bytes(lzma.compress(blob, preset=9 | lzma.PRESET_EXTREME))
        return
    lines = ["\t".join(MANIFEST_COLUMNS)] + ["\t".join(str(c).replace("\t", " ").replace("\n", " ") for c in r)
                                             for r in rows]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if compress:
        path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    else:
        path.write_bytes(data)


def read_manifest(path: Path) -> list[dict]:
    """Rows as dicts of strings, from any form :func:`write_manifest` writes."""
    if str(path).endswith(".json.xz"):
        columns = json.loads(lzma.decompress(Path(path).read_bytes()))
        n = len(columns["package"])
        return [{c: str(columns[c][i]) for c in MANIFEST_COLUMNS} for i in range(n)]
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    header, *lines = data.decode("utf-8").rstrip("\n").split("\n")
    cols = header.split("\t")
    return [dict(zip(cols, line.split("\t"))) for line in lines]


def _uniform(key: str) -> float:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64


def write_gpu_subset(out: Path, gpu_mb: float, validation_mb: float = 2.0,
                     rest_bytes: dict[str, int] | None = None) -> dict:
    """xz-compressed subset of the shards under ``OUT/gpu`` (GPU-kernel files first), at most ``gpu_mb``
    MB (train) + ``validation_mb`` MB (validation) compressed."""
    folder = Path(out) / "gpu"
    folder.mkdir(exist_ok=True)
    stats = {}
    for split, budget_mb in (("train", gpu_mb), ("validation", validation_mb)):
        budget = int(budget_mb * 1e6)
        slack = min(1 << 20, budget // 4)  # a budget of 1 MB or less still gets most of its bytes
        path = folder / f"{split}.jsonl.xz"
        raw = open(path, "wb")
        xz = lzma.LZMAFile(raw, "w", preset=6)
        text_bytes = docs = gpu_bytes = 0
        full = False

        def put(doc: dict) -> bool:
            nonlocal text_bytes, docs
            line = json.dumps(doc, ensure_ascii=False) + "\n"
            xz.write(line.encode("utf-8"))
            text_bytes += len(line)
            docs += 1
            return raw.tell() < budget - slack  # the compressor holds back up to ~1 MB

        for doc in iter_shards(out, split):  # pass 1: every GPU-kernel file
            if doc["lang"] in GPU_LANGUAGES:
                gpu_bytes += len(doc["text"])
                if not put(doc):
                    full = True
                    break
        if not full:  # pass 2: a uniform sample of the rest, sized from pass 1's compression ratio
            ratio = text_bytes / max(raw.tell(), 1) if raw.tell() > (1 << 20) else 6.0
            rest = (rest_bytes or {}).get(split)
            if rest is None:
                rest = sum(len(d["text"]) for d in iter_shards(out, split) if d["lang"] not in GPU_LANGUAGES)
            room = (budget - slack - raw.tell()) * ratio * 0.9
            share = min(1.0, room / max(rest, 1))
            for doc in iter_shards(out, split):
                if doc["lang"] not in GPU_LANGUAGES and _uniform(doc["package"] + doc["file"]) < share:
                    if not put(doc):
                        break
        xz.close()
        raw.close()
        stats[split] = {"docs": docs, "text_bytes": text_bytes, "gpu_kernel_bytes": gpu_bytes,
                        "compressed_bytes": path.stat().st_size}
    (folder / "subset.json").write_text(json.dumps(stats, indent=1) + "\n")
    return stats


def tokenizer_sample(out: Path, sample_mb: float) -> Iterator[str]:
    """Training text for the tokenizer: every GPU-kernel train file plus a uniform sample of the rest,
    about ``sample_mb`` MB in all."""
    summary = json.loads((Path(out) / "summary.json").read_text())
    gpu = sum(p.get("gpu_bytes", 0) for p in summary["packages"] if p.get("split") == "train")
    rest = max(summary["train_bytes"] - gpu, 1)
    share = max(0.0, min(1.0, (sample_mb * 1e6 - gpu) / rest))
    for doc in iter_shards(out, "train"):
        if doc["lang"] in GPU_LANGUAGES or _uniform(doc["package"] + doc["file"]) < share:
            yield doc["text"]


def count_tokens(out: Path, tok, batch: int = 256) -> dict[tuple[str, str, str], int]:
    """Tokens of every kept file (no special tokens), keyed by (package, file, sha256 prefix)."""
    counts = {}
    for split in ("train", "validation"):
        docs: list[dict] = []

        def flush() -> None:
            for doc, enc in zip(docs, tok.encode_batch([d["text"] for d in docs], add_special_tokens=False)):
                sha = hashlib.sha256(doc["text"].encode("utf-8")).hexdigest()[:16]
                counts[(doc["package"], doc["file"], sha)] = len(enc.ids)
            docs.clear()

        for doc in iter_shards(out, split):
            docs.append(doc)
            if len(docs) >= batch:
                flush()
        flush()
    return counts


PACKAGE_COLUMNS = ("package", "kind", "version", "split", "files", "bytes", "gpu_kernel_bytes", "tokens",
                   "license", "note")


def finish_manifest(out: Path, tok, manifest: Path, packages_table: Path) -> dict:
    """Fill the token column of ``OUT/manifest.tsv`` with ``tok``'s counts and write the committed
    manifest (gzip) and per-package table; returns totals."""
    out = Path(out)
    rows = read_manifest(out / "manifest.tsv")
    order = {p: i for i, p in enumerate(dict.fromkeys(r["package"] for r in rows))}
    rows.sort(key=lambda r: (order[r["package"]], r["file"]))  # packages in config order, files sorted
    counts = count_tokens(out, tok)
    per_pkg: dict[str, int] = {}
    for r in rows:
        r["tokens"] = str(counts.get((r["package"], r["file"], r["sha256"]), 0))
        per_pkg[r["package"]] = per_pkg.get(r["package"], 0) + int(r["tokens"])
    write_manifest(Path(manifest), [[r[c] for c in MANIFEST_COLUMNS] for r in rows], compress=True)
    # (a .json.xz path gets the columnar form; anything else gzip'd TSV)
    write_manifest(out / "manifest.tsv", [[r[c] for c in MANIFEST_COLUMNS] for r in rows])
    summary = json.loads((out / "summary.json").read_text())
    lines = ["\t".join(PACKAGE_COLUMNS)]
    for p in summary["packages"]:
        note = p.get("unavailable", "")
        lines.append("\t".join(str(x) for x in (
            p["name"], p["kind"], p.get("version", ""), p["split"], p.get("files", 0), p.get("bytes", 0),
            p.get("gpu_bytes", 0), per_pkg.get(p["name"], 0), p.get("license", ""), note)))
    Path(packages_table).write_text("\n".join(lines) + "\n")
    totals = {"tokens": sum(per_pkg.values()),
              "train_tokens": sum(int(r["tokens"]) for r in rows if r["split"] == "train"),
              "validation_tokens": sum(int(r["tokens"]) for r in rows if r["split"] == "validation"),
              "gpu_kernel_tokens": sum(int(r["tokens"]) for r in rows if r["language"] in GPU_LANGUAGES)}
    summary["tokens"] = totals
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return totals
