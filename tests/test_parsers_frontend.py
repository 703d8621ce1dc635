"""Front ends: masking keeps offsets, parameters, qualifiers, macros, pragmas, dialect tables."""
from pathlib import Path

import pytest

from kgraph import parsers
from kgraph.parsers import get_dialect, parse_file, parse_source

EX = Path(__file__).resolve().parent.parent / "examples"


def _params(fn):
    return [(p.name, p.base_type, p.vector_width, p.is_pointer, p.address_space, p.is_const, p.is_restrict,
             p.kind, p.elem_bytes) for p in fn.params]


def test_masking_keeps_offsets_and_line_col():
    text = "__kernel void k(__global float *a,\n  local int *b) {\n  __local float t[4];\n  a[0] = t[0];\n}\n"
    unit = parse_source(text, "opencl")
    assert len(unit.source) == len(text.encode())
    assert unit.source.count(b"\n") == text.count("\n")
    assert unit.source.decode().split("\n")[1] == "        int *b) {"
    # every non-qualifier byte is unchanged; qualifiers became spaces of equal length
    for i, (a, b) in enumerate(zip(text.encode(), unit.source)):
        assert a == b or b == ord(" ")
    decl = unit.function("k").body.named_children[0]
    assert decl.type == "declaration" and decl.start_point == (2, 10)
    assert unit.qualifiers_at(decl) == {"local"} and unit.address_space_of(decl) == "local"
    assert unit.node_text(decl) == "float t[4];"
    assert unit.diagnostics == []


def test_plain_words_stay_identifiers():
    text = ("kernel void k(global float *out, constant float *c) {\n"
            "  int local = 3; float kernel = c[local]; out[local] = kernel; private int p = 1; }\n")
    unit = parse_source(text, "opencl")
    assert unit.diagnostics == []
    masked = unit.source.decode()
    assert masked.startswith("kernel void k(global float *out, constant float *c)".replace("kernel", " " * 6)
                             .replace("global", " " * 6).replace("constant", " " * 8))
    assert "int local = 3; float kernel = c[local]; out[local] = kernel; " + " " * 7 + " int p = 1;" in masked
    assert [(p.name, p.address_space) for p in unit.kernels[0].params] == [("out", "global"), ("c", "constant")]


def test_saxpy_params():
    unit = parse_file(EX / "opencl/saxpy.cl")
    (k,) = unit.kernels
    assert (k.name, k.line, k.col, k.return_type, k.qualifiers) == ("saxpy", 2, 15, "void", {"kernel"})
    assert _params(k) == [
        ("n", "int", 1, False, "private", True, False, "scalar", 4),
        ("a", "float", 1, False, "private", True, False, "scalar", 4),
        ("x", "float", 1, True, "global", True, False, "buffer", 4),
        ("y", "float", 1, True, "global", False, False, "buffer", 4),
    ]
    assert k.body.type == "compound_statement"


def test_sgemm_params_and_tiled_attributes():
    naive = parse_file(EX / "opencl/sgemm_naive.cl").kernels[0]
    assert [p.name for p in naive.params] == ["M", "N", "K", "alpha", "beta", "A", "B", "C"]
    assert [p.kind for p in naive.params] == ["scalar"] * 5 + ["buffer"] * 3
    unit = parse_file(EX / "opencl/sgemm_tiled.cl")
    k = unit.kernels[0]
    assert k.attributes["reqd_work_group_size"] == (16, 16, 1)
    assert unit.macros["TILE"].value == 16
    locals_ = [d for d in k.body.named_children if d.type == "declaration" and unit.address_space_of(d) == "local"]
    assert [unit.node_text(d) for d in locals_] == ["float Asub[TILE][TILE];", "float Bsub[TILE][TILE];"]
    (pragma,) = unit.pragmas.values()
    loop = unit.tree.root_node.descendant_for_byte_range(pragma.loop_start, pragma.loop_start).parent
    assert (pragma.name, pragma.value, pragma.line, loop.type, loop.start_point[0] + 1) == ("unroll", None, 25, "for_statement", 26)
    assert k.attributes["pragmas"] == [pragma]


def test_vector_and_local_pointer_params():
    vec = parse_file(EX / "opencl/vec4_add.cl").kernels[0]
    assert _params(vec) == [
        ("a", "float", 4, True, "global", True, False, "buffer", 16),
        ("b", "float", 4, True, "global", True, False, "buffer", 16),
        ("c", "float", 4, True, "global", False, False, "buffer", 16),
        ("n4", "uint", 1, False, "private", True, False, "scalar", 4),
    ]
    red = parse_file(EX / "opencl/reduce_local.cl").kernels[0]
    assert [(p.name, p.address_space, p.base_type) for p in red.params] == [
        ("in", "global", "float"), ("partial", "global", "float"), ("scratch", "local", "float"), ("n", "private", "uint")]
    mv = parse_file(EX / "opencl/matvec.cl").kernels[0]
    assert [(p.base_type, p.is_restrict, p.elem_bytes) for p in mv.params[2:]] == [("double", True, 8)] * 3


def test_cuda_kernel_params_shared_and_helpers():
    unit = parse_file(EX / "cuda/reduce_shared.cu")
    (k,) = unit.kernels
    assert _params(k) == [
        ("in", "float", 1, True, "global", True, True, "buffer", 4),
        ("out", "float", 1, True, "global", False, True, "buffer", 4),
        ("n", "int", 1, False, "private", False, False, "scalar", 4),
    ]
    shared = k.body.named_children[0]
    assert unit.qualifiers_at(shared) == {"shared"} and unit.address_space_of(shared) == "local"
    st = parse_file(EX / "cuda/stencil2d_constant.cu")
    assert [(f.name, f.is_kernel) for f in st.functions] == [("load_clamped", False), ("stencil2d", True)]
    weights = st.tree.root_node.named_children[1]
    assert weights.type == "declaration" and st.address_space_of(weights) == "constant"
    gs = parse_file(EX / "cuda/saxpy_grid_stride.cu")
    assert [(f.name, f.is_kernel) for f in gs.functions] == [("saxpy_grid_stride", True), ("launch_saxpy", False)]
    assert parse_file(EX / "cuda/sgemm_shared.cu").kernels[0].attributes["launch_bounds"] == (1024,)


def test_c_functions_static_is_helper():
    unit = parse_file(EX / "c/jacobi2d.c")
    assert [(f.name, f.is_kernel, f.return_type) for f in unit.functions] == [
        ("average5", False, "double"), ("jacobi2d", True, "double")]
    assert unit.includes == [("math.h", None)] and unit.diagnostics == []


def test_macros_fold_recursively():
    text = ("#define TILE 16\n#define N (TILE * 4)\n#define SQ(x) ((x) * (x))\n#define AREA SQ(N) + 1\n"
            "#define HALF (N / 3)\n#define F 1.5f\n#define LOOP A\n#define A LOOP\n#define S sizeof(float4) * 2\n"
            "#define NAME foo\n#ifndef TILE\n#define TILE 8\n#endif\nkernel void k(global float *a) { a[0] = N; }\n")
    unit = parse_source(text, "opencl")
    assert {n: m.value for n, m in unit.macros.items()} == {
        "TILE": 16, "N": 64, "SQ": None, "AREA": 4097, "HALF": 21, "F": 1.5, "LOOP": None, "A": None,
        "S": 32, "NAME": None}
    assert unit.macros["SQ"].params == ("x",) and unit.macros["SQ"].body == "((x) * (x))"
    assert unit.fold("SQ(TILE) - 6 % 4") == 254
    assert parse_source(text, "opencl", defines={"TILE": "32"}).macros["N"].value == 128


def test_pragmas_extensions_and_missing_include(tmp_path):
    (tmp_path / "here.h").write_text("#define X 1\n")
    src = tmp_path / "k.cl"
    src.write_text('#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#include "here.h"\n#include "gone.h"\n'
                   "#define U 8\nkernel void k(global double *a) {\n#pragma unroll U\n"
                   "  for (int i = 0; i < 8; i++) a[i] = 0.0;\n  #pragma unroll\n  while (a[0] > 1.0) a[0] -= 1.0;\n}\n")
    unit = parse_file(src)
    assert unit.extensions == {"cl_khr_fp64": "enable"}
    assert unit.includes == [("here.h", str(tmp_path / "here.h")), ("gone.h", None)]
    assert [str(d) for d in unit.diagnostics] == [
        f"{src}:3:10: warning: cannot find include file 'gone.h' next to the source; its declarations and macros are unknown"]
    assert unit.errors == []
    unit.raise_on_errors()
    pragmas = sorted(unit.pragmas.values(), key=lambda p: p.start)
    assert [(p.value, p.line, unit.tree.root_node.descendant_for_byte_range(p.loop_start, p.loop_start).parent.type)
            for p in pragmas] == [(8, 6, "for_statement"), (None, 8, "while_statement")]


def test_dialect_tables():
    ocl, cuda = get_dialect("opencl"), get_dialect("cuda")
    assert ocl.builtin("get_global_id") == parsers.Builtin("get_global_id", "work_item", "global_id", None)
    assert cuda.builtin("threadIdx.x") == parsers.Builtin("threadIdx.x", "work_item", "local_id", 0)
    b = cuda.builtin("blockIdx.y")
    assert (b.category, b.kind, b.dim) == ("work_item", "group_id", 1)
    assert cuda.builtin("blockDim.z").kind == "local_size" and cuda.builtin("gridDim.x").kind == "num_groups"
    assert (ocl.builtin("native_exp").kind, ocl.builtin("sqrt").kind, ocl.builtin("mad").flops) == ("transcendental", "transcendental", 2)
    assert (ocl.builtin("fma").flops, ocl.builtin("fabs").flops, ocl.builtin("fmax").kind) == (2, 1, "fp")
    assert ocl.builtin("barrier").category == "barrier" and cuda.builtin("__syncthreads").category == "barrier"
    assert ocl.builtin("atomic_cmpxchg").kind == "cmpxchg" and cuda.builtin("atomicAdd").kind == "add"
    assert ocl.builtin("not_a_builtin") is None and get_dialect("c").builtin("get_global_id") is None
    t = ocl.type_info("float3")
    assert (t.base_type, t.vector_width, t.scalar_bytes, t.bytes) == ("float", 3, 4, 16)
    assert ocl.type_info("half").bytes == 2 and ocl.type_info("size_t").bytes == 8
    assert ocl.type_info("unsigned  char").name == "uchar" and cuda.type_info("double2").bytes == 16


def test_language_choice():
    assert parse_source("void f(int *a) { a[0] = 1; }", filename="x.cu").lang == "cuda"
    assert parse_source("void f(int *a) { a[0] = 1; }", "c", filename="x.cu").lang == "c"
    with pytest.raises(parsers.UsageError, match="cannot tell the language from the extension '.txt'"):
        parse_source("void f() {}", filename="k.txt")
    with pytest.raises(parsers.UsageError, match="unknown language 'fortran'"):
        parse_source("void f() {}", "fortran")


def test_empty_object_like_macros_are_dropped_before_parsing():
    """``X87_VOLATILE fp s = x + y;`` (pyFAI's double-word arithmetic): a macro with an empty body used as a
    qualifier parses as the declaration it is, columns unchanged; uses in directives and comments stay."""
    from kgraph.parsers.masking import blank_empty_macros

    text = ("#ifndef QV\n# define QV\n#endif\n#define FULL volatile\n"
            "kernel void k(global float* a) {\n    QV float s = a[0]; /* QV */\n    FULL float t = s;\n    a[1] = t;\n}\n")
    out = blank_empty_macros(text.encode()).decode()
    assert "    QV float" not in out and "       float s" in out and "/* QV */" in out and "#ifndef QV" in out
    assert len(out) == len(text) and "FULL float" in out  # a macro with a body is not blanked
    unit = parse_source(text.replace("FULL ", "     "), "opencl")
    assert not unit.errors and [f.name for f in unit.kernels] == ["k"]
    assert parse_source(text.replace("# define QV", "# define QV const"), "opencl").errors  # still a parse error
