"""The prediction targets and bound classes: the one table every other part reads.

Each regression target is predicted as a natural log of a natural-unit quantity ``x``:

==========  ======================  =============  ===================  ==================================
name        transform (``y``)       inverse        natural unit (key)   from a measured launch row
==========  ======================  =============  ===================  ==================================
time        ln(x)                   exp(y)         ns (``time_ns``)     ``median_time_ns``
bandwidth   ln(1 + 1000 x)          expm1(y)/1000  GB/s                 ``achieved_bw_gbs`` (1000 x = MB/s)
                                                   (``bandwidth_gbs``)
footprint   ln(1 + x)               expm1(y)       bytes                ``footprint_bytes``
                                                   (``footprint_bytes``)
flops       ln(1 + x)               expm1(y)       FLOPs (``flops``)    ``flops_fp32 + flops_fp64``
bytes       ln(1 + x)               expm1(y)       bytes (``bytes``)    ``global_load_bytes + global_store_bytes``
==========  ======================  =============  ===================  ==================================

Readers: :func:`kgraph.data.features.to_targets` / ``to_natural`` (training targets and their
inversion), the full model's heads (``Prediction`` fields ``log_<name>``), :mod:`kgraph.models.compact`
(the compact head's outputs, in :data:`TARGETS` order), the ONNX metadata and the C code of
:mod:`kgraph.models.export` (the C inverse of each target is :meth:`Target.c_inverse`), the natural-unit
dict of :mod:`kgraph.models.predictor` (keys :attr:`Target.key`) and the predictions format of
:mod:`kgraph.models.predictions`.

``BOUND_CLASSES`` is the order of the bound logits everywhere (the classes of ``docs/DESIGN.md``;
the dataset writer in ``kgraph.data.harness.columns`` keeps a copy that ``tests/test_targets.py``
holds equal to this one).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BOUND_CLASSES = ("memory", "compute", "latency")
#: the two-way roofline class of the LLM study (arithmetic intensity against the ridge point); see
#: :func:`roofline_class` and docs/DESIGN.md beside the three-way measured class above
ROOFLINE_CLASSES = ("bandwidth", "compute")


@dataclass(frozen=True)
class Target:
    """One regression target: ``y = ln(offset + scale * x)`` with ``offset`` 0 (``ln``) or 1 (``log1p``).

    Attributes:
        name: short name (``time``); the log output is ``log_<name>``.
        key: natural-unit output name (``time_ns``), as in the predictor's dicts and the C struct.
        unit: the natural unit of ``key``.
        log1p: True for ``ln(1 + scale * x)``, False for ``ln(scale * x)``.
        scale: natural unit → the unit inside the log (1000 for GB/s → MB/s).
        description: what the quantity is.
    """

    name: str
    key: str
    unit: str
    log1p: bool
    scale: float
    description: str

    @property
    def log_name(self) -> str:
        return f"log_{self.name}"

    @property
    def transform_text(self) -> str:
        """The transform as text, e.g. ``ln(1 + 1000 * bandwidth_gbs)``."""
        x = self.key if self.scale == 1 else f"{self.scale:g} * {self.key}"
        return f"ln(1 + {x})" if self.log1p else f"ln({x})"

    # ---- numpy
    def transform(self, natural) -> np.ndarray:
        """Natural units → log target (float64; NaN stays NaN)."""
        x = np.asarray(natural, dtype=np.float64)
        if self.scale != 1:
            x = x * self.scale
        return np.log1p(x) if self.log1p else np.log(x)

    def inverse(self, log_values) -> np.ndarray:
        """Log target → natural units (float64 for float64 input); a ``ln(1 + x)`` target's value is never
        negative (a head's output below 0 means 0 of a count, not a negative count)."""
        y = np.maximum(np.expm1(log_values), 0.0) if self.log1p else np.exp(log_values)
        return y / self.scale if self.scale != 1 else y

    # ---- torch
    def transform_torch(self, natural):
        import torch

        x = natural * self.scale if self.scale != 1 else natural
        return torch.log1p(x) if self.log1p else torch.log(x)

    def inverse_torch(self, log_values):
        import torch

        y = torch.expm1(log_values).clamp_min(0.0) if self.log1p else torch.exp(log_values)
        return y / self.scale if self.scale != 1 else y

    # ---- C
    def c_inverse(self, expr: str) -> str:
        """C99 (double, <math.h>) for the natural value of the log target ``expr``."""
        y = f"fmax(expm1({expr}), 0.0)" if self.log1p else f"exp({expr})"
        return f"{y} / {float(self.scale)!r}" if self.scale != 1 else y


TARGETS: tuple[Target, ...] = (
    Target("time", "time_ns", "ns", log1p=False, scale=1.0, description="median execution time"),
    Target("bandwidth", "bandwidth_gbs", "GB/s", log1p=True, scale=1000.0,
           description="achieved global-memory bandwidth (global bytes loaded + stored per time)"),
    Target("footprint", "footprint_bytes", "bytes", log1p=True, scale=1.0,
           description="distinct global-memory bytes the launch touches"),
    Target("flops", "flops", "FLOPs", log1p=True, scale=1.0,
           description="floating-point operations of the launch (fp32 + fp64)"),
    Target("bytes", "bytes", "bytes", log1p=True, scale=1.0,
           description="global bytes loaded + stored by the launch"),
)
TARGET = {t.name: t for t in TARGETS}


@dataclass(frozen=True)
class Interval:
    """The prediction interval of a target: its ``lower``/``upper`` quantiles, a central interval of
    nominal coverage ``level``; natural-unit keys ``<key>`` with ``_lo``/``_hi`` before the unit suffix.

    Attributes:
        target: the :data:`TARGETS` name it brackets; level: nominal coverage (0.8 = 80%);
        keys: natural-unit names of the two ends (``time_lo_ns``, ``time_hi_ns``).
    """

    target: str
    level: float
    keys: tuple[str, str]

    @property
    def quantiles(self) -> tuple[float, float]:
        """The lower and upper quantile levels (0.1 and 0.9 for an 80% interval)."""
        tail = (1.0 - self.level) / 2.0
        return tail, 1.0 - tail


#: the interval every prediction of time comes with (the compact head's outputs, ONNX, C, estimate)
TIME_INTERVAL = Interval("time", 0.8, ("time_lo_ns", "time_hi_ns"))
REGRESSION_TARGETS = tuple(t.name for t in TARGETS)
LOG_TARGETS = tuple(t.log_name for t in TARGETS)
NATURAL_KEYS = tuple(t.key for t in TARGETS)


def to_natural(target: str, log_values) -> np.ndarray:
    """Invert one target's log transform (``time`` → ns, ``bandwidth`` → GB/s, others → counts)."""
    return TARGET[target].inverse(log_values)


def to_log(target: str, natural) -> np.ndarray:
    """One target's log transform of natural-unit values (the inverse of :func:`to_natural`)."""
    with np.errstate(all="ignore"):
        return TARGET[target].transform(natural)


def natural_outputs(log_targets) -> dict[str, np.ndarray]:
    """``{key: natural values}`` of log targets ``[N, len(TARGETS)]`` (numpy), in :data:`TARGETS` order."""
    y = np.asarray(log_targets)
    return {t.key: t.inverse(y[:, j]) for j, t in enumerate(TARGETS)}


def bound_index(names) -> np.ndarray:
    """Long[N]: index of each bound-class name in :data:`BOUND_CLASSES`, -1 for unknown or missing."""
    index = {name: i for i, name in enumerate(BOUND_CLASSES)}
    return np.array([index.get(b, -1) for b in names], dtype=np.int64)


def roofline_class(flops, nbytes, fp64_share, roofline: dict) -> np.ndarray:
    """The two-way roofline class of launches, as indices into :data:`ROOFLINE_CLASSES` (-1 = unknown).

    ``compute`` when the arithmetic intensity ``flops / nbytes`` (FLOP per global byte loaded + stored)
    reaches the device's ridge point ``peak FLOP/s / copy bandwidth``, else ``bandwidth``. The peak is
    fp64's for launches whose FLOPs are mostly fp64 (``fp64_share > 0.5``), else fp32's. Unlike the
    three-way class (which compares the *measured* utilisations), this one needs no timing: it is the
    static roofline call of the LLM study ("compute- or bandwidth-bound").

    Args:
        flops, nbytes, fp64_share: Float[N] (NaN or negative = unknown).
        roofline: the device descriptor's ``roofline`` (``fp32_gflops``, ``fp64_gflops``, ``copy_bw_gbs``).
    """
    flops, nbytes = np.asarray(flops, np.float64), np.asarray(nbytes, np.float64)
    peak = np.where(np.asarray(fp64_share, np.float64) > 0.5, roofline["fp64_gflops"], roofline["fp32_gflops"])
    ridge = peak / roofline["copy_bw_gbs"]  # FLOP per byte
    with np.errstate(all="ignore"):
        intensity = np.where(nbytes > 0, flops / nbytes, np.where(flops > 0, np.inf, 0.0))
    known = np.isfinite(flops) & np.isfinite(nbytes) & (flops >= 0) & (nbytes >= 0)
    return np.where(known, (intensity >= ridge).astype(np.int64), -1)


def metadata() -> dict[str, str]:
    """The table as ONNX/C metadata strings (``kgraph.models.export``)."""
    return {
        "log_targets": ",".join(LOG_TARGETS),
        "target_keys": ",".join(NATURAL_KEYS),
        "target_units": ",".join(t.unit for t in TARGETS),
        "target_transforms": ";".join(f"{t.log_name} = {t.transform_text}" for t in TARGETS),
        "target_inverses": ";".join(f"{t.key} = {t.c_inverse(t.log_name)}" for t in TARGETS),
        "bound_classes": ",".join(BOUND_CLASSES),
    }
