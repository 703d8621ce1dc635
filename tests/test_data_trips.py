"""Trip counts from a launch's input data (kgraph.analysis.data_trips): loops bounded by elements read from buffers
get their mean from the buffers' contents; checked by hand, against the instrumented run (PoCL), and through the
API and `kgraph estimate --input`."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import kgraph
from kgraph.analysis import analyze
from kgraph.analysis import data_trips
from kgraph.analysis.data_trips import data_trip_means
from kgraph.app.cli.main import main
from kgraph.errors import UsageError
from kgraph.parsers import parse_source

ROOT = Path(__file__).resolve().parent.parent
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
SRC = """__kernel void rows(__global const int *len, __global const float *a, __global float *o, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < len[i]; k++)
        s += a[i * 64 + k] * 2.0f;
    o[i] = s;
}
__kernel void span(__global const int *lo, __global const int *hi, __global float *o)
{
    int i = get_global_id(0);
    const int first = lo[i], last = hi[i];
    float s = 0.0f;
    for (int y = first; y < last; y += 2)
        s += (float)y;
    o[i] = s;
}
__kernel void indirect(__global const int *idx, __global const int *len, __global float *o)
{
    int i = get_global_id(0);
    float s = 0.0f;
    for (int k = 0; k < len[idx[i]]; k++)
        s += 1.0f;
    o[i] = s;
}
"""
UNIT = parse_source(SRC, "opencl")


def analysis(name):
    return analyze(UNIT.function(name), UNIT)


def test_a_loaded_bound_keeps_its_count_in_the_elements_read():
    lp = analysis("rows").loops[0]
    assert not lp.symbolic and str(lp.trip) == "trip_6"
    assert [(b, str(i)) for b, i in lp.loads.values()] == [("len", "gid0")]
    assert [str(s) for s in lp.ranges] == ["gid0"]  # the early return's guard
    assert analysis("span").loops[0].data_trip is not None
    assert analysis("indirect").loops[0].data_trip is None  # the index holds another read


def test_the_mean_is_taken_over_the_items_the_guards_let_in():
    lens = np.arange(100, dtype=np.int32)
    assert data_trip_means(analysis("rows"), [128], [32], {"n": 64}, {"len": lens}) == {"trip_6": pytest.approx(31.5)}
    assert data_trip_means(analysis("rows"), [128], [32], {"n": 128}, {"len": lens}) == {"trip_6": pytest.approx(49.5)}
    # items reading past the buffer's end (i >= 100) do not enter: mean of len[0..99]
    lo, hi = np.zeros(64, np.int32), np.arange(64, dtype=np.int32)
    got = data_trip_means(analysis("span"), [64], [16], {}, {"lo": lo, "hi": hi})
    assert got == {"trip_15": pytest.approx(np.mean(np.ceil(np.arange(64) / 2)))}  # step 2: ceil((hi - lo) / 2)
    assert data_trip_means(analysis("span"), [64], [16], {}, {"lo": lo}) == {}  # hi not given


def test_large_launches_are_sampled_evenly(monkeypatch):
    monkeypatch.setattr(data_trips, "MAX_ITEMS", 1000)
    lens = np.arange(1 << 16, dtype=np.int32) % 7
    got = data_trip_means(analysis("rows"), [1 << 16], [64], {"n": 1 << 16}, {"len": lens})["trip_6"]
    assert got == pytest.approx(3.0, abs=0.05)


def test_the_derived_mean_makes_the_counts_equal_the_instrumented_run(ctx):
    from kgraph.data.instrumented import count_launch
    from kgraph.instrument import COUNTER_NAMES

    rng = np.random.default_rng(0)
    g, n = 256, 200
    bufs = {"len": rng.integers(0, 64, g).astype(np.int32), "a": rng.random(g * 64).astype(np.float32),
            "o": np.zeros(g, np.float32)}
    dynamic = count_launch(SRC, "rows", (g,), (64,), dict(n=n, **bufs), ctx).to_dict()
    a = analysis("rows")
    trips = data_trip_means(a, [g], [64], {"n": n}, bufs)
    static = a.total({"n": n, "gsz0": g, "lsz0": 64, **trips})
    for key in COUNTER_NAMES:
        assert static[key] == pytest.approx(dynamic[key], rel=1e-9), key


def _request(tmp_path, **extra):
    path = tmp_path / "rows.cl"
    path.write_text(SRC)
    return {"file": path, "kernel": "rows", "global": [4096], "local": [64], "args": {"n": 4096}, "device": DEVICE,
            **extra}


def test_the_api_derives_the_mean_from_inputs_and_a_given_mean_wins(model_dir, tmp_path):
    m = kgraph.load_model(model_dir)
    lens = np.full(4096, 12, dtype=np.int32)
    r = m.estimate_many([_request(tmp_path, inputs={"len": lens})])[0]
    assert r["derived_trips"] == {"trip_6": 12.0} and r["flops_source"] == "static"
    assert r["buffers"] == {"len": 4096}
    r = m.estimate_many([_request(tmp_path, inputs={"len": lens}, args={"n": 4096, "trip_6": 3})])[0]
    assert not r["derived_trips"] and r["args"]["trip_6"] == 3
    np.save(tmp_path / "len.npy", lens)
    assert m.estimate_many([_request(tmp_path, inputs={"len": str(tmp_path / "len.npy")})])[0]["derived_trips"] == \
        {"trip_6": 12.0}


@pytest.mark.parametrize("inputs,match", [({"lens": [1]}, "no buffer parameter"), ({"len": []}, "non-empty"),
                                          ({"len": ["a"]}, "numbers"), ({"len": "/nonexistent.npy"}, "readable"),
                                          ([1, 2], "object of NAME")])
def test_bad_inputs_are_named(model_dir, tmp_path, inputs, match):
    with pytest.raises(UsageError, match=match):
        kgraph.load_model(model_dir).estimate_many([_request(tmp_path, inputs=inputs)])


def test_cli_input_option(capsys, tmp_path):
    np.save(tmp_path / "len.npy", np.full(4096, 5, dtype=np.int32))
    req = _request(tmp_path)
    base = ["estimate", str(req["file"]), "--kernel", "rows", "--global", "4096", "--local", "64", "--arg", "n=4096",
            "--device", DEVICE]
    assert main(base + ["--input", f"len={tmp_path / 'len.npy'}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["derived_trips"] == {"trip_6": 5.0}
    assert main(base + ["--input", f"len={tmp_path / 'len.npy'}"]) == 0
    assert "trip_6 = 5 (mean per entry, from the --input contents)" in capsys.readouterr().out
    assert main(base + ["--input", "len"]) == 2
    assert "--input len: expected NAME=FILE.npy" in capsys.readouterr().err


def test_the_counts_note_says_which_inputs_give_the_mean(model_dir, tmp_path):
    m = kgraph.load_model(model_dir)
    note = m.estimate_many([_request(tmp_path)])[0]["counts_note"]
    assert "trip_6 follows from the contents of len: --input len=FILE.npy" in note
    given = m.estimate_many([_request(tmp_path, inputs={"len": np.full(4096, 3, np.int32)})])[0]
    assert "--input" not in (given["counts_note"] or "")


def test_batch_rows_give_inputs_by_column_and_by_object(capsys, tmp_path):
    np.save(tmp_path / "len.npy", np.full(4096, 7, dtype=np.int32))
    (tmp_path / "rows.cl").write_text(SRC)
    csv_file = tmp_path / "b.csv"
    csv_file.write_text(f"file,kernel,global,local,n,input:len\n{tmp_path / 'rows.cl'},rows,4096,64,4096,"
                        f"{tmp_path / 'len.npy'}\n")
    assert main(["estimate", "--batch", str(csv_file), "--device", DEVICE, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["derived_trips"] == {"trip_6": 7.0}
    row = {"file": str(tmp_path / "rows.cl"), "kernel": "rows", "global": [4096], "args": {"n": 4096},
           "inputs": {"len": str(tmp_path / "len.npy")}}
    (tmp_path / "b.jsonl").write_text(json.dumps(row) + "\n")
    assert main(["estimate", "--batch", str(tmp_path / "b.jsonl"), "--device", DEVICE, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["derived_trips"] == {"trip_6": 7.0}
    (tmp_path / "c.jsonl").write_text(json.dumps(row) + "\n" + json.dumps({**row, "inputs": ["len"]}) + "\n")
    assert main(["estimate", "--batch", str(tmp_path / "c.jsonl"), "--device", DEVICE, "--json"]) == 1
    assert "c.jsonl:2: 'inputs' must be a JSON object" in capsys.readouterr().err
