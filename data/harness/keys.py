"""The ids of a dataset's rows: a source text's id and a launch's key (no pyarrow: ``kgraph estimate``
names its sources with them and must start fast; :mod:`kgraph.data.harness.columns` re-exports both
with the schema)."""
from __future__ import annotations

import hashlib
import json


def source_id_of(text: str) -> str:
    """The id of a source text: the first 16 hex digits of its sha1."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def launch_key(device_id: str, kernel_id: str, sizes: dict, global_size, local_size) -> str:
    """The unique key of one launch: 16 hex digits of sha1(device_id|kernel_id|sizes|global|local).

    ``global_size``/``local_size`` are padded to 3 dims with 1 so that equal launches share a key;
    a ``local_size`` of ``None`` (driver's choice) is written as 0,0,0.
    """
    g = _pad3(global_size)
    l = _pad3(local_size) if local_size is not None else (0, 0, 0)
    text = "|".join([device_id, kernel_id, json.dumps(sizes, sort_keys=True),
                     ",".join(map(str, g)), ",".join(map(str, l))])
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def _pad3(values) -> tuple[int, int, int]:
    values = [int(v) for v in values]
    return tuple(values + [1] * (3 - len(values)))[:3]
