"""Progress bars of the slow commands: on stderr only, only on a terminal, never with --no-progress."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
import torch

from kgraph.app.cli.main import main
from test_export import make_head
from test_report import write_runs

ROOT = Path(__file__).resolve().parent.parent
BAR = "%|"  # between a tqdm bar's percentage and its bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch, capsys):
    """stderr is a terminal (a buffer), set when the test body runs (pytest re-installs its capture of
    sys.stderr between a fixture's setup and the call); stdout stays captured by capsys."""
    return lambda: monkeypatch.setattr(sys, "stderr", stream) or stream if (stream := Terminal()) else None


def run(argv, terminal, capsys) -> tuple[str, str]:
    terminal = terminal()
    rc = main(argv)
    out = capsys.readouterr().out
    err = terminal.getvalue()
    assert rc == 0, err
    assert "\r" not in out and "%|" not in out  # never a bar on stdout
    return out, err


def test_enabled_only_on_a_terminal_without_no_progress(monkeypatch, capsys):
    from types import SimpleNamespace

    from kgraph.app.cli.common import progress, progress_enabled

    assert not progress_enabled()  # captured stderr is no terminal
    with progress(total=3, desc="x") as bar:
        bar.update(3)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert progress_enabled() and progress_enabled(SimpleNamespace(no_progress=False))
    assert not progress_enabled(SimpleNamespace(no_progress=True))


def test_report_progress(tmp_path, terminal, capsys):
    runs = str(write_runs(tmp_path))
    out, err = run(["report", runs, "--out", str(tmp_path / "a")], terminal, capsys)
    assert "report:" in err and BAR in err and "/6" in err and out.startswith("# kgraph report")  # 2 + 1 split + 3 plots
    out2, err2 = run(["report", runs, "--out", str(tmp_path / "b"), "--no-progress"], terminal, capsys)
    assert BAR not in err2 and out2.replace(str(tmp_path / "b"), "") == out.replace(str(tmp_path / "a"), "")


def test_export_progress(tmp_path, terminal, capsys):
    from kgraph.models.compact import to_checkpoint

    ckpt = to_checkpoint(make_head("tiny"), tmp_path / "c.pt", {"k": torch.ones(8)}, {"dev": torch.zeros(3)})
    out, err = run(["export", "--ckpt", str(ckpt), "--format", "c", "--out", str(tmp_path / "c")], terminal, capsys)
    assert "export:" in err and BAR in err and out.startswith("wrote ")
    out, err = run(["export", "--ckpt", str(ckpt), "--format", "onnx", "--out", str(tmp_path / "o"),
                    "--no-progress"], terminal, capsys)
    assert BAR not in err and out.startswith("wrote ")


def test_estimate_batch_progress(model_dir, tmp_path, terminal, capsys, monkeypatch):
    import kgraph.app.cli.estimate as estimate

    monkeypatch.setattr(estimate, "BATCH_CHUNK", 2)  # 5 launches in chunks of 2
    batch = tmp_path / "b.jsonl"
    batch.write_text("".join(json.dumps({"kernel": "saxpy", "global": n, "local": 64, "args": {"n": n, "a": 2.0}})
                             + "\n" for n in (1024, 2048, 4096, 8192, 16384)))
    argv = ["estimate", str(ROOT / "examples/opencl/saxpy.cl"), "--batch", str(batch),
            "--device", str(ROOT / "data/datasets/ci-tiny/device.json"), "--model", str(model_dir), "--json"]
    out, err = run(argv, terminal, capsys)
    assert "\restimate:" in err and BAR in err and "/5" in err
    quiet, quiet_err = run([*argv, "--no-progress"], terminal, capsys)  # one estimate_many call
    assert BAR not in quiet_err
    chunked, whole = json.loads(out), json.loads(quiet)  # chunks change nothing but float rounding
    assert [sorted(r) for r in chunked] == [sorted(r) for r in whole] and len(chunked) == 5
    for a, b in zip(chunked, whole):
        for key, value in a.items():
            assert value == (pytest.approx(b[key], rel=1e-5) if isinstance(value, float) else b[key]), key


def test_pretrain_lm_progress(tmp_path, terminal, capsys):
    argv = ["pretrain-lm", "--out", str(tmp_path / "lm"), "--no-specs", "--corpus",
            str(ROOT / "examples/opencl/saxpy.cl"), str(ROOT / "examples/opencl/matvec.cl"),
            "--vocab-size", "300", "--hidden", "16", "--layers", "1", "--heads", "2", "--max-length", "32",
            "--steps", "3", "--batch-size", "2"]
    out, err = run(argv, terminal, capsys)
    assert "\rpretrain-lm:" in err and "/3" in err and out.startswith("pretrain-lm: 2 sources")
    out, err = run([*argv, "--no-progress"], terminal, capsys)
    assert BAR not in err and out.startswith("pretrain-lm: 2 sources")
