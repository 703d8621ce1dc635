"""Holdout4 kernels (written by a helper; placeholder until then)."""
BUILDERS = ()
