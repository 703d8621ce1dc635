"""benchmarks.assumed_margin: the assumed group's [lower, upper] margins from held-out launches, and the coverage
they give (the lower end never above the point)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.assumed_margin import coverage, margins


def _frame(n_kernels: int = 40, per: int = 5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    kernels = np.repeat(np.arange(n_kernels), per)
    point = rng.normal(10.0, 1.0, len(kernels))
    y = point + rng.uniform(0.0, 3.0, n_kernels)[kernels]  # measured above the point by 0..3 ln, per kernel
    return pd.DataFrame({"kernel": kernels, "y": y, "point": point, "lo": point - 0.5, "hi": point + 0.5})


def test_the_upper_margin_covers_nine_tenths_of_the_kernels_above():
    frame = _frame()
    lower, upper = margins(frame, inexact=0.5)
    assert upper == pytest.approx(0.5 + np.quantile(frame.groupby("kernel")["y"].first() - frame.groupby("kernel")["hi"]
                                                    .first(), 0.9), abs=0.2)
    assert lower < 0.5  # nothing below the lower end: the lower margin shrinks (the end moves up to the point)
    got = coverage(frame, [lower, upper], inexact=0.5)
    before = coverage(frame, None, inexact=0.5)
    assert before["above"] > 50 and got["above"] <= 12 and got["coverage"] >= 85
    assert got["median_width"] > before["median_width"]


def test_the_lower_end_stays_at_or_below_the_point():
    frame = _frame()
    got = coverage(frame, [-5.0, 0.5], inexact=0.5)  # a lower margin that would lift the end far above the point
    assert got["below"] == pytest.approx(0.0)  # measured is above the point here, and the end stops at the point
