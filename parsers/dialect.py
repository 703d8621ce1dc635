"""A dialect is data: a tree-sitter grammar, compiled ``*.scm`` queries and builtin tables.

Each dialect lives in ``parsers/dialects/<name>/`` with ``dialect.json`` (grammar, file extensions,
qualifiers to record or mask, how kernels are recognised), ``builtins.json`` (types, work-item
functions/variables, math costs, barriers, atomics) and ``*.scm`` queries. A dialect may ``extend``
another: its tables are merged over the parent's and its query files replace the parent's of the same
name. One code path reads all of them; nothing below branches on the dialect's name.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import tree_sitter as ts

from kgraph.parsers.errors import UsageError

DIALECTS_DIR = Path(__file__).parent / "dialects"
LANGS = ("opencl", "cuda", "c")
WORK_ITEM_KINDS = ("global_id", "local_id", "group_id", "global_size", "local_size", "num_groups", "global_offset")
_FIELDS = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class Builtin:
    """What a builtin name means.

    Args:
        name: the spelling in the source (``get_global_id``, ``threadIdx.x``, ``native_exp``, ...).
        category: ``work_item`` | ``math`` | ``barrier`` | ``atomic``.
        kind: work item: one of :data:`WORK_ITEM_KINDS`; math: ``fp`` | ``transcendental``;
            atomic: the operation (``add``, ``cmpxchg``, ...); barrier: ``barrier``.
        dim: work item: the dimension (0, 1, 2) or ``None`` when the first call argument gives it.
        flops: math: the cost in FLOPs per scalar lane (``fma`` = 2); else 0.
        root: math: a square root or reciprocal square root (``roots`` of ``builtins.json``): transcendental,
            but one hardware instruction where ``exp`` or ``sin`` are a polynomial in software (PoCL on a CPU).
    """

    name: str
    category: str
    kind: str
    dim: int | None = None
    flops: int = 0
    root: bool = False


@dataclass(frozen=True)
class TypeInfo:
    """A scalar or vector type: ``float4`` is base ``float``, width 4, 4-byte scalar, 16 bytes."""

    name: str
    base_type: str
    vector_width: int
    scalar_bytes: int
    is_float: bool

    @property
    def bytes(self) -> int:
        """Storage size; a 3-wide vector is stored as 4 lanes (OpenCL and CUDA alignment)."""
        return self.scalar_bytes * (4 if self.vector_width == 3 else self.vector_width)


def _merge(parent: dict, child: dict) -> dict:
    out = dict(parent)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        elif isinstance(value, list) and isinstance(out.get(key), list) and key != "widths" and key != "bases":
            out[key] = list(dict.fromkeys(out[key] + value))
        else:
            out[key] = value
    return out


def _grammar(name: str) -> ts.Language:
    if name == "c":
        import tree_sitter_c as grammar
    elif name == "cuda":
        import tree_sitter_cuda as grammar
    else:
        raise UsageError(f"dialect data names an unknown tree-sitter grammar '{name}' (known: c, cuda)")
    return ts.Language(grammar.language())


class Dialect:
    """One source language, loaded from ``parsers/dialects/<name>/``.

    Args:
        name: ``opencl``, ``cuda`` or ``c``.

    Attributes: ``name, language (tree_sitter.Language), config (merged dialect.json), tables (merged
    builtins.json), queries (dict: query file stem → tree_sitter.Query), qualifiers (spelling → entry),
    spellings (alternate keyword spelling → keyword: ``__const`` → ``const``, rewritten before parsing),
    call_rules (``dialect.json`` ``calls``: ``undefined`` = ``error`` reports calls of functions defined
    nowhere; ``recursion`` = ``any`` reports every call cycle, ``kernel`` calls of a kernel from device
    code; absent: no check, as in C, whose programs link libraries and may recurse)``.
    Use :meth:`builtin`, :meth:`type_info` and :meth:`captures` rather than the raw tables.
    """

    def __init__(self, name: str):
        if name not in LANGS:
            raise UsageError(f"unknown language '{name}': choose one of {', '.join(LANGS)}")
        chain, cur = [], name
        while cur:
            chain.insert(0, DIALECTS_DIR / cur)
            cur = json.loads((DIALECTS_DIR / cur / "dialect.json").read_text())["extends"]
        self.name = name
        self.config: dict = {}
        self.tables: dict = {}
        query_files: dict[str, Path] = {}
        for folder in chain:
            self.config = _merge(self.config, json.loads((folder / "dialect.json").read_text()))
            builtins = folder / "builtins.json"
            if builtins.exists():
                self.tables = _merge(self.tables, json.loads(builtins.read_text()))
            for scm in sorted(folder.glob("*.scm")):
                query_files[scm.stem] = scm
        self.language = _grammar(self.config["grammar"])
        self.queries = {stem: ts.Query(self.language, path.read_text()) for stem, path in query_files.items()}
        self.qualifiers: dict[str, dict] = self.config.get("qualifiers", {})
        self.spellings: dict[str, str] = self.config.get("spellings", {})
        self.call_rules: dict[str, str] = self.config.get("calls", {})
        library = self.tables.get("library", {})
        self._library = frozenset(library.get("functions", ()))
        self._library_prefixes = tuple(library.get("prefixes", ()))
        self.extensions: tuple[str, ...] = tuple(self.config["extensions"])
        self.declaration_nodes = frozenset(self.config["declaration_nodes"])
        self.kernel_qualifiers = frozenset(self.config["kernel_rule"]["kernel_qualifiers"])
        self.any_non_static_is_kernel = bool(self.config["kernel_rule"]["any_non_static"])
        self.default_pointer_space: str = self.config["default_pointer_space"]
        self.default_space: str = self.config["default_space"]
        self._builtins = self._index_builtins()
        self._types = self._index_types()

    def __repr__(self) -> str:
        return f"Dialect({self.name!r})"

    # -- tables ---------------------------------------------------------------------------------
    def _index_builtins(self) -> dict[str, Builtin]:
        t, out = self.tables, {}
        for fn, kind in t.get("work_item_functions", {}).items():
            out[fn] = Builtin(fn, "work_item", kind, None)
        for var, kind in t.get("work_item_variables", {}).items():
            for field, dim in _FIELDS.items():
                out[f"{var}.{field}"] = Builtin(f"{var}.{field}", "work_item", kind, dim)
        roots = set(t.get("roots", ()))
        for cls, costs in t.get("math", {}).items():
            for fn, flops in costs.items():
                out[fn] = Builtin(fn, "math", cls, None, int(flops), fn in roots)
        for fn in t.get("barriers", []):
            out[fn] = Builtin(fn, "barrier", "barrier")
        for fn, op in t.get("atomics", {}).items():
            out[fn] = Builtin(fn, "atomic", op)
        return out

    def _index_types(self) -> dict[str, TypeInfo]:
        t = self.tables
        floats = set(t.get("float_types", []))
        out = {n: TypeInfo(n, n, 1, b, n in floats) for n, b in t["types"].items()}
        vec = t.get("vector_types", {})
        for base in vec.get("bases", []):
            scalar = out[base]
            for width in vec.get("widths", []):
                name = f"{base}{width}"
                out[name] = TypeInfo(name, scalar.base_type, width, scalar.scalar_bytes, scalar.is_float)
        return out

    def builtin(self, name: str) -> Builtin | None:
        """The builtin called or read as ``name`` (``get_local_id``, ``threadIdx.x``, ``native_sin``)."""
        hit = self._builtins.get(name)
        if hit is None:
            for prefix in self.tables.get("math_prefixes", []):
                if name.startswith(prefix):
                    base = self._builtins.get(name[len(prefix):])
                    if base is not None and base.category == "math":
                        return Builtin(name, "math", base.kind, None, base.flops, base.root)
        return hit

    def is_root(self, name: str) -> bool:
        """Whether ``name`` is a math builtin that is a square root (:attr:`Builtin.root`; ``native_rsqrt`` too)."""
        builtin = self.builtin(name)
        return builtin is not None and builtin.root

    def is_library(self, name: str) -> bool:
        """Whether the compiler provides a function ``name`` (a builtin of the cost tables, or a name or
        name prefix of the ``library`` table of ``builtins.json``): calling it needs no definition."""
        return name in self._library or name.startswith(self._library_prefixes) or self.builtin(name) is not None

    @property
    def builtins(self) -> dict[str, Builtin]:
        """Every builtin by name (prefixed math variants such as ``native_exp`` resolve via :meth:`builtin`)."""
        return dict(self._builtins)

    def type_info(self, spelling: str) -> TypeInfo | None:
        """Scalar/vector type of a spelling (``float4``, ``unsigned int``, ``size_t``); ``None`` if unknown."""
        words = " ".join(spelling.split())
        words = self.tables.get("type_aliases", {}).get(words, words)
        return self._types.get(words)

    # -- queries --------------------------------------------------------------------------------
    def captures(self, query: str, node: ts.Node) -> dict[str, list[ts.Node]]:
        """Run the dialect's ``<query>.scm`` on ``node``: capture name → nodes in source order."""
        return ts.QueryCursor(self.queries[query]).captures(node)

    def matches(self, query: str, node: ts.Node) -> list[dict[str, list[ts.Node]]]:
        """Run ``<query>.scm`` on ``node``: one dict of captures per match, in source order."""
        return [caps for _, caps in ts.QueryCursor(self.queries[query]).matches(node)]


@lru_cache(maxsize=None)
def get_dialect(name: str) -> Dialect:
    """The (cached) dialect ``opencl``, ``cuda`` or ``c``."""
    return Dialect(name)


def lang_from_path(path: str | Path) -> str | None:
    """The language a file extension implies (``.cl`` → opencl, ``.cu``/``.cuh`` → cuda, ``.c``/``.h`` → c)."""
    suffix = Path(path).suffix.lower()
    for name in LANGS:
        if suffix in json.loads((DIALECTS_DIR / name / "dialect.json").read_text())["extensions"]:
            return name
    return None
