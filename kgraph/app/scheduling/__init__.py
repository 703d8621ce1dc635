"""Discrete-event replay of dmda/HEFT-style list scheduling of tiled linear-algebra DAGs.

Truth = a :class:`TimeTable` of measured task times (task kind, tile size, device → µs);
the scheduler's belief = a cost model (oracle, history cold/warm, a·n^b regression, kgraph
predictions). ``python -m kgraph.app.scheduling.run --help`` runs the comparison.
"""
from kgraph.app.scheduling.beliefs import (HistoryBelief, OracleBelief, RegressionBelief,
                                       TableBelief)
from kgraph.app.scheduling.dag import Task, cholesky_dag, lu_dag
from kgraph.app.scheduling.simulator import Platform, SimResult, simulate
from kgraph.app.scheduling.time_table import TimeTable

__all__ = ["Task", "cholesky_dag", "lu_dag", "TimeTable", "OracleBelief", "HistoryBelief",
           "RegressionBelief", "TableBelief", "Platform", "SimResult", "simulate"]
