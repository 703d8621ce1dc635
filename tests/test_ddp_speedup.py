"""benchmarks.ddp_speedup: speed-up arithmetic, table, config order, CLI misuse; slow: DDP over gloo on ci-tiny."""
import json

import pytest

from benchmarks.ddp_speedup import add_speedups, config_args, main, to_markdown, to_result


def clock(world: int, batch: int, train_s: list[float], steps: int) -> dict:
    return {"world_size": world, "per_device_batch": batch, "train_samples": 1000,
            "epochs": [{"epoch": i, "train_s": t, "val_s": 0.5, "steps": steps, "samples": 1000 + world - 1}
                       for i, t in enumerate(train_s)],
            "val": {"val/time_mape": 12.5, "val/time_spearman": 0.75}}


def test_result_excludes_first_epoch():
    r = to_result(clock(1, 128, [5.0, 2.0, 3.0], 8), wall_s=30.0)
    assert r["mean_train_epoch_s"] == 2.5 and r["first_epoch_train_s"] == 5.0
    assert r["samples_per_s"] == 400.0 and r["global_batch"] == 128 and r["epochs"] == 3
    assert r["steps_per_epoch"] == 8 and r["mean_val_epoch_s"] == 0.5 and r["wall_s"] == 30.0


def test_speedup_and_table():
    one = {"batch_mode": "per_device", **to_result(clock(1, 128, [9.0, 2.5, 2.5], 8), 30.0)}
    two = {"batch_mode": "per_device", **to_result(clock(2, 128, [9.0, 1.25, 1.5, 1.25], 4), 40.0)}
    # two devices: 1001 launches (1 padding) in a mean of (1.25 + 1.5 + 1.25) / 3 = 4/3 s -> 750.75/s
    add_speedups([one, two])
    assert two["samples_per_s"] == pytest.approx(750.75) and two["samples_per_epoch"] == 1001
    assert one["speedup"] == 1.0 and two["speedup"] == pytest.approx(750.75 / 400)
    assert two["efficiency"] == pytest.approx(750.75 / 800) and two["global_batch"] == 256
    rows = to_markdown([one, two]).splitlines()
    assert rows[3] == "| 2 | per_device | 128 | 256 | 4 | 40.0 | 9.00 | 1.33 | 751 | 1.88 | 0.94 | 12.500 | 0.750 |"
    assert rows[2].startswith("| 1 | per_device | 128 | 128 | 8 | 30.0 | 9.00 | 2.50 | 400 | 1.00 | 1.00 |")


def test_failed_run_row_and_no_baseline():
    two = {"batch_mode": "global", **to_result(clock(2, 64, [1.0, 1.0], 4), 5.0)}
    add_speedups([two])
    assert two["speedup"] is None
    row = to_markdown([{"devices": 2, "batch_mode": "global", "error": "exit 1: boom"}]).splitlines()[2]
    assert row.startswith("| 2 | global | failed: exit 1: boom |")


def test_model_variant_gets_hybrid_base():
    assert config_args(["conf/model/graph_only.yaml"]) == ["--config", "conf/model/hybrid.yaml",
                                                          "--config", "conf/model/graph_only.yaml"]
    assert config_args(["conf/tiny.yaml"]) == ["--config", "conf/tiny.yaml"]


def test_cli_misuse_is_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--config", "conf/nope.yaml", "--data", "data/datasets/ci-tiny"])
    assert exc.value.code == 2
    assert "--config/--trainer conf/nope.yaml: no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--config", "conf/tiny.yaml", "--data", "data/datasets/ci-tiny", "--max-epochs", "1"])
    assert "--max-epochs must be at least 2" in capsys.readouterr().err


@pytest.mark.slow
def test_ddp_cpu_gloo_on_ci_tiny(tmp_path):
    code = main(["--config", "conf/tiny.yaml", "--data", "data/datasets/ci-tiny", "--accelerator", "cpu",
                 "--devices", "1", "2", "--max-epochs", "2", "--batch-size", "16", "--num-workers", "0",
                 "--out", str(tmp_path)])
    assert code == 0
    report = json.loads((tmp_path / "ddp_speedup.json").read_text())
    runs = report["runs"]
    assert [(r["devices"], r["batch_mode"], r["per_device_batch"]) for r in runs] == [
        (1, "per_device", 16), (2, "per_device", 16), (2, "global", 8)]
    # 163 training launches of ci-tiny (random split): 11 steps of 16; 2 ranks get 82 each (padded)
    assert [r["train_samples"] for r in runs] == [163] * 3
    assert [r["samples_per_epoch"] for r in runs] == [163, 164, 164]
    assert [r["steps_per_epoch"] for r in runs] == [11, 6, 11]
    assert all(r["epochs"] == 2 and "val/time_mape" in r["val"] for r in runs)
    assert runs[0]["speedup"] == 1.0
    assert (tmp_path / "ddp_speedup.md").read_text().count("\n") == 5
