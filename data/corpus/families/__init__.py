"""Kernel template families; each module defines specs() -> list[KernelSpec]."""
