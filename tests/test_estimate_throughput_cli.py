"""benchmarks.estimate_throughput refuses a bad ``--compare`` record or ``--code`` folder before it measures."""
from __future__ import annotations

import pytest

from benchmarks.estimate_throughput import main


@pytest.mark.parametrize("argv, message", [
    (["--compare", "no/such/record.json"], "--compare no/such/record.json: not a readable record"),
    (["--code", "."], "--code .: no kgraph/ folder there"),
])
def test_misuse_is_named_before_anything_is_measured(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_record_that_is_not_json_is_refused(capsys, tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit):
        main(["--compare", str(bad)])
    assert "not a readable record (JSONDecodeError" in capsys.readouterr().err
