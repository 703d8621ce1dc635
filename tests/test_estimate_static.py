"""kgraph estimate: exact static FLOPs/bytes, CUDA --grid/--block, coverage warnings, -D macros."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import kgraph
from kgraph.app.cli.main import main
from kgraph.app.static_checks import coverage_warnings, data_dependent, kernel_facts, static_counts
from kgraph.models.launches import make_launch

ROOT = Path(__file__).resolve().parent.parent
GEMM_CU = str(ROOT / "examples/cuda/sgemm_shared.cu")
SAXPY = str(ROOT / "examples/opencl/saxpy.cl")
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
SIZES = {"M": 2048, "N": 2048, "K": 2048}


def _launch(path, kernel, g, l, args):
    graphs = {x.name: x for x in kgraph.from_file(path, analyze=False)}
    return graphs[kernel], make_launch(graphs, kernel, g, l, args, {"device_id": "d"})


def test_static_counts_and_coverage_of_a_cuda_gemm():
    graph, good = _launch(GEMM_CU, "sgemm_shared", [2048, 2048], [32, 32], SIZES)
    facts = kernel_facts(graph)
    assert facts.exact and static_counts(facts, good)["flops"] == 2 * 2048 ** 3
    assert coverage_warnings(facts, good) == []
    _, grid_as_global = _launch(GEMM_CU, "sgemm_shared", [64, 64], [32, 32], SIZES)
    [warning] = coverage_warnings(facts, grid_as_global)
    assert warning.startswith("dimension 1: the stores step by 2048 elements") and "3.1%" in warning


def test_guard_coverage_and_data_dependence():
    graph, short = _launch(SAXPY, "saxpy", [1024], [256], {"n": 1 << 20, "a": 2.0})
    facts = kernel_facts(graph)
    assert "covers about 1/1024" in coverage_warnings(facts, short)[0]
    _, exact = _launch(SAXPY, "saxpy", [1 << 20], [256], {"n": 1 << 20, "a": 2.0})
    assert coverage_warnings(facts, exact) == [] and static_counts(facts, exact) == {"flops": 2 << 20, "bytes": 12 << 20, "flops_fp64": 0.0}
    # grid-stride loops cover any problem with fewer threads: no warning
    gs = str(ROOT / "examples/cuda/saxpy_grid_stride.cu")
    graph, launch = _launch(gs, "saxpy_grid_stride", [4096], [256], {"n": 1 << 20, "a": 2.0})
    assert coverage_warnings(kernel_facts(graph), launch) == []
    unit = kgraph.parsers.parse_source(
        "__kernel void k(__global const int *idx, __global float *y, int n) {\n int i = get_global_id(0);\n"
        " int j = idx[i];\n if (j > 0) y[i] = 1.0f;\n}\n", "opencl")
    assert data_dependent(unit, unit.kernels[0]) == "line 4: a condition depends on data"
    reduce = str(ROOT / "examples/opencl/reduce_local.cl")
    graph, launch = _launch(reduce, "reduce_sum", [1 << 16], [256], {"n": 1 << 16})
    assert static_counts(kernel_facts(graph), launch) is None  # ?: arm reads memory: the model's counts



def _coverage(warnings: list[str]) -> list[str]:
    """The coverage warnings among ``warnings`` (not those of a prediction past the device's peaks)."""
    return [w for w in warnings if "beyond what the device can do" not in w]


def test_api_grid_block_and_static_counts(model_dir):
    m = kgraph.load_model(model_dir)
    by_grid = m.estimate(GEMM_CU, "sgemm_shared", grid=[64, 64], block=[32, 32], args=SIZES, device=DEVICE)
    by_global = m.estimate(GEMM_CU, "sgemm_shared", [2048, 2048], [32, 32], args=SIZES, device=DEVICE)
    assert by_grid["global"] == [2048, 2048] and by_grid["local"] == [32, 32]
    # the tiny untrained test model predicts past the device's peaks (warned); no coverage warning
    assert by_grid["time_ns"] == by_global["time_ns"] and _coverage(by_grid["warnings"]) == []
    assert by_grid["flops"] == 17179869184 and by_grid["flops_source"] == by_grid["bytes_source"] == "static"
    wrong = m.estimate(GEMM_CU, "sgemm_shared", [64, 64], [32, 32], args=SIZES, device=DEVICE)
    assert len(_coverage(wrong["warnings"])) == 2 and "--grid" in _coverage(wrong["warnings"])[1]
    with pytest.raises(kgraph.UsageError, match="--grid and --block go together"):
        m.estimate(GEMM_CU, "sgemm_shared", grid=[64, 64], args=SIZES, device=DEVICE)
    with pytest.raises(kgraph.UsageError, match="either --global"):
        m.estimate(GEMM_CU, "sgemm_shared", [2048, 2048], grid=[64, 64], block=[32, 32], args=SIZES, device=DEVICE)


def test_cli_grid_defines_and_warnings(model_dir, tmp_path, capsys):
    base = ["estimate", GEMM_CU, "--kernel", "sgemm_shared", "--arg", "M=2048", "--arg", "N=2048", "--arg", "K=2048",
            "--device", DEVICE, "--model", str(model_dir)]
    assert main(base + ["--grid", "64,64", "--block", "32,32"]) == 0
    out = capsys.readouterr()
    assert "flops      17179869184 (17.18 G) (static)" in out.out
    # the tiny untrained test model may predict below the physical floor (warned); no coverage warning
    assert _coverage([w for w in out.err.splitlines() if "warning" in w and "physical floor" not in w]) == []
    assert main(base + ["--global", "64,64", "--local", "32,32"]) == 0
    assert "cover only 64 of them" in capsys.readouterr().err
    src = tmp_path / "tile.cl"
    src.write_text("#ifndef TILE\n#define TILE 1\n#endif\n__kernel void k(__global float *a) {\n"
                   "  for (int j = 0; j < TILE; ++j) a[get_global_id(0) * TILE + j] *= 2.0f;\n}\n")
    args = ["estimate", str(src), "--kernel", "k", "--global", "1024", "--device", DEVICE, "--model", str(model_dir),
            "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["flops"] == 1024
    assert main(args + ["-D", "TILE=8"]) == 0
    assert json.loads(capsys.readouterr().out)["flops"] == 8 * 1024


ARGMIN = """__kernel void nearest(__global const float *d, __global int *out, int k) {
    int i = get_global_id(0);
    int best = 0;
    float best_d = d[i * k];
    for (int c = 1; c < k; c++) {
        float v = d[i * k + c];
        if (v < best_d) { best_d = v; best = c; }%s
    }
    out[i] = best;
}
"""


@pytest.mark.parametrize("else_arm,exact", [
    ("", True),                                 # an argmin: the branch only copies values
    (" else { best = best; }", True),
    (" else best_d += 1.0f;", False),           # arithmetic in a data-dependent arm
    (" else break;", False),                    # a jump changes what runs after it
    (" else out[i] = c;", False),               # a store
])
def test_a_data_dependent_if_that_only_copies_values_keeps_the_counts_exact(else_arm, exact):
    unit = kgraph.parsers.parse_source(ARGMIN % else_arm, "opencl")
    why = data_dependent(unit, unit.kernels[0])
    assert (why == "") == exact, why
    if exact:
        graphs = {x.name: x for x in kgraph.from_source(ARGMIN % else_arm, "opencl", analyze=False)}
        graph, launch = graphs["nearest"], make_launch(graphs, "nearest", [256], [64], {"k": 16}, {"device_id": "d"})
        counts = static_counts(kernel_facts(graph), launch)
        assert counts == {"flops": 0, "bytes": 256 * (16 * 4 + 4), "flops_fp64": 0}


def test_atomics_on_loaded_addresses_are_named_in_the_warnings(model_dir, tmp_path):
    """An atomic whose address is loaded (``bins[idx[i]]``, through a helper's pointer too) gets a warning naming
    its line; one on ids-derived bins, and a kernel without atomics, get none."""
    from kgraph.app.static_checks import atomic_caution

    src = tmp_path / "bins.cl"
    src.write_text("void bump(__global int *p) { atomic_inc(p); }\n"
                   "__kernel void bins(__global const int *idx, __global int *h, int n) {\n"
                   "  int i = get_global_id(0);\n"
                   "  if (i >= n) return;\n"
                   "  atomic_add(&h[i % 64], 1);\n"
                   "  bump(&h[idx[i]]);\n"
                   "}\n")
    graph, _ = _launch(str(src), "bins", [4096], [256], {"n": 4096})
    facts = kernel_facts(graph)
    assert facts.loaded_atomics == (1,)  # the helper's line: its atomic on the element the caller passed
    assert atomic_caution(facts)[0].startswith("line 1: atomics on an address loaded from memory")
    m = kgraph.load_model(model_dir)
    out = m.estimate(str(src), kernel="bins", global_size=4096, local_size=256, args={"n": 4096}, device="h200")
    assert any("atomics on an address loaded from memory" in w for w in out["warnings"])
    saxpy = m.estimate(SAXPY, kernel="saxpy", global_size=1 << 20, local_size=256, args={"n": 1 << 20, "a": 2.0},
                       device="h200")
    assert not any("loaded from memory" in w for w in saxpy["warnings"])
    assert kernel_facts(_launch(GEMM_CU, "sgemm_shared", [2048, 2048], [32, 32], SIZES)[0]).loaded_atomics == ()


PROLOGUE = """__kernel void tiled(__global const float *w, __global const float *x, __global float *y, int n, int m,
                    __local float *tile) {
    int i = get_global_id(0);
    for (int k = get_local_id(0); k < 64; k += get_local_size(0))
        tile[k] = w[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i >= n) return;
    float s = 0.0f;
    for (int j = 0; j < m; j++)
        s += tile[j % 64] * x[i * m + j];
    y[i] = s;
}
"""


def test_work_before_the_guard_is_no_uncovered_problem(tmp_path):
    """The tile every work-item loads before ``if (i >= n) return;`` grows with any launch: an exact launch gets no
    warning, one of an eighth of the rows gets 1/8 (it got 1/113-like fractions before session 19)."""
    path = tmp_path / "tiled.cl"
    path.write_text(PROLOGUE)
    graph, exact = _launch(str(path), "tiled", [4096], [64], {"n": 4096, "m": 1000})
    facts = kernel_facts(graph)
    assert _coverage(coverage_warnings(facts, exact)) == []
    _, eighth = _launch(str(path), "tiled", [512], [64], {"n": 4096, "m": 1000})
    [warning] = _coverage(coverage_warnings(facts, eighth))
    assert "launch has 512" in warning and "covers about 1/8 " in warning
