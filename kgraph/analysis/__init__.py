"""Static analysis of kernels: per-statement costs and symbolic per-work-item counts (docs/ANALYSIS.md)."""
from kgraph.analysis.counts import COUNT_KEYS
from kgraph.analysis.statements import StatementCost, statement_costs

__all__ = ["COUNT_KEYS", "StatementCost", "statement_costs"]
