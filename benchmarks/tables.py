"""How a benchmark prints its result table and keeps it: one definition for every ``main``."""
from __future__ import annotations


def emit(table, csv: str | None = None, digits: int = 3) -> int:
    """Print ``table`` (a DataFrame) rounded to ``digits``, write it to ``csv`` when given; returns exit status 0.

    Args:
        table: the result rows.
        csv: a path for the same rows as CSV, or None.
        digits: decimals shown (the CSV keeps every digit).
    """
    import pandas as pd

    with pd.option_context("display.width", 250, "display.max_columns", None):
        print(table.round(digits).to_string(index=False))
    if csv:
        table.to_csv(csv, index=False)
    return 0
