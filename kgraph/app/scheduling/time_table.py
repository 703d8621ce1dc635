"""The truth the scheduling replay runs on: task kind, tile size, device → measured time (µs).

Rows come from a CSV/parquet (columns ``kind, tile, device, time_us``; several rows per key are
several measurements) written by any producer: the StarPU workload's per-task trace, the tile
benchmark, or a measured dataset through :func:`TimeTable.from_launches`. Tile sizes that were not
measured are interpolated in log-log space between the nearest measured sizes (extrapolated from the
two nearest at the ends), which is how time scales with size for these dense kernels.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from statistics import median

from kgraph.errors import InputError

COLUMNS = ("kind", "tile", "device", "time_us")


class TimeTable:
    """Measured task times.

    Args:
        rows: iterable of ``(kind, tile, device, time_us)``.
    """

    def __init__(self, rows):
        self.samples: dict[tuple[str, int, str], list[float]] = defaultdict(list)
        for kind, tile, device, t in rows:
            if not t > 0 or not math.isfinite(t):
                raise InputError(f"time table: non-positive or non-finite time {t!r} for {kind}/{tile}/{device}")
            self.samples[(str(kind), int(tile), str(device))].append(float(t))
        if not self.samples:
            raise InputError("time table: no rows")
        self._sizes: dict[tuple[str, str], list[int]] = defaultdict(list)
        for kind, tile, device in sorted(self.samples):
            self._sizes[(kind, device)].append(tile)

    @classmethod
    def from_file(cls, path: str | Path) -> "TimeTable":
        """Read a ``.csv`` or ``.parquet`` with columns ``kind, tile, device, time_us``."""
        import pandas as pd

        path = Path(path)
        if not path.is_file():
            raise InputError(f"{path}: no such time table")
        df = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
        missing = [c for c in COLUMNS if c not in df.columns]
        if missing:
            raise InputError(f"{path}: time table lacks columns {', '.join(missing)}")
        return cls(df[list(COLUMNS)].itertuples(index=False, name=None))

    @classmethod
    def from_launches(cls, launches, kind_map: dict[str, tuple[str, str]], device: str | None = None) -> "TimeTable":
        """Rows of a measured dataset (``launches-*.parquet``) as task times.

        ``kind_map`` maps a task kind to ``(kernel_id, size parameter that is the tile size)``;
        only ``status == "ok"`` rows with a square problem (all size params equal) are used.
        ``device`` renames the dataset's ``device_id`` (e.g. to ``"gpu"``).
        """
        rows = []
        ok = launches[launches["status"] == "ok"]
        for kind, (kernel_id, param) in kind_map.items():
            for r in ok[ok["kernel_id"] == kernel_id].itertuples():
                sizes = json.loads(r.sizes)
                if len(set(sizes.values())) == 1 and param in sizes:
                    rows.append((kind, sizes[param], device or r.device_id, r.median_time_ns / 1e3))
        return cls(rows)

    def devices(self) -> list[str]:
        return sorted({d for _, _, d in self.samples})

    def kinds(self) -> list[str]:
        return sorted({k for k, _, _ in self.samples})

    def measured(self, kind: str, tile: int, device: str) -> list[float]:
        return self.samples.get((kind, tile, device), [])

    def time_us(self, kind: str, tile: int, device: str) -> float:
        """Median measured time, interpolated log-log over tile size when that size was not measured."""
        got = self.samples.get((kind, tile, device))
        if got:
            return median(got)
        sizes = self._sizes.get((kind, device))
        if not sizes:
            raise InputError(f"time table has no measurement of {kind!r} on {device!r}")
        if len(sizes) == 1:
            return median(self.samples[(kind, sizes[0], device)]) * (tile / sizes[0]) ** 3
        lo = max([s for s in sizes if s < tile], default=None)
        hi = min([s for s in sizes if s > tile], default=None)
        a, b = (sizes[0], sizes[1]) if lo is None else (sizes[-2], sizes[-1]) if hi is None else (lo, hi)
        ta, tb = median(self.samples[(kind, a, device)]), median(self.samples[(kind, b, device)])
        slope = math.log(tb / ta) / math.log(b / a)
        return ta * math.exp(slope * math.log(tile / a))
