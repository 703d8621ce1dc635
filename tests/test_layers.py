"""Imports only run down the pipeline, and no module imports itself back through others.

Layers (docs/DESIGN.md), lowest first: ``kgraph.parsers`` → kgraph's graphs and analysis (``kgraph.*``
outside the other layers) → ``kgraph.data`` → ``kgraph.models`` → ``kgraph.app`` (CLI, API, runtime,
scheduling, reports). Every import counts, those inside functions included. ``kgraph/__init__.py`` is the
package facade: it may name anything, but only lazily (no module-level import of a kgraph module), so
that importing a low layer never loads a higher one.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# folder in the source tree -> installed package (pyproject.toml's package-dir)
FOLDERS = {"kgraph": "kgraph", "parsers": "kgraph.parsers", "data": "kgraph.data", "models": "kgraph.models",
           "examples": "kgraph.examples"}
LAYERS = ("parsers", "core", "data", "models", "app")


def layer(module: str) -> int | None:
    """Index in :data:`LAYERS` of a kgraph module; None outside kgraph and for the facade."""
    parts = module.split(".")
    if parts[0] != "kgraph" or len(parts) == 1:
        return None
    return {"parsers": 0, "data": 2, "models": 3, "app": 4, "examples": 4}.get(parts[1], 1)


def module_name(path: Path) -> str:
    rel = path.relative_to(REPO)
    parts = [FOLDERS[rel.parts[0]], *rel.parts[1:]]
    parts[-1] = parts[-1][:-3]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            if "datasets" not in path.relative_to(REPO).parts:
                found[module_name(path)] = path
    return found


def imports(path: Path, name: str, known: set[str]) -> list[tuple[str, int, bool]]:
    """(imported kgraph module, line, at module level) for every import in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top_level = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import sub` imports the submodule pkg.sub when there is one
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == "kgraph":
                out.append((target, node.lineno, id(node) in top_level))
    return out


def test_every_import_runs_down_the_pipeline():
    mods = modules()
    known = set(mods)
    assert {"kgraph.parsers", "kgraph.data", "kgraph.models", "kgraph.app"} <= known
    upward = []
    for name, path in mods.items():
        own = layer(name)
        for target, line, _ in imports(path, name, known):
            other = layer(target)
            if own is not None and other is not None and other > own:
                upward.append(f"{path.relative_to(REPO)}:{line}: {LAYERS[own]} imports {target} ({LAYERS[other]})")
    assert upward == [], "imports that run up the pipeline:\n" + "\n".join(upward)


def test_facade_imports_lazily():
    path = REPO / "kgraph" / "__init__.py"
    eager = [f"kgraph/__init__.py:{line}: {target}"
             for target, line, top in imports(path, "kgraph", set(modules())) if top]
    assert eager == [], "the facade must not import kgraph modules at import time:\n" + "\n".join(eager)


def test_no_import_cycles():
    """Module-level and function-level imports together form no cycle (a package's own ``__init__``
    re-exporting its submodules is the one edge that does not count as a dependency back)."""
    mods = modules()
    known = set(mods)
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, path in mods.items():
        for target, _, _ in imports(path, name, known):
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            if target in known and target != name and not name.startswith(target + ".") and name != "kgraph":
                graph[name].add(target)
    cycles = _cycles(graph)
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.mark.parametrize("module,expected", [("kgraph.parsers.frontend", 0), ("kgraph.analysis.loops", 1),
                                             ("kgraph.data.harness.store", 2), ("kgraph.models.predictor", 3),
                                             ("kgraph.app.cli.main", 4), ("numpy", None), ("kgraph", None)])
def test_layer_of(module, expected):
    assert layer(module) == expected


def test_checker_sees_an_upward_import_inside_a_function(tmp_path):
    """The checker itself: a function-level import from parsers up into models is reported."""
    src = tmp_path / "probe.py"
    src.write_text("def f():\n    from kgraph.models.predictor import Predictor\n")
    found = imports(src, "kgraph.parsers.probe", {"kgraph.models.predictor"})
    assert found == [("kgraph.models.predictor", 2, False)]
    assert layer(found[0][0]) > layer("kgraph.parsers.probe")


def test_cycle_finder():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
