"""``benchmarks.tables.emit``: the one way a benchmark prints and keeps its result table."""
from __future__ import annotations

import pandas as pd

from benchmarks.tables import emit


def test_emit_rounds_the_print_and_keeps_every_digit(tmp_path, capsys):
    table = pd.DataFrame({"model": ["a"], "mape": [12.34567]})
    assert emit(table, str(tmp_path / "t.csv"), 1) == 0
    shown = capsys.readouterr().out
    assert "12.3" in shown and "12.35" not in shown
    assert pd.read_csv(tmp_path / "t.csv")["mape"].tolist() == [12.34567]
    assert emit(table) == 0 and not (tmp_path / "u.csv").exists()
