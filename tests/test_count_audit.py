"""benchmarks.count_audit: static counts against instrumented ones, per kernel of a measured folder."""
from pathlib import Path

import numpy as np

from benchmarks.count_audit import audit_folder

ROOT = Path(__file__).resolve().parents[1]


def test_audit_of_the_fifth_holdout():
    table = audit_folder(ROOT / "data/datasets/holdout5-nvidia-h200", per_kernel=1).set_index("kernel_id")
    assert len(table) == 24
    dependent = set(table.index[table["status"] == "data-dependent"])
    assert "holdout5.simpson_adapt_stack_fp64" in dependent and "holdout5.neumaier_dot_rows" not in dependent
    exact = table.loc["holdout5.neumaier_dot_rows"]   # counted exactly: every ratio 1
    assert all(np.isclose(exact[k], 1.0) for k in ("flops_fp32", "global_load_bytes", "global_store_bytes"))
    assert table.loc["holdout5.march_squares_segments", "flops_fp32"] > 10  # a rare data branch taken at 1/2
