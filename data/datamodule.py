"""LightningDataModule over one or more measured dataset directories (``data/datasets/<device_id>/``).

Only ``status == "ok"`` launches with a positive median time are used. Features and targets are
built once in :meth:`KGraphDataModule.setup` (see :mod:`kgraph.data.features`), graphs and tokens once per
distinct kernel (:class:`kgraph.data.graph_dataset.KernelGraphs`, cached). A batch holds each distinct
kernel of its launches once (``source_index`` maps launches to them).

Splits: :mod:`kgraph.data.splits`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal

import lightning as L
import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, Dataset
from torch_geometric.data import Batch

from kgraph.data.batch import LaunchBatch
from kgraph.data.device_descriptors import merge_descriptors
from kgraph.data.feature_cache import cached_launch_features
from kgraph.data.features import feature_names, to_targets
from kgraph.data.static_counts import KNOWN_ASSUMED, counts_exact
from kgraph.data.graph_dataset import KernelGraphs, load_tokenizer
from kgraph.data.sampling import CappedSampler, group_codes
from kgraph.data.splits import SPLITS, TEST_FRACTION, VAL_FRACTION, VAL_UNITS, to_splits
from kgraph.errors import InputError, UsageError

def read_dataset(directory: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(ok launches, sources, device descriptor) of one dataset directory.

    A folder with a ``manifest.json`` (every campaign's) is read through the dataset store: only its
    committed shards, each checked against the manifest, so an orphan or damaged shard is an
    :class:`~kgraph.errors.InputError` saying how to repair it (``kgraph dataset repair``), never a traceback
    or silently extra rows; the columns computed on read (``columns.COMPUTED_ON_READ``: bandwidth, FLOP/s,
    bound) come from the counts and ``device.json``'s roofline. A folder without one (a hand-made table) is
    read shard by shard: the derived columns it has are its own, those it lacks are computed the same way
    (:func:`~kgraph.data.harness.derived.with_derived`).
    """
    from kgraph.data.harness.derived import with_derived
    from kgraph.data.harness.descriptor import load_descriptor
    from kgraph.data.harness.store import read_launches
    from kgraph.data.harness.store_read import read_parquet

    d = Path(directory)
    shards = sorted(d.glob("launches-*.parquet"))
    if not (d / "device.json").is_file() or not (d / "sources.parquet").is_file() or not shards:
        raise InputError(f"{d}: not a measured dataset (needs device.json, sources.parquet and "
                         "launches-*.parquet; see docs/DATASETS.md)")
    device = load_descriptor(d)
    if (d / "manifest.json").is_file():
        launches = read_launches(d)
    else:
        launches = with_derived(pd.concat([read_parquet(p).to_pandas() for p in shards], ignore_index=True),
                                device["roofline"], absent_only=True)
    launches = launches[(launches["status"] == "ok") & (launches["median_time_ns"] > 0)]
    try:
        sources = pd.read_parquet(d / "sources.parquet")
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a damaged file
        raise InputError(f"{d / 'sources.parquet'}: unreadable ({exc}); repair: kgraph dataset repair {d}") from exc
    return launches.reset_index(drop=True), sources, device


class _Rows(Dataset):
    def __init__(self, rows: np.ndarray):
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> int:
        return int(self.rows[i])


class KGraphDataModule(L.LightningDataModule):
    """Measured launches joined with their kernels' graphs and tokens.

    Args:
        datasets: dataset directories (``data/datasets/<device_id>``); their ok launches are pooled.
            Required (no default dataset).
        split: one of ``random``, ``unseen_launch``, ``leave_kernel_out``, ``leave_family_out``,
            ``leave_device_out`` (see the module docstring for their exact meaning).
        val_fraction: share of the split unit held out for validation.
        test_fraction: share of the split unit held out for test (unused by leave_device_out).
        test_devices: device ids held out by ``leave_device_out``.
        seed: seed of the split and of the training order.
        batch_size: launches per batch.
        num_workers: DataLoader worker processes.
        cache_dir: where processed graphs/tokens are cached.
        with_graphs: build kernel graphs (set from ``model.arch.use_graph``).
        tokenizer: local HF model directory whose tokenizer is used, or None for no tokens (set from
            ``model.arch.tokens.path`` when ``use_tokens``).
        max_tokens: tokens kept per source (set from ``model.arch.tokens.max_length``).
        resident: build every batch on the trainer's device from tables and graphs moved there once
            (:mod:`kgraph.data.resident`) instead of DataLoader workers collating on the CPU; same batches,
            no ``num_workers`` needed. For GPUs; on a CPU trainer it is the same work without the workers.
        lm_features: file of code-LM vectors per kernel and per graph node (``kgraph lm embed``,
            :mod:`kgraph.data.lm_features`), attached to every graph as ``lm``/``lm_pooled``; for models with
            ``graph.lm_dim`` > 0.
        kernel_cap: at most this many training launches of each (kernel, device) per epoch, a new draw
            each epoch (:mod:`kgraph.data.sampling`): every kernel weighs about the same in the loss, not
            in proportion to its launch count. None: every training launch every epoch. Validation and
            test are never capped.
        train_known_counts: train only on launches whose static counts are exact (``static_known`` =
            ``KNOWN_EXACT``). A launch whose counts do not evaluate has them as 0, and one with a loop of
            data-dependent trip count has them at an assumed count (:mod:`kgraph.analysis.trips`), so neither's
            features describe its work (trained on, the assumed ones taught v23 to scale every assumed count
            up: docs/MODELS.md); validation and test keep every launch, as ``kgraph estimate`` sees them.
        train_assumed_counts: with ``train_known_counts``, also train on the launches at an assumed trip count
            (``static_known`` = ``KNOWN_ASSUMED``, one iteration of each data-dependent loop), so the model learns
            what the assumption hides; only once the training data holds early-exit loops (generator seeds from
            34 on) beside escape-time ones (docs/MODELS.md "v31").
        solved_trips: give every instrumented launch of a kernel with one data-dependent loop that loop's mean trip
            count, solved from its measured counts (:mod:`kgraph.data.solved_trips`), as a user gives it (``--arg
            trip_<line>``, ``--input``): its features then take the work it did (exact), so a recipe of exact counts
            trains on loops of variable length too. Every split's rows get it (docs/MODELS.md "v42").
        val_unit: ``split`` (the split's own validation rows) or ``kernel`` (whole kernels, so a
            validation metric and the best checkpoint reward carrying over to kernels not trained on;
            :mod:`kgraph.data.splits`).
    """

    def __init__(self, datasets: list[str] | None = None, split: str = "random",
                 val_fraction: float = VAL_FRACTION, test_fraction: float = TEST_FRACTION,
                 test_devices: list[str] | None = None, seed: int = 0, batch_size: int = 64,
                 num_workers: int = 0, cache_dir: str = "runs/cache", with_graphs: bool = True,
                 tokenizer: str | None = None, max_tokens: int = 512, resident: bool = False,
                 lm_features: str | None = None, kernel_cap: int | None = None, train_known_counts: bool = False,
                 train_assumed_counts: bool = False, val_unit: str = "split", solved_trips: bool = False):
        super().__init__()
        self.save_hyperparameters()  # datasets, split, seed, ...: in checkpoints and the logger's config
        if split not in SPLITS:
            raise UsageError(f"--data.split: unknown split '{split}' (choose from {', '.join(SPLITS)})")
        if val_unit not in VAL_UNITS:
            raise UsageError(f"--data.val_unit: unknown unit '{val_unit}' (choose from {', '.join(VAL_UNITS)})")
        for name, value in (("val_fraction", val_fraction), ("test_fraction", test_fraction)):
            if not 0 <= value < 1:
                raise UsageError(f"--data.{name}: must be in [0, 1), got {value}")
        if not datasets:  # no silent default: which measurements a model learns from is always a choice
            raise UsageError("--data.datasets: name the measured dataset directories to train on, e.g. "
                             "'[data/datasets/nvidia-h200]' (conf/model/hybrid.yaml does); the CI smoke set is "
                             "'[data/datasets/ci-tiny]' (conf/tiny.yaml)")
        self.datasets = list(datasets)
        self.split, self.seed = split, seed
        self.val_fraction, self.test_fraction = val_fraction, test_fraction
        self.test_devices = list(test_devices or [])
        self.batch_size, self.num_workers = batch_size, num_workers
        self.cache_dir, self.with_graphs = cache_dir, with_graphs
        self.tokenizer, self.max_tokens = tokenizer, max_tokens
        self.resident = resident
        self.lm_features = lm_features
        if kernel_cap is not None and kernel_cap < 1:
            raise UsageError(f"--data.kernel_cap: must be a positive launch count or null, got {kernel_cap}")
        self.kernel_cap = kernel_cap
        if train_assumed_counts and not train_known_counts:
            raise UsageError("--data.train_assumed_counts: only with --data.train_known_counts true (without it every "
                             "launch trains, those whose counts do not evaluate among them)")
        self.train_known_counts, self.train_assumed_counts = train_known_counts, train_assumed_counts
        self.val_unit, self.solved_trips = val_unit, solved_trips
        self._resident_store = None
        self.table: pd.DataFrame | None = None
        self.devices: dict[str, dict] = {}  # device_id -> the descriptor its features use (set by setup)

    @property
    def feature_names(self) -> list[str]:
        return feature_names()

    def state_dict(self) -> dict:
        """Saved in every checkpoint: the device descriptors the features were made with
        (:func:`kgraph.data.device_descriptors.merge_descriptors`), so an exported model describes each device
        by the numbers it was trained with."""
        return {"devices": self.devices} if self.devices else {}

    def setup(self, stage: str | None = None) -> None:
        if self.table is not None:
            return
        parts = [read_dataset(d) for d in self.datasets]
        launches = pd.concat([p[0] for p in parts], ignore_index=True)
        sources = pd.concat([p[1] for p in parts], ignore_index=True).drop_duplicates("source_id")
        devices = self.devices = merge_descriptors(p[2] for p in parts)
        if launches.empty:
            raise InputError(f"no ok launch in {', '.join(self.datasets)}")
        if stage in ("fit", None):
            from kgraph.data.holdout import is_holdout

            held = sorted({k for k in launches["kernel_id"].astype(str) if is_holdout(k)})
            if held:
                raise InputError(f"{', '.join(self.datasets)}: the out-of-corpus kernels ({held[0]}, ... {len(held)} "
                                 "in all, data/holdout, data/holdout2) are never trained on; give their dataset to "
                                 "`kgraph test` or benchmarks/dataset_eval.py instead")
        if self.solved_trips:
            from kgraph.data.solved_trips import cached_solved_args

            launches = launches.assign(args=cached_solved_args(self.cache_dir, launches, sources))
        kernels = launches[["source_id", "kernel_name"]].merge(sources[["source_id", "lang", "source"]],
                                                               on="source_id")
        self.graphs = KernelGraphs(self.cache_dir, kernels, self.tokenizer, self.max_tokens)
        if self.lm_features:
            from kgraph.data.lm_features import LMFeatures, attach

            attach(self.graphs.items, LMFeatures.from_file(self.lm_features), f"--data.lm_features={self.lm_features}")
        keys = launches["source_id"] + ":" + launches["kernel_name"]
        keep = keys.isin(self.graphs.index_of).to_numpy()
        self.table = launches[keep].reset_index(drop=True)
        self.item = np.array([self.graphs.index_of[k] for k in keys[keep]], dtype=np.int64)
        self.features = torch.from_numpy(cached_launch_features(self.cache_dir, self.table, sources, devices))
        targets, bound = to_targets(self.table)
        self.targets, self.bound = torch.from_numpy(targets), torch.from_numpy(bound)
        self.families = sorted(self.table["family"].unique())
        self.family = torch.tensor(pd.Categorical(self.table["family"], self.families).codes, dtype=torch.long)
        # (kernel, device) groups of the training cap, from the kernels already indexed
        self.group = (torch.from_numpy(group_codes(self.item, self.table["device_id"].to_numpy()))
                      if self.kernel_cap is not None else None)
        self.pad_id = int(load_tokenizer(self.tokenizer).pad_token_id or 0) if self.tokenizer else 0
        self.splits = to_splits(self.table, self.split, self.val_fraction, self.test_fraction,
                                self.seed, self.test_devices, self.val_unit)
        if self.train_known_counts:
            static_known = self.features[:, feature_names().index("static_known")].numpy()
            known = static_known >= KNOWN_ASSUMED if self.train_assumed_counts else counts_exact(static_known)
            self.splits["train"] = self.splits["train"][known[self.splits["train"]]]
            if not len(self.splits["train"]):
                raise InputError("--data.train_known_counts: no training launch has static counts that all evaluate")

    def _statistics(self, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = values[torch.from_numpy(self.splits["train"])].double()
        known = ~torch.isnan(v)
        count = known.sum(0).clamp(min=1)
        mean = torch.where(known, v, 0).sum(0) / count
        var = torch.where(known, (v - mean) ** 2, 0).sum(0) / count
        return mean.float(), var.sqrt().float()

    def feature_statistics(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-column mean and std of the launch features over the training split."""
        return self._statistics(self.features)

    def target_statistics(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-target mean and std (NaN-aware) of the log targets over the training split."""
        return self._statistics(self.targets)

    def collate(self, rows: list[int]) -> LaunchBatch:
        """Gather launches; each distinct kernel's graph and tokens appear once."""
        idx = torch.tensor(rows, dtype=torch.long)
        unique, inverse = np.unique(self.item[rows], return_inverse=True)
        items = [self.graphs.items[u] for u in unique]
        graphs = Batch.from_data_list(items, exclude_keys=["tokens", "key"]) if self.with_graphs else None
        tokens = None
        if self.tokenizer:
            length = max(int(d.tokens.numel()) for d in items)
            ids = torch.full((len(items), length), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(items), length), dtype=torch.long)
            for i, d in enumerate(items):
                ids[i, :d.tokens.numel()], mask[i, :d.tokens.numel()] = d.tokens, 1
            tokens = {"input_ids": ids, "attention_mask": mask}
        return LaunchBatch(graphs, tokens, torch.from_numpy(inverse.reshape(-1)).long(), self.features[idx],
                           self.targets[idx], self.bound[idx], self.family[idx], idx)

    def _loader(self, name: str, shuffle: bool):
        if self.resident:
            return self._resident_loader(name, shuffle)
        rows = self.splits[name]
        if shuffle and self.kernel_cap is not None:
            sampler = CappedSampler(self.group[torch.from_numpy(rows)], self.kernel_cap, self.seed)
            return DataLoader(_Rows(rows), batch_size=self.batch_size, sampler=sampler, collate_fn=self.collate,
                              num_workers=self.num_workers)
        return DataLoader(_Rows(rows), batch_size=self.batch_size, shuffle=shuffle,
                          collate_fn=self.collate, num_workers=self.num_workers,
                          generator=torch.Generator().manual_seed(self.seed) if shuffle else None)

    def _resident_loader(self, name: str, shuffle: bool):
        """A :class:`~kgraph.data.resident.ResidentLoader` on the trainer's device (CPU without a trainer);
        tables and graphs are moved there once and shared by every split's loader."""
        from kgraph.data.resident import ResidentGraphs, ResidentLoader

        trainer = getattr(self, "trainer", None)
        device = trainer.strategy.root_device if trainer is not None else torch.device("cpu")
        if self._resident_store is None or self._resident_store[0] != device:
            tables = {"features": self.features.to(device), "targets": self.targets.to(device),
                      "bound": self.bound.to(device), "family": self.family.to(device)}
            graphs = ResidentGraphs(self.graphs.items, device, self.pad_id)
            self._resident_store = (device, tables, graphs, torch.from_numpy(self.item).to(device))
        _, tables, graphs, item = self._resident_store
        rank, world = (trainer.global_rank, trainer.world_size) if trainer is not None else (0, 1)
        rows = torch.from_numpy(self.splits[name]).long()
        return ResidentLoader(rows, item, tables, graphs, self.batch_size, shuffle, self.with_graphs,
                              bool(self.tokenizer), self.seed, rank, world,
                              None if self.group is None else self.group[rows], self.kernel_cap)

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", shuffle=False)

    def test_dataloader(self) -> DataLoader:
        return self._loader("test", shuffle=False)

    def predict_dataloader(self) -> DataLoader:
        return self._loader("test", shuffle=False)
