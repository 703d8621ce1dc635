"""Baselines reported next to the neural model (see docs/BASELINES.md).

``BASELINES`` maps each report row name to a factory; every baseline has ``fit(LaunchRows)`` and
``predict(LaunchRows) -> dict`` of the outputs described in :mod:`models.baselines.base`.
"""
from __future__ import annotations

from models.baselines.base import Baseline, LaunchRows, empty_outputs
from models.baselines.roofline import RooflineBaseline
from models.baselines.starpu import HistoryBaseline, RegressionBaseline
from models.baselines.static_gbt import StaticGBTBaseline
from models.baselines.token_regressor import TokenRegressorBaseline

BASELINES = {
    "roofline": lambda: RooflineBaseline(fit_efficiency=False),
    "roofline_fitted": lambda: RooflineBaseline(fit_efficiency=True),
    "static_gbt": StaticGBTBaseline,
    "token_regressor": TokenRegressorBaseline,
    "starpu_history": HistoryBaseline,
    "starpu_regression": RegressionBaseline,
}

__all__ = ["BASELINES", "Baseline", "LaunchRows", "empty_outputs", "RooflineBaseline", "StaticGBTBaseline",
           "TokenRegressorBaseline", "HistoryBaseline", "RegressionBaseline"]
