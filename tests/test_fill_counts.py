"""``kgraph dataset fill-counts``: donors, the instrumented fallback on PoCL, input generations, errors."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgraph.data.harness.store_read import manifest_keys

cl = pytest.importorskip("pyopencl")

# A data-dependent kernel with structured inputs (CSR-like: the trip count is read from row_ptr) and
# one without inputs at all (an escape-time loop on the work-item's coordinate).
SPECS = r'''
import numpy as np
from kgraph.data.corpus.spec import Arg, KernelSpec

ROWS = """__kernel void rows(__global const int *row_ptr, __global const float *val, __global float *y) {
    int r = get_global_id(0);
    float acc = 0.0f;
    for (int p = row_ptr[r]; p < row_ptr[r + 1]; ++p) acc += val[p] * val[p];
    y[r] = acc;
}"""
ESCAPE = """__kernel void escape(__global int *it_out) {
    int i = get_global_id(0);
    float z = 0.0f, c = (float)i / 512.0f;
    int it = 0;
    while (it < 64 && z < 4.0f) { z = z * z + c; ++it; }
    it_out[i] = it;
}"""


def make_rows(rng, sizes):
    n = sizes["n"]
    lengths = rng.integers(0, 8, n)
    row_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    val = np.zeros(8 * n, np.float32)
    val[: row_ptr[-1]] = rng.uniform(-1, 1, row_ptr[-1])
    return {"row_ptr": row_ptr, "val": val}


def rows_ref(inp, sizes):
    rp, v = inp["row_ptr"], inp["val"].astype(np.float64)
    return {"y": np.array([np.sum(v[rp[r]:rp[r + 1]] ** 2) for r in range(sizes["n"])])}


def escape_ref(inp, sizes):
    out = []
    for i in range(sizes["n"]):
        z, c, it = np.float32(0), np.float32(i) / np.float32(512), 0
        while it < 64 and z < 4:
            z, it = z * z + c, it + 1
        out.append(it)
    return {"it_out": np.array(out, np.int32)}


def specs():
    return [
        KernelSpec(kernel_id="t.rows", family="trows", variant={}, kernel_name="rows", source=ROWS,
                   sizes={"n": [256, 1024]}, check_sizes={"n": 256}, constraints=[],
                   args=[Arg("row_ptr", "buffer", "int32", "n + 1"), Arg("val", "buffer", "float32", "8 * n"),
                         Arg("y", "buffer", "float32", "n", "out")],
                   global_size=["n"], local_sizes=[[32], [64]], make_inputs=make_rows, reference=rows_ref,
                   rtol=1e-4, atol=1e-4),
        KernelSpec(kernel_id="t.escape", family="tescape", variant={}, kernel_name="escape", source=ESCAPE,
                   sizes={"n": [256, 1024]}, check_sizes={"n": 256}, constraints=[],
                   args=[Arg("it_out", "buffer", "int32", "n", "out")],
                   global_size=["n"], local_sizes=[[32], [64]], reference=escape_ref, rtol=0, atol=0),
    ]
'''
COUNTS = ["flops_fp32", "flops_fp64", "int_ops", "transcendental", "global_load_bytes", "global_store_bytes",
          "atomics", "footprint_bytes"]


@pytest.fixture(scope="module")
def spec_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("specs") / "fill_specs.py"
    path.write_text(SPECS)
    return path


@pytest.fixture(scope="module")
def measured(tmp_path_factory, spec_file) -> Path:
    """A tiny PoCL campaign with instrumented counts on every row: what the harness records."""
    from kgraph.data.harness.campaign import CampaignOptions, run_campaign
    from kgraph.data.harness.timing import TimingPolicy

    out = tmp_path_factory.mktemp("measured") / "ds"
    out.mkdir()
    # the committed dev-box descriptor (this PoCL device): measuring a roofline would take seconds
    shutil.copy(Path(__file__).resolve().parents[1] / "data/datasets/ci-tiny/device.json", out / "device.json")
    run_campaign(CampaignOptions(device="pocl", out=str(out), specs=f"{spec_file}:specs", max_per_kernel=4,
                                 counts="instrumented", progress=False, build_jobs=0,
                                 policy=TimingPolicy(max_repeats=3, time_cap_s=0.01)))
    return out


def _blank(folder: Path, keys, harness_version=None) -> None:
    """Forget the counts of ``keys`` (as a ``--counts static`` campaign of these kernels leaves them)."""
    from kgraph.data.harness.columns import DERIVED_COLUMNS
    from kgraph.data.harness.store import DatasetStore

    blank = {**{c: -1 for c in COUNTS}, "counts_source": None, **{c: None for c in DERIVED_COLUMNS},
             "bound": None}
    if harness_version:
        blank["harness_version"] = harness_version
    with DatasetStore(folder) as store:
        store.update_rows({k: dict(blank) for k in keys})


def _fill(folder, spec_file, *extra) -> tuple[int, str]:
    import contextlib
    import io

    from kgraph.app.cli.main import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["dataset", "fill-counts", str(folder), "--specs", f"{spec_file}:specs", *extra])
    return rc, buf.getvalue()


def test_donor_then_instrumented_run_equal_to_the_harness(measured, spec_file, tmp_path):
    from kgraph.data.harness.store import read_launches
    from kgraph.data.harness.validate import validate_dataset

    truth = read_launches(measured).set_index("key")
    assert len(truth) == 8 and (truth.counts_source == "instrumented").all() and validate_dataset(measured) == []
    target, donor = tmp_path / "target", tmp_path / "donor"
    shutil.copytree(measured, target)
    shutil.copytree(measured, donor)
    keys = sorted(truth.index)
    # the donor lacks both launches (local sizes 32 and 64) of n=256 of each kernel: those four come
    # from the instrumented PoCL run
    no_donor = truth[truth.sizes == '{"n": 256}'].index.tolist()
    assert len(no_donor) == 4
    _blank(target, keys)
    _blank(donor, no_donor)
    assert len(validate_dataset(target)) > 0
    rc, out = _fill(target, spec_file, "--from", str(donor))
    assert rc == 0, out
    assert f"filled 4 row(s) from {donor} (4 instrumented)" in out
    assert "filled 2 row(s) by instrumented runs on pocl-" in out
    assert "(+2 row(s) of the same launches with another local size)" in out
    assert "0 row(s) remain without counts" in out
    filled = read_launches(target).set_index("key")
    assert (filled.loc[keys, COUNTS] == truth.loc[keys, COUNTS]).all().all()
    assert (filled.counts_source == "instrumented").all()
    assert filled.loc[keys, "bound"].tolist() == truth.loc[keys, "bound"].tolist()
    assert validate_dataset(target) == []
    # nothing left: a second run changes nothing
    rc, out = _fill(target, spec_file, "--from", str(donor))
    assert "0 ok row(s) without counts" in out


def test_input_generations_and_local_size(measured, spec_file, tmp_path):
    """1.1 structured inputs are refused (donor and run); input-free kernels match any version and,
    without work-group constructs, any local size."""
    from kgraph.data.corpus.spec import KernelSpec  # noqa: F401 - the spec file imports it
    from kgraph.data.harness.count_donors import input_generation, workgroup_independent
    from kgraph.data.harness.store import read_launches
    from kgraph.data.harness.worker import load_specs

    specs = {s.kernel_id: s for s in load_specs(f"{spec_file}:specs")}
    assert input_generation(specs["t.rows"], "1.2") == "sizes-seeded"
    assert input_generation(specs["t.rows"], "1.1") is None and input_generation(specs["t.rows"], "1.0") is None
    assert {input_generation(specs["t.escape"], v) for v in ("1.0", "1.1", "1.2")} == {"zeros"}
    assert workgroup_independent(specs["t.escape"]) and workgroup_independent(specs["t.rows"])
    truth = read_launches(measured)
    target, donor = tmp_path / "target", tmp_path / "donor"
    shutil.copytree(measured, target)
    shutil.copytree(measured, donor)
    rows_1 = truth[truth.kernel_id == "t.rows"].key.tolist()
    esc = truth[truth.kernel_id == "t.escape"]
    _blank(target, rows_1 + esc.key.tolist(), harness_version="1.1")
    # the donor keeps only launches with a local size of 64: rows with 32 match on the rest
    _blank(donor, esc[esc.l0 != 64].key.tolist())
    rc, out = _fill(target, spec_file, "--from", str(donor), "--device", "none")
    assert rc == 0, out
    assert f"filled {len(esc)} row(s) from {donor}" in out
    assert f"{len(rows_1)}: harness 1.1 structured inputs (one numpy stream per visit) cannot be reproduced" in out
    filled = read_launches(target).set_index("key")
    truth = truth.set_index("key")
    assert (filled.loc[esc.key, COUNTS] == truth.loc[esc.key, COUNTS]).all().all()
    assert (filled.loc[rows_1, "flops_fp32"] == -1).all()


def test_bad_options_are_usage_errors(measured, tmp_path, capsys):
    from kgraph.app.cli.main import main

    assert main(["dataset", "fill-counts", str(tmp_path / "nope")]) == 2
    assert "not a dataset folder" in capsys.readouterr().err
    assert main(["dataset", "fill-counts", str(measured), "--from", str(measured)]) == 2
    assert "is the dataset being filled" in capsys.readouterr().err
    assert main(["dataset", "fill-counts", str(measured), "--budget-s", "-1"]) == 2
    assert "--budget-s -1" in capsys.readouterr().err


def test_drop_irreproducible_then_campaign_measures_again(measured, spec_file, tmp_path):
    """--drop-irreproducible removes rows no donor or run can count and forgets their keys: the dataset
    validates, and a resumed campaign measures exactly those launches again, with counts."""
    import json

    from kgraph.data.harness.campaign import CampaignOptions, run_campaign
    from kgraph.data.harness.store import read_launches
    from kgraph.data.harness.timing import TimingPolicy
    from kgraph.data.harness.validate import validate_dataset

    truth = read_launches(measured)
    target = tmp_path / "target"
    shutil.copytree(measured, target)
    lost = truth[truth.kernel_id == "t.rows"].key.tolist()
    _blank(target, lost, harness_version="1.1")
    rc, out = _fill(target, spec_file, "--device", "none", "--drop-irreproducible")
    assert rc == 0, out
    assert f"removed {len(lost)} row(s) whose inputs cannot be made again (trows {len(lost)})" in out
    assert "0 row(s) remain without counts" in out
    after = read_launches(target)
    manifest = json.loads((target / "manifest.json").read_text())
    assert set(after.key) == set(truth.key) - set(lost)
    assert "keys" not in manifest  # format 2: the committed keys are the shards'
    assert set(manifest_keys(target, manifest)) == set(after.key)
    assert sum(s["rows"] for s in manifest["shards"]) == len(after)
    assert not validate_dataset(str(target))
    run_campaign(CampaignOptions(device="pocl", out=str(target), specs=f"{spec_file}:specs", max_per_kernel=4,
                                 counts="instrumented", progress=False, build_jobs=0,
                                 policy=TimingPolicy(max_repeats=3, time_cap_s=0.01)))
    again = read_launches(target)
    assert sorted(again.key) == sorted(truth.key)
    assert (again.set_index("key").loc[lost, "counts_source"] == "instrumented").all()


def test_recount_instrumented_rows_writes_back_only_what_changed(measured, spec_file, tmp_path, capsys):
    """benchmarks/recount_instrumented.py: instrumented rows of the named kernels are counted again in a
    copy; the folder gets only the columns that differ (an int_ops an old front end got wrong)."""
    from benchmarks.recount_instrumented import main as recount
    from kgraph.data.harness.store import DatasetStore, read_launches

    folder = tmp_path / "ds"
    shutil.copytree(measured, folder)
    before = read_launches(folder).set_index("key")
    key = before[before.kernel_id == "t.escape"].index[0]
    with DatasetStore(folder) as store:
        store.update_rows({key: {"int_ops": 7}})
    (tmp_path / "kernels.txt").write_text("t.escape\n")
    assert recount([str(folder), "--kernels", str(tmp_path / "kernels.txt"), "--specs", f"{spec_file}:specs",
                    "--budget-s", "120"]) == 0
    assert "1 changed (int_ops)" in capsys.readouterr().out
    after = read_launches(folder).set_index("key").loc[before.index]
    assert after[COUNTS].equals(before[COUNTS]) and (after.counts_source == before.counts_source).all()
