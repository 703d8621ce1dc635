"""Static counts that are complete but not exact (a data-dependent branch, a ``break`` search, a loop of unknown
trip count): ``kgraph.exact_counts`` says so once, for ``kgraph estimate`` and the harness alike; the harness
stores them as ``counts_source = "static-inexact"``, ``--counts dependent`` instruments them and
``kgraph dataset fill-counts`` lets a donor's exact counts replace them."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SAXPY = """__kernel void saxpy(__global const float *x, __global float *y, float a, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}"""
POS = """__kernel void pos(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (x[i] > 0.0f) y[i] = 2.0f * x[i];
}"""
FIND = """__kernel void find(__global const int *a, __global int *out, int key, int n) {
    int i = get_global_id(0);
    int pos = -1;
    for (int k = 0; k < n; ++k) { if (a[k] == key + i) { pos = k; break; } }
    out[i] = pos;
}"""
WALK = """__kernel void walk(__global const int *next, __global int *out, int n) {
    int i = get_global_id(0);
    int p = i, steps = 0;
    while (next[p] >= 0) { p = next[p]; steps++; }
    out[i] = steps;
}"""

SPECS = r'''
import numpy as np
from kgraph.data.corpus.spec import Arg, KernelSpec

SCALE = """__kernel void scale(__global const float *x, __global float *y, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = 2.0f * x[i];
}"""
POS = """%s"""


def _spec(kid, name, source, ref):
    args = [Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "out"),
            Arg("n", "scalar", "int32", "n")]
    return KernelSpec(kernel_id=kid, family=kid.replace(".", ""), variant={}, kernel_name=name, source=source,
                      sizes={"n": [256, 1024, 4096]}, check_sizes={"n": 256}, constraints=[],
                      args=args, global_size=["n"], local_sizes=[[32], [64]], reference=ref)


def specs():
    return [
        _spec("t.scale", "scale", SCALE, lambda i, s: {"y": 2.0 * i["x"]}),
        _spec("t.pos", "pos", POS,
              lambda i, s: {"y": np.where(i["x"] > 0, 2.0 * i["x"], 0.0).astype(np.float32)}),
    ]
''' % POS
COUNTS = ["flops_fp32", "flops_fp64", "int_ops", "transcendental", "global_load_bytes", "global_store_bytes",
          "atomics", "footprint_bytes"]


def _analysed(source: str, name: str):
    from kgraph.analysis import analyze
    from kgraph.parsers import parse_source

    unit = parse_source(source, "opencl")
    function = unit.function(name)
    return analyze(function, unit), unit, function


# --- the rule -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, name, expected", [
    (SAXPY, "saxpy", ""),
    (POS, "pos", "line 3: a condition depends on data"),
    (FIND, "find", "line 4: a condition depends on data"),  # the search's `if ... break`
    (WALK, "walk", "unknown trip count: trip_4"),
])
def test_inexact_reason(source, name, expected):
    from kgraph.exact_counts import inexact_reason

    why = inexact_reason(*_analysed(source, name))
    assert why.startswith(expected) and (why == "") == (expected == "")


@pytest.mark.parametrize("source, name", [(SAXPY, "saxpy"), (POS, "pos"), (FIND, "find"), (WALK, "walk")])
def test_estimate_and_the_harness_read_one_rule(source, name):
    """``kgraph estimate``'s KernelFacts and the harness's label agree (the estimate adds only the --arg hint)."""
    import kgraph
    from kgraph.app.static_checks import data_dependent, kernel_facts
    from kgraph.data.harness.counts import static_source
    from kgraph.exact_counts import data_dependent as moved, inexact_reason

    assert data_dependent is moved
    [graph] = kgraph.from_source(source, "opencl")
    facts = kernel_facts(graph)
    why = inexact_reason(*_analysed(source, name))
    assert facts.exact == (why == "") and facts.reason.startswith(why)
    assert static_source(source, "opencl", name) == ("static" if facts.exact else "static-inexact")


# --- CountCache ---------------------------------------------------------------------------------------------
def _spec_config(source: str, name: str, n: int = 1024):
    from kgraph.data.corpus.spec import Arg, KernelSpec
    from kgraph.data.harness.sampling import LaunchConfig

    # static counts read only the scalar arguments (every kernel here takes n; saxpy a, find key)
    scalars = {"n": ("int32", "n"), "a": ("float32", "2"), "key": ("int32", "3")}
    args = [Arg(k, "scalar", dtype, expr) for k, (dtype, expr) in scalars.items() if f"int {k}" in source
            or f"float {k}" in source]
    spec = KernelSpec(kernel_id=f"t.{name}", family=name, variant={}, kernel_name=name, source=source,
                      sizes={"n": [n]}, check_sizes={"n": n}, constraints=[], args=args, global_size=["n"],
                      local_sizes=[[64]], reference=lambda i, s: {})
    return spec, LaunchConfig((("n", n),), (n,), (64,))


@pytest.mark.parametrize("source, name, label", [(SAXPY, "saxpy", "static"), (POS, "pos", "static-inexact"),
                                                 (FIND, "find", "static-inexact")])
def test_count_cache_labels_static_counts(source, name, label):
    from kgraph.data.harness.count_donors import REQUIRED_COUNTS
    from kgraph.data.harness.counts import CountCache, static_complete

    spec, config = _spec_config(source, name)
    values, got = CountCache("static").static(spec, config)
    assert got == label and all(values[c] >= 0 for c in REQUIRED_COUNTS)  # complete either way
    assert static_complete(values, got) == (label == "static")


class _Work:
    def to_dict(self):
        return {c: 7 for c in COUNTS}


class _Launch:
    context = None

    def __init__(self):
        self.calls = 0

    def __call__(self, kernel, program):
        self.calls += 1
        return _Work()


@pytest.mark.parametrize("source, name, instrumented", [(SAXPY, "saxpy", False), (POS, "pos", True),
                                                        (FIND, "find", True)])
def test_dependent_mode_instruments_complete_but_inexact_counts(source, name, instrumented, monkeypatch):
    """The decision alone (the instrumented build and run faked): exact static counts are kept, complete but
    inexact ones are not."""
    from kgraph.data.harness.counts import CountCache

    spec, config = _spec_config(source, name)
    cache = CountCache("dependent")
    monkeypatch.setattr(cache, "program", lambda spec, context: ("kernel", "program"))
    launch = _Launch()
    values, got = cache.instrumented(spec, config, launch)
    assert (got, launch.calls) == (("instrumented", 1) if instrumented else ("static", 0))
    assert (values["flops_fp32"] == 7) == instrumented


def test_importer_labels_inexact_static_counts():
    from kgraph.data.harness.importer import _counts

    for source, name, label in ((SAXPY, "saxpy", "static"), (POS, "pos", "static-inexact")):
        args = {"n": 1024.0, "a": 2.0}
        _, got, why = _counts({}, {}, "t", source, "opencl", name, args, [1024], [64])
        assert (got, why) == (label, "")
        _, got, why = _counts({"flops_fp32": 5}, {"flops_fp32": "flops_fp32"}, "t", source, "opencl", name, args,
                              [1024], [64])
        assert (got, why) == (f"imported+{label}", "")


# --- on PoCL: a dependent campaign, fill-counts ---------------------------------------------------------------
@pytest.fixture(scope="module")
def spec_file(tmp_path_factory) -> Path:
    pytest.importorskip("pyopencl")
    path = tmp_path_factory.mktemp("specs") / "exact_specs.py"
    path.write_text(SPECS)
    return path


def _campaign(spec_file, out: Path, counts: str):
    from kgraph.data.harness.campaign import CampaignOptions, run_campaign
    from kgraph.data.harness.timing import TimingPolicy

    out.mkdir(parents=True)
    # the committed dev-box descriptor (this PoCL device): measuring a roofline would take seconds
    shutil.copy(ROOT / "data/datasets/ci-tiny/device.json", out / "device.json")
    run_campaign(CampaignOptions(device="pocl", out=str(out), specs=f"{spec_file}:specs", max_per_kernel=4,
                                 counts=counts, progress=False, build_jobs=0,
                                 policy=TimingPolicy(max_repeats=3, time_cap_s=0.01)))
    return out


def test_dependent_campaign_instruments_the_data_dependent_branch(spec_file, tmp_path):
    from kgraph.data.harness.store import read_launches

    df = read_launches(_campaign(spec_file, tmp_path / "dep", "dependent"))
    assert len(df) == 8 and (df.status == "ok").all()
    assert dict(zip(df.kernel_id, df.counts_source)) == {"t.scale": "static", "t.pos": "instrumented"}
    pos = df[df.kernel_id == "t.pos"]
    n = pos.sizes.map(lambda s: json.loads(s)["n"])
    # x[i] read for every i and again (2.0f * x[i]) where it is positive, as the instrumented run counts it
    stored = pos.global_store_bytes
    assert ((stored > 0) & (stored < 4 * n)).all() and (pos.global_load_bytes == 4 * n + stored).all()
    assert (pos.flops_fp32 == stored // 4).all()


def test_fill_counts_replaces_inexact_static_counts_from_a_donor(spec_file, tmp_path):
    import contextlib
    import io

    from kgraph.app.cli.main import main
    from kgraph.data.harness.count_donors import missing_counts
    from kgraph.data.harness.counts import CountCache
    from kgraph.data.harness.fill_counts import _config_of
    from kgraph.data.harness.store import DatasetStore, read_launches
    from kgraph.data.harness.validate import validate_dataset
    from kgraph.data.harness.worker import load_specs

    donor = _campaign(spec_file, tmp_path / "donor", "instrumented")
    truth = read_launches(donor).set_index("key")
    assert len(truth) == 8 and (truth.counts_source == "instrumented").all()
    # the target: the same launches with static counts, as a --counts static campaign leaves them
    target = tmp_path / "target"
    shutil.copytree(donor, target)
    specs = {s.kernel_id: s for s in load_specs(f"{spec_file}:specs")}
    cache = CountCache("static")
    static = {}
    for key, row in truth.iterrows():
        values, source = cache.static(specs[row.kernel_id], _config_of(row.to_dict()))
        static[key] = {**values, "counts_source": source}
    with DatasetStore(target) as store:
        store.update_rows(static)
    before = read_launches(target).set_index("key")
    inexact = before.index[before.counts_source == "static-inexact"]
    assert set(before.loc[inexact, "kernel_id"]) == {"t.pos"} and len(inexact) == 4
    assert (before.loc[before.kernel_id == "t.scale", "counts_source"] == "static").all()
    # they have counts: validate and missing_counts as before
    assert validate_dataset(target) == [] and not missing_counts(before.reset_index()).any()

    def fill(*donors) -> str:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(["dataset", "fill-counts", str(target), "--specs", f"{spec_file}:specs", "--device", "none",
                       "--from", *map(str, donors)])
        assert rc == 0, buf.getvalue()
        return buf.getvalue()

    # a static-inexact donor gives nothing
    inexact_donor = tmp_path / "inexact-donor"
    shutil.copytree(target, inexact_donor)
    out = fill(inexact_donor)
    assert "0 ok row(s) without counts, 4 with inexact static counts" in out
    assert "4 row(s) keep inexact static counts (no donor with exact ones)" in out
    assert read_launches(target).set_index("key").loc[before.index, COUNTS + ["counts_source"]].equals(
        before[COUNTS + ["counts_source"]])
    # an instrumented donor replaces the inexact counts, and only those
    out = fill(donor)
    assert f"filled 4 row(s) from {donor} (4 instrumented)" in out and "0 row(s) keep inexact" in out
    after = read_launches(target).set_index("key")
    assert (after.loc[inexact, COUNTS] == truth.loc[inexact, COUNTS]).all().all()
    assert (after.loc[inexact, "counts_source"] == "instrumented").all()
    exact = before.index.difference(inexact)
    assert after.loc[exact, COUNTS + ["counts_source"]].equals(before.loc[exact, COUNTS + ["counts_source"]])
    assert validate_dataset(target) == []
