"""The hand-written holdout9 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in two modules per group of six
kernels, three each (:mod:`.audio` with :mod:`.audio_more`, :mod:`.graphics` with :mod:`.graphics_more`,
:mod:`.astro` with :mod:`.astro_more`, :mod:`.text` with :mod:`.text_more`), each listing its builders in
``BUILDERS``.
"""
from __future__ import annotations

from . import (astro, astro_more, audio, audio_more, graphics, graphics_more, text, text_more)

#: The builders, in the order of ``specs()``.
BUILDERS = (*audio.BUILDERS, *audio_more.BUILDERS, *graphics.BUILDERS, *graphics_more.BUILDERS,
            *astro.BUILDERS, *astro_more.BUILDERS, *text.BUILDERS, *text_more.BUILDERS)
