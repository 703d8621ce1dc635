"""The compact head: the small network a runtime calls for every task.

A kernel's code embedding is computed once (by the full model's ``encode_code``) when the kernel is
registered; at run time only this MLP runs, on ``[code embedding ⊕ launch/size features ⊕ device
descriptor]``. Feature normalisation lives in buffers during training and is folded into the first
layer for export (:meth:`CompactHead.folded_layers`), so exported graphs take raw log-features.

Outputs (same order everywhere: torch, ONNX, C): the log targets of :data:`kgraph.data.targets.TARGETS`
(``log_time`` = ln(ns), ``log_bandwidth`` = ln(1 + MB/s), ``log_footprint``/``log_flops``/``log_bytes`` =
ln(1 + x); natural units through the table's inverses) and one logit per
:data:`kgraph.data.targets.BOUND_CLASSES` (``memory, compute, latency``). A head made with
``interval=True`` has two more raw outputs, the spreads of :data:`kgraph.data.targets.TIME_INTERVAL`
below and above the point ln(time) (:meth:`CompactHead.log_time_interval`; trained by pinball loss,
widened or narrowed by a conformal margin, see :mod:`kgraph.models.compact_interval`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from torch import Tensor, nn

from kgraph.data.targets import BOUND_CLASSES, LOG_TARGETS, TIME_INTERVAL
from kgraph.parsers.errors import ModelError

# Hidden widths per size; "base" is the default a runtime ships (see docs/RUNTIME.md).
SIZES: dict[str, tuple[int, ...]] = {
    "tiny": (16,),
    "small": (32, 32),
    "base": (64, 64),
    "large": (256, 256, 256),
}
DEFAULT_SIZE = "base"


@dataclass
class CompactConfig:
    """Shape of a compact head.

    Args:
        code_dim: width of the code embedding (the full model's ``encode_code`` output).
        launch_names: names of the launch/size features, in order (``data/features.py``).
        device_names: names of the device descriptor features, in order
            (``kgraph.data.harness.descriptor.DEVICE_FEATURES``).
        size: one of :data:`SIZES`; ``hidden`` overrides it when given.
        hidden: hidden layer widths.
        interval: two more outputs, the spreads of the time interval (:data:`TIME_INTERVAL`).
    """

    code_dim: int
    launch_names: list[str]
    device_names: list[str]
    size: str = DEFAULT_SIZE
    hidden: list[int] = field(default_factory=list)
    interval: bool = False

    def __post_init__(self) -> None:
        if not self.hidden:
            if self.size not in SIZES:
                raise ModelError(f"compact size {self.size!r} is not one of {', '.join(SIZES)}")
            self.hidden = list(SIZES[self.size])
        if self.code_dim < 0 or not self.launch_names or not self.device_names:
            raise ModelError("a compact head needs code_dim >= 0 and non-empty launch/device feature names")

    @classmethod
    def for_dataset_features(cls, code_dim: int, size: str = DEFAULT_SIZE, interval: bool = False) -> "CompactConfig":
        """The layout of :mod:`kgraph.data.features`: launch = ``LAUNCH_FEATURES + STATIC_FEATURES``,
        device = ``hardware_feature_names()`` (rows come from :func:`to_compact_inputs`)."""
        from kgraph.data.features import LAUNCH_FEATURES, STATIC_FEATURES, hardware_feature_names

        return cls(code_dim, [*LAUNCH_FEATURES, *STATIC_FEATURES], hardware_feature_names(), size, interval=interval)

    @property
    def in_dim(self) -> int:
        return self.code_dim + len(self.launch_names) + len(self.device_names)

    @property
    def out_dim(self) -> int:
        return len(LOG_TARGETS) + len(BOUND_CLASSES) + (2 if self.interval else 0)


class CompactHead(nn.Module):
    """MLP from concatenated raw features to the log targets and bound logits.

    Args:
        config: a :class:`CompactConfig`.

    Shapes:
        - input ``x``: ``[B, code_dim + n_launch + n_device]`` raw (unnormalised) features, in the
          order code embedding, launch features, device features.
        - output: ``(log_targets [B, 5], bound_logits [B, 3])``; :meth:`log_time_interval`: ``[B, 2]``.
    """

    def __init__(self, config: CompactConfig):
        super().__init__()
        self.config = config
        dims = [config.in_dim, *config.hidden, config.out_dim]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.register_buffer("feature_mean", torch.zeros(config.in_dim))
        self.register_buffer("feature_std", torch.ones(config.in_dim))
        # Target normalisation is folded into the last layer the same way.
        self.register_buffer("target_mean", torch.zeros(len(LOG_TARGETS)))
        self.register_buffer("target_std", torch.ones(len(LOG_TARGETS)))
        if config.interval:  # the conformal margin added to both spreads (ln units), set by calibration
            self.register_buffer("interval_margin", torch.zeros(()))

    def set_normalization(self, features: Tensor, targets: Tensor | None = None) -> None:
        """Fix the feature (and target) statistics from training data; NaN targets are ignored."""
        self.feature_mean.copy_(features.mean(0))
        std = features.std(0, unbiased=False)
        # a feature constant in training gets scale 1, not ~0: a different value at test time (a kernel
        # without static counts) must not be amplified a millionfold into a runaway prediction
        self.feature_std.copy_(torch.where(std > 1e-6, std, torch.ones_like(std)))
        if targets is not None:
            for j in range(targets.shape[1]):
                col = targets[:, j][~torch.isnan(targets[:, j])]
                if col.numel() > 1:
                    self.target_mean[j] = col.mean()
                    self.target_std[j] = col.std(unbiased=False).clamp_min(1e-6)

    def _raw(self, x: Tensor) -> Tensor:
        """The last layer's outputs ``[B, out_dim]`` (targets still normalised)."""
        h = (x - self.feature_mean) / self.feature_std           # [B, in_dim]
        for i, layer in enumerate(self.layers):
            h = layer(h)
            if i < len(self.layers) - 1:
                h = torch.relu(h)
        return h

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return self._outputs(self._raw(x))

    def _outputs(self, h: Tensor) -> tuple[Tensor, Tensor]:
        """``(log_targets [B, 5], bound_logits [B, 3])`` of the last layer's outputs ``h``."""
        n, c = len(LOG_TARGETS), len(BOUND_CLASSES)
        return h[:, :n] * self.target_std + self.target_mean, h[:, n:n + c]

    def log_time_interval(self, x: Tensor, margin: bool = True) -> Tensor:
        """``[B, 2]``: ln(time) at the lower and upper end of :data:`TIME_INTERVAL`.

        ``lo = point - max(softplus(a) * s + m, 0)`` and ``hi = point + max(softplus(b) * s + m, 0)`` with
        ``a, b`` the two extra outputs, ``s`` the ln(time) standard deviation of the training targets and
        ``m`` the conformal margin (left out with ``margin=False``, as in training): the ends never cross
        the point.
        """
        point, offsets = self._interval_parts(self._raw(x), margin)
        return point[:, None] + offsets

    def interval_offsets(self, x: Tensor, margin: bool = True) -> Tensor:
        """``[B, 2]``: the ends of :meth:`log_time_interval` relative to the head's own point ln(time)
        (``<= 0``, ``>= 0``), to carry the interval over to another model's point prediction; without the
        conformal margin when ``margin`` is False (to calibrate a margin for another model's errors)."""
        return self._interval_parts(self._raw(x), margin)[1]

    def _interval_parts(self, h: Tensor, margin: bool) -> tuple[Tensor, Tensor]:
        if not self.config.interval:
            raise ModelError("this compact head has no interval outputs (made without interval=True)")
        n, c = len(LOG_TARGETS), len(BOUND_CLASSES)
        point = h[:, 0] * self.target_std[0] + self.target_mean[0]                    # [B]
        spread = nn.functional.softplus(h[:, n + c:n + c + 2]) * self.target_std[0]  # [B, 2]
        m = self.interval_margin if margin else torch.zeros((), dtype=h.dtype)
        sign = torch.tensor([-1.0, 1.0], dtype=h.dtype)
        return point, sign * (spread + m).clamp_min(0.0)                             # [B], [B, 2]

    @torch.no_grad()
    def folded_layers(self, dtype: torch.dtype = torch.float32) -> list[tuple[Tensor, Tensor]]:
        """``(weight [out, in], bias [out])`` per layer with both normalisations folded in, computed in
        double and returned as ``dtype`` (float64: for products that must not lose the cancellation of a
        large folded bias, e.g. the C export's per-device projection).

        ``relu`` between layers, none after the last; the result maps raw features to raw log targets
        exactly as :meth:`forward` does (up to float rounding).
        """
        out = []
        mean, std = self.feature_mean.double(), self.feature_std.double()
        for i, layer in enumerate(self.layers):
            w, b = layer.weight.detach().double().clone(), layer.bias.detach().double().clone()
            if i == 0:
                b = b - w @ (mean / std)
                w = w / std
            if i == len(self.layers) - 1:
                n = len(LOG_TARGETS)
                w[:n] = w[:n] * self.target_std.double()[:, None]
                b[:n] = b[:n] * self.target_std.double() + self.target_mean.double()
            out.append((w.to(dtype).contiguous(), b.to(dtype).contiguous()))
        return out

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


def to_checkpoint(head: CompactHead, path: str | Path, code_table: dict[str, Tensor],
                  devices: dict[str, Tensor], metrics: dict | None = None,
                  sources: dict[str, tuple[str, str]] | None = None) -> Path:
    """Save a head with the code-embedding table (kernel name → ``[code_dim]``) and device vectors.

    ``devices`` maps a device id to its descriptor feature vector (``[n_device]``, raw values);
    ``sources`` maps kernel names to ``(source, lang)`` or ``(source, lang, function)`` when the table
    key (e.g. a corpus ``kernel_id``) is not the kernel's function name (for the C ``kgraph_features``).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({
        "kind": "kgraph-compact",
        "config": asdict(head.config),
        "state_dict": head.state_dict(),
        "code_table": {k: v.detach().float().cpu() for k, v in code_table.items()},
        "devices": {k: v.detach().float().cpu() for k, v in devices.items()},
        "metrics": metrics or {},
        "sources": {k: [str(x) for x in v] for k, v in (sources or {}).items()},
    }, path)
    return path


@dataclass
class CompactBundle:
    """What a runtime needs: the head, the code embeddings of registered kernels, device vectors."""

    head: CompactHead
    code_table: dict[str, Tensor]
    devices: dict[str, Tensor]
    metrics: dict
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)


def from_checkpoint(path: str | Path) -> CompactBundle:
    """Load a checkpoint written by :func:`to_checkpoint`; raises :class:`ModelError` if it is not one."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{path}: no such checkpoint file")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for corrupt files
        raise ModelError(f"{path}: not a readable torch checkpoint ({exc.__class__.__name__}: {exc})") from None
    if not isinstance(blob, dict) or blob.get("kind") != "kgraph-compact":
        raise ModelError(f"{path}: not a kgraph compact-head checkpoint (write one with kgraph.models.compact.to_checkpoint)")
    head = _head_of(blob, path)
    for key in ("code_table", "devices"):
        if not isinstance(blob.get(key), dict) or not all(isinstance(v, torch.Tensor) for v in blob[key].values()):
            raise ModelError(f"{path}: the checkpoint's '{key}' is not a dict of tensors")
    for name, emb in blob["code_table"].items():
        if emb.shape != (head.config.code_dim,):
            raise ModelError(f"{path}: code embedding of {name!r} has shape {tuple(emb.shape)}, "
                             f"expected ({head.config.code_dim},)")
    for name, vec in blob["devices"].items():
        if vec.shape != (len(head.config.device_names),):
            raise ModelError(f"{path}: device vector of {name!r} has shape {tuple(vec.shape)}, "
                             f"expected ({len(head.config.device_names)},)")
    sources = {k: tuple(v) for k, v in blob.get("sources", {}).items()}
    return CompactBundle(head, dict(blob["code_table"]), dict(blob["devices"]), blob.get("metrics", {}), sources)


def _head_of(blob: dict, path: Path) -> CompactHead:
    """The head of a checkpoint dict; ModelError naming what does not fit (keys, shapes)."""
    config = blob.get("config")
    known = set(CompactConfig.__dataclass_fields__)
    if not isinstance(config, dict) or not isinstance(blob.get("state_dict"), dict):
        raise ModelError(f"{path}: the checkpoint has no 'config' or 'state_dict' dict")
    unknown = sorted(set(map(str, config)) - known)
    if unknown:
        raise ModelError(f"{path}: unknown compact-head config key(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(known))})")
    try:
        head = CompactHead(CompactConfig(**config))
        head.load_state_dict(blob["state_dict"])
    except (TypeError, ValueError, RuntimeError) as exc:  # missing keys, wrong types, mismatched shapes
        raise ModelError(f"{path}: the checkpoint's config and weights do not fit ({exc.__class__.__name__}: "
                         f"{str(exc).splitlines()[0]})") from None
    return head.eval()


def to_compact_inputs(features, code: Tensor | None = None, config: CompactConfig | None = None) -> Tensor:
    """Rows of :func:`kgraph.data.features.to_launch_features` (columns ``feature_names()``) reordered to the
    compact head's ``[code, launch, static, hw]``, picked by name: ``config``'s own ``launch_names`` and
    ``device_names`` (a head made before today's layout keeps its inputs), else today's layout
    (:meth:`CompactConfig.for_dataset_features`, for a new head); columns outside it (``floor_*``) are left
    out; ``code`` is ``[N, code_dim]`` (None: code_dim 0)."""
    from kgraph.data.features import LAUNCH_FEATURES, STATIC_FEATURES, feature_names, hardware_feature_names

    f = torch.as_tensor(features, dtype=torch.float32)
    names = feature_names()
    wanted = ([*config.launch_names, *config.device_names] if config is not None
              else [*LAUNCH_FEATURES, *STATIC_FEATURES, *hardware_feature_names()])
    missing = [n for n in wanted if n not in names]
    if missing:
        raise ModelError(f"the compact head reads feature(s) {missing[:3]} this kgraph does not make")
    parts = [f[:, [names.index(n) for n in wanted]]]
    if code is not None:
        parts.insert(0, code.float())
    return torch.cat(parts, dim=1)


def compact_loss(head: CompactHead, x: Tensor, log_targets: Tensor, bound: Tensor | None) -> Tensor:
    """Mean squared error on the normalised log targets (NaN = missing, skipped) + bound cross-entropy.

    ``bound`` holds class indices into :data:`BOUND_CLASSES` (``-1`` = unknown) or soft targets
    ``[B, 3]`` (a teacher's probabilities, for distillation).
    """
    h = head._raw(x)                                                            # [B, out_dim], one pass
    pred, logits = head._outputs(h)
    mask = ~torch.isnan(log_targets)
    err = ((pred - torch.nan_to_num(log_targets)) / head.target_std) * mask
    loss = (err ** 2).sum() / mask.sum().clamp_min(1)
    if head.config.interval:  # pinball loss of the two ends of the time interval, in normalised units
        known = mask[:, 0]
        if known.any():
            point, offsets = head._interval_parts(h[known], margin=False)
            ends = point[:, None] + offsets                                     # [K, 2]
            y = log_targets[known, 0:1]                                         # [K, 1]
            q = torch.tensor(TIME_INTERVAL.quantiles, dtype=ends.dtype)         # [2]
            diff = (y - ends) / head.target_std[0]
            loss = loss + torch.maximum(q * diff, (q - 1) * diff).sum(1).mean()
    if bound is not None:
        if bound.dim() == 2:
            loss = loss + torch.sum(-bound * torch.log_softmax(logits, -1), -1).mean()
        elif (bound >= 0).any():
            loss = loss + nn.functional.cross_entropy(logits, bound, ignore_index=-1)
    return loss


def fit_compact(head: CompactHead, x: Tensor, log_targets: Tensor, bound: Tensor | None = None, *,
                epochs: int = 200, lr: float = 3e-3, batch_size: int = 256, weight_decay: float = 1e-5,
                seed: int = 0) -> list[float]:
    """Train ``head`` on rows ``x [N, in_dim]`` → ``log_targets [N, 5]`` (+ ``bound``); returns epoch losses.

    Sets the normalisation from ``x``/``log_targets`` first. Deterministic for a given seed on CPU.
    """
    if x.shape[0] != log_targets.shape[0] or x.shape[1] != head.config.in_dim:
        raise ModelError(f"fit_compact: x is {tuple(x.shape)} and targets {tuple(log_targets.shape)}; "
                         f"expected [N, {head.config.in_dim}] and [N, {len(LOG_TARGETS)}]")
    gen = torch.Generator().manual_seed(seed)
    head.set_normalization(x, log_targets)
    with torch.no_grad():  # no evidence, no effect: an input constant in training gets zero first-layer weights
        # (its normalised value is 0 on every training row, so they would never be trained, and a kernel that
        # varies it at test time, e.g. the only family with atomics held out, would meet random weights)
        head.layers[0].weight[:, x.std(0, unbiased=False) <= 1e-6] = 0.0
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, epochs))
    head.train()
    losses = []
    for _ in range(epochs):
        perm = torch.randperm(x.shape[0], generator=gen)
        total = 0.0
        for start in range(0, x.shape[0], batch_size):
            idx = perm[start:start + batch_size]
            loss = compact_loss(head, x[idx], log_targets[idx], None if bound is None else bound[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * idx.numel()
        sched.step()
        losses.append(total / x.shape[0])
    head.eval()
    return losses


@torch.no_grad()
def distil(head: CompactHead, teacher, x: Tensor, **fit_kwargs) -> list[float]:
    """Train ``head`` to reproduce ``teacher(x) -> (log_targets [N, 5], bound_logits [N, 3])``.

    ``teacher`` is any callable on the same raw feature rows (the full model wrapped to take its
    code embedding from the first ``code_dim`` columns); its bound probabilities are the soft targets.
    """
    teacher_targets, teacher_logits = teacher(x)
    with torch.enable_grad():
        return fit_compact(head, x, teacher_targets.float(), torch.softmax(teacher_logits.float(), -1),
                           **fit_kwargs)
