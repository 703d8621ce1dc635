"""holdout9 kernels of the astro group (to be written)."""
from __future__ import annotations

BUILDERS = ()
