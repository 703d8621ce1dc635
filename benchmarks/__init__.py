"""Benchmarks; results in BENCHMARKS.md."""
