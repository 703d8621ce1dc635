"""benchmarks.graph_throughput: corpus loading, the measurement record and the printed row."""
import pytest

from benchmarks import graph_throughput
from benchmarks.graph_throughput import load_sources, measure


def test_corpus_has_the_examples_and_at_least_200_kernels():
    sources = load_sources(200)
    assert len(sources) >= 200
    assert [name for name, _, _ in sources[:3]] == ["examples/c/dot_product.c", "examples/c/jacobi2d.c",
                                                    "examples/c/matmul_loops.c"]
    assert {lang for _, lang, _ in sources} == {"c", "cuda", "opencl"}


def test_measure_counts_kernels_and_times_every_stage():
    r = measure(load_sources(200)[:3], repeats=1, analysis_repeats=1)
    assert (r["sources"], r["kernels"]) == (3, 3)
    assert all(r[key] > 0 for key in ("raw_s", "front_s", "graph_s", "analysis_s"))
    assert measure(load_sources(200)[:2], repeats=1, analysis_repeats=0)["analysis_s"] is None


def test_bad_repeats_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        graph_throughput.main(["--repeats", "0"])
    assert exit_.value.code == 2
    assert "--repeats must be at least 1" in capsys.readouterr().err
