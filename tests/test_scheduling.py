"""Scheduling replay: DAG shapes, time-table interpolation, beliefs, hand-checked makespans."""
from __future__ import annotations

import pytest

from kgraph.errors import InputError
from kgraph.app.scheduling import (HistoryBelief, OracleBelief, Platform, RegressionBelief, TableBelief,
                               TimeTable, cholesky_dag, lu_dag, simulate)

TRUTH = TimeTable([("potrf", 64, "cpu", 10.0), ("potrf", 64, "gpu", 40.0),
                   ("trsm", 64, "cpu", 20.0), ("trsm", 64, "gpu", 5.0),
                   ("syrk", 64, "cpu", 20.0), ("syrk", 64, "gpu", 5.0)])
# bus latency 1 µs, bandwidth so high that a 64x64 tile costs 1.000...µs
PLATFORM = Platform.gpu_and_cpus(1, bus_gbs=1e12, bus_latency_us=1.0)


def test_dag_sizes_and_dependencies():
    for t in (1, 2, 3, 5):
        assert len(cholesky_dag(t, 8)) == t * (t + 1) * (t + 2) // 6
    chol = cholesky_dag(2, 8)
    assert [(x.kind, x.deps) for x in chol] == [("potrf", []), ("trsm", [0]), ("syrk", [1]), ("potrf", [2])]
    lu = lu_dag(2, 8)
    assert [(x.kind, x.deps) for x in lu] == [("getrf", []), ("trsm", [0]), ("trsm", [0]),
                                             ("gemm", [1, 2]), ("getrf", [3])]
    assert len(lu_dag(3, 8)) == 14


def test_time_table_interpolates_log_log():
    tt = TimeTable([("gemm", 100, "cpu", 1000.0), ("gemm", 200, "cpu", 8000.0), ("gemm", 200, "cpu", 9000.0)])
    assert tt.time_us("gemm", 200, "cpu") == 8500.0  # median of the two measurements
    tt = TimeTable([("gemm", 100, "cpu", 1000.0), ("gemm", 200, "cpu", 8000.0)])
    assert tt.time_us("gemm", 150, "cpu") == pytest.approx(3375.0)
    assert tt.time_us("gemm", 400, "cpu") == pytest.approx(64000.0)
    with pytest.raises(InputError, match="no measurement of 'potrf'"):
        tt.time_us("potrf", 100, "cpu")
    with pytest.raises(InputError, match="non-positive"):
        TimeTable([("gemm", 8, "cpu", 0.0)])


def test_oracle_schedule_hand_checked():
    r = simulate(cholesky_dag(2, 64), TRUTH, OracleBelief(TRUTH), PLATFORM)
    # potrf cpu [0,10]; trsm gpu after 2 tile transfers [12,17]; syrk gpu [18,23]; potrf cpu [24,34]
    assert [(w, s, e) for _, w, s, e in r.schedule] == [("cpu0", 0.0, 10.0), ("gpu0", pytest.approx(12.0), pytest.approx(17.0)),
                                                        ("gpu0", pytest.approx(18.0), pytest.approx(23.0)),
                                                        ("cpu0", pytest.approx(24.0), pytest.approx(34.0))]
    assert r.makespan_us == pytest.approx(34.0)
    assert r.abs_log_errors == [0.0] * 4 and r.uncalibrated == 0


def test_cold_history_calibrates_first():
    r = simulate(cholesky_dag(2, 64), TRUTH, HistoryBelief(), PLATFORM)
    # nothing known: potrf, trsm, syrk all go to cpu0 (least loaded, name order); potrf(1,1) is known
    # on cpu only, so it is sent to the gpu to calibrate: 50 + 1 transfer + 40
    assert [w for _, w, _, _ in r.schedule] == ["cpu0", "cpu0", "cpu0", "gpu0"]
    assert r.makespan_us == pytest.approx(91.0) and r.uncalibrated == 4
    warm = HistoryBelief({k: v for k, v in TRUTH.samples.items()})
    assert simulate(cholesky_dag(2, 64), TRUTH, warm, PLATFORM).makespan_us == pytest.approx(34.0)


def test_regression_fits_power_law_exactly():
    reg = RegressionBelief({("gemm", 32, "cpu"): [2.0 * 32 ** 3], ("gemm", 128, "cpu"): [2.0 * 128 ** 3]})
    assert reg.predict("gemm", 64, "cpu") == pytest.approx(2.0 * 64 ** 3, rel=1e-12)
    assert reg.predict("gemm", 64, "gpu") is None


def test_wrong_belief_costs_makespan():
    wrong = TableBelief("wrong", {("potrf", 64, "cpu"): 10.0, ("potrf", 64, "gpu"): 40.0,
                                  ("trsm", 64, "cpu"): 20.0, ("trsm", 64, "gpu"): 500.0,
                                  ("syrk", 64, "cpu"): 20.0, ("syrk", 64, "gpu"): 500.0})
    r = simulate(cholesky_dag(2, 64), TRUTH, wrong, PLATFORM)
    assert [w for _, w, _, _ in r.schedule] == ["cpu0"] * 4 and r.makespan_us == pytest.approx(60.0)


def test_run_compares_models(tmp_path, capsys):
    from kgraph.app.scheduling.run import main
    rows = ["kind,tile,device,time_us"]
    for tile in (16, 32, 64):
        s = (tile / 32) ** 3
        for kind, cpu, gpu in (("potrf", 10, 40), ("trsm", 20, 5), ("syrk", 20, 5), ("gemm", 40, 4), ("getrf", 12, 50)):
            rows += [f"{kind},{tile},cpu,{cpu * s}", f"{kind},{tile},gpu,{gpu * s}"]
    (tmp_path / "t.csv").write_text("\n".join(rows))
    (tmp_path / "p.csv").write_text("\n".join(rows))  # a perfect model
    assert main(["--truth", str(tmp_path / "t.csv"), "--predictions", f"perfect={tmp_path / 'p.csv'}",
                 "--sizes", "3", "--cpus", "2", "--out", str(tmp_path / "r.md")]) == 0
    lines = (tmp_path / "r.md").read_text().splitlines()
    assert len(lines) == 2 + 2 * 3 * 5  # 2 dags x 3 tiles x 5 models
    for line in lines[2:]:
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if cells[3] in ("oracle", "perfect", "history-warm", "regression"):
            assert cells[5] == "1.000", line  # exact beliefs (regression: exact n^3 law) = oracle
    assert main(["--truth", str(tmp_path / "missing.csv")]) == 1
    assert "no such time table" in capsys.readouterr().err
