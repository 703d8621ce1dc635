"""kgraph estimate: error messages, and end to end through a converted checkpoint."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgraph.app.cli.main import main
from kgraph.data.targets import BOUND_CLASSES

ROOT = Path(__file__).resolve().parent.parent
SGEMM = str(ROOT / "examples/opencl/sgemm_tiled.cl")
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
ARGS = ["--arg", "M=1024", "--arg", "N=1024", "--arg", "K=1024"]


def err(capsys, argv) -> tuple[int, str]:
    rc = main(argv)
    return rc, capsys.readouterr().err.strip()


@pytest.mark.parametrize("extra, code, message", [
    (["--kernel", "nope", "--global", "64,64"], 2, "--kernel nope: no kernel of that name in the file; its kernels: sgemm_tiled"),
    (["--kernel", "sgemm_tiled", "--global", "64,x"], 2, "--global 64,x: 'x' is not an integer"),
    (["--kernel", "sgemm_tiled", "--global", "64,64,1,1"], 2, "--global 64,64,1,1: 4 dimensions; expected 1 to 3"),
    (["--kernel", "sgemm_tiled", "--global", "64,64", "--arg", "M=64"], 2,
     "--arg: kernel sgemm_tiled needs a value for scalar parameter(s) N, K (e.g. --arg N=4096)"),
    (["--kernel", "sgemm_tiled", "--global", "64,64", "--local", "10,16", *ARGS], 2,
     "--local 10,16 does not divide --global 64,64 in dimension 0"),
    (["--kernel", "sgemm_tiled", "--global", "64,64", "--arg", "M"], 2, "--arg M: expected NAME=VALUE"),
    (["--kernel", "sgemm_tiled", "--global", "64,64", "--arg", "M=1,x"], 2,
     "--arg M=1,x: '1,x' is not a number or comma-separated numbers (a vector's lanes)"),
    (["--kernel", "sgemm_tiled", "--global", "64,64", *ARGS, "--buffer", "A=3,4"], 2,
     "--buffer A=3,4: '3,4' is not a number"),
    (["--kernel", "sgemm_tiled", "--global", "64,64", *ARGS, "--arg", "Q=1"], 2,
     "--arg Q: kernel sgemm_tiled has no scalar parameter of that name (its scalars: M, N, K)"),
])
def test_estimate_usage_errors(capsys, extra, code, message):
    rc, text = err(capsys, ["estimate", SGEMM, "--device", DEVICE, *extra])
    assert rc == code and message in text and "Traceback" not in text


def test_a_device_part_names_the_id_it_ends_when_several_contain_it():
    from kgraph.errors import UsageError
    from kgraph.models.predictor import resolve_device

    known = {k: {"device_id": k} for k in ("nvidia-h200", "nvidia-h200-4gpu-host", "nvidia-h100")}
    assert resolve_device("h200", known)["device_id"] == "nvidia-h200"
    assert resolve_device("4gpu", known)["device_id"] == "nvidia-h200-4gpu-host"
    assert resolve_device("nvidia-h200-4gpu-host", known)["device_id"] == "nvidia-h200-4gpu-host"
    with pytest.raises(UsageError, match="matches several devices"):
        resolve_device("nvidia", known)


def test_estimate_unknown_device_and_missing_model(capsys, tmp_path):
    rc, text = err(capsys, ["estimate", SGEMM, "--kernel", "sgemm_tiled", "--global", "64,64", *ARGS,
                            "--device", "no-such-gpu"])
    assert rc == 2 and "--device no-such-gpu: is neither a descriptor file nor a known device" in text
    rc, text = err(capsys, ["estimate", SGEMM, "--kernel", "sgemm_tiled", "--global", "64,64", *ARGS,
                            "--device", DEVICE, "--model", str(tmp_path)])
    assert rc == 1 and f"no trained model in {tmp_path}: run `python -m kgraph.models.predictor --from-ckpt" in text


def test_estimate_names_the_kernels_when_a_file_has_several(capsys, tmp_path):
    two = tmp_path / "two.cl"
    two.write_text("__kernel void first(__global float *x) { x[get_global_id(0)] = 1.0f; }\n"
                   "__kernel void second(__global float *x) { x[get_global_id(0)] = 2.0f; }\n")
    rc, text = err(capsys, ["estimate", str(two), "--global", "64", "--device", DEVICE])
    assert rc == 2 and f"--kernel: required (a kernel name); kernels in {two}: first, second" in text


def test_estimate_batch_errors(capsys, tmp_path):
    bad = tmp_path / "b.csv"
    bad.write_text("kernel,global,M,N,K\nsgemm_tiled,\"64,64\",64,64,64\nsgemm_tiled,\"64,64\",64,,64\n")
    rc, text = err(capsys, ["estimate", SGEMM, "--batch", str(bad), "--device", DEVICE])
    assert rc == 2 and f"{bad}:3: --arg: kernel sgemm_tiled needs a value for scalar parameter(s) N" in text
    other = tmp_path / "b.txt"
    other.write_text("x")
    rc, text = err(capsys, ["estimate", SGEMM, "--batch", str(other), "--device", DEVICE])
    assert rc == 2 and "unknown format '.txt'" in text



def test_estimate_end_to_end(capsys, model_dir, tmp_path):
    assert sorted(p.name for p in model_dir.iterdir()) == ["config.json", "model.safetensors"]
    rc = main(["estimate", SGEMM, "--kernel", "sgemm_tiled", "--global", "1024,1024", "--local", "16,16", *ARGS,
               "--device", DEVICE, "--model", str(model_dir), "--json"])
    one = json.loads(capsys.readouterr().out)
    assert rc == 0 and one["bound"] in BOUND_CLASSES and math.isfinite(one["time_ns"])
    assert one["args"] == {"M": 1024.0, "N": 1024.0, "K": 1024.0} and one["local"] == [16, 16]
    assert one["footprint_source"] == "static" and one["footprint_bytes"] == 3 * 1024 * 1024 * 4  # A, B, C
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps({"kernel": "sgemm_tiled", "global": g, "local": "16,16",
                                           "args": {"M": n, "N": n, "K": n}})
                               for g, n in (("1024,1024", 1024), ("2048,2048", 2048))) + "\n")
    assert main(["estimate", SGEMM, "--batch", str(batch), "--device", DEVICE, "--model", str(model_dir),
                 "--json"]) == 0
    many = json.loads(capsys.readouterr().out)
    assert len(many) == 2 and many[0]["time_ns"] == pytest.approx(one["time_ns"], rel=1e-6)
    assert many[0]["time_ns"] != many[1]["time_ns"]
    assert [m["footprint_source"] for m in many] == ["static", "static"]
    assert many[1]["footprint_bytes"] == 3 * 2048 * 2048 * 4
    assert main(["estimate", SGEMM, "--kernel", "sgemm_tiled", "--global", "1024,1024", "--local", "16,16", *ARGS,
                 "--device", DEVICE, "--model", str(model_dir)]) == 0
    assert "footprint  12.0 MiB (static)" in capsys.readouterr().out
    # a file of one kernel needs no --kernel
    assert main(["estimate", SGEMM, "--global", "1024,1024", "--local", "16,16", *ARGS, "--device", DEVICE,
                 "--model", str(model_dir), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["time_ns"] == pytest.approx(one["time_ns"], rel=1e-6)


def test_estimate_warns_on_a_device_the_model_was_not_trained_on(capsys, model_dir):
    """The model was trained on ci-tiny's device only: another device's answer is flagged as extrapolation."""
    trained = json.loads((model_dir / "config.json").read_text())["trained_on"]
    assert trained == [json.loads((ROOT / "data/datasets/ci-tiny/device.json").read_text())["device_id"]]
    other = next(json.loads(p.read_text())["device_id"] for p in sorted((ROOT / "data/datasets").glob("*/device.json"))
                 if json.loads(p.read_text())["device_id"] not in trained)
    common = [SGEMM, "--kernel", "sgemm_tiled", "--global", "1024,1024", "--local", "16,16", *ARGS,
              "--model", str(model_dir)]
    assert main(["estimate", *common, "--device", other]) == 0
    assert f"predictions for {other} extrapolate" in capsys.readouterr().err
    assert main(["estimate", *common, "--device", trained[0]]) == 0
    assert "extrapolate" not in capsys.readouterr().err


def test_estimate_imports_no_training_stack():
    """The estimate path (shipped model, one launch) loads neither Lightning nor W&B, nor the modules that
    only other commands need (pretrain-lm's defaults, the campaign harness): they cost cold-start time.

    transformers is not checked: ``import torch_geometric`` (which the graph encoder needs) imports it.
    """
    code = (
        "import contextlib, io, sys\n"
        "from kgraph.app.cli.main import main\n"
        f"argv = ['estimate', {SGEMM!r}, '--kernel', 'sgemm_tiled', '--global', '1024,1024', '--local', '16,16',"
        f" *{ARGS!r}, '--device', 'h200']\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(argv) == 0\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "kgraph.models.predictor" in loaded and "torch" in loaded  # the estimate did run
    heavy = ("lightning", "pytorch_lightning", "lightning_fabric", "wandb", "kgraph.models.lightning_module",
             "kgraph.models.lm_pretrain", "kgraph.data.harness.campaign", "pandas")
    assert not sorted(m for m in loaded if m.split(".")[0] in heavy or m in heavy)


def test_a_vector_scalar_takes_its_lanes_and_bandwidth_is_bytes_over_time(capsys, model_dir, tmp_path):
    """``--arg b=12345,678`` for a ``uint2`` parameter (as ``kgraph measure`` takes it; the CLI once refused it),
    also as a CSV batch column; and the record's bandwidth is its bytes / its time, whatever the bandwidth head
    says (it once printed 11 GB/s beside 4 MB in 9.5 us)."""
    rng = str(ROOT / "data/foreign_set/cl/uint2_seed_rng.cl")
    common = ["--device", DEVICE, "--model", str(model_dir), "--json"]
    assert main(["estimate", rng, "--global", "65536", "--local", "256", "--arg", "b=12345,678",
                 "--arg", "c=65536", *common]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["args"] == {"b": 12345.0, "c": 65536.0} and one["bytes_source"] == "static"
    assert one["bytes"] == 4 * 65536 and one["bandwidth_gbs"] == pytest.approx(one["bytes"] / one["time_ns"])
    # lanes must match the parameter: a uint2 takes two, a scalar one
    for arg, message in (("b=1,2,3", "--arg b=1,2,3: parameter b is uint2; give 2 comma-separated numbers, not 3"),
                         ("c=5,6", "--arg c=5,6: parameter c is int; give one number, not 2")):
        extra = ["--arg", "c=65536"] if arg.startswith("b") else ["--arg", "b=1,2"]
        assert main(["estimate", rng, "--global", "65536", "--arg", arg, *extra, *common]) == 2
        assert message in capsys.readouterr().err
    batch = tmp_path / "b.csv"
    batch.write_text('kernel,global,b,c\nuint2_seed_rng,65536,"12345,678",65536\n')
    assert main(["estimate", rng, "--batch", str(batch), *common]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["time_ns"] == pytest.approx(one["time_ns"], rel=1e-6)
    # a loop read from data: the model's bytes, and still bytes / time
    assert main(["estimate", str(ROOT / "examples/opencl/refine_above.cl"), "--global", "65536", "--arg", "n=65536",
                 "--arg", "t=0.5", "--arg", "steps=16", *common]) == 0
    model_counts = json.loads(capsys.readouterr().out)
    assert model_counts["bandwidth_gbs"] == pytest.approx(model_counts["bytes"] / model_counts["time_ns"])
