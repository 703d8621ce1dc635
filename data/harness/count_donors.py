"""Which rows can give their work counts to which: the provenance rules of ``kgraph dataset fill-counts``.

Counts are device independent, so an ok row without counts may take them from a row of another
dataset that describes the same launch on the same inputs. This module says what "same" means:

* the launch: equal ``kernel_id, source_id, sizes, args, dims, g0..g2, l0..l2`` (the launch key minus
  the device, which the key hashes); the local size may differ only for kernels whose counts cannot
  depend on the work-group shape (:func:`workgroup_independent`);
* the inputs: the same *input generation* (:func:`input_generation`), by harness version.

When several donors match, instrumented counts win over static ones, and donors that disagree are
refused (:func:`donor_matches`). Rows whose counts are ``"static-inexact"`` (the static analysis's, not exact:
:mod:`kgraph.exact_counts`) are never donors, and may themselves take a donor's counts
(:func:`replaceable_counts`), though they do have counts (:func:`missing_counts`).
"""
from __future__ import annotations

import json
import re

from .columns import COUNT_COLUMNS, source_id_of

REQUIRED_COUNTS = tuple(c for c in COUNT_COLUMNS if c != "footprint_bytes")  # footprint -1 is allowed
MATCH_COLUMNS = ("kernel_id", "source_id", "sizes", "args", "dims", "g0", "g1", "g2", "l0", "l1", "l2")
NO_LOCAL_COLUMNS = MATCH_COLUMNS[:-3]
INEXACT_SOURCE = "static-inexact"  # counts_source of static counts that are not exact (kgraph.exact_counts)

# Work-group-dependent OpenCL constructs: a kernel using none of them computes the same thing per
# work-item whatever the local size (see workgroup_independent).
_WORKGROUP_WORDS = re.compile(
    r"\b(get_local_id|get_local_size|get_local_linear_id|get_enqueued_local_size|get_group_id|"
    r"get_num_groups|barrier|work_group_\w+|sub_group_\w+|get_sub_group_\w+|get_max_sub_group_size|"
    r"get_num_sub_groups|__local|local|reqd_work_group_size|mem_fence|read_mem_fence|write_mem_fence|"
    r"atomic_\w+|atom_\w+|atomic_work_item_fence)\b")


def missing_counts(df):
    """Boolean mask of ok rows without counts (what ``validate`` reports as unknown counts)."""
    ok = df["status"] == "ok"
    unknown = df[list(REQUIRED_COUNTS)].lt(0).any(axis=1) | df[list(REQUIRED_COUNTS)].isna().any(axis=1)
    return ok & (unknown | df["counts_source"].isna())


def inexact_counts(df):
    """Boolean mask of ok rows with complete counts that the static analysis gave without counting the kernel
    exactly (``counts_source == "static-inexact"``): counts a donor's exact ones may replace. (A static-inexact
    row with a count unknown is one of :func:`missing_counts`.)"""
    return (df["status"] == "ok") & (df["counts_source"] == INEXACT_SOURCE) & ~missing_counts(df)


def replaceable_counts(df):
    """Boolean mask of the ok rows ``kgraph dataset fill-counts`` fills: those without counts
    (:func:`missing_counts`) and those with inexact static ones (:func:`inexact_counts`)."""
    return missing_counts(df) | inexact_counts(df)


def complete_counts(df):
    """Boolean mask of ok rows whose counts can be given to another row: complete and exact (not
    ``"static-inexact"``)."""
    return (df["status"] == "ok") & ~missing_counts(df.assign(status="ok")) & (df["counts_source"] != INEXACT_SOURCE)


def input_generation(spec, harness_version) -> str | None:
    """What a row's input buffers were a function of, or None when they cannot be reproduced.

    * ``zeros``: every buffer is an ``out`` buffer and there are no structured inputs, so every
      harness version started from zeros (1.0: ``KernelSpec.inputs``; 1.1+: a zero fill);
    * 1.0 otherwise: numpy's stream of ``default_rng(seed)`` drawn per visit at the visit's biggest
      size, buffer after buffer: depends on which launches shared the visit -> None;
    * 1.1 and later without ``make_inputs``: ``device-fill`` (fill.py: a hash of seed, buffer name,
      index; same values in 1.1 and 1.2, a prefix of a bigger fill equals the smaller fill);
    * ``make_inputs`` in 1.1: one ``default_rng(seed)`` per visit consumed size after size (by
      ``work_of``), so a size's CSR matrix depends on the sizes visited before it -> None;
    * ``make_inputs`` in 1.2: ``default_rng([seed, crc32(sizes)])`` per size (inputs.py): ``sizes-seeded``.
    Versions not listed here (newer than this code, imported rows) -> None.
    """
    buffers = [a for a in spec.args if a.kind == "buffer"]
    if spec.make_inputs is None and all(a.role == "out" for a in buffers):
        return "zeros"
    version = str(harness_version)
    if version not in ("1.1", "1.2"):  # 1.0, or a version this code does not know
        return None
    if spec.make_inputs is None:
        return "device-fill"
    return "sizes-seeded" if version == "1.2" else None


GENERATION_REASONS = {
    "1.0": "harness 1.0 inputs (numpy stream per visit) cannot be reproduced",
    "1.1": "harness 1.1 structured inputs (one numpy stream per visit) cannot be reproduced",
}


def _strip_comments(source: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)


def workgroup_independent(spec) -> bool:
    """True when the kernel's counts cannot depend on the local size, read from the code.

    Each work-item of such a kernel runs the same code on the same data for any work-group shape:
    the source (comments removed) names no work-group construct (local ids/sizes, group ids,
    barriers and fences, ``__local`` memory, sub-groups, work-group functions, atomics, a required
    work-group size), the spec has no ``local`` arguments, and its buffer element counts do not
    change with the local size. The instrumented counters are per-launch sums over work-items, so
    the totals are equal. Macros are not expanded: a construct hidden behind token pasting would
    be missed, which no corpus kernel does.
    """
    if spec.lang != "opencl" or any(a.kind == "local" for a in spec.args):
        return False
    if _WORKGROUP_WORDS.search(_strip_comments(spec.source)):
        return False
    return True


def same_buffers_for_locals(spec, sizes: dict, locals_: list) -> bool:
    counts = [spec.buffer_counts(sizes, list(local)) for local in locals_]
    return all(c == counts[0] for c in counts[1:])


def _match_key(row, columns) -> tuple:
    return tuple(str(row[c]) if c in ("kernel_id", "source_id", "sizes", "args") else int(row[c]) for c in columns)


def donor_matches(donors: list, wanted: list[dict], generation: dict, specs: dict, store_device: str) -> dict:
    """``{key: (donor folder, counts) or reason}`` for the rows in ``wanted``."""
    from .store import read_launches

    kernels = {r["kernel_id"] for r in wanted}
    full: dict[tuple, list] = {}
    no_local: dict[tuple, list] = {}
    for donor in donors:
        ddf = read_launches(donor)
        ddf = ddf[ddf["kernel_id"].isin(kernels) & complete_counts(ddf)]
        for r in ddf.to_dict("records"):
            spec = specs.get(r["kernel_id"])
            if spec is None or source_id_of(spec.source) != r["source_id"]:
                continue  # the recipient's source is the spec's (checked by the caller)
            gen = input_generation(spec, r["harness_version"])
            if gen is None:
                continue
            entry = (str(donor), r)
            full.setdefault(_match_key(r, MATCH_COLUMNS) + (gen,), []).append(entry)
            no_local.setdefault(_match_key(r, NO_LOCAL_COLUMNS) + (gen,), []).append(entry)
    out = {}
    for row in wanted:
        gen = generation[row["key"]]
        found = full.get(_match_key(row, MATCH_COLUMNS) + (gen,))
        if not found:
            spec = specs[row["kernel_id"]]
            found = no_local.get(_match_key(row, NO_LOCAL_COLUMNS) + (gen,))
            if found and workgroup_independent(spec):
                sizes = json.loads(row["sizes"])
                dims = int(row["dims"])
                locals_ = [[int(row[f"l{d}"]) for d in range(dims)]] + \
                          [[int(r[f"l{d}"]) for d in range(dims)] for _, r in found]
                if not same_buffers_for_locals(spec, sizes, locals_):
                    found = None
            else:
                found = None
        if not found:
            continue  # no donor: left for the instrumented runs
        instrumented = [f for f in found if f[1]["counts_source"] == "instrumented"]
        chosen = instrumented or found
        values = {tuple(int(r[c]) for c in COUNT_COLUMNS) for _, r in chosen}
        if len(values) > 1:
            out[row["key"]] = f"{len(values)} different counts among the donors"
            continue
        donor, r = chosen[0]
        out[row["key"]] = (donor, {**{c: int(r[c]) for c in COUNT_COLUMNS}, "counts_source": r["counts_source"]})
    return out
