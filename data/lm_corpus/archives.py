"""Stream candidate files out of a fetched package without unpacking it to disk.

A Debian binary package is read through ``dpkg-deb --fsys-tarfile``; tarballs inside it (the kernel in
``linux-source-*``, gcc in ``gcc-12-source`` ...) are opened in turn, as are the ``.orig`` tarballs of a
source package and PyPI sdists (``.tar.gz``/``.zip``). Only members whose name has a source suffix
(:data:`kgraph.data.lm_corpus.filters.SUFFIXES`), that match the source's ``include`` globs and are at
most ``max_bytes`` long are read. The package's license comes from its Debian copyright file
(``usr/share/doc/<pkg>/copyright`` or ``debian/copyright``) or from PyPI's metadata.
"""
from __future__ import annotations

import fnmatch
import gzip
import json
import re
import subprocess
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .fetch import FetchError
from .filters import language_of_path
from .sources import Source

NESTED = (".tar.xz", ".tar.gz", ".tar.bz2", ".tgz", ".tar")
MAX_DEPTH = 2
_LICENSE = re.compile(r"^License:\s*(\S.*?)\s*$", re.M)
_KNOWN = ("GPL-2", "GPL-3", "LGPL-2.1", "LGPL-3", "BSD-3-clause", "BSD-2-clause", "MIT", "Apache-2.0",
          "MPL-2.0", "BSL-1.0", "ISC", "Zlib")


@dataclass
class Package:
    """What :func:`open_package` found: version and license (filled while files are read)."""

    source: Source
    version: str = "unknown"
    license: str = "unknown"
    skipped_large: int = 0
    _licenses: list[str] = field(default_factory=list)


def license_of_copyright(text: str) -> str:
    """Short license names of a Debian copyright file (DEP-5 ``License:`` lines, in order, distinct)."""
    names = list(dict.fromkeys(m.group(1).strip() for m in _LICENSE.finditer(text) if len(m.group(1)) <= 40))
    if not names:
        names = [k for k in _KNOWN if k.lower() in text.lower()]
    if not names:
        return "see-copyright"
    out = " AND ".join(names[:6])
    return out + (" AND ..." if len(names) > 6 else "")


def _wanted(path: str, src: Source) -> bool:
    if language_of_path(path) is None:
        return False
    return not src.include or any(fnmatch.fnmatch(path, pat) for pat in src.include)


def _tar_members(tf: tarfile.TarFile, prefix: str, src: Source, pkg: Package, max_bytes: int,
                 depth: int) -> Iterator[tuple[str, bytes]]:
    for member in tf:
        name = member.name[2:] if member.name.startswith("./") else member.name
        path = f"{prefix}{name}"
        if not member.isfile():
            continue
        if depth == 0 and (name.endswith(f"/doc/{src.name}/copyright") or name.endswith("debian/copyright")):
            pkg._licenses.append(license_of_copyright(tf.extractfile(member).read().decode("utf-8", "replace")))
            continue
        if name.endswith(NESTED) and depth < MAX_DEPTH and "/debian" not in f"/{name}":
            inner = tf.extractfile(member)
            try:
                with tarfile.open(fileobj=inner, mode="r|*") as nested:
                    yield from _tar_members(nested, f"{path}/", src, pkg, max_bytes, depth + 1)
            except tarfile.TarError:
                continue
            continue
        if not _wanted(path, src):
            continue
        if member.size > max_bytes:
            pkg.skipped_large += 1
            continue
        yield path, tf.extractfile(member).read()


def _deb_files(deb: Path, src: Source, pkg: Package, max_bytes: int) -> Iterator[tuple[str, bytes]]:
    try:
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise FetchError("lm corpus: dpkg-deb is not installed (needed to read .deb packages)") from None
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tf:
            yield from _tar_members(tf, "", src, pkg, max_bytes, 0)
    finally:
        proc.stdout.close()
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        if proc.wait() not in (0, -13) and err:  # -13: we stopped reading early (SIGPIPE)
            raise FetchError(f"lm corpus: {deb.name}: dpkg-deb failed: {err.strip().splitlines()[-1]}")


def _archive_files(path: Path, src: Source, pkg: Package, max_bytes: int,
                   prefix: str = "") -> Iterator[tuple[str, bytes]]:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.is_dir() or not _wanted(info.filename, src):
                    continue
                if info.file_size > max_bytes:
                    pkg.skipped_large += 1
                    continue
                yield info.filename, zf.read(info)
        return
    try:
        with tarfile.open(path, mode="r|*") as tf:
            yield from _tar_members(tf, prefix, src, pkg, max_bytes, 0)
    except tarfile.TarError as exc:
        raise FetchError(f"lm corpus: {path.name}: not a readable archive ({exc}); delete "
                         f"{path.parent} to fetch it again") from None


def open_package(src: Source, fetched: Path, max_bytes: int) -> tuple[Package, Iterator[tuple[str, bytes]]]:
    """``(package info, iterator of (path, raw bytes))``; the license is known once the iterator is done."""
    pkg = Package(src)
    fetched = Path(fetched)

    def files() -> Iterator[tuple[str, bytes]]:
        if src.kind == "deb":
            for deb in sorted(fetched.glob("*.deb")):
                yield from _deb_files(deb, src, pkg, max_bytes)
        elif src.kind == "dsc":
            for debian in sorted(fetched.glob("*.debian.tar.*")):  # debian/copyright only
                with tarfile.open(debian, mode="r|*") as tf:
                    for member in tf:
                        if member.name.endswith("debian/copyright") and member.isfile():
                            pkg._licenses.append(license_of_copyright(
                                tf.extractfile(member).read().decode("utf-8", "replace")))
            for diff in sorted(fetched.glob("*.diff.gz")):  # source format 1.0: debian/ as a patch
                text = gzip.decompress(diff.read_bytes()).decode("utf-8", "replace")
                m = re.search(r"^\+\+\+ [^\n]*debian/copyright\n@@[^\n]*\n((?:\+[^\n]*\n)*)", text, re.M)
                if m:
                    pkg._licenses.append(license_of_copyright(re.sub(r"^\+", "", m.group(1), flags=re.M)))
            for orig in sorted(fetched.glob("*.orig*.tar.*")):
                if not orig.name.endswith((".asc", ".sig")):
                    yield from _archive_files(orig, src, pkg, max_bytes)
        else:
            for sdist in sorted(p for p in fetched.iterdir() if p.name != "pypi.json"):
                yield from _archive_files(sdist, src, pkg, max_bytes)
        if pkg._licenses:
            pkg.license = " AND ".join(dict.fromkeys(pkg._licenses))

    if src.kind == "deb":
        debs = sorted(fetched.glob("*.deb"))
        if debs:  # name_version_arch.deb, the epoch's colon escaped
            pkg.version = debs[0].name.split("_")[1].replace("%3a", ":")
    elif src.kind == "dsc":
        for dsc in fetched.glob("*.dsc"):
            m = re.search(r"^Version:\s*(\S+)", dsc.read_text(errors="replace"), re.M)
            if m:
                pkg.version = m.group(1)
    else:
        meta = fetched / "pypi.json"
        if meta.exists():
            info = json.loads(meta.read_text())
            pkg.version, pkg.license = info.get("version", "unknown"), info.get("license", "unknown")
    return pkg, files()
