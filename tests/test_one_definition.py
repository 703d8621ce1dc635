"""One definition per fact: each fact is defined in one place and everything else derives from it.

Each test pins one fact: the derived copies equal the definition, and a scan of the installed
source folders fails when a second literal copy reappears somewhere else.
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE_FOLDERS = ("parsers", "kgraph", "data", "models")


def source_files():
    for folder in SOURCE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            if "datasets" not in path.relative_to(REPO).parts:
                yield path


def string_collections(min_hits: int, vocabulary) -> list[tuple[str, int]]:
    """(file, line) of every tuple/list/set/dict literal in the sources holding at least ``min_hits``
    string constants (elements, or dict keys) from ``vocabulary``."""
    vocabulary = set(vocabulary)
    found = []
    for path in source_files():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                items = node.elts
            elif isinstance(node, ast.Dict):
                items = [k for k in node.keys if k is not None]
            else:
                continue
            hits = {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)} & vocabulary
            if len(hits) >= min_hits:
                found.append((str(path.relative_to(REPO)), node.lineno))
    return found


# ------------------------------------------------------------------------------------ count keys
def test_count_keys_are_defined_once():
    from kgraph.analysis import COUNT_KEYS
    from kgraph.count_keys import COUNT_KEYS as defined, COUNTER_NAMES as counters
    from kgraph.data.features import STATIC_COUNTS
    from kgraph.data.harness.columns import COUNT_COLUMNS
    from kgraph.data.instrumented.results import WorkCounts
    from kgraph.instrument import COUNTER_NAMES
    from kgraph.instrument.costs import STATIC_KEYS

    assert COUNT_KEYS is defined and STATIC_COUNTS is defined and COUNTER_NAMES is counters
    assert list(COUNTER_NAMES) == [k for k in COUNT_KEYS if k in COUNTER_NAMES]  # same order, a subset
    assert COUNT_COLUMNS == (*COUNTER_NAMES, "footprint_bytes")
    fields = [f for f in WorkCounts.__dataclass_fields__ if f not in ("buffers", "exact", "warnings")]
    assert fields == list(COUNT_COLUMNS)
    assert set(STATIC_KEYS) <= set(COUNTER_NAMES)
    copies = [f for f in string_collections(5, COUNT_KEYS) if f[0] != "kgraph/count_keys.py"]
    assert not copies, f"count keys listed again (derive them from kgraph.count_keys): {copies}"
