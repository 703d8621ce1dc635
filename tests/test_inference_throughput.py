"""benchmarks.inference_throughput: stage arithmetic, table, sampling, the featurise/forward split of
Predictor.predict, and one pinned cpu1 worker end to end on ci-tiny."""
import json

import numpy as np
import pytest

from benchmarks.inference_throughput import main, sample_requests, summarize, time_once, to_markdown

TINY = "data/datasets/ci-tiny"


def test_summarize_medians_and_rates():
    repeats = [{"parse_s": 1.0, "validate_s": 0.0, "featurise_s": 2.0, "forward_s": 1.0},
               {"parse_s": 2.0, "validate_s": 0.0, "featurise_s": 3.0, "forward_s": 2.0},
               {"parse_s": 1.0, "validate_s": 0.0, "featurise_s": 2.0, "forward_s": 1.0}]
    s = summarize(1000, repeats)
    assert s["median_s"] == {"parse_s": 1.0, "validate_s": 0.0, "featurise_s": 2.0, "forward_s": 1.0,
                             "featurisation_s": 3.0, "total_s": 4.0}
    assert s["launches_per_s"]["end_to_end"] == 250.0 and s["launches_per_s"]["forward"] == 1000.0
    assert s["launches_per_s"]["featurisation"] == pytest.approx(1000 / 3)


def test_table_rows():
    ok = {"device": "cpu1", "launches": 1000, "core": 1, **summarize(1000, [
        {"parse_s": 0.5, "validate_s": 0.25, "featurise_s": 1.25, "forward_s": 2.0}])}
    skipped = {"device": "cuda", "launches": 1000, "skipped": "no CUDA device visible to torch"}
    rows = to_markdown([ok, skipped]).splitlines()
    assert rows[2] == "| cpu1 (core 1) | 1000 | 250 | 500 | 500 | 0.500 | 0.250 | 1.250 | 2.000 |"
    assert rows[3].startswith("| cuda | 1000 | skipped: no CUDA device visible to torch |")


def test_sample_repeats_when_dataset_is_short():
    rows, texts, device = sample_requests(TINY, 300)
    assert len(rows) == 300 and rows[273] == rows[0] and rows[272] != rows[0]  # ci-tiny: 273 ok launches
    assert device["device_id"] == "pocl-amd-epyc"
    assert {r["source_id"] for r in rows} == set(texts)
    assert all(len(r["global"]) == len(r["local"]) for r in rows)


def test_featurise_forward_equals_predict():
    from kgraph.models.predictor import Predictor

    rows, texts, device = sample_requests(TINY, 7)
    predictor = Predictor.from_directory("models/default")
    seconds, timed = time_once(predictor, rows, texts, device)
    assert set(seconds) == {"parse_s", "validate_s", "featurise_s", "forward_s"}
    import kgraph
    from kgraph.models.launches import make_launch

    graphs = {sid: {g.name: g for g in kgraph.from_source(s, lang)} for sid, (s, lang) in texts.items()}
    launches = [make_launch(graphs[r["source_id"]], r["kernel"], r["global"], r["local"], r["args"], device)
                for r in rows]
    chunked = [p for chunk in predictor.featurise(launches, chunk=3) for p in predictor.forward(chunk)]
    whole = predictor.predict(launches)
    assert len(whole) == len(chunked) == len(timed) == 7
    np.testing.assert_allclose([p["time_ns"] for p in chunked], [p["time_ns"] for p in whole], rtol=1e-4)
    assert [p["bound"] for p in timed] == [p["bound"] for p in whole]


def test_cpu1_worker_end_to_end(tmp_path):
    assert main(["--data", TINY, "--n", "12", "--repeats", "1", "--devices", "cpu1", "--out", str(tmp_path)]) == 0
    record = json.loads((tmp_path / "inference_throughput.json").read_text())[0]
    assert record["device"] == "cpu1" and record["torch_threads"] == 1 and record["cpu_cores"] == 1
    assert record["launches"] == 12 and len(record["repeats"]) == 1
    assert record["launches_per_s"]["end_to_end"] > 0


def test_misuse_is_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["--data", "nowhere", "--devices", "cpu1"])
    assert "--data nowhere: no device.json there" in capsys.readouterr().err
