"""The Python API (``kgraph.load_model``) gives the CLI's numbers, validates like it, and is lazy."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_readme import ROOT, console_commands


def estimate_examples() -> list[list[str]]:
    return [shlex.split(c)[1:] for c in console_commands() if shlex.split(c)[1] == "estimate"]


def request_of(argv: list[str]) -> dict:
    """The API call that an ``estimate`` command line asks for."""
    opts = {"args": {}, "buffers": {}}
    it = iter(argv[2:])
    for token in it:
        if token == "--json":
            continue
        value = next(it)
        if token in ("--arg", "--buffer"):
            name, _, v = value.partition("=")
            opts[token[2:] + "s"][name] = float(v)
        else:
            opts[token[2:]] = value
    launch = ({"grid": opts["grid"], "block": opts.get("block")} if "grid" in opts else
              {"global_size": opts["global"], "local_size": opts.get("local")})
    return {"file": str(ROOT / argv[1]), "kernel": opts.get("kernel"), **launch, "args": opts["args"],
            "device": opts["device"], "buffers": opts["buffers"] or None}


@pytest.fixture(scope="module")
def model():
    import kgraph

    return kgraph.load_model()


@pytest.mark.parametrize("argv", estimate_examples(), ids=lambda a: Path(a[1]).stem)
def test_api_gives_the_cli_numbers_on_the_readme_examples(argv, model, capsys, monkeypatch):
    from kgraph.app.cli.main import main

    monkeypatch.chdir(ROOT)
    assert main([*argv, "--json"] if "--json" not in argv else argv) == 0
    cli = json.loads(capsys.readouterr().out)
    api = model.estimate(**request_of(argv))
    for key in ("time_ns", "bandwidth_gbs", "footprint_bytes", "flops", "bytes", "bound_probability"):
        assert api[key] == pytest.approx(cli[key], rel=1e-9), key
    assert (api["bound"], api["footprint_source"]) == (cli["bound"], cli["footprint_source"])


def test_batch_returns_a_dataframe_in_order(model):
    saxpy = ROOT / "examples" / "opencl" / "saxpy.cl"
    rows = [{"file": saxpy, "kernel": "saxpy", "global": [n], "local": [128], "args": {"n": n, "a": 2.0},
             "device": "h200"} for n in (1 << 16, 1 << 20, 1 << 24)]
    df = model.estimate_batch(rows)
    assert list(df["global"].map(lambda g: g[0])) == [1 << 16, 1 << 20, 1 << 24]
    assert df["time_ns"].is_monotonic_increasing
    # the exact static footprint of saxpy: x and y, 4 bytes each per element
    assert list(df["footprint_bytes"]) == [8.0 * (1 << 16), 8.0 * (1 << 20), 8.0 * (1 << 24)]
    assert set(df["footprint_source"]) == {"static"}


def test_bad_launch_is_refused_before_the_model_loads(tmp_path):
    import kgraph

    m = kgraph.load_model(tmp_path)  # an empty directory: loading it would fail
    saxpy = ROOT / "examples" / "opencl" / "saxpy.cl"
    with pytest.raises(kgraph.UsageError, match="--arg: kernel saxpy needs a value for scalar parameter"):
        m.estimate(saxpy, kernel="saxpy", global_size=1024, device="h200", args={"a": 1.0})
    with pytest.raises(kgraph.UsageError, match="--kernel nope: no kernel of that name"):
        m.estimate(saxpy, kernel="nope", global_size=1024, device="h200")
    with pytest.raises(kgraph.ModelError, match="no trained model"):
        m.estimate(saxpy, kernel="saxpy", global_size=1024, device="h200", args={"n": 1024, "a": 1.0})


def test_import_kgraph_is_lazy():
    code = ("import sys, kgraph, kgraph.parsers; "
            "print(sorted(m for m in sys.modules if m.startswith(('torch', 'kgraph.models', 'kgraph.data', 'kgraph.app'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert "load_model" in dir(__import__("kgraph"))
