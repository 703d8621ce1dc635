"""Train / validation / test splits of a launch table: which rows a model learns from and which measure it.

Splits (``split``), all seeded by ``seed``; fractions are of the split's unit:

- ``random``: launches (rows) shuffled, ``test_fraction`` / ``val_fraction`` of them held out.
- ``unseen_launch``: the unit is a launch configuration = (kernel_id, sizes, global, local) across
  devices; configurations are held out per kernel (stratified: each kernel with n configurations
  gives round(n*test_fraction) to test, round(n*val_fraction) to val, and keeps at least one for
  train), so test kernels are all seen in training but never with those configurations.
- ``leave_kernel_out``: kernels (``kernel_id``) held out whole.
- ``leave_family_out``: families held out whole.
- ``leave_device_out``: every launch of ``test_devices`` is test; val is ``val_fraction`` of the
  remaining launches (random rows).
- ``generated_to_written``: train on the generated kernels (``kgraph.data.generator``, ids ``gen.*``) only,
  val = ``val_fraction`` of them (whole kernels), test = every hand-written kernel (the 48 families);
  ``written_to_generated`` is the reverse.

Grouped splits take max(1, round(G * fraction)) of the G groups (while leaving one for training).

Validation unit (``val_unit``):

- ``split`` (default): the validation rows the split draws, as above.
- ``kernel``: whole kernels. The split's own validation rows train, and ``val_fraction`` of the kernels that
  still have training rows give every one of their rows to validation, test rows included (under
  ``unseen_launch`` their test launches would otherwise be launches of a kernel never trained on). What a
  validation metric then rewards is carrying over to kernels not trained on, not fitting the training kernels'
  other launches: v14 (BENCHMARKS.md section 42) trained to convergence on the latter and lost accuracy on code
  from elsewhere.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from kgraph.errors import UsageError

SPLITS = ("random", "unseen_launch", "leave_kernel_out", "leave_family_out", "leave_device_out",
          "generated_to_written", "written_to_generated")
#: kernel ids of the program generator (kgraph.data.generator) start with this
GENERATED_PREFIX = "gen."


#: shares held out of each split unit, defined once: the DataModule's defaults, which conf/split/*.yaml,
#: the compact-head training and the baselines inherit
VAL_FRACTION = 0.1
TEST_FRACTION = 0.2
#: what a validation set holds out (see the module docstring)
VAL_UNITS = ("split", "kernel")


def to_splits(table: pd.DataFrame, split: str, val_fraction: float, test_fraction: float,
              seed: int, test_devices: list[str] | None = None, val_unit: str = "split") -> dict[str, np.ndarray]:
    """Row indices of ``train``, ``val`` and ``test`` (sorted) for one of :data:`SPLITS`, validation by
    ``val_unit`` (:data:`VAL_UNITS`)."""
    if split not in SPLITS:
        raise UsageError(f"--data.split: unknown split '{split}' (choose from {', '.join(SPLITS)})")
    if val_unit not in VAL_UNITS:
        raise UsageError(f"--data.val_unit: unknown unit '{val_unit}' (choose from {', '.join(VAL_UNITS)})")
    rng = np.random.default_rng(seed)
    n = len(table)
    role = np.zeros(n, dtype=np.int8)  # 0 train, 1 val, 2 test

    def hold_out(values: np.ndarray, candidates: np.ndarray) -> None:
        """Hold out whole groups among the rows ``candidates``; ``values`` are those rows' group names."""
        names = np.unique(values)  # sorted
        rng.shuffle(names)
        g = len(names)
        n_test = min(max(1, round(g * test_fraction)) if test_fraction > 0 else 0, max(g - 1, 0))
        n_val = min(max(1, round(g * val_fraction)) if val_fraction > 0 else 0, max(g - 1 - n_test, 0))
        role[candidates[np.isin(values, names[:n_test])]] = 2
        role[candidates[np.isin(values, names[n_test:n_test + n_val])]] = 1

    if split == "random":
        order = rng.permutation(n)
        n_test, n_val = round(n * test_fraction), round(n * val_fraction)
        role[order[:n_test]], role[order[n_test:n_test + n_val]] = 2, 1
    elif split == "leave_kernel_out":
        hold_out(table["kernel_id"].to_numpy(object), np.arange(n))
    elif split == "leave_family_out":
        hold_out(table["family"].to_numpy(object), np.arange(n))
    elif split == "unseen_launch":
        config = table["kernel_id"].astype(str) + "|" + table["sizes"].astype(str) + "|" + table["g0"].astype(str)
        for c in ("g1", "g2", "l0", "l1", "l2"):
            config = config + "," + table[c].astype(str)
        config = config.to_numpy(object)
        kernels, owner = np.unique(table["kernel_id"].to_numpy(object), return_inverse=True)  # sorted kernels
        order = np.argsort(owner, kind="stable")  # every kernel's rows together, in row order
        bounds = np.searchsorted(owner[order], np.arange(len(kernels) + 1))
        for k in range(len(kernels)):
            rows = order[bounds[k]:bounds[k + 1]]
            hold_out(config[rows], rows)
    elif split in ("generated_to_written", "written_to_generated"):
        generated = table["kernel_id"].astype(str).str.startswith(GENERATED_PREFIX).to_numpy()
        train_side = generated if split == "generated_to_written" else ~generated
        if not train_side.any() or train_side.all():
            raise UsageError(f"--data.split {split}: needs both generated (gen.*) and hand-written kernels in "
                             "data.datasets (e.g. data/datasets/generated-nvidia-h200 and nvidia-h200)")
        role[~train_side] = 2
        kernels = table["kernel_id"].astype(str)
        names = np.array(sorted(kernels[train_side].unique()))
        rng.shuffle(names)
        n_val = max(1, round(len(names) * val_fraction)) if val_fraction > 0 else 0
        role[train_side & kernels.isin(names[:n_val]).to_numpy()] = 1
    else:
        devices = sorted(table["device_id"].unique())
        if not test_devices or set(test_devices) - set(devices):
            raise UsageError(f"--data.test_devices: leave_device_out needs held-out devices among "
                             f"the loaded ones ({', '.join(devices)}); got {test_devices or 'none'}")
        test = table["device_id"].isin(test_devices).to_numpy()
        role[test] = 2
        rest = rng.permutation(np.flatnonzero(~test))
        role[rest[:round(len(rest) * val_fraction)]] = 1
    if val_unit == "kernel":
        _kernel_validation(table["kernel_id"].astype(str).to_numpy(), role, val_fraction,
                           np.random.default_rng([seed, 1]))
    return {name: np.flatnonzero(role == r) for r, name in enumerate(("train", "val", "test"))}


def _kernel_validation(kernels: np.ndarray, role: np.ndarray, val_fraction: float, rng) -> None:
    """Whole kernels as the validation set, in place on ``role`` (0 train, 1 val, 2 test): the split's own
    validation rows train; ``val_fraction`` of the kernels with training rows (at least one, leaving one to
    train on) give all their rows to validation."""
    role[role == 1] = 0
    names = np.unique(kernels[role == 0])  # sorted, then shuffled by the seed
    rng.shuffle(names)
    n_val = min(max(1, round(len(names) * val_fraction)), len(names) - 1) if val_fraction > 0 else 0
    role[np.isin(kernels, names[:n_val])] = 1


