"""``benchmarks/score_sets.sh`` answers misuse with which argument is wrong and why, before scoring anything."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("args, message", [
    ([], "name at least one NAME=MODEL_DIR"),
    (["models/default"], "'models/default' is not NAME=MODEL_DIR"),
    (["x=docs"], "docs: no config.json (not a model)"),
])
def test_misuse_is_named(tmp_path, args, message):
    run = subprocess.run(["bash", "benchmarks/score_sets.sh", str(tmp_path / "out"), *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and message in run.stderr
    assert not (tmp_path / "out").exists()  # nothing scored, nothing written
