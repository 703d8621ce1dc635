"""Hardening issue 14, row 10: hostile files given to ``report``, ``dataset import --descriptor``,
``estimate --batch`` and ``fit --config`` each get one clean message naming the file (or option) and what
is wrong: never a traceback. Rows 6 and 7, with the shared helpers: ``test_hardening_model_cli.py``.

Most commands run in-process (``kgraph.app.cli.main.main``: an exception would fail the test); one test
for ``report`` and one for ``fit`` run the real command in a fresh interpreter and check its stderr for
"Traceback".
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.test_hardening_model_cli import CI_DEVICE, ROOT, SAXPY, cli, run_cli


# --- row 10: report, import --descriptor, estimate --batch, fit --config -----------------------------
def predictions_frame(n: int = 12) -> pd.DataFrame:
    from kgraph.data.targets import BOUND_CLASSES, REGRESSION_TARGETS

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"model": ["m"] * n, "split": ["random"] * n, "row": np.arange(n),
                          "key": [f"k{i}" for i in range(n)], "device_id": ["nvidia-h200"] * n,
                          "kernel_id": ["k"] * n, "family": ["f"] * n, "kernel_name": ["k"] * n})
    for t in REGRESSION_TARGETS:
        frame[f"true_log_{t}"] = rng.normal(8, 1, n)
        frame[f"pred_log_{t}"] = rng.normal(8, 1, n)
    frame["true_bound"] = frame["pred_bound"] = BOUND_CLASSES[0]
    frame["fallback"] = False
    return frame


def run_dir(tmp_path: Path, name: str, frame: pd.DataFrame, meta: bytes | None = None) -> Path:
    d = tmp_path / name
    d.mkdir()
    frame.to_parquet(d / "predictions-m-random.parquet", index=False)
    if meta is not None:
        (d / "run.json").write_bytes(meta)
    return d


@pytest.mark.parametrize("meta, expected", [
    (b'{"devices": {', "run.json:1:14: invalid JSON: Expecting property name enclosed in double quotes"),
    (b"\x00\xff\xfe", "run.json: not UTF-8 text (a binary or damaged file)"),
    (b"[1, 2]", "run.json: a run.json is a JSON object (devices, models), got a list"),
    (b'{"devices": [1]}', "run.json: 'devices' and 'models' must be JSON objects"),
    (b'{"devices": {"nvidia-h200": "fast"}}', "run.json: devices.nvidia-h200 must be a roofline object"),
    (b'{"devices": {"nvidia-h200": {"copy_bw_gbs": "x", "fp32_gflops": 1, "fp64_gflops": 1}}}',
     'run.json: devices.nvidia-h200.copy_bw_gbs must be a finite positive number, got "x"'),
    (b'{"models": {"m|random": 5}}', "run.json: models.m|random must be a JSON object, got 5"),
])
def test_row10_report_bad_run_json(capsys, tmp_path, meta, expected):
    run = run_dir(tmp_path, "run", predictions_frame(), meta)
    rc, _, err = cli(capsys, "report", str(run), "--out", str(tmp_path / "out"), "--no-plots")
    assert rc == 1 and err.strip().startswith(f"kgraph: error: {run}/{expected}"), err


def test_row10_report_predictions_with_zero_rows(capsys, tmp_path):
    empty = run_dir(tmp_path, "empty", predictions_frame().iloc[:0])
    rc, _, err = cli(capsys, "report", str(empty), "--out", str(tmp_path / "out"), "--no-plots")
    assert rc == 1 and err.strip() == (f"kgraph: error: {empty}: no predictions to report: every predictions file "
                                       f"has 0 rows ({empty}/predictions-m-random.parquet)")
    good = run_dir(tmp_path, "good", predictions_frame())
    rc, out, err = cli(capsys, "report", str(good), str(empty), "--out", str(tmp_path / "out"))
    assert rc == 0 and "wrote" in out
    assert err.strip() == (f"kgraph report: warning: {empty}/predictions-m-random.parquet: 0 rows, left out of "
                           "the report")


def test_row10_report_odd_predictions(capsys, tmp_path):
    from kgraph.data.targets import REGRESSION_TARGETS

    nan = predictions_frame()
    for t in REGRESSION_TARGETS:
        nan[f"pred_log_{t}"] = np.nan
    minimal = predictions_frame().drop(columns=["family", "device_id", "true_bound", "pred_bound",
                                                "pred_log_bandwidth"])
    for name, frame in (("nan", nan), ("minimal", minimal)):
        rc, _, err = cli(capsys, "report", str(run_dir(tmp_path, name, frame)), "--out", str(tmp_path / name / "o"))
        assert rc == 0, err
    text = predictions_frame().assign(pred_log_time="fast")
    run = run_dir(tmp_path, "text", text)
    rc, _, err = cli(capsys, "report", str(run), "--out", str(tmp_path / "o"))
    assert rc == 1 and "column pred_log_time must be numeric (log units)" in err


def test_row10_report_cli_has_no_traceback(tmp_path):
    run = run_dir(tmp_path, "run", predictions_frame(), b"\x00\xff")
    empty = run_dir(tmp_path, "empty", predictions_frame().iloc[:0])
    for target in (run, empty):
        proc = run_cli("report", str(target), "--out", str(tmp_path / "out"))
        assert proc.returncode == 1 and "Traceback" not in proc.stderr and proc.stderr.startswith("kgraph: error: ")


PLAIN_SOURCE = ("__kernel void saxpy(const int n, const float a, __global const float *x, __global float *y) "
                "{ int i = get_global_id(0); if (i < n) y[i] = a * x[i] + y[i]; }")


def plain_csv(tmp_path: Path, device: str = "NVIDIA H200") -> Path:
    path = tmp_path / "plain.csv"
    pd.DataFrame({"source": [PLAIN_SOURCE] * 2, "kernel_name": ["saxpy"] * 2, "global": ["1048576", "4194304"],
                  "local": ["256", "256"], "arguments": ['{"n": 1048576, "a": 2.0}', '{"n": 4194304, "a": 2.0}'],
                  "device": [device] * 2, "time_us": [12.5, 40.1]}).to_csv(path, index=False)
    return path


def test_row10_plain_csv_import_validates(capsys, tmp_path):
    from kgraph.data.harness.validate import validate_dataset

    csv = plain_csv(tmp_path)
    rc, out, err = cli(capsys, "dataset", "import", str(csv), "--out", str(tmp_path / "plain"))
    assert rc == 0 and validate_dataset(tmp_path / "plain") == []
    rc, out, err = cli(capsys, "dataset", "import", str(csv), "--out", str(tmp_path / "with-device"),
                       "--descriptor", str(ROOT / "data/datasets/nvidia-h200"))
    assert rc == 0 and validate_dataset(tmp_path / "with-device") == []
    rc, out, _ = cli(capsys, "dataset", "validate", str(tmp_path / "with-device"))
    assert rc == 0 and out.strip() == f"{tmp_path / 'with-device'}: valid"


def test_row10_import_rows_checked_as_validate_checks_them(capsys, tmp_path):
    csv = tmp_path / "t.csv"
    base = {"source": PLAIN_SOURCE, "kernel_name": "saxpy", "global": "1024", "device": "d", "time_ns": 5000.0,
            "arguments": '{"n": 1024, "a": 1.0}'}
    for extra, expected in (({"min_time_ns": 6000.0}, "times must satisfy 0 < min_time_ns <= median"),
                            ({"status": "fine"}, "column 'status' = 'fine': expected one of ok, "),
                            ({"cv": "noisy"}, "column 'cv' = 'noisy' is not a number"),
                            ({"repeats": 0}, "column 'repeats' = 0 must be a whole number >= 1"),
                            ({"flops_fp32": -3}, "column 'flops_fp32' = -3 must be a whole number >= 0"),
                            ({"time_ns": "inf"}, "column 'time_ns' must be a positive finite time"),
                            ({"global": "1e400"}, "column 'global' = inf needs 1 to 3 positive whole sizes"),
                            ({"global": "4096;1.5"}, "column 'global' = '4096;1.5' needs 1 to 3 positive whole"),
                            ({"lang": "python"}, "column 'lang' = 'python': expected one of opencl, cuda, c")):
        pd.DataFrame([{**base, **extra}]).to_csv(csv, index=False)
        rc, _, err = cli(capsys, "dataset", "import", str(csv), "--out", str(tmp_path / "o"))
        assert rc == 1 and err.strip().startswith(f"kgraph: error: {csv}:2: {expected}"), err


def test_row10_import_without_counts_warns(capsys, tmp_path):
    csv = tmp_path / "walk.csv"
    pd.DataFrame([{"source": "__kernel void walk(__global const int *next, __global int *out) { int p = "
                             "get_global_id(0); while (p >= 0) p = next[p]; out[get_global_id(0)] = p; }",
                   "kernel_name": "walk", "global": "1024", "device": "d", "time_ns": 5000.0}]).to_csv(csv, index=False)
    rc, _, err = cli(capsys, "dataset", "import", str(csv), "--out", str(tmp_path / "o"))
    assert rc == 0 and "kgraph dataset import: warning: 1 row(s) without counts" in err
    assert f"kgraph dataset fill-counts {tmp_path / 'o'}" in err


@pytest.mark.parametrize("content, expected", [
    (b"\x00\xff\x10binary", "cannot read the device descriptor (UnicodeDecodeError)"),
    (b"[1, 2]", "a device descriptor is a JSON object, got list"),
    (b'{"device_id": "x"', "1:18: invalid JSON"),
    (b"[" * 100_000, "JSON nested too deeply to be a device descriptor"),
])
def test_row10_import_bad_descriptor(capsys, tmp_path, content, expected):
    descriptor = tmp_path / "device.json"
    descriptor.write_bytes(content)
    rc, _, err = cli(capsys, "dataset", "import", str(plain_csv(tmp_path)), "--out", str(tmp_path / "o"),
                     "--descriptor", str(descriptor))
    assert rc == 1 and expected in err and err.startswith(f"kgraph: error: {descriptor}"), err


def test_row10_import_descriptor_of_another_device(capsys, tmp_path):
    rc, _, err = cli(capsys, "dataset", "import", str(plain_csv(tmp_path, "My GPU")), "--out", str(tmp_path / "o"),
                     "--descriptor", str(ROOT / "data/datasets/nvidia-h200/device.json"))
    assert rc == 1 and "describes device 'nvidia-h200', the table's rows are of 'my-gpu'" in err
    rc, _, err = cli(capsys, "dataset", "import", str(plain_csv(tmp_path)), "--out", str(tmp_path / "o"),
                     "--descriptor", "/dev/zero")
    assert rc == 1 and err.strip() == "kgraph: error: /dev/zero: not a regular file (a device descriptor is a " \
                                      "device.json file)"


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_row10_estimate_batch_binary_file(capsys, model_dir, tmp_path, suffix):
    batch = tmp_path / f"launches{suffix}"
    batch.write_bytes(b"kernel,global\n" + b"\x00" * 64)
    rc, _, err = cli(capsys, "estimate", "--batch", str(batch), "--device", str(CI_DEVICE), "--model", str(model_dir))
    assert rc == 1 and err.strip() == f"kgraph: error: {batch}:2: a NUL byte: --batch takes a CSV or JSONL text " \
                                      "file, not a binary one"
    batch.write_bytes(b"kernel,global\nsaxpy,\xff\xfe\n")
    rc, _, err = cli(capsys, "estimate", "--batch", str(batch), "--device", str(CI_DEVICE), "--model", str(model_dir))
    assert rc == 1 and err.strip() == f"kgraph: error: {batch}:2: not UTF-8 text (byte 0xff): --batch takes a CSV " \
                                      "or JSONL text file"


def test_row10_estimate_batch_malformed_rows(capsys, model_dir, tmp_path):
    batch = tmp_path / "b.jsonl"
    for line, expected in ((json.dumps({"kernel": "saxpy", "global": 1024, "args": [1, 2]}),
                            f"{batch}:1: 'args' must be a JSON object (NAME: value), got list"),
                           (json.dumps({"kernel": ["saxpy"], "global": 1024, "args": {"n": 1, "a": 1}}),
                            "--kernel: required (a kernel name)"),
                           (json.dumps({"kernel": "saxpy", "global": 1024, "args": {"n": "x", "a": 1}}),
                            f"{batch}:1: --arg n=x: not a number"),
                           ('{"kernel": "saxpy", "global": 1e400, "args": {"n": 1, "a": 1}}',
                            "sizes must be positive integers, got inf")):
        batch.write_text(line + "\n")
        rc, _, err = cli(capsys, "estimate", SAXPY, "--batch", str(batch), "--device", str(CI_DEVICE), "--model",
                         str(model_dir))
        assert rc in (1, 2) and expected in err, err


def test_row10_fit_config_binary_file(capsys, tmp_path):
    config = tmp_path / "conf.yaml"
    config.write_bytes(b"\xba\xad" + bytes(range(256)))
    rc, _, err = cli(capsys, "fit", "--config", str(config))
    assert rc == 2 and err.strip() == (f"kgraph: error: --config {config}: not UTF-8 text (byte 0xba at offset 0): "
                                       "a config is a YAML or JSON text file")
    config.write_bytes(b"model:\x00\n")
    rc, _, err = cli(capsys, "fit", f"--config={config}")
    assert rc == 2 and "a NUL byte at offset 6" in err


def test_row10_fit_config_cli_has_no_traceback(tmp_path):
    config = tmp_path / "conf.yaml"
    config.write_bytes(bytes(range(255, -1, -1)))
    proc = run_cli("fit", "--config", str(config))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (f"kgraph: error: --config {config}: not UTF-8 text (byte 0xff at offset 0): a "
                                   "config is a YAML or JSON text file")
