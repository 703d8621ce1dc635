"""Download each source into ``CACHE/<kind>/<name>/`` (resumable: a finished directory is never fetched
again; a half-finished one is a ``.partial`` directory that the next run replaces).

Debian binary packages come from ``apt-get download`` (the machine's own apt lists); source packages
from ``apt-get source --download-only`` through a private deb-src list under ``CACHE/apt`` (the system's
apt configuration is left alone); PyPI sdists from the JSON API, checked against their sha256.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from kgraph.errors import InputError

from .sources import CorpusConfig, Source

TIMEOUT_S = 600
_UNREACHABLE = ("Could not resolve", "Failed to fetch", "Temporary failure", "Could not connect",
                "Connection failed", "Unable to connect", "Network is unreachable")


class FetchError(InputError):
    """A package could not be fetched (unreachable archive, unknown package, bad download)."""


class NotServed(FetchError):
    """The archive answered, but not with this package (unknown name, version or file: HTTP 404)."""


def fetched_dir(src: Source, cache: Path) -> Path:
    return Path(cache) / src.kind / src.name


def is_fetched(src: Source, cache: Path) -> bool:
    return fetched_dir(src, cache).is_dir()


def fetch(src: Source, cache: Path, config: CorpusConfig) -> Path:
    """The directory holding ``src``'s downloaded files; downloads only when it is not there yet."""
    cache = Path(cache).resolve()  # apt-get runs in the package's own directory
    final = fetched_dir(src, cache)
    if final.is_dir():
        return final
    partial = final.with_name(final.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    if src.kind == "deb":
        _run_apt(["apt-get", "download", _spec(src)], partial, src)
    elif src.kind == "dsc":
        opts = _private_apt(Path(cache), config)
        _run_apt(["apt-get", *opts, "source", "--download-only", _spec(src)], partial, src)
    else:
        _fetch_pypi(src, partial, config.pypi_url)
    if not any(partial.iterdir()):
        raise FetchError(f"lm corpus: fetching {src.name} ({src.kind}) produced no file")
    partial.rename(final)
    return final


def _spec(src: Source) -> str:
    return f"{src.name}={src.version}" if src.version else src.name


def _run_apt(cmd: list[str], cwd: Path, src: Source) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except FileNotFoundError:
        raise FetchError("lm corpus: apt-get is not installed (Debian packages need a Debian-like host)") from None
    except subprocess.TimeoutExpired:
        raise FetchError(f"lm corpus: fetching {src.name} took over {TIMEOUT_S} s (slow or unreachable "
                         "Debian archive)") from None
    if proc.returncode != 0:
        err = (proc.stderr or proc.stdout).strip().splitlines()
        last = err[-1] if err else f"exit status {proc.returncode}"
        if " 404 " in (proc.stderr or "") or "Unable to locate" in (proc.stderr or "") or \
                "Can not find" in (proc.stderr or "") or "Can't find" in (proc.stderr or ""):
            raise NotServed(f"lm corpus: the archive does not serve {src.kind} package {src.name}: {last}")
        if any(marker in (proc.stderr or "") for marker in _UNREACHABLE):
            raise FetchError(f"lm corpus: the Debian archive is unreachable while fetching {src.name}: {last}")
        raise FetchError(f"lm corpus: cannot fetch {src.kind} package {src.name}: {last}")


def _private_apt(cache: Path, config: CorpusConfig) -> list[str]:
    """apt options that use a deb-src list and package lists under ``CACHE/apt`` (updated once)."""
    root = cache / "apt"
    (root / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (root / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    sources = root / "sources.list"
    line = f"deb-src {config.debian_mirror} {config.debian_suite} main\n"
    if not sources.exists() or sources.read_text() != line:
        sources.write_text(line)
        (root / "updated").unlink(missing_ok=True)
    opts = ["-o", f"Dir::Etc::SourceList={sources}", "-o", "Dir::Etc::SourceParts=/nonexistent",
            "-o", f"Dir::State::Lists={root / 'lists'}", "-o", f"Dir::Cache={root}"]
    if not (root / "updated").exists():
        try:
            proc = subprocess.run(["apt-get", *opts, "update"], capture_output=True, text=True, timeout=TIMEOUT_S)
        except FileNotFoundError:
            raise FetchError("lm corpus: apt-get is not installed (Debian packages need a Debian-like host)") from None
        except subprocess.TimeoutExpired:
            raise FetchError(f"lm corpus: the Debian archive {config.debian_mirror} did not answer in "
                             f"{TIMEOUT_S} s") from None
        bad = proc.returncode != 0 or any(m in proc.stderr for m in _UNREACHABLE) or "Err:" in proc.stdout
        if bad:
            last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
            raise FetchError(f"lm corpus: the Debian archive {config.debian_mirror} ({config.debian_suite}) "
                             f"is unreachable for source packages: {last[0]}")
        (root / "updated").write_text("ok\n")
    return opts


def _get(url: str, what: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=120) as resp:
            return resp.read()
    except urllib.error.HTTPError as exc:
        raise (NotServed if exc.code == 404 else FetchError)(f"lm corpus: {what}: {url} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"lm corpus: {what}: PyPI is unreachable ({url}: {reason})") from None


def _fetch_pypi(src: Source, dest: Path, pypi_url: str) -> None:
    meta_url = f"{pypi_url.rstrip('/')}/{src.name}/json"
    meta = json.loads(_get(meta_url, src.name))
    files = meta.get("releases", {}).get(src.version) or []
    sdists = [f for f in files if f.get("packagetype") == "sdist"]
    if not sdists:
        raise NotServed(f"lm corpus: PyPI has no sdist of {src.name} {src.version}")
    sdist = sdists[0]
    data = _get(urllib.parse.urljoin(meta_url, sdist["url"]), src.name)  # a mirror may answer a relative URL
    want = sdist.get("digests", {}).get("sha256")
    if want and hashlib.sha256(data).hexdigest() != want:
        raise FetchError(f"lm corpus: {sdist['filename']}: sha256 mismatch")
    (dest / sdist["filename"]).write_bytes(data)
    info = meta.get("info", {})
    license_ = info.get("license_expression") or ""
    if not license_ and info.get("license") and len(info["license"]) <= 80:
        license_ = info["license"]
    if not license_:
        license_ = "; ".join(c.split("::")[-1].strip() for c in info.get("classifiers", [])
                             if c.startswith("License ::"))
    (dest / "pypi.json").write_text(json.dumps({"name": src.name, "version": src.version,
                                                "license": license_ or "unknown"}) + "\n")
