"""What the scheduler believes a task costs: the performance models being compared.

Each belief answers ``predict(kind, tile, device) -> µs | None`` (None = no estimate: the model is
not calibrated for that case) and is told every completed task through ``observe``.
"""
from __future__ import annotations

import math
from collections import defaultdict

from kgraph.app.scheduling.time_table import TimeTable


class OracleBelief:
    """Knows the true median of every task (the oracle schedule's model)."""

    name = "oracle"

    def __init__(self, truth: TimeTable):
        self.truth = truth

    def predict(self, kind, tile, device):
        return self.truth.time_us(kind, tile, device)

    def observe(self, kind, tile, device, time_us):
        pass


class HistoryBelief:
    """StarPU's STARPU_HISTORY_BASED: mean of past executions of the same (kind, tile, device).

    Args:
        warm: executions to start from (a calibration run); None = cold (first run, empty history).
        min_samples: executions needed before the entry is used (StarPU's calibration threshold).
    """

    def __init__(self, warm: dict | None = None, min_samples: int = 1):
        self.name = "history-warm" if warm else "history-cold"
        self.history: dict[tuple, list[float]] = defaultdict(list)
        for key, values in (warm or {}).items():
            self.history[key].extend(values)
        self.min_samples = min_samples

    def predict(self, kind, tile, device):
        h = self.history.get((kind, tile, device))
        return sum(h) / len(h) if h and len(h) >= self.min_samples else None

    def observe(self, kind, tile, device, time_us):
        self.history[(kind, tile, device)].append(time_us)


class RegressionBelief:
    """StarPU's STARPU_REGRESSION_BASED: ``t = a * n^b`` fitted per (kind, device) by least squares on
    log t = log a + b log n, over the executions seen so far (plus ``warm`` ones).

    Needs executions at two distinct sizes before it predicts (None before).
    """

    name = "regression"

    def __init__(self, warm: dict | None = None):
        self.points: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
        self.fits: dict[tuple, tuple[float, float] | None] = {}
        for (kind, tile, device), values in (warm or {}).items():
            for v in values:
                self.observe(kind, tile, device, v)

    def observe(self, kind, tile, device, time_us):
        self.points[(kind, device)].append((math.log(tile), math.log(time_us)))
        self.fits.pop((kind, device), None)

    def fit(self, kind, device):
        if (kind, device) not in self.fits:
            pts = self.points.get((kind, device), [])
            xs = [p[0] for p in pts]
            if len(set(xs)) < 2:
                self.fits[(kind, device)] = None
            else:
                mx, my = sum(xs) / len(xs), sum(p[1] for p in pts) / len(pts)
                b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x in xs)
                self.fits[(kind, device)] = (my - b * mx, b)
        return self.fits[(kind, device)]

    def predict(self, kind, tile, device):
        f = self.fit(kind, device)
        return None if f is None else math.exp(f[0] + f[1] * math.log(tile))


class TableBelief:
    """A model's predictions, precomputed per (kind, tile, device) (kgraph full or compact).

    Args:
        name: label in reports.
        predictions: ``{(kind, tile, device): µs}``; missing keys answer None.
    """

    def __init__(self, name: str, predictions: dict[tuple[str, int, str], float]):
        self.name, self.predictions = name, dict(predictions)

    def predict(self, kind, tile, device):
        return self.predictions.get((kind, tile, device))

    def observe(self, kind, tile, device, time_us):
        pass
