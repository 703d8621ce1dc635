"""Launch rows as named numpy columns: what :func:`kgraph.data.features.to_launch_features` reads from a DataFrame,
without pandas (a cold ``kgraph estimate`` does not import it)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


class _Column(np.ndarray):
    """A column of :class:`LaunchColumns`: a numpy array with a DataFrame column's ``to_numpy``."""

    def to_numpy(self, dtype=None) -> np.ndarray:
        return np.asarray(self, dtype=dtype)


class LaunchColumns:
    """Rows as named columns (numpy arrays), what :func:`to_launch_features` reads from a DataFrame, without
    pandas (a cold ``kgraph estimate`` does not import it). ``table[name]`` is a column (``to_numpy`` as a
    DataFrame's); :meth:`to_frame` the DataFrame.

    Args:
        columns: name -> Shape[N] values (lists or arrays; objects stay objects).
    """

    def __init__(self, columns: dict):
        self.columns = {name: np.asarray(values).view(_Column) for name, values in columns.items()}

    def __getitem__(self, name: str) -> _Column:
        return self.columns[name]

    def __contains__(self, name: str) -> bool:
        return name in self.columns

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def to_frame(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame({name: np.asarray(v) for name, v in self.columns.items()})
