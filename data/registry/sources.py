"""Where the registry set's kernels come from: pinned package-registry archives (``conf/registry/sources.json``).

Each source is a PyPI sdist or a Debian binary package (``kind`` ``pypi`` or ``deb``), pinned by version and
sha256, and the folders of its archive whose ``.cl`` files (and, where the source says ``headers``, the ``.h`` files
they include) are read. Archives are downloaded into a cache folder at build time (``kgraph registry fetch``), never
at run time, and never committed: third-party text is data, kept out of the repository. A download whose sha256 is
not the pinned one is refused.
"""
from __future__ import annotations

import hashlib
import io
import json
import tarfile
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from kgraph.errors import InputError, UsageError

#: the pinned sources and the packages' build-time macro values
CONFIG = Path(__file__).resolve().parents[2] / "conf" / "registry" / "sources.json"
#: the most bytes of one kernel file read from an archive
MAX_FILE_BYTES = 1 << 20
#: the files read under a source's roots: kernel files, and (``headers``) the headers they include
KERNEL_SUFFIXES = (".cl", ".h")


class RegistryError(InputError):
    """A registry archive cannot be fetched or read (message names the source and why)."""


@dataclass(frozen=True)
class RegistrySource:
    """One pinned archive.

    Args:
        name: the PyPI project or Debian package; version: its pinned release; sha256: the archive's digest;
        license: its license (as the project declares it); roots: folders of the archive (below an sdist's top
            folder; from the root of a .deb's file system) whose ``.cl`` files are read; kind: ``pypi`` or ``deb``;
        headers: also read the ``.h`` files there (a kernel file includes them). Off where a source was measured
            without them: pyFAI ships an IDE stub, ``for_eclipse.h``, that its units leave out.
    """

    name: str
    version: str
    sha256: str
    license: str
    roots: tuple[str, ...]
    kind: str = "pypi"
    headers: bool = False

    @property
    def package(self) -> str:
        """``name-version``: an sdist's top folder, and the kernels' package label."""
        return f"{self.name}-{self.version}"


@dataclass(frozen=True)
class RegistryConfig:
    """``conf/registry/sources.json``: ``sources`` and ``macros`` (build-time macro name -> value)."""

    sources: tuple[RegistrySource, ...]
    macros: dict
    pypi_url: str = "https://pypi.org/pypi"


def load_config(path: str | Path | None = None) -> RegistryConfig:
    """The registry configuration (UsageError naming the file and the bad entry); by default the repository's
    ``conf/registry/sources.json`` (the working directory's where the package is installed apart from it)."""
    if path is None:
        path = CONFIG if CONFIG.is_file() else Path("conf/registry/sources.json")
    try:
        data = json.loads(Path(path).read_text())
        sources = tuple(RegistrySource(s["name"], s["version"], s["sha256"], s.get("license", "unknown"),
                                       tuple(s["roots"]), s.get("kind", "pypi"), bool(s.get("headers", False)))
                        for s in data["sources"])
        bad = [s.name for s in sources if s.kind not in ("pypi", "deb")]
        if bad:
            raise ValueError(f"source {bad[0]}: kind must be pypi or deb")
        macros = {str(k): str(v) for k, v in data.get("macros", {}).get("values", {}).items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path}: not a registry configuration ({type(exc).__name__}: {exc})") from None
    return RegistryConfig(sources, macros, data.get("pypi_url", "https://pypi.org/pypi"))


def archive_path(src: RegistrySource, cache: str | Path) -> Path:
    """Where ``src``'s archive lies in the cache."""
    return Path(cache) / src.kind / (f"{src.package}.tar.gz" if src.kind == "pypi" else f"{src.package}.deb")


def fetch(src: RegistrySource, cache: str | Path, pypi_url: str) -> Path:
    """The cached sdist of ``src``, downloaded (and checked against its pinned sha256) when not there yet."""
    from kgraph.data.lm_corpus.fetch import FetchError, _get

    path = archive_path(src, cache)
    if path.is_file() and _sha256(path.read_bytes()) == src.sha256:
        return path
    if src.kind == "deb":
        return _fetch_deb(src, path)
    try:
        meta_url = f"{pypi_url.rstrip('/')}/{src.name}/json"
        meta = json.loads(_get(meta_url, src.name))
        sdists = [f for f in meta.get("releases", {}).get(src.version) or [] if f.get("packagetype") == "sdist"]
        if not sdists:
            raise RegistryError(f"registry: PyPI has no sdist of {src.name} {src.version}")
        data = _get(urllib.parse.urljoin(meta_url, sdists[0]["url"]), src.name)  # a mirror may answer a relative URL
    except FetchError as exc:
        raise RegistryError(str(exc).replace("lm corpus", "registry")) from None
    if _sha256(data) != src.sha256:
        raise RegistryError(f"registry: {src.package}: the sdist's sha256 is {_sha256(data)}, the pin is {src.sha256}")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_bytes(data)
    partial.rename(path)
    return path


def kernel_files(src: RegistrySource, archive: str | Path) -> Iterator[tuple[str, str]]:
    """``(path below the root, text)`` of every ``.cl`` file (and ``.h`` file, where ``src.headers``) under ``src``'s
    roots, in archive order."""
    top = f"{src.package}/" if src.kind == "pypi" else "./"
    prefixes = tuple(f"{top}{root.strip('/')}/" for root in src.roots)
    suffixes = KERNEL_SUFFIXES if src.headers else (".cl",)
    if src.kind == "deb":
        yield from _deb_kernel_files(archive, prefixes, suffixes)
        return
    try:
        with tarfile.open(archive, mode="r:*") as tf:
            for member in tf:
                if not (member.isfile() and member.name.endswith(suffixes) and member.name.startswith(prefixes)):
                    continue
                if member.size > MAX_FILE_BYTES:
                    continue
                root = next(p for p in prefixes if member.name.startswith(p))
                yield member.name[len(root):], tf.extractfile(member).read().decode("utf-8", "replace")
    except (tarfile.TarError, OSError) as exc:
        raise RegistryError(f"registry: {archive}: not a readable archive ({exc}); delete it to fetch it "
                            f"again") from None


def _fetch_deb(src: RegistrySource, path: Path) -> Path:
    """``apt-get download name=version`` into the cache (the system's apt sources; its sha256 checked)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        try:
            done = subprocess.run(["apt-get", "download", f"{src.name}={src.version}"], cwd=tmp, capture_output=True,
                                  text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RegistryError(f"registry: {src.package}: apt-get download failed ({exc})") from None
        debs = list(Path(tmp).glob("*.deb"))
        if done.returncode != 0 or len(debs) != 1:
            why = (done.stderr.strip().splitlines() or ["no .deb"])[-1]
            raise RegistryError(f"registry: {src.package}: apt-get download failed: {why}")
        data = debs[0].read_bytes()
    if _sha256(data) != src.sha256:
        raise RegistryError(f"registry: {src.package}: the package's sha256 is {_sha256(data)}, the pin is "
                            f"{src.sha256}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _deb_kernel_files(archive, prefixes: tuple, suffixes: tuple) -> Iterator[tuple[str, str]]:
    """The ``.cl`` and ``.h`` files of a .deb's data archive under ``prefixes`` (``./usr/share/...``), through
    ``dpkg-deb``."""
    import subprocess

    try:
        proc = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(archive)], capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RegistryError(f"registry: {archive}: dpkg-deb cannot read it ({exc})") from None
    if proc.returncode != 0:
        raise RegistryError(f"registry: {archive}: not a readable .deb ({proc.stderr.decode(errors='replace')[-200:]})")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout), mode="r:") as tf:
        for member in tf:
            if member.isfile() and member.name.endswith(suffixes) and member.name.startswith(prefixes) \
                    and member.size <= MAX_FILE_BYTES:
                root = next(p for p in prefixes if member.name.startswith(p))
                yield member.name[len(root):], tf.extractfile(member).read().decode("utf-8", "replace")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
