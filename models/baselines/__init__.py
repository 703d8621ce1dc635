"""Baselines reported next to the neural model (see docs/BASELINES.md).

``BASELINES`` maps each report row name to a factory; every baseline has ``fit(LaunchRows)`` and
``predict(LaunchRows) -> dict`` of the outputs described in :mod:`kgraph.models.baselines.base`.
"""
from __future__ import annotations

from kgraph.models.baselines.base import Baseline, LaunchRows, empty_outputs
from kgraph.models.baselines.roofline import RooflineBaseline
from kgraph.models.baselines.starpu import HistoryBaseline, RegressionBaseline
from kgraph.models.baselines.static_gbt import StaticGBTBaseline
from kgraph.models.baselines.token_regressor import TokenRegressorBaseline

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
