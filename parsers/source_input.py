"""Read and check a kernel source before parsing; every bad input gets an :class:`InputError`.

Refused: a missing path, a directory, an empty or whitespace-only text, binary data (NUL bytes),
text that is not UTF-8 (the message gives the byte offset) and anything larger than ``max_bytes``
(checked on the file size before reading, so a 10 MB file is refused at once).
"""
from __future__ import annotations

import os
from pathlib import Path

from kgraph.parsers.errors import InputError
from kgraph.parsers.limits import MAX_SOURCE_BYTES

DEFAULT_MAX_BYTES = MAX_SOURCE_BYTES  # the documented limit (kgraph.parsers.limits); parse_* take max_bytes=


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def check_bytes(data: bytes, filename: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Decode ``data`` as a source text, or raise InputError saying what is wrong with it."""
    if len(data) > max_bytes:
        raise InputError(f"{filename}: input is {_mb(len(data))} ({len(data)} bytes), larger than the "
                         f"{_mb(max_bytes)} limit for one source file")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(f"{filename}: looks binary (NUL byte at offset {nul}), expected a kernel source text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{filename}: not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset "
                         f"{exc.start})") from None
    if not text.strip():
        raise InputError(f"{filename}: empty source (no code, only whitespace)" if text else f"{filename}: empty file")
    return text


def check_text(text: str, filename: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Check a source given as ``str`` (or bytes) the same way as a file's content."""
    if isinstance(text, (bytes, bytearray)):
        return check_bytes(bytes(text), filename, max_bytes)
    if not isinstance(text, str):
        raise InputError(f"{filename}: expected source text (str), got {type(text).__name__}")
    if len(text) > max_bytes:  # a str is at least one byte per character
        raise InputError(f"{filename}: input is {_mb(len(text))} or more, larger than the {_mb(max_bytes)} "
                         f"limit for one source file")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"{filename}: text has an unpaired surrogate at character {exc.start}") from None
    return check_bytes(data, filename, max_bytes)


def read_source(path: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The checked text of the source file at ``path``."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, expected a kernel source file")
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise InputError(f"{p}: file is {_mb(size)} ({size} bytes), larger than the {_mb(max_bytes)} "
                             f"limit for one source file")
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except PermissionError:
        raise InputError(f"{p}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror or exc})") from None
    return check_bytes(data, str(p), max_bytes)
