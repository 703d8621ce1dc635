"""Static analysis of kernels: per-statement costs and symbolic per-work-item counts (docs/ANALYSIS.md)."""
from kgraph.analysis.analyze import analyze
from kgraph.analysis.counts import COUNT_KEYS
from kgraph.analysis.loops import Loop
from kgraph.analysis.patterns import PATTERNS, classify
from kgraph.analysis.result import Access, KernelAnalysis
from kgraph.analysis.statements import StatementCost, statement_costs

__all__ = ["analyze", "KernelAnalysis", "Access", "Loop", "COUNT_KEYS", "PATTERNS", "classify",
           "StatementCost", "statement_costs"]
