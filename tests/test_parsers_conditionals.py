"""Preprocessor conditionals: #if/#ifdef/#ifndef/#elif/#else/#endif evaluated, inactive lines blanked
(positions exact), -D macros on the command line."""
from __future__ import annotations

import json
import subprocess
import sys

from kgraph.parsers import parse_source

SRC = """#ifndef TILE
#define TILE 8
#endif
#define SQ(x) ((x) * (x))
__kernel void k(__global float *a, int n) {
  int i = get_global_id(0);
#if TILE > 8 && SQ(TILE) >= 256
  for (int j = 0; j < TILE; ++j) a[i * TILE + j] *= 2.0f;
#elif defined USE_FMA
  a[i] = fma(a[i], 2.0f, 1.0f);
#else
  a[i] = 0.0f;
#endif
#if 0
  this is not C at all (
#ifdef NESTED
#error never seen
#endif
#endif
}
"""


def _counts(unit):
    import kgraph

    return kgraph.from_unit(unit)[0].analysis.counts


def test_branches_follow_the_defines():
    plain = parse_source(SRC, "opencl")
    assert plain.diagnostics == [] and plain.text == SRC and len(plain.source) == len(SRC.encode())
    assert plain.macros["TILE"].value == 8
    assert str(_counts(plain)["flops_fp32"]) == "0" and str(_counts(plain)["global_store_bytes"]) == "4"
    tiled = parse_source(SRC, "opencl", defines={"TILE": "16"})
    assert tiled.macros["TILE"].value == 16 and str(_counts(tiled)["flops_fp32"]) == "16"
    fma = parse_source(SRC, "opencl", defines={"USE_FMA": "1"})
    assert str(_counts(fma)["flops_fp32"]) == "2"
    # inactive lines and directives are blanks of the same length: line:col of what follows is exact
    lines = fma.source.decode().splitlines()
    assert lines[6].strip() == "" and lines[7].strip() == "" and lines[9].strip() == "a[i] = fma(a[i], 2.0f, 1.0f);"
    assert lines[9].index("a[i]") == SRC.splitlines()[9].index("a[i]")


def test_positions_after_blanked_groups_stay_exact():
    src = "#if 0\nint broken( = ;\n#endif\n__kernel void k(__global float *a) {\n  a[0] = 1.0f\n}\n"
    unit = parse_source(src, "opencl", filename="x.cl")
    errors = [str(d) for d in unit.errors]
    assert errors and errors[0].startswith("x.cl:5:") and "missing ';'" in errors[0]


def test_undef_error_unfoldable_and_unbalanced():
    src = ("#define A 1\n#undef A\n#ifdef A\nint x;\n#else\n#error A is gone\n#endif\n#if FOO(\nint y;\n#endif\n"
           "#endif\n__kernel void k(__global float *a) { a[0] = 1.0f; }\n#if 1\n")
    unit = parse_source(src, "opencl", filename="d.cl")
    found = [(d.line, d.severity, d.message) for d in unit.diagnostics]
    assert (6, "error", "#error A is gone") in found
    assert any(line == 8 and sev == "warning" and "cannot evaluate" in msg for line, sev, msg in found)
    assert (11, "warning", "#endif without #if") in found
    assert any(sev == "warning" and "unterminated #if" in msg for _, sev, msg in found)
    assert [f.name for f in unit.kernels] == ["k"]


def test_predefined_macros_per_dialect():
    cl = parse_source("#if __OPENCL_VERSION__ >= 120 && defined(cl_khr_fp64)\n__kernel void yes(__global double *a)"
                      " { a[0] = 1.0; }\n#else\n__kernel void no(__global float *a) { a[0] = 1.0f; }\n#endif\n",
                      "opencl")
    assert [f.name for f in cl.kernels] == ["yes"]
    cu = parse_source("#if __CUDA_ARCH__ >= 700\n__global__ void modern(float *a) { a[0] = 1.0f; }\n#else\n"
                      "__global__ void legacy(float *a) { a[0] = 2.0f; }\n#endif\n", "cuda")
    assert [f.name for f in cu.kernels] == ["modern"]


def test_parse_cli_takes_defines(tmp_path):
    path = tmp_path / "tile.cl"
    path.write_text(SRC)
    cmd = [sys.executable, "-m", "kgraph.app.cli.main", "parse", str(path), "--json"]
    plain = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    tiled = json.loads(subprocess.run(cmd + ["-D", "TILE=16"], capture_output=True, text=True, check=True).stdout)
    assert plain["files"][0]["kernels"][0]["counts"]["flops_fp32"] == "0"
    assert tiled["files"][0]["kernels"][0]["counts"]["flops_fp32"] == "16"
    bad = subprocess.run(cmd + ["-D", "1X=2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "-D 1X=2" in bad.stderr
