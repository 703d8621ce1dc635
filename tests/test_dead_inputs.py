"""Generated kernels with an input that never changes their result (``kgraph.data.generator.dead_inputs``) and
``kgraph dataset mark-elided --dead-inputs``."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgraph.app.cli.main import main
from kgraph.data.generator.build import generate
from kgraph.data.generator.dead_inputs import dead_input_kernels, dead_inputs
from kgraph.data.harness.elided import ELIDED_STATUS
from kgraph.data.harness.store import DatasetStore, read_launches

CI_TINY = Path(__file__).resolve().parents[1] / "data/datasets/ci-tiny"


@pytest.mark.parametrize("number, dead, why", [
    (11, ("a0",), "fmin(fmax(v0, 0.75f), 0.75f) is 0.75 for every v0"),
    (123, ("a1",), "((v2 | v0) & v0) is v0 for every v2"),
    (66, (), "fmax(v1 * 0.5 * v0, 0.5) is 0.5 only for inputs in [-1, 1): saturation, which no compiler folds"),
    (113, (), "exp(v0) absorbs the other terms only at wide magnitudes"),
])
def test_dead_inputs_are_identities_at_every_input_range(number, dead, why):
    spec = generate(0, number)[0]
    assert dead_inputs(spec) == dead, why


def test_every_generated_id_is_checked_and_others_skipped():
    got = dead_input_kernels(["gen.0.11", "gen.0.66", "axpy.f32", "gen.x.1"])
    assert got == {"gen.0.11": ("a0",), "gen.0.66": ()}


def test_mark_dead_inputs_resumes_from_the_checked_file(tmp_path, capsys):
    d = tmp_path / "ds"
    shutil.copytree(CI_TINY, d)
    ok = read_launches(d).query("status == 'ok'")
    victim, other = ok["kernel_id"].unique()[:2]
    renamed = {"gen.0.11": victim, "gen.0.66": other}
    with DatasetStore(d) as store:  # two kernels of the folder posing as generated ones
        store.update_rows({key: {"kernel_id": new} for new, old in renamed.items()
                           for key in ok.loc[ok["kernel_id"] == old, "key"]})
    checked = tmp_path / "checked.json"
    checked.write_text(json.dumps({"gen.0.11": ["a0"]}))  # gen.0.11 known; gen.0.66 is checked now
    assert main(["dataset", "mark-elided", str(d), "--dead-inputs", "--checked", str(checked)]) == 0
    assert "1 of 2 generated kernels have one" in capsys.readouterr().out
    assert json.loads(checked.read_text()) == {"gen.0.11": ["a0"], "gen.0.66": []}
    after = read_launches(d).set_index("key")
    mine = ok.loc[ok["kernel_id"] == victim, "key"]
    assert (after.loc[mine, "status"] == ELIDED_STATUS).all()
    assert after.loc[mine[:1], "message"].iloc[0].startswith("input(s) a0 never change the result")
    assert (after.loc[ok.loc[ok["kernel_id"] != victim, "key"], "status"] == "ok").all()
    assert main(["dataset", "mark-elided", str(d), "--dead-inputs", "--checked", str(checked)]) == 0
    assert "0 ok row(s) marked" in capsys.readouterr().out.splitlines()[-1]


def test_mark_dead_inputs_misuse(tmp_path, capsys):
    d = tmp_path / "ds"
    shutil.copytree(CI_TINY, d)
    assert main(["dataset", "mark-elided", str(d), "--dead-inputs", "--jobs", "0"]) == 2
    assert "--jobs 0: must be 1 or more" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main(["dataset", "mark-elided", str(d), "--dead-inputs", "--checked", str(bad)]) == 2
    assert "--checked" in capsys.readouterr().err
