"""``python -m parsers``: summaries, diagnostics and exit codes; qualifier edge cases."""
from pathlib import Path

from kgraph.parsers import parse_source
from parsers.__main__ import main

EX = Path(__file__).resolve().parent.parent / "examples"


def test_main_summary_and_exit_codes(capsys, tmp_path):
    assert main([str(EX / "opencl/vec4_add.cl"), "-D", "X=3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{EX / 'opencl/vec4_add.cl'}:2:15: kernel vec4_add(global const float4* a, global const float4* b, "
                   "global float4* c, private const uint n4)", "  macros: X=3"]
    assert main([str(EX / "bad/stray_token.cl")]) == 1
    assert capsys.readouterr().err == f"{EX / 'bad/stray_token.cl'}:5:19: error: unexpected '@'\n"
    assert main([str(EX / "nope.cl")]) == 2
    assert capsys.readouterr().err == f"error: {EX / 'nope.cl'}: no such file\n"
    (tmp_path / "k.txt").write_text("void f() {}\n")
    assert main([str(tmp_path / "k.txt")]) == 2
    assert "cannot tell the language from the extension '.txt'" in capsys.readouterr().err


def test_qualifier_edge_cases():
    text = ("typedef struct { int kernel; float local; } S;\n"
            "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void k(__global S *s, __constant float4 *c) {\n"
            "  /* __local in a comment */ const char *t = \"global\";\n"
            "  s->kernel = 1; s[0].local = c[0].x;\n"
            "  __global float *p = (__global float *)s;\n"
            "}\n")
    unit = parse_source(text, "opencl")
    assert unit.diagnostics == []
    k = unit.kernels[0]
    assert k.attributes["reqd_work_group_size"] == (64, 1, 1)
    assert [(p.name, p.base_type, p.address_space, p.elem_bytes) for p in k.params] == [
        ("s", "S", "global", None), ("c", "float", "constant", 16)]
    assert "s->kernel = 1; s[0].local = c[0].x;" in unit.source.decode()
    assert "/* __local in a comment */" in unit.source.decode() and '"global"' in unit.source.decode()
    decl = k.body.named_children[-1]
    assert decl.type == "declaration" and unit.address_space_of(decl) == "global"
    cast_type = decl.child_by_field_name("declarator").child_by_field_name("value").child_by_field_name("type")
    assert cast_type.type == "type_descriptor" and unit.qualifiers_at(cast_type) == {"global"}


def test_cuda_host_launch_and_void_params():
    unit = parse_source("__global__ void k(void) { }\nvoid host() { k<<<dim3(2, 2), 64, 0>>>(); }\n", "cuda")
    assert unit.diagnostics == [] and [(f.name, f.is_kernel, f.params) for f in unit.functions] == [
        ("k", True, []), ("host", False, [])]
