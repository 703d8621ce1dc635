"""Bad input: every case is an InputError with a clear message; syntax errors are diagnostics."""
import time
from pathlib import Path

import pytest

from kgraph.parsers import InputError, SourceError, parse_file, parse_source

EX = Path(__file__).resolve().parent.parent / "examples"

# Expected diagnostics of examples/bad/ (also listed in docs/PARSERS.md, used by the CLI tests).
BAD = {
    "bad/missing_semicolon.cl": ["5:5: error: unexpected 'a' (missing ';' at the end of line 4?)"],
    "bad/stray_token.cl": ["5:19: error: unexpected '@'"],
    "bad/unclosed_brace.cu": ["6:2: error: missing '}'"],
    "bad/bad_expr.c": ["4:15: error: missing identifier"],
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_examples_exact_line_col(name):
    unit = parse_file(EX / name)
    assert [str(d) for d in unit.diagnostics] == [f"{EX / name}:{m}" for m in BAD[name]]
    with pytest.raises(SourceError) as info:
        unit.raise_on_errors()
    assert [d.line for d in info.value.diagnostics] == [int(BAD[name][0].split(":")[0])]


def test_error_columns_count_characters_and_tabs_as_one():
    unit = parse_source('// h\u00e9llo\nvoid f() {\n\tconst char *s = "\u00e9\u00e9"; int x = @;\n}\n', "c", filename="u.c")
    # the '@' is character 32 of line 3 (byte 34): tab = 1 column, each é = 1 column
    assert [str(d) for d in unit.diagnostics] == ["u.c:3:32: error: unexpected '@'"]


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match=r"nope\.cl: no such file"):
        parse_file(tmp_path / "nope.cl")
    with pytest.raises(InputError, match="is a directory, expected a kernel source file"):
        parse_file(tmp_path)


@pytest.mark.parametrize("content,message", [
    (b"", "empty file"),
    (b"  \n\t\n", r"empty source \(no code, only whitespace\)"),
    (b"__kernel void k() {}\x00\x01\x02", r"looks binary \(NUL byte at offset 20\)"),
    (b"__kernel void k() { /* caf\xe9 */ }", r"not UTF-8 text \(invalid byte 0xe9 at offset 26\)"),
])
def test_bad_file_contents(tmp_path, content, message):
    path = tmp_path / "k.cl"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        parse_file(path)


def test_oversized_input_is_refused_quickly(tmp_path):
    path = tmp_path / "huge.cl"
    path.write_bytes(b"// " + b"x" * (10 * 1024 * 1024) + b"\n")
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"huge\.cl: file is 10\.0 MB \(10485764 bytes\), larger than the 4\.0 MB limit"):
        parse_file(path)
    with pytest.raises(InputError, match=r"larger than the 4\.0 MB limit"):
        parse_source("x" * (10 * 1024 * 1024), "opencl")
    assert time.perf_counter() - start < 1.0
    with pytest.raises(InputError, match="larger than the 0.0 MB limit"):
        parse_source("kernel void k() {}", "opencl", max_bytes=10)


def test_source_text_checks():
    with pytest.raises(InputError, match="<string>: empty file"):
        parse_source("", "opencl")
    with pytest.raises(InputError, match=r"k\.cl: looks binary \(NUL byte at offset 1\)"):
        parse_source("a\x00b", "opencl", filename="k.cl")
    with pytest.raises(InputError, match=r"not UTF-8 text \(invalid byte 0xff at offset 2\)"):
        parse_source(b"ab\xff", "opencl")
    with pytest.raises(InputError, match="expected source text"):
        parse_source(42, "opencl")
    with pytest.raises(InputError, match="unpaired surrogate at character 3"):
        parse_source("abc\ud800", "opencl")


def test_byte_order_mark_is_ignored():
    unit = parse_source("\ufeffkernel void k(global float *a) { a[0] = 1.0f; }\n", "opencl")
    assert unit.diagnostics == [] and unit.kernels[0].name == "k" and unit.kernels[0].col == 14
