"""Issue 15, front end: constructs of public benchmark code that were false errors, broken code that was
silently accepted (calls of functions defined nowhere, recursion), and the self-calling overloads that
made the analysis exponential. CPU only, fast."""
import subprocess
import sys
import time

import pytest

from kgraph.analysis import analyze
from kgraph.errors import SourceError
from kgraph.parsers import parse_source
from kgraph.parsers.calls import callee


def _messages(unit):
    return [f"{d.line}:{d.col}: {d.severity}: {d.message}" for d in unit.diagnostics]


# -- false errors ------------------------------------------------------------------------------
@pytest.mark.parametrize("decl", ["__const float *b", "const float * __restrict b", "float * const __restrict b",
                                  "__restrict float *b", "const float __restrict *b"])
@pytest.mark.parametrize("lang", ["opencl", "cuda", "c"])
def test_gnu_keyword_spellings_parse(decl, lang):
    head = {"opencl": "__kernel void", "cuda": "__global__ void", "c": "void"}[lang]
    space = "__global " if lang == "opencl" and "__const" not in decl else ""
    unit = parse_source(f"{head} k({space}{decl}, __const int n, __volatile int *flag) {{ }}", lang)
    assert unit.diagnostics == []
    b, n, flag = unit.functions[0].params
    assert (b.name, b.is_pointer, n.name, n.is_const, flag.name) == ("b", True, "n", True, "flag")


def test_restrict_spellings_are_recorded():
    unit = parse_source("__global__ void k(float * __restrict a, const float * const __restrict b) { }", "cuda")
    assert [(p.name, p.is_restrict, p.is_const) for p in unit.kernels[0].params] == [("a", True, False),
                                                                                    ("b", True, True)]


def test_spelling_in_comment_string_and_longer_word_is_left_alone():
    src = '__kernel void k(__global int *a) { /* __const */ a[0] = sizeof("__const"); int __constx = 1; }'
    unit = parse_source(src, "opencl")
    assert unit.diagnostics == [] and b"__const */" in unit.source and b"__constx" in unit.source


def test_qualified_kernel_name_is_found():
    src = ("namespace Aig {\n__global__ void buildHashTable(int *a, int n);\n}\n"
           "__global__ void Aig::buildHashTable(int *a, int n) {\n    int i = threadIdx.x;\n    if (i < n) a[i] = i;\n}\n")
    unit = parse_source(src, "cuda")
    assert unit.diagnostics == []
    (k,) = unit.kernels
    assert (k.name, k.qualified_name, k.line, k.col) == ("buildHashTable", "Aig::buildHashTable", 4, 22)
    assert analyze(k, unit).counts["global_store_bytes"] != 0


def test_qualified_kernel_name_through_the_cli(tmp_path):
    path = tmp_path / "aig.cu"
    path.write_text("__global__ void A::B::k(int *a) { a[threadIdx.x] = 1; }\n")
    out = subprocess.run([sys.executable, "-m", "kgraph.app.cli.main", "parse", str(path)], capture_output=True,
                         text=True)
    assert out.returncode == 0 and "kernel k (cuda)" in out.stdout and "no kernel" not in out.stderr


IFDEF_IF_ELSE = """
__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
#ifdef USE_FAST
    if (i < n) {
        a[i] = a[i] * 2.0f;
#else
    if (i < n - 1) {
        a[i] = a[i] * 3.0f + 1.0f;
#endif
    }
}
"""
IFDEF_ELSE_ARM = """
__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
    if (i < n)
#ifdef USE_FAST
        a[i] = a[i] * 2.0f;
    else
#else
    {
        a[i] = 0.0f;
    } else
#endif
        a[i] = 1.0f;
}
"""


@pytest.mark.parametrize("src", [IFDEF_IF_ELSE, IFDEF_ELSE_ARM])
@pytest.mark.parametrize("defines", [None, {"USE_FAST": "1"}])
def test_ifdef_else_splitting_an_if_parses_both_ways(src, defines):
    unit = parse_source(src, "opencl", defines=defines)
    assert unit.diagnostics == [] and len(unit.kernels) == 1


def test_ifdef_else_picks_the_active_arm_for_the_counts():
    fast = analyze(*(lambda u: (u.kernels[0], u))(parse_source(IFDEF_IF_ELSE, "opencl", defines={"USE_FAST": ""})))
    slow = analyze(*(lambda u: (u.kernels[0], u))(parse_source(IFDEF_IF_ELSE, "opencl")))
    env = {"n": 100, "gsz0": 100}
    assert fast.total(env)["flops_fp32"] == 100 and slow.total(env)["flops_fp32"] == 2 * 99


# -- calls of functions defined nowhere, recursion ----------------------------------------------
UNDEFINED_CL = """float helper(float x);
__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
    if (i < n) a[i] = compute(a[i]) + helper(a[i]) + sqrt(a[i]) + native_exp(a[i]) + convert_float(i);
}
"""


def test_undefined_function_is_an_error_with_its_position():
    unit = parse_source(UNDEFINED_CL, "opencl", "u.cl")
    assert _messages(unit) == ["4:23: error: call to undefined function 'compute'",
                               "4:39: error: function 'helper' is declared but never defined"]
    with pytest.raises(SourceError, match=r"u\.cl:4:23: error: call to undefined function 'compute'"):
        unit.raise_on_errors()


def test_calls_that_need_no_definition_are_accepted():
    src = """#define SQ(x) ((x) * (x))
typedef struct { float v; } cell;
float twice(float x) { return 2.0f * x; }
__kernel void k(__global float4 *a, __global int *c, int n) {
    int i = get_global_id(0);
    float4 v = vload4(0, (__global float *)a);
    vstore4(v, 1, (__global float *)a);
    a[i] = (float4)(twice(SQ(v.x)), mad(v.y, v.z, v.w), clamp(v.x, 0.0f, 1.0f), dot(v, v));
    atomic_add(&c[0], popcount(i));
    barrier(CLK_LOCAL_MEM_FENCE);
    c[i] = as_int(convert_float_rte(i)) + get_local_linear_id();
    printf("%d", i);
}
"""
    assert parse_source(src, "opencl").diagnostics == []
    cuda = """#include <cuda_runtime.h>
struct Pair { int a, b; };
__device__ float sq(float x) { return x * x; }
__global__ void k(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    auto f = [](float x) { return x + 1.0f; };
    a[i] = f(sq(__expf(a[i]))) + fminf(a[i], 1.0f) + __shfl_down_sync(0xffffffff, a[i], 1) + __ldg(&a[0]);
    atomicAdd(&a[0], rsqrtf(a[i]) + make_float2(1.0f, 2.0f).x + __int_as_float(__float_as_int(a[i])));
    Pair p = Pair();
    __syncthreads();
}
void host(float *a) { k<<<1, 32>>>(a, 32); }
"""
    assert parse_source(cuda, "cuda").diagnostics == []


def test_undefined_function_is_a_warning_when_an_unread_header_may_define_it():
    unit = parse_source('#include "helpers.h"\n__kernel void k(__global float *a) { a[0] = f(a[1]); }\n',
                        "opencl", "x.cl")
    assert [d.severity for d in unit.diagnostics] == ["warning", "warning"]
    assert "call to undefined function 'f' (it may come from 'helpers.h', which is not read)" in _messages(unit)[1]


def test_toolkit_headers_keep_undefined_calls_errors_other_headers_make_them_warnings():
    body = "__global__ void k(float *a) { a[0] = foo(a[1]); }\n"
    assert [d.severity for d in parse_source("#include <cuda_runtime.h>\n" + body, "cuda").diagnostics] == ["error"]
    assert [d.severity for d in parse_source("#include <cub/cub.cuh>\n" + body, "cuda").diagnostics] == ["warning"]


def test_c_has_no_call_checks():
    assert parse_source("int f(int n) { return n ? g(n) * f(n - 1) : 1; }", "c").diagnostics == []


RECURSIVE_CL = """int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int ping(int n);
int pong(int n) { return n > 0 ? ping(n - 1) : 0; }
int ping(int n) { return n > 0 ? pong(n - 1) : 1; }
__kernel void k(__global int *a) {
    int i = get_global_id(0);
    a[i] = fact(i) + ping(i);
    if (i == 0) k(a);
}
"""


def test_recursion_is_an_error_in_opencl():
    assert _messages(parse_source(RECURSIVE_CL, "opencl")) == [
        "1:43: error: recursive call of 'fact' (fact -> fact); OpenCL C does not allow recursion",
        "4:34: error: recursive call of 'pong' (pong -> ping -> pong); OpenCL C does not allow recursion",
        "8:17: error: recursive call of 'k' (k -> k); OpenCL C does not allow recursion"]


def test_cuda_kernel_calling_itself_is_an_error_device_recursion_is_not():
    src = """__device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__global__ void k(int *a) {
    int i = threadIdx.x;
    a[i] = fact(i);
    if (i == 0) k(a);
}
"""
    assert _messages(parse_source(src, "cuda")) == [
        "5:17: error: kernel 'k' called from device code (a __global__ function is launched with <<<...>>>, not called)"]


def test_undefined_call_fails_kgraph_parse_with_exit_1(tmp_path):
    path = tmp_path / "u.cl"
    path.write_text(UNDEFINED_CL)
    out = subprocess.run([sys.executable, "-m", "kgraph.app.cli.main", "parse", str(path)], capture_output=True,
                         text=True)
    assert out.returncode == 1 and f"{path}:4:23: error: call to undefined function 'compute'" in out.stderr


def test_graph_api_raises_source_error_on_recursion():
    import kgraph

    with pytest.raises(SourceError, match="recursive call of 'fact'"):
        kgraph.from_source(RECURSIVE_CL, "opencl")


# -- self-calling vector overloads: resolution and speed ----------------------------------------
SELF_CALLING_OVERLOADS = """
__device__ int4 abs(int4 v) { return make_int4(abs(v.x), abs(v.y), abs(v.z), abs(v.w)); }
__device__ int4 max(int4 a, int4 b) { return make_int4(max(a.x, b.x), max(a.y, b.y), max(a.z, b.z), max(a.w, b.w)); }
__device__ int4 min(int4 a, int4 b) { return make_int4(min(a.x, b.x), min(a.y, b.y), min(a.z, b.z), min(a.w, b.w)); }
__device__ int sum4(int4 v) { return v.x + v.y + v.z + v.w; }

__global__ void sad_kernel(const int4 *a, const int4 *b, int *out, int n, int thr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int4 d = abs(make_int4(a[i].x - b[i].x, a[i].y - b[i].y, a[i].z - b[i].z, a[i].w - b[i].w));
    int s = 0;
    if (sum4(abs(d)) > thr) s += 1;
    if (sum4(max(abs(d), abs(a[i]))) > thr) s += 2;
    if (sum4(min(abs(d), abs(b[i]))) > thr) s += 4;
    if (sum4(abs(max(d, abs(a[i])))) < thr) s += 8;
    if (sum4(abs(min(abs(d), abs(b[i])))) < thr) s += 16;
    for (int k = 0; k < 4; k++) {
        if (sum4(abs(d)) > k * thr) s += k;
    }
    out[i] = s;
}
"""


def test_overloads_resolve_by_argument_width():
    unit = parse_source(SELF_CALLING_OVERLOADS, "cuda")
    assert unit.diagnostics == []  # abs(v.x) is the builtin, not a recursive call of abs(int4)
    abs4 = unit.function("abs")
    inner = [c for c in _calls(abs4.body)]
    assert [callee(unit, abs4, c) for c in inner] == [None] * 5  # make_int4 and four abs(int)
    kernel = unit.kernels[0]
    outer = [c for c in _calls(kernel.body) if c.child_by_field_name("function").text == b"abs"]
    assert outer and all(callee(unit, kernel, c) is abs4 for c in outer)


def _calls(node):
    stack, out = [node], []
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            out.append(n)
        stack.extend(n.children)
    return sorted(out, key=lambda n: n.start_byte)


def test_self_calling_overloads_analyse_in_linear_time():
    """Was 40-60 s (about 330k contexts built: each abs(v.x) re-entered abs(int4) down to the depth limit)."""
    start = time.perf_counter()
    unit = parse_source(SELF_CALLING_OVERLOADS, "cuda")
    a = analyze(unit.kernels[0], unit)
    assert time.perf_counter() - start < 2.0
    assert not any("recursive" in note for note in a.notes)
    assert a.total({"n": 1024, "thr": 3, "gsz0": 1024})["global_load_bytes"] == 1024 * 12 * 16


def test_recursive_single_return_helper_in_conditions_stays_fast():
    """Real recursion (refused by the front end, but analysed by callers that ignore errors) is cut at
    the first re-entry instead of being expanded to the depth limit (4**8 calls)."""
    src = """int f(int x) { return f(x - 1) + f(x - 2) + f(x - 3) + f(x - 4); }
__kernel void k(__global int *a, int n) {
    int i = get_global_id(0);
    if (f(i) > n) a[i] = 1;
    if (f(i + 1) > n) a[i] = 2;
}
"""
    start = time.perf_counter()
    unit = parse_source(src, "opencl")
    assert any("recursive call of 'f'" in d.message for d in unit.errors)
    analyze(unit.kernels[0], unit)
    assert time.perf_counter() - start < 2.0


# -- function-like macros used as statements or given a type ------------------------------------
KERNEL_LOOP_CU = """#define KERNEL_LOOP(i, n) \\
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void k(float *a, const float *b, int n) {
    KERNEL_LOOP(i, n) {
        a[i] = b[i] * 2.0f;
    }
}
"""
SWAP_CU = """#define SWP(K, a, b, T, x, y) { T t_ = x; x = y; y = t_; K[a] = x; K[b] = y; }
#define SET_FLAG(f, i) f[i] = 1;
#define DECLARE(T, name) T name = (T)0
__global__ void k(int *K, int *flag, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i, y = n - i;
    DECLARE(float, acc);
    if (i < n) {
        SWP(K, i, n - 1 - i,
            int, x, y)
        SET_FLAG(flag, i)
    }
    K[0] = bad_call(acc);
}
"""


def test_loop_macro_followed_by_a_block_is_expanded_and_counted():
    unit = parse_source(KERNEL_LOOP_CU, "cuda")
    assert unit.diagnostics == []
    a = analyze(unit.kernels[0], unit)
    env = {"n": 4096, "gsz0": 1024}
    assert a.total(env)["flops_fp32"] == 4096 and a.total(env)["global_store_bytes"] == 4 * 4096
    assert "for (int i = blockIdx.x" in unit.text.splitlines()[3]  # unit.text holds the expansion, same line


def test_statement_macros_with_type_arguments_expand_and_keep_line_numbers():
    unit = parse_source(SWAP_CU, "cuda", "swap.cu")
    # the only diagnostic is the real one, at its place in the file as written (line 13, after the expansions)
    assert _messages(unit) == ["13:12: error: call to undefined function 'bad_call'"]
    assert len(unit.text.splitlines()) == len(SWAP_CU.splitlines())
    a = analyze(unit.kernels[0], unit)
    assert a.total({"n": 64, "gsz0": 64})["global_store_bytes"] == 64 * 4 * 3 + 64 * 4


def test_expansion_maps_diagnostic_columns_back():
    # the expansion "a[0] = 0;" is 3 bytes shorter than "STMT(a[0])": unmapped, the column would be 53
    src = "#define STMT(x) x = 0;\n__kernel void k(__global int *a) { STMT(a[0]) a[1] = @; }\n"
    assert _messages(parse_source(src, "opencl")) == ["2:54: error: unexpected '@'"]


def test_expression_macros_and_self_referencing_macros_are_not_expanded():
    from kgraph.parsers import expansion, get_dialect

    d = get_dialect("opencl")
    src = "#define MAD(a, b, c) ((a) * (b) + (c))\n#define LOOP(i) for (;;) LOOP(i)\nfloat f(float x) { return MAD(x, x, 1.0f); }\n"
    assert expansion.expand(src, lambda w: d.type_info(w) is not None).edits == []


def test_stringise_paste_and_variadic_arguments():
    from kgraph.parsers import expansion

    src = ('#define DECL(T, n, ...) T v_##n = #n[0]; f(__VA_ARGS__);\n'
           'void g(void) { DECL(int, one, 1, 2) }\n')
    out = expansion.expand(src, lambda w: w == "int")
    assert out.text.splitlines()[1] == 'void g(void) { int v_one = "one"[0]; f(1, 2); }'


def test_expansions_stay_within_the_source_limit():
    """3000 uses of a 32 KB statement macro would make 96 MB: expansion stops at the source limit and the
    front end answers with a limit error at the use passing it (the second), in about a second (not minutes)."""
    from kgraph.errors import LimitError

    body = "x += 1; " * 4000
    src = f"#define BIG(x) {{ {body} }}\n__kernel void k(__global int *a) {{ int x = 0;\n" + "BIG(x)\n" * 3000 + "}\n"
    start = time.perf_counter()
    with pytest.raises(LimitError, match=r"<string>:4:1: error: more than 5000 statements"):
        parse_source(src, "opencl")
    assert time.perf_counter() - start < 5.0
