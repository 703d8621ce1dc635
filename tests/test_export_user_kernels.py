"""Issue 12 §2 and issue 14 row 10 (export): ``kgraph export --kernels/--only/--device`` puts a user's
kernels (embedded by the head's own encoder) and devices in the C tables, refuses bad input cleanly, and
the docs/RUNTIME.md walk-through runs a user's OpenCL kernel in a StarPU codelet under dmda on PoCL."""
from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
import torch

from kgraph.app.cli.main import main
from kgraph.app.runtime.starpu_runner import build_example, example_kernel, run_example, starpu_available
from kgraph.data.corpus import tile_kernel_files
from kgraph.models.compact import from_checkpoint, to_checkpoint, to_compact_inputs
from kgraph.models.shipped import COMPACT_CKPT, COMPACT_DIR, DEFAULT_DIR

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
CUDA_KERNEL = """__global__ void user_scale(int n, float s, float *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}
"""
SPEC_ID = "my-pocl-cpu"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A checkpoint of the shipped head with only the four tile kernels (fast exports; its table still
    made by the shipped encoder), the user's files and a descriptor made by `kgraph device from-spec`."""
    root = tmp_path_factory.mktemp("userk")
    bundle = from_checkpoint(COMPACT_CKPT)
    tiles = [f.stem for f in tile_kernel_files()]
    ckpt = to_checkpoint(bundle.head, root / "tiles.pt", {k: bundle.code_table[k] for k in tiles}, bundle.devices,
                         sources={k: bundle.sources[k] for k in tiles})
    shutil.copy(example_kernel(), root / "user_saxpy.cl")
    (root / "scale.cu").write_text(CUDA_KERNEL)
    assert main(["device", "from-spec", "--name", "My PoCL CPU", "--type", "CPU", "--copy-bw-gbs", "20",
                 "--fp32-gflops", "400", "--compute-units", "2", "--device-id", SPEC_ID, "--out",
                 str(root / "spec")]) == 0
    return root, ckpt


def _export(capsys, ckpt, out, *extra) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["export", "--ckpt", str(ckpt), "--format", "c", "--out", str(out), "--no-progress", *extra])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _kernel_names(header_dir) -> list[str]:
    source = (header_dir / "kgraph_model.c").read_text()
    return re.search(r"kgraph_kernel_names\[KGRAPH_N_KERNELS\] = \{(.*?)\};", source).group(1).replace('"', "").split(", ")


@needs_gcc
def test_user_kernels_join_the_table_and_predict_as_python(setup, capsys):
    from kgraph.data.features import to_launch_features
    from kgraph.data.harness.descriptor import load_descriptor
    from kgraph.graphs import from_file
    from kgraph.models.export.c_driver import build_driver, features_c, predict_c
    from kgraph.models.export.tables import encode_graphs, load_encoder

    root, ckpt = setup
    out = root / "next_to"
    rc, stdout, err = _export(capsys, ckpt, out, "--kernels", str(root / "user_saxpy.cl"), str(root / "scale.cu"),
                              "--device", str(root / "spec"))
    assert rc == 0, err
    names = _kernel_names(out)
    assert names == ["tile_gemm", "tile_potrf", "tile_syrk", "tile_trsm", "user_saxpy", "user_scale"]
    assert "user_saxpy = 4, user_scale = 5" in stdout and f"{SPEC_ID} = 3" in stdout
    header = (out / "kgraph_model.h").read_text()
    assert "#define KGRAPH_N_DEVICES 4" in header and f'"{SPEC_ID}"' in (out / "kgraph_model.c").read_text()

    # C (kgraph_features + kgraph_predict) against torch on Python's features and the encoder's embedding
    descriptor = load_descriptor(root / "spec")
    launches = [(1, (4096, 1, 1), (64, 1, 1), {"n": 4096, "a": 2.0}),
                (1, (1 << 20, 1, 1), (256, 1, 1), {"n": 1 << 20, "a": -0.5})]
    rows = pd.DataFrame([{"device_id": SPEC_ID, "source_id": "u", "kernel_name": "user_saxpy", "dims": d,
                          "g0": g[0], "g1": g[1], "g2": g[2], "l0": l[0], "l1": l[1], "l2": l[2],
                          "args": json.dumps(a)} for d, g, l, a in launches])
    sources = pd.DataFrame([{"source_id": "u", "lang": "opencl", "source": (root / "user_saxpy.cl").read_text()}])
    head = from_checkpoint(ckpt).head
    py = to_compact_inputs(to_launch_features(rows, sources, {SPEC_ID: descriptor}), config=head.config)
    graph = from_file(root / "user_saxpy.cl", analyze=False)[0]
    emb = encode_graphs(load_encoder(), [graph], [sources.at[0, "source"]])[0]
    with torch.no_grad():
        want, _ = head(torch.cat([emb.expand(len(launches), -1), py], dim=1))
    driver = build_driver(out)
    feats = features_c(driver, [("user_saxpy", 3, d, g, l, list(a.values())) for d, g, l, a in launches])
    assert (feats[:, 0] == 0).all()
    n_launch = len(head.config.launch_names)
    np.testing.assert_allclose(feats[:, 1:], py[:, :n_launch].numpy(), rtol=1e-5, atol=1e-5)
    got = predict_c(driver, ["user_saxpy"] * len(launches), [3] * len(launches), feats[:, 1:])
    assert (got[:, 0] == 0).all()
    np.testing.assert_allclose(got[:, 2:7], want.numpy(), rtol=1e-4, atol=1e-4)


def test_only_and_replacing(setup, capsys):
    root, ckpt = setup
    rc, stdout, err = _export(capsys, ckpt, root / "only", "--kernels", str(root / "user_saxpy.cl"), "--only")
    assert rc == 0, err
    assert _kernel_names(root / "only") == ["user_saxpy"] and "user_saxpy = 0" in stdout
    gemm = root / "tile_gemm.cl"
    shutil.copy(tile_kernel_files()[0].parent / "tile_gemm.cl", gemm)
    rc, _, err = _export(capsys, ckpt, root / "replaced", "--kernels", str(gemm))
    assert rc == 0, err
    assert _kernel_names(root / "replaced") == ["tile_gemm", "tile_potrf", "tile_syrk", "tile_trsm"]


def test_an_encoder_that_did_not_make_the_table_is_refused(setup, capsys):
    """Another graph encoder (the head's own with its weights moved) re-encodes the table's kernels elsewhere;
    the shipped default, which has no code encoder, is refused as such."""
    from safetensors.torch import load_file, save_file

    root, ckpt = setup
    wrong = root / "wrong_encoder"
    shutil.copytree(COMPACT_DIR / "encoder", wrong)
    weights = load_file(wrong / "model.safetensors")
    generator = torch.Generator().manual_seed(0)
    weights = {k: v + 0.1 * torch.randn(v.shape, generator=generator).to(v.dtype) if v.is_floating_point() else v
               for k, v in weights.items()}
    save_file(weights, wrong / "model.safetensors", metadata={"format": "pt"})
    rc, _, err = _export(capsys, ckpt, root / "wrong", "--kernels", str(root / "user_saxpy.cl"),
                         "--encoder", str(wrong))
    assert rc == 1 and "not the encoder this head was trained on" in err and "Traceback" not in err
    rc, _, err = _export(capsys, ckpt, root / "wrong2", "--kernels", str(root / "user_saxpy.cl"),
                         "--encoder", str(DEFAULT_DIR))
    assert rc == 1 and "has no code encoder" in err and "Traceback" not in err


def _bad_checkpoint(root, edit) -> str:
    blob = torch.load(COMPACT_CKPT, map_location="cpu", weights_only=True)
    edit(blob)
    path = root / "bad.pt"
    torch.save(blob, path)
    return str(path)


@pytest.mark.parametrize("case", ["nul_bytes", "invalid_utf8", "elf", "syntax", "twice", "missing", "no_kernel",
                                  "extension", "onnx_with_kernels", "only_alone", "bad_device", "config_key",
                                  "weight_shape", "dict_of_junk"])
def test_bad_input_is_a_clean_error(setup, tmp_path, capsys, case):
    root, ckpt = setup
    cl = tmp_path / "k.cl"
    args, want = ["--kernels", str(cl)], (1, "k.cl")
    if case == "nul_bytes":
        cl.write_bytes(b"__kernel void k(__global float *x) {\x00\x01\x02}")
    elif case == "invalid_utf8":
        cl.write_bytes(bytes(range(128, 256)) * 4)
    elif case == "elf":
        cl.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8)
    elif case == "syntax":
        cl.write_text("__kernel void k(__global float *x) {\n  x[0] = ;\n}\n")
        want = (1, r"k\.cl:\d+:\d+")
    elif case == "twice":
        cl.write_text("__kernel void user_saxpy(__global float *x) { x[0] = 1.0f; }\n")
        args, want = ["--kernels", str(root / "user_saxpy.cl"), str(cl)], (2, "user_saxpy is defined twice")
    elif case == "missing":
        want = (1, "k.cl")
    elif case == "no_kernel":
        cl.write_text("float helper(float x) { return x; }\n")
        want = (1, "no kernel")
    elif case == "extension":
        (tmp_path / "k.txt").write_text("__kernel void k() {}\n")
        args, want = ["--kernels", str(tmp_path / "k.txt")], (2, "--kernels")
    elif case == "onnx_with_kernels":
        capsys.readouterr()
        rc = main(["export", "--ckpt", str(ckpt), "--format", "onnx", "--out", str(tmp_path / "o"), "--kernels", "x.cl"])
        err = capsys.readouterr().err
        assert rc == 2 and "only for --format c" in err
        return
    elif case == "only_alone":
        args, want = ["--only"], (2, "--only")
    elif case == "bad_device":
        (tmp_path / "device.json").write_bytes(b"\x00\x01 not json")
        args, want = ["--device", str(tmp_path / "device.json")], (1, "--device")
    else:  # damaged checkpoints
        edits = {"config_key": lambda b: b["config"].update(bogus=1),
                 "weight_shape": lambda b: b["state_dict"].update({"layers.0.weight": torch.zeros(3, 3)}),
                 "dict_of_junk": lambda b: b.update(code_table=[1, 2])}
        ckpt = _bad_checkpoint(tmp_path, edits[case])
        args, want = [], (1, {"config_key": "unknown compact-head config key", "weight_shape": "do not fit",
                              "dict_of_junk": "not a dict of tensors"}[case])
    rc, _, err = _export(capsys, ckpt, tmp_path / "out", *args)
    assert rc == want[0] and re.search(want[1], err), err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 3, err


def test_a_kernel_the_analysis_cannot_handle_is_refused_at_its_line(setup, tmp_path, capsys, monkeypatch):
    import kgraph.analysis

    def broken(function, unit):
        raise ValueError("unsupported construct")

    monkeypatch.setattr(kgraph.analysis, "analyze", broken)
    root, ckpt = setup
    rc, _, err = _export(capsys, ckpt, tmp_path / "out", "--kernels", str(root / "user_saxpy.cl"))
    assert rc == 1 and re.search(r"user_saxpy\.cl:4:\d+: .*user_saxpy cannot be analysed: .*unsupported construct",
                                 err), err


@needs_gcc
@pytest.mark.skipif(starpu_available() is not None, reason=str(starpu_available()))
def test_walkthrough_user_kernel_in_a_starpu_codelet_under_dmda(setup, capsys):
    """docs/RUNTIME.md: user_saxpy.cl -> kgraph export --kernels --only --device (from-spec) -> the
    codelet's perfmodel -> a dmda run on one PoCL OpenCL worker: kgraph's cost function answered every
    task, the scheduler's expected lengths are its predictions, and the results are exact."""
    root, ckpt = setup
    out = root / "walk"
    rc, stdout, err = _export(capsys, COMPACT_CKPT, out / "model", "--kernels", str(root / "user_saxpy.cl"),
                              "--only", "--device", str(root / "spec"))
    assert rc == 0, err
    binary = build_example(out / "model", out / "build")
    summary = run_example(binary, root / "user_saxpy.cl", SPEC_ID, work=out / "run", tasks=6, n=20000)
    assert summary["returncode"] == 0, summary
    assert summary["tasks"] == 6 and summary["cost_calls"] >= 6 and summary["cost_failures"] == 0
    assert summary["model_agrees"] == 1 and summary["correct"] == 1
    assert 0 < summary["predicted_us"] < 1e6
    # an unknown device id is a usage error of the program, not a crash
    with pytest.raises(Exception, match="failed"):
        run_example(binary, root / "user_saxpy.cl", "no-such-device", work=out / "run2", tasks=1, n=16)
