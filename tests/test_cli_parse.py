"""`kgraph parse`: exit codes and output on good, bad-syntax, empty, binary and missing files."""
import json

from kgraph.app.cli.main import main

SAXPY = """__kernel void saxpy(const float a, __global const float* x, __global float* y, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
BAD = "__kernel void k(__global float* a) {\n    a[0] = 1.0f\n    a[1] = 2.0f;\n}\n"


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def test_good_file_text(tmp_path, capsys):
    path = _write(tmp_path, "saxpy.cl", SAXPY)
    assert main(["parse", path]) == 0
    out, err = capsys.readouterr()
    assert f"{path}: kernel saxpy (opencl): 55 nodes; edges: AST 48, CONTROL 3, DATA 17, CALL 1" in out
    assert err == ""


def test_good_file_json_and_png(tmp_path, capsys):
    path = _write(tmp_path, "saxpy.cl", SAXPY)
    png = tmp_path / "g.png"
    assert main(["parse", path, "--json", "--png", str(png)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (kernel,) = doc["files"][0]["kernels"]
    assert kernel["name"] == "saxpy" and kernel["nodes"] == 55
    assert kernel["edges"] == {"AST": 48, "CONTROL": 3, "DATA": 17, "CALL": 1}
    assert doc["png"] == [str(png)] and png.read_bytes()[:4] == b"\x89PNG"


def test_syntax_error_reports_file_line_col_and_goes_on(tmp_path, capsys):
    bad = _write(tmp_path, "bad.cl", BAD)
    good = _write(tmp_path, "saxpy.cl", SAXPY)
    assert main(["parse", bad, good]) == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"{bad}:3:5: error:")
    assert "Traceback" not in err
    assert f"{good}: kernel saxpy" in out


def test_empty_binary_and_missing_files(tmp_path, capsys):
    empty = _write(tmp_path, "empty.cl", b"")
    binary = _write(tmp_path, "bin.cl", b"\x00\x01\x02\x7fELF")
    missing = str(tmp_path / "nope.cl")
    assert main(["parse", empty, binary, missing]) == 1
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("kgraph: error: ") for line in lines)
    assert empty in lines[0] and binary in lines[1] and missing in lines[2]
    assert out == ""


def test_bad_png_option_is_usage_error(tmp_path, capsys):
    path = _write(tmp_path, "saxpy.cl", SAXPY)
    assert main(["parse", path, "--png", "x.jpg"]) == 2
    assert "--png" in capsys.readouterr().err
