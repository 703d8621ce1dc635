"""holdout9 kernels of the graphics group (to be written)."""
from __future__ import annotations

BUILDERS = ()
