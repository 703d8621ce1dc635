"""The registry set's pipeline (kgraph.data.registry): archives, units, plans and the measuring campaign, on small
files written here (the registry's own kernels are third-party text: fetched at build time, never in the tests)."""
from __future__ import annotations

import hashlib
import io
import json
import tarfile

import pytest

from kgraph.data.holdout import is_holdout
from kgraph.data.registry import is_registry
from kgraph.data.registry.campaign import kernel_id_of, read_plan, relabel
from kgraph.data.registry.plan import LAUNCHES, PlannedLaunch, kernel_dims, plan_unit
from kgraph.data.registry.sources import RegistryError, RegistrySource, archive_path, fetch, kernel_files, load_config
from kgraph.data.registry.units import (Unit, definitions, first_error, inline_includes, missing_names, resolve,
                                        _drop_kernels)

HELPER = """float twice(float x) { return 2.0f * x; }
kernel void helper_kernel(global float* a) { a[get_global_id(0)] = 0.0f; }
"""
MAIN = """#include "for_eclipse.h"
kernel void scale(global const float* x, global float* y, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = twice(x[i]) * SCALE;
}
"""


def _fake_build(source: str, defines: dict) -> str:
    """A compiler that knows only what the test's files need: ``twice`` and the macro ``SCALE``."""
    if "float twice(" not in source:
        return "x.cl:4:22: error: implicit declaration of function 'twice' is invalid in OpenCL"
    if "SCALE" not in defines:
        return "x.cl:4:35: error: use of undeclared identifier 'SCALE'"
    return ""


def test_resolve_puts_the_defining_file_first_and_defines_configured_macros():
    files = {"helper.cl": HELPER, "main.cl": MAIN}
    library = [("pkg-1.0", p, t) for p, t in files.items()]
    unit = resolve("pkg-1.0", "main.cl", files, library, {"SCALE": "3"}, _fake_build)
    assert unit.error == "" and unit.defines == {"SCALE": "3"} and unit.helpers == ["pkg-1.0/helper.cl"]
    assert unit.kernels == ["scale"]  # the helper's own kernel is not the unit's, and is dropped from its text
    assert unit.source.index("float twice(") < unit.source.index("kernel void scale")
    assert "helper_kernel" not in unit.source and "for_eclipse" not in unit.source.split("*/")[-1]
    assert unit.unit_id == "pkg.main" and Unit.from_json(json.loads(json.dumps(unit.to_json()))) == unit


def test_resolve_keeps_the_first_error_when_nothing_defines_the_name():
    unit = resolve("pkg-1.0", "main.cl", {"main.cl": MAIN}, [("pkg-1.0", "main.cl", MAIN)], {}, _fake_build)
    assert unit.error.startswith("error: implicit declaration of function 'twice'") and unit.helpers == []


def test_includes_definitions_and_logs():
    files = {"a/b.cl": '#include "c.cl"\nint b;\n', "a/c.cl": "int c;\n", "top.cl": '#include "a/b.cl"\n'}
    assert inline_includes(files["top.cl"], files, "top.cl") == "int c;\n\nint b;\n\n"
    assert "not shipped" in inline_includes('#include "nope.h"\n', files, "top.cl")
    twice = {"k.cl": '#include "common.h"\n#include "b.h"\n', "b.h": '#include "common.h"\nint b;\n',
             "common.h": "int common;\n"}
    once = inline_includes(twice["k.cl"], twice, "k.cl")  # a header without guards, included by two files: once
    assert once.count("int common;") == 1 and "included above" in once and "int b;" in once
    assert definitions("typedef struct { int a; } pair_t;\n#define N 4\nstatic float f(float x) {\n") == {
        "pair_t", "N", "f"}
    log = ("t.cl:1:2: error: unknown type name 'pair_t'\nt.cl:3:4: error: use of undeclared identifier 'NBINS'\n"
           't.cl:5:1: error: "Please define IMAGE_WIDTH parameter"\n')
    assert missing_names(log) == ["pair_t", "NBINS", "IMAGE_WIDTH"]
    assert first_error(log) == "error: unknown type name 'pair_t'"
    assert _drop_kernels(HELPER).strip() == "float twice(float x) { return 2.0f * x; }"


def test_kernel_dims_and_plans(tmp_path):
    two_d = "kernel void k(global float* a, int w) { int x = get_global_id(0), y = get_global_id(1); a[y*w+x] = 1; }"
    assert kernel_dims(two_d, "k") == 2 and kernel_dims(MAIN, "scale") == 1
    assert kernel_dims("kernel void z(global float* a) { a[get_group_id(2)] = 0; }", "z") == 3
    unit = Unit("pkg-1.0", "k.cl", two_d, kernels=["k"])
    launches = plan_unit(unit, tmp_path)
    assert [l.global_size for l in launches] == LAUNCHES[2] and {l.status for l in launches} == {"planned"}
    assert (tmp_path / "pkg.k.cl").read_text() == two_d
    image = Unit("pkg-1.0", "img.cl", "kernel void im(read_only image2d_t src, global float* o) { o[0] = 1; }",
                 kernels=["im"])
    [launch] = plan_unit(image, tmp_path)
    assert launch.status == "unsupported" and "src" in launch.message
    broken = Unit("pkg-1.0", "b.cl", MAIN, defines={"SCALE": "2"}, kernels=["scale"], error="error: no twice")
    [launch] = plan_unit(broken, tmp_path)
    assert launch.status == "build_error" and (tmp_path / "pkg.b.cl").read_text().startswith("#define SCALE 2\n")
    plan = tmp_path / "plan.jsonl"
    plan.write_text("".join(json.dumps(l.to_json()) + "\n" for l in launches + [launch]))
    assert read_plan(plan)[-1] == launch and PlannedLaunch.from_json(launches[0].to_json()) == launches[0]


def test_registry_rows_are_never_trained_on():
    launch = PlannedLaunch("silx.sift.gaussian", "gaussian", (1024,), (128,), "ok")
    row = relabel({"device_id": "nvidia-h200", "kernel_id": "foreign.gaussian", "family": "foreign", "key": "x"},
                  launch)
    assert row["kernel_id"] == kernel_id_of(launch) == "registry.silx.sift.gaussian.gaussian"
    assert row["family"] == "registry.silx.sift.gaussian" and row["key"] != "x"
    assert is_registry(row["kernel_id"]) and is_holdout(row["kernel_id"]) and not is_holdout("gemm_tiled.t16")


def _sdist(tmp_path, files: dict) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_archives_are_pinned_and_read_below_their_roots(tmp_path, monkeypatch):
    data = _sdist(tmp_path, {"pkg-1.0/res/cl/a.cl": MAIN, "pkg-1.0/res/cl/sub/b.cl": HELPER,
                             "pkg-1.0/res/other.cl": "x", "pkg-1.0/setup.py": "y"})
    src = RegistrySource("pkg", "1.0", hashlib.sha256(data).hexdigest(), "MIT", ("res/cl",))
    path = archive_path(src, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    import kgraph.data.lm_corpus.fetch as lm_fetch

    def no_network(url, what):
        raise AssertionError("a pinned archive in the cache is not downloaded again")

    monkeypatch.setattr(lm_fetch, "_get", no_network)
    assert fetch(src, tmp_path, "https://pypi.invalid/pypi") == path
    assert dict(kernel_files(src, path)) == {"a.cl": MAIN, "sub/b.cl": HELPER}
    path.write_bytes(data + b"tampered")
    answers = iter([json.dumps({"releases": {"1.0": [{"packagetype": "sdist", "url": "pkg.tar.gz"}]}}).encode(),
                    data + b"tampered"])
    monkeypatch.setattr(lm_fetch, "_get", lambda url, what: next(answers))
    with pytest.raises(RegistryError, match="sha256"):
        fetch(src, tmp_path, "https://pypi.invalid/pypi")


def test_the_shipped_configuration_pins_every_source():
    config = load_config()
    assert config.sources and all(len(s.sha256) == 64 and s.roots for s in config.sources)
    assert config.macros["WORKGROUP_SIZE"].isdigit()


SAXPY = """#define AXPY(i) { y[i] = a * x[i] + y[i]; }
kernel void saxpy(global const float* x, global float* y, float a, int n) {
    int i = get_global_id(0);
    if (i < n) AXPY(i)
}
"""


def test_plan_measure_count_and_rebuild_sources_on_pocl(tmp_path, monkeypatch):
    """One registry unit through the whole pipeline on this machine's PoCL: sized (with its instrumented counts),
    measured into a dataset folder with the sizing run's exact counts, and the folder's sources rebuilt from the
    cache's units alone (no archive)."""
    from kgraph.data.harness.store_read import read_launches, read_sources
    from kgraph.data.harness.validate import validate_dataset
    from kgraph.data.registry import cli as registry_cli
    from kgraph.data.registry.campaign import fill_counts, measure_plan
    from kgraph.data.registry.plan import size_launches

    monkeypatch.setattr("kgraph.data.registry.plan.LAUNCHES", {1: [(1024,), (4096,)]})
    cache = tmp_path / "cache"
    unit = Unit("pkg-1.0", "blas/saxpy.cl", SAXPY, kernels=["saxpy"])
    (cache).mkdir()
    (cache / "units.jsonl").write_text(json.dumps(unit.to_json()) + "\n")
    launches = plan_unit(unit, cache / "units")
    sized = size_launches(launches, cache / "units", cache / "plan.jsonl", "pocl", timeout_s=60.0, log=lambda m: None)
    assert [l.status for l in sized] == ["ok", "ok"]
    assert sized[0].buffers == {"x": 1024, "y": 1024} and sized[0].counts["global_load_bytes"] == 2 * 4 * 1024
    assert size_launches(launches, cache / "units", cache / "plan.jsonl", "pocl", log=lambda m: None) == sized
    out = tmp_path / "registry-pocl"
    counts = measure_plan(cache / "plan.jsonl", cache / "units", out, "pocl", log=lambda m: None)
    assert counts == {"ok": 2}
    rows = read_launches(out)
    assert set(rows["kernel_id"]) == {"registry.pkg.blas.saxpy.saxpy"}
    assert set(rows["counts_source"]) == {"instrumented"}
    assert list(rows.sort_values("g0")["flops_fp32"]) == [2 * 1024, 2 * 4096]
    assert measure_plan(cache / "plan.jsonl", cache / "units", out, "pocl", log=lambda m: None) == {"stored": 2}
    assert fill_counts(cache / "plan.jsonl", [out], log=lambda m: None) == 0  # already the sizing run's counts
    assert validate_dataset(out) == []
    (out / "sources.parquet").unlink()
    parser = __import__("argparse").ArgumentParser()
    registry_cli.add_arguments(parser)
    config = tmp_path / "sources.json"  # no archive to fetch: the cache's units.jsonl holds the unit
    config.write_text(json.dumps({"sources": [], "macros": {"values": {}}}))
    args = parser.parse_args(["sources", str(out), "--cache", str(cache), "--config", str(config)])
    assert registry_cli.run(args) == 0
    rebuilt = read_sources(out)  # the text measure stored: the statement macro expanded, the same source id
    assert len(rebuilt) == 1 and "AXPY(i)\n" not in rebuilt["source"][0] and validate_dataset(out) == []


def test_measure_defaults_fit_narrow_integer_types():
    from kgraph.data.harness.foreign_args import _default_scalar

    class P:
        def __init__(self, t):
            self.base_type = t
    assert _default_scalar(P("char"), [65536]) == "127" and _default_scalar(P("uchar"), [65536]) == "255"
    assert _default_scalar(P("int"), [65536]) == "65536" and _default_scalar(P("short"), [100]) == "100"
    assert _default_scalar(P("float"), [65536]) == "1.0"


def test_a_rows_vector_scalar_reads_its_first_lane():
    """Registry rows keep a vector scalar (``int2 dst_offset``) as a list; the estimate path reads lane 0, as the
    measure's static counts do, and refuses an empty or non-numeric one with the option named."""
    from kgraph.app.api import _scalar_args
    from kgraph.errors import UsageError

    assert _scalar_args({"dst_offset": [256, 128], "n": 4}, "") == {"dst_offset": 256.0, "n": 4.0}
    for bad in ([], [1, "x"], [None]):
        with pytest.raises(UsageError, match="--arg off="):
            _scalar_args({"off": bad}, "")


@pytest.mark.skipif(__import__("shutil").which("dpkg-deb") is None, reason="dpkg-deb is not installed")
def test_a_debian_packages_kernels_are_read_below_its_root(tmp_path):
    import subprocess

    root = tmp_path / "pkg"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text("Package: kg-test\nVersion: 1.0\nArchitecture: all\n"
                                             "Maintainer: t <t@t>\nDescription: t\n")
    (root / "usr/share/kg/sub").mkdir(parents=True)
    (root / "usr/share/kg/a.cl").write_text(MAIN)
    (root / "usr/share/kg/sub/b.cl").write_text(HELPER)
    (root / "usr/share/other.cl").write_text("x")
    deb = tmp_path / "kg-test.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True, capture_output=True)
    src = RegistrySource("kg-test", "1.0", hashlib.sha256(deb.read_bytes()).hexdigest(), "MIT", ("usr/share/kg",),
                         kind="deb")
    assert archive_path(src, tmp_path).name == "kg-test-1.0.deb"
    assert dict(kernel_files(src, deb)) == {"a.cl": MAIN, "sub/b.cl": HELPER}
    assert Unit("kg-test-1.0", "sub/b.cl", HELPER, name="kg-test").unit_id == "kg_test.sub.b"


def test_cli_misuse_names_the_option(tmp_path, capsys):
    from kgraph.app.cli.main import main

    assert main(["registry", "plan", "--cache", str(tmp_path), "--shard", "1/0"]) == 2
    assert "--shard 1/0" in capsys.readouterr().err
    assert main(["registry", "measure", "--cache", str(tmp_path), "--device", "pocl", "--out", str(tmp_path / "o")]) == 2
    assert "--plan" in capsys.readouterr().err and not (tmp_path / "o").exists()
    assert main(["registry", "counts", str(tmp_path), "--cache", str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err
