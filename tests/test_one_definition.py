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


# ------------------------------------------------------------------------------------ floor_log2
FLOOR_LOG2_CASES = (-3.0, -0.0, 0.0, 5e-324, 2.2250738585072014e-308, 1e-10, 0.24999999999999997, 0.25, 0.3,
                    0.5, 0.9999999999999999, 1.0, 1.5, 2.0, 3.0, 4.0, 7.999999999999999, 8.0, 1000.0, 1024.0,
                    2.0 ** 52 + 1, 2.0 ** 63, 1.7976931348623157e308, float("inf"), float("-inf"), float("nan"))


def test_floor_log2_has_one_numeric_definition(tmp_path):
    import shutil
    import subprocess

    import numpy as np
    import sympy as sp

    from kgraph.analysis.result import FLOOR_LOG2_C, NUMERIC_FUNCTIONS, floor_log2_value
    from kgraph.analysis.symbolic import floor_log2

    assert NUMERIC_FUNCTIONS["floor_log2"] is floor_log2_value
    scalar = [floor_log2_value(x) for x in FLOOR_LOG2_CASES]
    assert all(type(v) is int for v in scalar)
    assert floor_log2_value(np.array(FLOOR_LOG2_CASES)).tolist() == scalar  # arrays: the same numbers
    for x, v in zip(FLOOR_LOG2_CASES, scalar):
        if np.isfinite(x) and x > 0:  # the symbolic function, exact on rationals, agrees
            assert int(floor_log2(sp.Rational(x))) == v, x
        else:
            assert v == -1
    # the C export evaluates the same numbers
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is not None:
        src = tmp_path / "f.c"
        src.write_text("#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n" + FLOOR_LOG2_C +
                       "int main(int n, char **v) { for (int i = 1; i < n; ++i) "
                       "printf(\"%d\\n\", (int)kgraph_floor_log2(strtod(v[i], 0))); return 0; }\n")
        subprocess.run([cc, "-std=c99", "-O2", str(src), "-o", str(tmp_path / "f"), "-lm"], check=True)
        out = subprocess.run([str(tmp_path / "f"), *map(repr, FLOOR_LOG2_CASES)], check=True,
                             capture_output=True, text=True).stdout.split()
        assert list(map(int, out)) == scalar
    # the features evaluate counts through it; no other implementation (frexp is its tool)
    copies = [str(p.relative_to(REPO)) for p in source_files()
              if "frexp(" in p.read_text() and p.relative_to(REPO).as_posix() != "kgraph/analysis/result.py"]
    assert not copies, f"a second floor_log2 implementation: {copies}"


# ------------------------------------------------------------------------------- device features
def test_device_features_are_defined_once():
    import json

    from kgraph.data.features import hardware_feature_names
    from kgraph.data.harness.descriptor import DEVICE_FEATURES, to_feature_vector

    assert hardware_feature_names() == [f"hw_{n}" for n in DEVICE_FEATURES]
    shipped = json.loads((REPO / "models/default/config.json").read_text())["feature_names"]
    assert shipped[: len(DEVICE_FEATURES)] == hardware_feature_names()  # what the shipped model reads
    device = json.loads(next((REPO / "data/datasets").glob("*/device.json")).read_text())
    assert len(to_feature_vector(device)) == len(DEVICE_FEATURES)
    names = {*DEVICE_FEATURES, *(f"hw_{n}" for n in DEVICE_FEATURES)}
    copies = [f for f in string_collections(4, names) if f[0] != "data/harness/descriptor.py"]
    assert not copies, f"device feature names listed again (derive them from DEVICE_FEATURES): {copies}"
    text = (REPO / "data/harness/descriptor.py").read_text()
    assert all(text.count(f'"{n}"') == 1 for n in DEVICE_FEATURES), "a device feature named twice in descriptor.py"


# ------------------------------------------------------------------------- OpenCL -> numpy dtypes
# copies left where others were editing when the table was unified (to derive from kgraph.data.dtypes)
DTYPE_COPIES_LEFT = {"data/generator/ir.py"}


def test_opencl_numpy_dtypes_are_defined_once():
    import numpy as np

    from kgraph.data.dtypes import NUMPY_DTYPES, OPENCL_TYPES
    from kgraph.data.harness import fill
    from kgraph.data.instrumented.launch import SCALAR_DTYPES

    assert {k: np.dtype(v).name for k, v in SCALAR_DTYPES.items()} == NUMPY_DTYPES
    assert all(NUMPY_DTYPES[cl] == name for name, (cl, _) in fill._TYPES.items())
    assert all(NUMPY_DTYPES[cl] == name for name, cl in OPENCL_TYPES.items())

    def pair(k, v):  # (OpenCL name, numpy name) a literal pair spells, either way round
        k = k.value if isinstance(k, ast.Constant) else None
        if isinstance(v, ast.Tuple) and v.elts:
            v = v.elts[0]
        v = v.value if isinstance(v, ast.Constant) else v.attr if isinstance(v, ast.Attribute) else None
        return (k, v) if k in NUMPY_DTYPES else (v, k)

    copies = []
    for path in source_files():
        rel = path.relative_to(REPO).as_posix()
        if rel == "data/dtypes.py" or rel in DTYPE_COPIES_LEFT:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                pairs = [pair(k, v) for k, v in zip(node.keys, node.values) if k is not None]
                if sum(1 for cl, name in pairs if isinstance(cl, str) and isinstance(name, str)
                       and NUMPY_DTYPES.get(cl) == name) >= 3:
                    copies.append((rel, node.lineno))
    assert not copies, f"an OpenCL -> numpy dtype table again (use kgraph.data.dtypes): {copies}"


# -------------------------------------------------------------------------------------- type ranks
RANK_COPIES_LEFT = {"data/generator/ir.py"}  # being edited elsewhere when the ranks were unified


def test_type_ranks_are_defined_once():
    from kgraph.analysis.ctype import CType, promote
    from kgraph.builder_dtypes import _wider
    from kgraph.schema import CONVERSION_ORDER

    for a in CONVERSION_ORDER:  # the graph's dtype column and the analysis' types convert alike
        for b in CONVERSION_ORDER:
            graph = _wider(a, b)
            analysis = promote(CType(a), CType(b)).base
            assert analysis == (graph if max(CONVERSION_ORDER.index(a), CONVERSION_ORDER.index(b))
                                >= CONVERSION_ORDER.index("int") else "int"), (a, b)
    assert promote(CType("__half"), CType("float")).base == "float" and CType("__half").is_float
    names = set(CONVERSION_ORDER)
    copies = []
    for path in source_files():
        rel = path.relative_to(REPO).as_posix()
        if rel in ("kgraph/schema.py", *RANK_COPIES_LEFT):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):  # {"half": 0, "float": 1, ...}
                keys = [k.value for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)
                        and k.value in names and isinstance(v, ast.Constant) and isinstance(v.value, int)]
                if len(keys) >= 3:
                    copies.append((rel, node.lineno))
            elif isinstance(node, (ast.Tuple, ast.List)):  # an ordered list of int and float types
                items = [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in names]
                if len(items) >= 4 and "size_t" in items and not {"int", "long"}.isdisjoint(items):
                    copies.append((rel, node.lineno))
    assert not copies, f"a type rank again (use kgraph.schema.CONVERSION_RANK): {copies}"


# ------------------------------------------------------------------------- ModelConfig from a dict
def test_model_config_is_read_back_one_way():
    import dataclasses
    import json

    from kgraph.models import predictor
    from kgraph.models.heads import HeadConfig
    from kgraph.models.kgraph_model import ModelConfig

    arch = json.loads((REPO / "models/default/config.json").read_text())["arch"]
    config = ModelConfig.from_dict(arch)
    # the shipped model's, with the defaults of switches added after it was made (use_traffic; graph.lm_dim,
    # graph.lm_path), at any depth
    def merged(defaults: dict, given: dict) -> dict:
        return {k: merged(v, given[k]) if isinstance(v, dict) and isinstance(given.get(k), dict) else given.get(k, v)
                for k, v in defaults.items()}

    assert isinstance(config.head, HeadConfig) and dataclasses.asdict(config) == merged(
        dataclasses.asdict(ModelConfig()), arch)
    # a config written before graph.lm_dim existed reads back with its default
    older = {**arch, "graph": {k: v for k, v in arch["graph"].items() if k not in ("lm_dim", "lm_path")}}
    assert ModelConfig.from_dict(older).graph.lm_dim == 0 and config.graph.lm_dim == arch["graph"].get("lm_dim", 0)
    assert ModelConfig.from_dict({**arch, "use_traffic": True}).use_traffic
    changed = dataclasses.replace(ModelConfig(), use_tokens=False)
    assert ModelConfig.from_dict(dataclasses.asdict(changed)) == changed
    assert not hasattr(predictor, "_from_dict")
    copies = []  # another function rebuilding dataclasses from dicts (fields + type hints)
    for path in source_files():
        rel = path.relative_to(REPO).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and (rel, node.name) != ("models/kgraph_model.py", "config_from_dict"):
                called = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(node)
                          if isinstance(n, (ast.Attribute, ast.Name))}
                if {"fields", "get_type_hints"} <= called:
                    copies.append((rel, node.name))
    assert not copies, f"a config dataclass rebuilt from a dict again (use ModelConfig.from_dict): {copies}"


# ------------------------------------------------------------------------------ held-out fractions
def test_split_fractions_have_one_source():
    import inspect

    import yaml

    from kgraph.data.datamodule import TEST_FRACTION, VAL_FRACTION, KGraphDataModule

    params = inspect.signature(KGraphDataModule.__init__).parameters
    assert (params["val_fraction"].default, params["test_fraction"].default) == (VAL_FRACTION, TEST_FRACTION)
    for path in sorted((REPO / "conf").rglob("*.yaml")):  # configs inherit the DataModule's
        data = (yaml.safe_load(path.read_text()) or {}).get("data") or {}
        assert "test_fraction" not in data, f"{path}: test_fraction set again (the DataModule's default is the one)"
    fractions = {"val_fraction", "test_fraction", "--val-fraction", "--test-fraction"}
    copies = []  # a literal fraction passed, defaulted or parsed anywhere but the DataModule's definition
    for path in [*source_files(), *sorted((REPO / "benchmarks").glob("*.py"))]:
        rel = path.relative_to(REPO).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg in fractions and isinstance(node.value, ast.Constant):
                copies.append((rel, node.value.lineno))
            elif isinstance(node, ast.arguments):
                named = [*node.posonlyargs, *node.args][-len(node.defaults):] if node.defaults else []
                pairs = [*zip(named, node.defaults), *zip(node.kwonlyargs, node.kw_defaults)]
                copies += [(rel, d.lineno) for a, d in pairs if a.arg in fractions and isinstance(d, ast.Constant)
                           and d.value is not None]
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument" and node.args
                  and isinstance(node.args[0], ast.Constant) and node.args[0].value in fractions):
                copies += [(rel, k.value.lineno) for k in node.keywords if k.arg == "default"
                           and isinstance(k.value, ast.Constant) and k.value.value is not None]
    assert not copies, f"a held-out fraction written again (use kgraph.data.datamodule's): {copies}"


# ------------------------------------------------------------------------------- scope resolution
SHADOWING = """kernel void k(global double *a) {
  double x = a[0];
  { int x = 3; a[1] = x * x; }
  a[2] = x * x;
}
"""


def test_scope_resolution_is_defined_once():
    import kgraph
    from kgraph.analysis.scope import Scope
    from kgraph.builder_scopes import ScopeResolver
    from kgraph.scopes import ScopedNames

    names = ScopedNames()
    names.declare("x", 1)
    names.push()
    names.declare("x", 2)
    names.declare("x", 3)
    names.declare("y", 4)
    assert (names.lookup("x"), names.lookup("y")) == (3, 4)
    names.pop()
    names.pop()  # the outermost scope stays
    assert (names.lookup("x"), names.lookup("y"), names.depth) == (1, None, 1)
    assert issubclass(Scope, ScopedNames)
    assert "ScopedNames" in ScopeResolver.__init__.__code__.co_names
    # both resolve the inner int x in the block and the outer double x after it
    graph = kgraph.from_source(SHADOWING, "opencl")[0]
    products = [n.dtype for n in graph.nodes if n.kind == "binary_expression"]
    assert products == ["int", "double"]
    counts = graph.analysis.evaluate({"gsz0": 1, "gsz1": 1, "gsz2": 1, "lsz0": 1, "lsz1": 1, "lsz2": 1})
    assert counts["flops_fp64"] == 1
    copies = []  # another scope stack: a class that opens/closes scopes or declares/looks up names
    for path in source_files():
        rel = path.relative_to(REPO).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and (rel, node.name) != ("kgraph/scopes.py", "ScopedNames"):
                methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
                if {"push", "pop"} <= methods or {"declare", "lookup"} <= methods:
                    copies.append((rel, node.name))
    assert not copies, f"scope resolution implemented again (use kgraph.scopes.ScopedNames): {copies}"


# ------------------------------------------------------------------------------ tree-sitter queries
def test_every_shipped_query_is_run_by_code():
    """Each ``parsers/dialects/*/*.scm`` is run by name through ``dialect.captures``/``matches`` somewhere
    in the sources; a query nothing runs is not shipped (it would be a second, untested description of
    what a hand-written walk does)."""
    from kgraph.parsers import get_dialect

    run = set()
    for path in source_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("captures", "matches")
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                run.add(node.args[0].value)
    shipped = {p.stem for p in (REPO / "parsers/dialects").glob("*/*.scm")}
    assert shipped, "no queries found"
    assert not shipped - run, f"queries shipped but never run: {sorted(shipped - run)}"
    for lang in ("c", "opencl", "cuda"):
        assert set(get_dialect(lang).queries) == shipped  # every dialect has each (its own or inherited)
