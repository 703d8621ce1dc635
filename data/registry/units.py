"""Buildable units of the registry's kernel files: each file with the helper files and macros its package's
host code would have given it.

A package's host code builds a kernel file together with others (a file of double-word arithmetic, a file of
shared structures) and passes macros with ``-D``; the file alone often does not build. :func:`resolve` makes
the unit the way a user with the file and its package would: ``#include "x"`` of a file of the package is
inlined, an include the package does not ship is dropped; then, while the OpenCL compiler (PoCL) reports a
function, type or name the unit lacks, the registry file defining it (the same package first) is put before
the unit, and a macro the configuration gives a value for (``conf/registry/sources.json`` ``macros``) is
defined. A unit that still does not build is kept with its compiler's first error, and its kernels are
recorded as not building.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

#: rounds of adding helpers and macros before a unit is given up
MAX_ROUNDS = 8
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[^\n]*$', re.M)
_FUNCTION = re.compile(r"^[ \t]*(?:static\s+|inline\s+|__inline\s+)*[A-Za-z_][\w ]*?[\s*]+([A-Za-z_]\w*)"
                       r"\s*\([^;{]*\)\s*\{", re.M)
_TYPEDEF = re.compile(r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*;|\}\s*([A-Za-z_]\w*)\s*;", re.S)
_STRUCT = re.compile(r"\b(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*\{")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
_KERNEL = re.compile(r"\b(?:__)?kernel\s+void\s+([A-Za-z_]\w*)\s*\(")
_MISSING = (re.compile(r"implicit declaration of function '(\w+)'"), re.compile(r"unknown type name '(\w+)'"),
            re.compile(r"use of undeclared identifier '(\w+)'"),
            re.compile(r"variable has incomplete type 'struct (\w+)'"))
_COMMENT = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_ERROR_DIRECTIVE = re.compile(r'error: [^\n]*?"([^"\n]*)"')


@dataclass
class Unit:
    """One kernel file made buildable (module doc).

    Args:
        package: ``name-version`` of its source; path: the file below the package's root.
        source: the unit's text (helpers first, then the file with its includes resolved).
        defines: macros given with ``-D``; helpers: the files put before it, in order.
        kernels: the ``__kernel`` functions of the file itself (not of its helpers).
        error: the compiler's first error when the unit does not build ("" when it does).
        name: its source's name (``ufo-filters-data``; "" reads it off ``package``, whose version has no ``-``).
    """

    package: str
    path: str
    source: str
    defines: dict = field(default_factory=dict)
    helpers: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    error: str = ""
    name: str = ""

    @property
    def unit_id(self) -> str:
        """``<source name>.<file stem with / as .>``, e.g. ``silx.sift.gaussian``, ``ufo_filters_data.flip``."""
        name = (self.name or self.package.rsplit("-", 1)[0]).lower().replace("-", "_")
        return f"{name}.{self.path[:-3].replace('/', '.') if self.path.endswith('.cl') else self.path}"

    def to_json(self) -> dict:
        return {"package": self.package, "path": self.path, "source": self.source, "defines": self.defines,
                "helpers": self.helpers, "kernels": self.kernels, "error": self.error, "name": self.name}

    @classmethod
    def from_json(cls, obj: dict) -> "Unit":
        return cls(obj["package"], obj["path"], obj["source"], dict(obj.get("defines", {})),
                   list(obj.get("helpers", [])), list(obj.get("kernels", [])), obj.get("error", ""),
                   obj.get("name", ""))


def definitions(text: str) -> set[str]:
    """Names a file defines: functions, typedefs, structs/unions/enums and macros (``__kernel`` functions too)."""
    typedefs = {a or b for a, b in _TYPEDEF.findall(text)}  # ``typedef T name;`` and ``typedef struct {...} name;``
    return set(_FUNCTION.findall(text)) | typedefs | set(_STRUCT.findall(text)) | set(_DEFINE.findall(text))


def inline_includes(text: str, files: dict[str, str], here: str, seen: frozenset = frozenset(),
                    done: set | None = None) -> str:
    """``text`` with each ``#include "x"`` replaced by the package file it names (relative to ``here``, else by
    base name), each file once in the whole unit (as ``#pragma once``: a header without include guards, included by
    two files, would be defined twice), and dropped when the package has no such file.

    Args:
        seen: files already in the unit (``here`` and its includers); done: the set they are collected in.
    """
    folder = here.rsplit("/", 1)[0] + "/" if "/" in here else ""
    done = set(seen) if done is None else done

    def one(match: re.Match) -> str:
        name = match.group(1)
        found = next((p for p in (folder + name, name) if p in files), None)
        if found is None:
            found = next((p for p in files if p.rsplit("/", 1)[-1] == name.rsplit("/", 1)[-1]), None)
        if found is None:
            return f"/* #include \"{name}\": not shipped by the package */"
        if found in done:
            return f"/* #include \"{name}\": included above */"
        done.add(found)
        return inline_includes(files[found], files, found, done=done)

    return _INCLUDE.sub(one, text)


def missing_names(log: str) -> list[str]:
    """Names a compiler log says the unit lacks, in order of first mention (``#error "... X ..."`` lines give
    the capitalised words of their message)."""
    out = []
    for pattern in _MISSING:
        out += pattern.findall(log)
    for message in _ERROR_DIRECTIVE.findall(log):
        out += re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", message)
    return list(dict.fromkeys(out))


def first_error(log: str) -> str:
    """The first ``error:`` line of a compiler log (its last line when it has none), without the temp path."""
    lines = [line for line in log.splitlines() if "error:" in line] or log.strip().splitlines()[-1:] or [""]
    return re.sub(r"^.*?error:\s*", "error: ", lines[0]).strip()[:300]


def resolve(package: str, path: str, files: dict[str, str], library: list[tuple[str, str, str]], macros: dict,
            build, name: str = "") -> Unit:
    """The buildable unit of ``files[path]`` (module doc).

    Args:
        package: its source's ``name-version``; path: the file; files: every file of its package by path.
        library: ``(package, path, text)`` of every registry file, the helpers' pool (same package first).
        macros: configured macro values by name.
        build: ``(source, defines) -> compiler log or ""`` (PoCL in :func:`pocl_builder`).
        name: the source's name (:attr:`Unit.name`).
    """
    text = inline_includes(files[path], files, path, frozenset({path}))
    unit = Unit(package, path, text, kernels=list(dict.fromkeys(_KERNEL.findall(_COMMENT.sub(" ", text)))), name=name)
    pool = sorted(library, key=lambda item: item[0] != package)
    helpers: list[tuple[str, str]] = []
    for _ in range(MAX_ROUNDS):
        unit.source = "\n".join([h for _, h in helpers] + [text])
        log = build(unit.source, unit.defines)
        if not log:
            unit.error = ""
            return unit
        unit.error = first_error(log)
        progress = False
        for name in missing_names(log):
            if name in macros and name not in unit.defines:
                unit.defines[name] = macros[name]
                progress = True
                continue
            present = next((i for i, (_, body) in enumerate(helpers) if name in definitions(body)), None)
            if present:  # a later helper needs an earlier one's name: that one goes first
                helpers.insert(0, helpers.pop(present))
                unit.helpers.insert(0, unit.helpers.pop(present))
                progress = True
                continue
            if present == 0:
                continue
            have = {p for p, _ in helpers} | {f"{package}/{path}"}
            donor = next(((f"{p}/{q}", t) for p, q, t in pool if f"{p}/{q}" not in have and name in definitions(t)),
                         None)
            if donor is not None:
                helper_files = {q: t for p, q, t in library if p == donor[0].split("/", 1)[0]}
                helper_path = donor[0].split("/", 1)[1]
                body = inline_includes(_drop_kernels(donor[1]), helper_files, helper_path, frozenset({helper_path}))
                helpers.insert(0, (donor[0], body))
                unit.helpers.insert(0, donor[0])
                progress = True
        if not progress:
            break
    return unit


def body_end(text: str, brace: int) -> int:
    """The index of the ``}`` that closes the ``{`` at ``brace`` (the text's last index when it never closes)."""
    depth, end = 0, brace
    for end in range(brace, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    return end


def _drop_kernels(text: str) -> str:
    """A helper file without its ``__kernel`` functions (their names would clash with the unit's own)."""
    out, pos = [], 0
    for match in _KERNEL.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        body = text.find("{", match.end())
        if body < 0:
            break
        out.append(text[pos:start])
        pos = body_end(text, body) + 1
    out.append(text[pos:])
    return "".join(out)


def pocl_builder():
    """``build(source, defines) -> log`` on this machine's first OpenCL CPU device (PoCL); "" when it builds."""
    import warnings

    import pyopencl as cl

    from kgraph.data.instrumented.extents import build_options

    device = next(d for p in cl.get_platforms() for d in p.get_devices() if d.type & cl.device_type.CPU)
    ctx = cl.Context([device])

    def build(source: str, defines: dict) -> str:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cl.Program(ctx, source).build(options=build_options(defines))
            return ""
        except cl.Error as exc:
            return str(exc) or "error: the build failed without a log"

    return build
