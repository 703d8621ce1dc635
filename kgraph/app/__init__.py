"""The top layer: what users run — the ``kgraph`` command, the Python API (:mod:`kgraph.app.api`), the
runtime exports for StarPU, the scheduling replay and the reports. It may import every layer below
(``kgraph.models`` → ``kgraph.data`` → kgraph's graphs and analysis → ``kgraph.parsers``); nothing below
imports it.
"""
