"""Hardening issue 14, rows 6 and 7: damaged model directories and launches that cannot run each get one
clean message naming the file (or option) and what is wrong: never a traceback. Row 10 (hostile files given
to ``report``, ``dataset import``, ``estimate --batch``, ``fit --config``): ``test_hardening_files.py``.

Most commands run in-process (``kgraph.app.cli.main.main``: an exception would fail the test); one test
per row runs the real command in a fresh interpreter and checks its stderr for "Traceback".
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kgraph
from kgraph.app.cli.main import main
from kgraph.errors import InputError, ModelError, UsageError

ROOT = Path(__file__).resolve().parent.parent
SAXPY = str(ROOT / "examples/opencl/saxpy.cl")
SAXPY_ARGS = ["--kernel", "saxpy", "--arg", "n=1048576", "--arg", "a=2"]
CI_DEVICE = ROOT / "data/datasets/ci-tiny/device.json"
REPAIR = "copy the model directory again, or convert its checkpoint again"


def run_cli(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``kgraph ARGV`` in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "kgraph.app.cli.main", *argv], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``kgraph ARGV`` run in this process."""
    rc = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return rc, out.out, out.err


@pytest.fixture
def gpu(tmp_path) -> Path:
    """A GPU descriptor with the H200's launch limits: work-groups of 1024, 1024 x 1024 x 64, 48 KiB local."""
    descriptor = json.loads(CI_DEVICE.read_text())
    descriptor.update(device_id="test-gpu", type="GPU", max_work_group_size=1024,
                      max_work_item_sizes=[1024, 1024, 64], local_mem_bytes=49152)
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(descriptor))
    return path


@pytest.fixture
def damaged(model_dir, tmp_path) -> Path:
    """A copy of the small test model, to damage."""
    return Path(shutil.copytree(model_dir, tmp_path / "model"))


def estimate_with(capsys, model: Path) -> tuple[int, str]:
    rc, _, err = cli(capsys, "estimate", SAXPY, *SAXPY_ARGS, "--global", "1048576", "--device", str(CI_DEVICE),
                     "--model", str(model))
    return rc, err.strip()


# --- row 6: damaged model directories ----------------------------------------------------------------
def test_row6_truncated_safetensors(damaged, capsys):
    weights = damaged / "model.safetensors"
    data = weights.read_bytes()
    header = 8 + int.from_bytes(data[:8], "little")
    for keep, expected in ((5, "5 bytes, too short for a safetensors file"),
                           (header - 10, "truncated or not a safetensors file: the header says"),
                           (header + 1000, f"truncated: its tensors need {len(data) - header} bytes of data, "
                                           f"the file holds 1000")):
        weights.write_bytes(data[:keep])
        rc, err = estimate_with(capsys, damaged)
        assert rc == 1 and err == f"kgraph: error: {weights}: {expected}" + err.split(expected, 1)[1]
        assert REPAIR in err


def test_row6_truncated_safetensors_cli_has_no_traceback(damaged):
    weights = damaged / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100_000])
    proc = run_cli("estimate", SAXPY, *SAXPY_ARGS, "--global", "1048576", "--device", str(CI_DEVICE),
                   "--model", str(damaged))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"kgraph: error: {weights}: truncated: its tensors need ")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_row6_truncated_config_json(damaged, capsys):
    config = damaged / "config.json"
    text = config.read_text()
    config.write_text(text[:len(text) // 2])
    rc, err = estimate_with(capsys, damaged)
    assert rc == 1 and err.startswith(f"kgraph: error: {config}:")
    assert "invalid JSON" in err and "the file ends early (truncated?)" in err and REPAIR in err


@pytest.mark.parametrize("content, expected", [
    (b'{"format": "\xff"}', "not UTF-8 text (byte 12 is 0xff): a binary or damaged file"),
    (b"\x89PNG\r\n\x1a\n", "not UTF-8 text (byte 0 is 0x89): a binary or damaged file"),
    (b"[1, 2]", "a model config is a JSON object, got a list"),
    (b'"model"', "a model config is a JSON object, got a str"),
])
def test_row6_config_json_not_a_config(damaged, capsys, content, expected):
    (damaged / "config.json").write_bytes(content)
    rc, err = estimate_with(capsys, damaged)
    assert rc == 1 and err.startswith(f"kgraph: error: {damaged / 'config.json'}: {expected}")


@pytest.mark.parametrize("edit, expected", [
    (lambda c: c.pop("arch"), "key 'arch' is missing or not an object"),
    (lambda c: c.update(feature_names="launch_dims"), "key 'feature_names' must be a non-empty list"),
    (lambda c: c.update(devices=["h200"]), "key 'devices' must be an object"),
    (lambda c: c.update(devices={"x": {"device_id": "x"}}), "devices.x: field 'type' must be one of"),
    (lambda c: c.update(trained_on="h200"), "key 'trained_on' must be a list of device ids"),
    (lambda c: c["arch"]["graph"].update(hidden="wide"), "'arch' does not make a model this kgraph can build"),
    (lambda c: c["arch"]["graph"].update(hidden=24), "the architecture in config.json makes [32, 40]"),
])
def test_row6_edited_config_json(damaged, capsys, edit, expected):
    config = json.loads((damaged / "config.json").read_text())
    edit(config)
    (damaged / "config.json").write_text(json.dumps(config))
    rc, err = estimate_with(capsys, damaged)
    assert rc == 1 and expected in err and err.count("\n") == 0, err


def test_row6_edited_tensor_shapes(damaged, capsys):
    import torch
    from safetensors.torch import load_file, save_file

    weights = damaged / "model.safetensors"
    state = load_file(str(weights))
    name = sorted(k for k, v in state.items() if v.dim() == 1)[0]
    shape = list(state[name].shape)
    state[name] = torch.zeros(shape[0] + 3)
    save_file(state, str(weights))
    rc, err = estimate_with(capsys, damaged)
    assert rc == 1 and err == (f"kgraph: error: {weights}: tensor {name} has shape [{shape[0] + 3}], the architecture "
                               f"in config.json makes {shape}: the weights and config.json are not of one model; "
                               + err.split("not of one model; ", 1)[1])


def test_row6_header_shape_edited_in_place(damaged, capsys):
    """A shape changed in the header's text (same byte count) no longer matches the tensor's byte range."""
    weights = damaged / "model.safetensors"
    data = weights.read_bytes()
    length = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + length])
    name = next(k for k, v in header.items() if k != "__metadata__" and len(v["shape"]) == 1 and v["shape"][0] > 9)
    old = json.dumps(header[name], separators=(",", ":")).encode()
    assert old in data[8:8 + length]
    size = header[name]["shape"][0]
    new = old.replace(f"[{size}]".encode(), f"[{size - 1}]".encode().ljust(len(str(size)) + 2, b" "))
    weights.write_bytes(data.replace(old, new[:len(old)], 1))
    rc, err = estimate_with(capsys, damaged)
    assert rc == 1 and f"tensor '{name}' of shape [{size - 1}] (F32) needs {4 * (size - 1)} bytes" in err
    assert "(edited shapes?)" in err


def test_row6_nan_weights(damaged, capsys):
    import torch
    from safetensors.torch import load_file, save_file

    weights = damaged / "model.safetensors"
    state = load_file(str(weights))
    name = sorted(k for k, v in state.items() if v.is_floating_point())[0]
    state[name] = torch.full_like(state[name], float("nan"))
    save_file(state, str(weights))
    rc, err = estimate_with(capsys, damaged)
    assert rc == 1 and f"{weights}: tensor {name} holds NaN or infinite values" in err


def test_row6_api_raises_model_error(damaged):
    (damaged / "config.json").write_text('{"format": ')
    model = kgraph.load_model(damaged)
    with pytest.raises(ModelError, match=r"config.json:1:\d+: invalid JSON"):
        model.estimate(SAXPY, "saxpy", 1 << 20, args={"n": 1 << 20, "a": 2.0}, device=str(CI_DEVICE))
    with pytest.raises(ModelError, match="invalid JSON"):
        model.devices  # the devices the model knows come from the same file


# --- row 7: launches that cannot run ------------------------------------------------------------------
def estimate_error(capsys, model_dir, device: Path, *argv: str, file: str = SAXPY) -> str:
    rc, _, err = cli(capsys, "estimate", file, *argv, "--device", str(device), "--model", str(model_dir))
    assert rc == 2, err
    return err.strip().removeprefix("kgraph: error: ")


def test_row7_work_group_over_the_device_limit(capsys, model_dir, gpu):
    assert estimate_error(capsys, model_dir, gpu, *SAXPY_ARGS, "--global", "1048576", "--local", "4096") == (
        "--local 4096: a work-group of 4096 work-items; device test-gpu allows at most 1024 (max_work_group_size)")
    assert estimate_error(capsys, model_dir, gpu, *SAXPY_ARGS, "--global", "64,64,1024", "--local", "1,1,128") == (
        "--local 1,1,128: 128 work-items in dimension 2; device test-gpu allows at most 64 there "
        "(max_work_item_sizes 1024,1024,64)")


def test_row7_integer_and_float_arguments(capsys, model_dir, gpu):
    launch = ["--kernel", "saxpy", "--global", "1024", "--arg", "a=2"]
    assert estimate_error(capsys, model_dir, gpu, *launch, "--arg", "n=1024.5") == (
        "--arg n=1024.5: parameter n is int; give a whole number")
    assert estimate_error(capsys, model_dir, gpu, *launch, "--arg", "n=4294967296") == (
        "--arg n=4294967296: out of range for int (-2147483648 to 2147483647)")
    assert estimate_error(capsys, model_dir, gpu, "--kernel", "saxpy", "--global", "1024", "--arg", "n=1",
                          "--arg", "a=1e39") == "--arg a=1e+39: out of range for float (at most 3.40282e+38 in magnitude)"
    reduce = str(ROOT / "examples/opencl/reduce_local.cl")
    assert estimate_error(capsys, model_dir, gpu, "--kernel", "reduce_sum", "--global", "1024", "--local", "256",
                          "--arg", "n=-1", file=reduce) == "--arg n=-1: out of range for uint (0 to 4294967295)"


def test_row7_global_past_size_t_and_cuda_grid(capsys, model_dir, gpu):
    assert estimate_error(capsys, model_dir, gpu, *SAXPY_ARGS, "--global", str(2**64)) == (
        f"--global: {2**64} work-items in all (global {2**64}), more than a 64-bit size_t counts ({2**64 - 1})")
    assert estimate_error(capsys, model_dir, gpu, *SAXPY_ARGS, "--global", f"{2**32},{2**32}", "--local", "1,1") == (
        f"--global: {2**64} work-items in all (global {2**32},{2**32}), more than a 64-bit size_t counts "
        f"({2**64 - 1})")
    cuda = str(ROOT / "examples/cuda/saxpy_grid_stride.cu")
    assert estimate_error(capsys, model_dir, gpu, "--kernel", "saxpy_grid_stride", "--grid", str(2**32), "--block",
                          "256", "--arg", "n=1000", "--arg", "a=1", file=cuda) == (
        f"--grid {2**32}: {2**32} blocks in dimension x; a CUDA grid holds at most 2147483647 there")


def test_row7_local_memory_over_the_device_limit(capsys, model_dir, gpu, tmp_path):
    src = tmp_path / "big_local.cl"
    src.write_text("#ifndef N\n#define N 16384\n#endif\n__kernel void big(__global float *x) {\n"
                   "  __local float tile[N]; int i = get_local_id(0);\n  tile[i] = x[i];\n"
                   "  barrier(CLK_LOCAL_MEM_FENCE);\n  x[i] = tile[N - 1 - i];\n}\n")
    assert estimate_error(capsys, model_dir, gpu, "--kernel", "big", "--global", "1024", "--local", "256",
                          file=str(src)) == (
        "kernel big needs 65536 bytes of local memory per work-group (65536 in __local/__shared__ arrays); "
        "device test-gpu has 49152 (local_mem_bytes)")
    rc, _, err = cli(capsys, "estimate", str(src), "--kernel", "big", "--global", "1024", "--local", "256", "-D",
                     "N=1024", "--device", str(gpu), "--model", str(model_dir))
    assert rc == 0, err  # 4 KiB fits
    # __local pointer arguments: one element per work-item of the group
    src.write_text("__kernel void k(__global float *x, __local float16 *s) {\n"
                   "  s[get_local_id(0)] = vload16(get_global_id(0), x);\n  x[get_global_id(0)] = s[0].s0;\n}\n")
    assert estimate_error(capsys, model_dir, gpu, "--kernel", "k", "--global", "4096", "--local", "1024",
                          file=str(src)) == (
        "kernel k needs 65536 bytes of local memory per work-group (65536 for its __local pointer arguments at one "
        "element per work-item of --local 1024); device test-gpu has 49152 (local_mem_bytes): give a smaller --local")


def test_row7_reqd_work_group_size_and_launch_bounds(capsys, model_dir, gpu, tmp_path):
    src = tmp_path / "reqd.cl"
    src.write_text("__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void k(__global float *x) {\n"
                   "  x[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 1.0f;\n}\n")
    assert estimate_error(capsys, model_dir, gpu, "--kernel", "k", "--global", "256,256", "--local", "8,8",
                          file=str(src)) == "--local 8,8: kernel k requires work-groups of 16,16,1 (reqd_work_group_size)"
    cu = tmp_path / "bounds.cu"
    cu.write_text("__global__ void __launch_bounds__(128) k(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\n")
    assert estimate_error(capsys, model_dir, gpu, "--kernel", "k", "--grid", "64", "--block", "256",
                          file=str(cu)) == (
        "--block 256: a block of 256 threads; kernel k is compiled for at most 128 (__launch_bounds__)")


def test_row7_api_raises_the_same_errors(model_dir, gpu):
    model = kgraph.load_model(model_dir)
    with pytest.raises(UsageError, match=r"^--local 4096: a work-group of 4096 work-items; device test-gpu allows"):
        model.estimate(SAXPY, "saxpy", 1 << 20, 4096, args={"n": 1 << 20, "a": 2.0}, device=str(gpu))
    with pytest.raises(UsageError, match=r"^--arg n=2.5: parameter n is int; give a whole number$"):
        model.estimate(SAXPY, "saxpy", 1024, args={"n": 2.5, "a": 2.0}, device=str(gpu))
    with pytest.raises(UsageError, match=r"^--arg n=many: not a number$"):
        model.estimate(SAXPY, "saxpy", 1024, args={"n": "many", "a": 2.0}, device=str(gpu))
    with pytest.raises(UsageError, match=r"^--global \[inf\]: sizes must be positive integers, got inf$"):
        model.estimate(SAXPY, "saxpy", [float("inf")], args={"n": 1, "a": 2.0}, device=str(gpu))
    descriptor = json.loads(gpu.read_text())
    descriptor["local_mem_bytes"] = -1
    with pytest.raises(InputError, match="field 'local_mem_bytes' must be positive"):
        model.estimate(SAXPY, "saxpy", 1024, args={"n": 1, "a": 2.0}, device=descriptor)
    with pytest.raises(UsageError, match="request 0: a launch is a dict"):
        model.estimate_many(["saxpy"])


def test_row7_peak_warnings_unit():
    from kgraph.app.launch_checks import PEAK_MARGIN, peak_warnings
    from kgraph.data.floors import device_rates

    class FakeLaunch:
        device = json.loads((ROOT / "data/datasets/nvidia-h200/device.json").read_text())

    rates = device_rates(FakeLaunch.device)
    footprint = rates["cache"] + 1e11  # 100 GB past the cache, within the H200's 139.8 GiB
    fine = {"time_ns": 1e11 / rates["dram"] * 1.05, "bandwidth_gbs": rates["dram"], "footprint_bytes": footprint,
            "bytes": footprint, "flops": 0.0}
    assert peak_warnings(FakeLaunch, fine) == []
    too_fast = dict(fine, time_ns=1e11 / rates["dram"] / (PEAK_MARGIN * 2))
    [message] = peak_warnings(FakeLaunch, too_fast)
    assert message.startswith("the predicted time implies ") and "2.2x the device's copy bandwidth" in message
    # requested bytes served by the cache (a GEMM re-reading its tiles) may exceed the copy bandwidth: only the
    # footprint beyond the cache is DRAM traffic, so a record whose bytes / time is 7x the copy bandwidth is fine
    reuse = dict(fine, bandwidth_gbs=rates["dram"] * 7, bytes=footprint * 1000)
    assert peak_warnings(FakeLaunch, reuse) == []
    flops = dict(fine, flops=fine["time_ns"] * rates["fp32"] * 3)
    [message] = peak_warnings(FakeLaunch, flops)
    assert "3.0x the device's peak" in message
    # a footprint larger than the device's memory cannot run as one launch, whatever the time
    huge = dict(fine, footprint_bytes=200 * 2**30, footprint_source="static", time_ns=1e12, bytes=200 * 2**30)
    [message] = peak_warnings(FakeLaunch, huge)
    assert message == ("the launch's footprint 200.00 GiB (static) exceeds the device's memory of 139.80 GiB: "
                       "it cannot run as one launch, and its time is not a real one")


def test_row7_shipped_model_warns_past_the_device_peak(capsys, tmp_path):
    src = tmp_path / "copy.cl"
    src.write_text("__kernel void copy(__global const float *x, __global float *y) {\n"
                   "  size_t i = get_global_id(0); y[i] = x[i];\n}\n")
    rc, _, err = cli(capsys, "estimate", str(src), "--kernel", "copy", "--global", str(2**60), "--device", "h200")
    assert rc == 0
    import kgraph

    memory = kgraph.load_model().devices["nvidia-h200"]["global_mem_bytes"]  # the model's own descriptor
    assert (f"kgraph estimate: warning: copy at global {2**60}: the launch's footprint 8,589,934,592.00 GiB (static) "
            f"exceeds the device's memory of {memory / 2**30:,.2f} GiB") in err
    rc, _, err = cli(capsys, "estimate", SAXPY, "--kernel", "saxpy", "--global", str(2**24), "--arg", f"n={2**24}",
                     "--arg", "a=2", "--device", "h200")
    assert rc == 0 and "warning" not in err  # an ordinary launch: no warning
