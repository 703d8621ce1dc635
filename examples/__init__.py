"""Example kernels shipped with kgraph as package data (``importlib.resources.files("kgraph.examples")``)."""
