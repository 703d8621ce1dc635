"""Compile C sources of the C corpus (or any C file) into shared libraries with the system compiler.

``cc -O3 -march=native -fPIC -shared [-fopenmp] [-DKG_FP32] -I<corpus/c>``; libraries are cached by a
hash of the source text, the header, the flags and the compiler's version, so a campaign compiles each
(file, dtype) once per machine.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from kgraph.data.corpus.c import C_DIR

BASE_FLAGS = ("-O3", "-march=native", "-fPIC", "-shared")


class CBuildError(Exception):
    """The compiler refused a source (the message holds its diagnostics)."""


def compiler() -> str:
    """The system C compiler: ``$CC`` or the first of cc, gcc, clang found."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return name
    raise CBuildError("no C compiler found (set CC, or install cc/gcc/clang)")


@lru_cache(maxsize=None)
def compiler_version(cc: str | None = None) -> str:
    """The first line of ``cc --version``."""
    cc = cc or compiler()
    out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
    return (out.stdout.strip().splitlines() or ["unknown"])[0]


def cache_dir() -> Path:
    """Where built libraries go: ``$KGRAPH_C_CACHE`` or ``~/.cache/kgraph/c``."""
    env = os.environ.get("KGRAPH_C_CACHE")
    path = Path(env) if env else Path.home() / ".cache" / "kgraph" / "c"
    path.mkdir(parents=True, exist_ok=True)
    return path


def flags_for(openmp: bool = True, fp32: bool = False, extra=()) -> list[str]:
    """The compile flags of one build."""
    return [*BASE_FLAGS, *(["-fopenmp"] if openmp else []), *(["-DKG_FP32"] if fp32 else []),
            f"-I{C_DIR}", *extra]


def build_library(source: str | Path, openmp: bool = True, fp32: bool = False, extra=(),
                  timeout_s: float = 120.0) -> Path:
    """The shared library of C file ``source`` (built now unless cached); CBuildError with the compiler's
    diagnostics when it does not compile."""
    source = Path(source)
    cc = compiler()
    flags = flags_for(openmp, fp32, extra)
    header = (C_DIR / "kg_c.h").read_bytes()
    digest = hashlib.sha1(b"\0".join([source.read_bytes(), header, " ".join(flags).encode(),
                                      compiler_version(cc).encode()])).hexdigest()[:16]
    out = cache_dir() / f"{source.stem}{'_s' if fp32 else ''}-{digest}.so"
    if out.is_file():
        return out
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    try:
        proc = subprocess.run([cc, *flags, "-o", str(tmp), str(source), "-lm"], capture_output=True,
                              text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise CBuildError(f"{source.name}: the compiler ran past {timeout_s:.0f} s") from None
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise CBuildError(f"{source.name}: {cc} exit {proc.returncode}: {proc.stderr.strip()[:2000]}")
    os.replace(tmp, out)
    return out


def build_kernel(kernel) -> Path:
    """The library holding catalog kernel ``kernel`` (a :class:`kgraph.data.corpus.c.CKernel`)."""
    return build_library(kernel.path, openmp=True, fp32=kernel.dtype == "fp32")
