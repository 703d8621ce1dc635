"""benchmarks.strip_checkpoints (the GPU scripts' checkpoint packing) and the shared entry-point guard."""
from __future__ import annotations

import torch

from benchmarks.strip_checkpoints import main
from kgraph.errors import InputError, UsageError, run_guarded


def test_strip_keeps_weights_and_drops_optimizer_state(tmp_path):
    for run in ("bounded-unseen_launch", "graph_only-unseen_launch"):
        (tmp_path / "runs" / run / "ckpt").mkdir(parents=True)
        torch.save({"state_dict": {"w": torch.ones(2)}, "optimizer_states": [{"m": torch.zeros(2)}],
                    "lr_schedulers": [{}], "global_step": 7}, tmp_path / "runs" / run / "ckpt" / "best-step=7.ckpt")
    pattern = str(tmp_path / "runs" / "*" / "ckpt" / "best-*.ckpt")
    assert main([pattern, "--out", str(tmp_path / "ck")]) == 0
    out = torch.load(tmp_path / "ck" / "bounded-unseen_launch.ckpt", weights_only=True)
    assert set(out) == {"state_dict", "global_step"} and torch.equal(out["state_dict"]["w"], torch.ones(2))
    assert (tmp_path / "ck" / "graph_only-unseen_launch.ckpt").is_file()
    assert main([pattern, "--to", str(tmp_path / "best.ckpt")]) == 0 and (tmp_path / "best.ckpt").is_file()
    assert main([str(tmp_path / "none-*.ckpt"), "--to", str(tmp_path / "x.ckpt")]) == 1


def test_strip_half_stores_float_weights_as_float16_and_keeps_integers(tmp_path):
    (tmp_path / "r" / "ckpt").mkdir(parents=True)
    w = torch.tensor([1.0, 2.5, -3.25])
    torch.save({"state_dict": {"w": w, "n": torch.tensor([3], dtype=torch.long)}, "optimizer_states": [{}]},
               tmp_path / "r" / "ckpt" / "best-step=1.ckpt")
    assert main([str(tmp_path / "*" / "ckpt" / "best-*.ckpt"), "--half", "--to", str(tmp_path / "h.ckpt")]) == 0
    state = torch.load(tmp_path / "h.ckpt", weights_only=True)["state_dict"]
    assert state["w"].dtype == torch.float16 and torch.equal(state["w"].float(), w)
    assert state["n"].dtype == torch.long


def test_run_guarded_exit_codes_and_messages(capsys):
    def usage():
        raise UsageError("--x: bad")

    def broken():
        raise InputError("f.cl: missing")

    assert run_guarded(lambda: None, "prog") == 0
    assert run_guarded(usage, "prog") == 2 and "prog: error: --x: bad" in capsys.readouterr().err
    assert run_guarded(broken, "prog") == 1 and "prog: error: f.cl: missing" in capsys.readouterr().err
