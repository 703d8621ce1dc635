"""holdout9 kernels of the audio group (to be written)."""
from __future__ import annotations

BUILDERS = ()
