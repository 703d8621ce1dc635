"""The foreign-code test set: kernels written in this project in the styles of public benchmark suites
(AMD APP SDK, NVIDIA SDK, NPB, Parboil, PolyBench, Rodinia, SHOC), to test ``kgraph measure`` and the
front end on code nobody wrote host code for. The catalog (:mod:`.catalog`) gives each kernel's style,
the construct it tests and a launch of at least 2^20 work-items.

These kernels are **never trained on**: rows measured from them carry the kernel id
``foreign_set.<name>`` (``kgraph measure`` recognises their sources), which
:func:`kgraph.data.holdout.is_holdout` refuses for fit like the holdout set's ``holdout.<name>``.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from .catalog import ENTRIES, Entry

PREFIX = "foreign_set"


def entries(lang: str | None = None) -> list[Entry]:
    """Every catalog entry (``lang``: only ``opencl`` or ``cuda`` ones)."""
    return [e for e in ENTRIES if lang is None or e.lang == lang]


def path_of(entry: Entry) -> str:
    """The file of an entry (package data)."""
    return str(resources.files(__package__).joinpath(entry.filename))


@lru_cache(maxsize=1)
def _normalised_sources() -> frozenset:
    return frozenset(_normalise(resources.files(__package__).joinpath(e.filename).read_text()) for e in ENTRIES)


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def is_foreign_set_source(source: str) -> bool:
    """True when ``source`` is the text of a kernel file of the set (trailing blanks ignored)."""
    return _normalise(source) in _normalised_sources()


def is_foreign_set(kernel_id: str) -> bool:
    """True for the kernel id of a set kernel's row (never trained on)."""
    return kernel_id.startswith(PREFIX + ".")


__all__ = ["entries", "path_of", "is_foreign_set", "is_foreign_set_source", "Entry", "PREFIX"]
