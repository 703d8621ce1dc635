"""holdout9 kernels of the text group (to be written)."""
from __future__ import annotations

BUILDERS = ()
