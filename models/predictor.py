"""Load the shipped default model (``models/default/``) and predict launches on CPU.

``models/default/`` (no pickle anywhere):

- ``model.safetensors`` — the :class:`kgraph.models.kgraph_model.KGraphModel` state dict (normalisation
  buffers included; a frozen token encoder's weights are not duplicated here, they live in ``lm/``);
- ``config.json`` — ``format``, ``arch`` (``ModelConfig`` as a dict, graph vocabulary sizes resolved),
  ``feature_names``, ``vocab_version`` (graph vocabulary the model was trained with), ``devices``
  (device_id -> ``device.json`` of the training devices, so ``--device`` works without datasets),
  ``source`` (checkpoint, training datasets, metrics when known), ``warp_atomics`` (true: trained on features that
  count a warp-uniform atomic once per warp on GPUs; absent in models made before session 23, which read it per
  lane);
- ``lm/`` — the token encoder's Hugging Face directory (only when the model uses tokens).

Write it from a Lightning checkpoint with::

    python -m kgraph.models.predictor --from-ckpt runs/.../best.ckpt --out models/default [--datasets DIR ...]

Launches come from :mod:`kgraph.models.launches` (validated when made, before any model is loaded); the
model directory's files are read and checked by :mod:`kgraph.models.model_files` (re-exported here).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from kgraph.errors import KGraphError, ModelError, module_main
from kgraph.models.launches import Launch, static_footprints, to_tables, with_static_footprint
from kgraph.models.model_files import (  # noqa: F401 - re-exported: the loaders' old home
    FORMAT, INTERVAL_FILE, MAX_BYTES, MAX_HEADER_BYTES, REPAIR, SAFETENSORS_DTYPES, _arch_of, _build_model,
    _load_tensors, check_config, check_tensor_shapes, load_interval_head, missing_model_message, read_config,
    read_tensor_header)
from kgraph.models.model_from_ckpt import from_checkpoint  # noqa: F401 - re-exported: its CLI is this module's
from kgraph.models.shipped import DEFAULT_DIR

def _hardware_columns() -> tuple[list[int], list[int]]:
    """(positions of the ``hw_`` columns among ``feature_names()``, each one's position in the descriptor's
    feature vector, :data:`~kgraph.data.harness.descriptor.DEVICE_FEATURES`)."""
    from kgraph.data.features import feature_names
    from kgraph.data.harness.descriptor import DEVICE_FEATURES

    names = feature_names()
    columns = [i for i, n in enumerate(names) if n.startswith("hw_") and n[3:] in DEVICE_FEATURES]
    return columns, [DEVICE_FEATURES.index(names[i][3:]) for i in columns]


class Predictor:
    """The default model, ready to predict.

    Args:
        model: a :class:`KGraphModel` in eval mode.
        config: the ``config.json`` dict.
        directory: where it was loaded from.
    """

    def __init__(self, model, config: dict, directory: Path, interval=None):
        self.model, self.config, self.directory = model, config, Path(directory)
        #: clip a device's hardware vector to the training devices' range (:meth:`hardware_range`)
        self.clamp_hardware = True
        self._hw_range: tuple | None | bool = False  # hardware_range(), made once (False: not yet)
        self.interval = interval  # a code-free compact head whose spreads give the time interval, or None
        self.tokenizer = None
        self.code_lm = None  # (LM, tokenizer) whose vectors the graph encoder reads (graph.lm_dim > 0)
        if model.config.use_graph and model.config.graph.lm_dim:
            from kgraph.models.code_lm.graph_features import load_lm

            try:
                self.code_lm = load_lm(model.config.graph.lm_path)
            except KGraphError as exc:
                raise ModelError(f"{self.directory}: the code LM of its graph encoder cannot be loaded ({exc}); "
                                 f"{REPAIR}") from None
        if model.config.use_tokens:
            from kgraph.data.graph_dataset import load_tokenizer

            try:
                self.tokenizer = load_tokenizer(model.config.tokens.path)
            except (OSError, ValueError) as exc:
                raise ModelError(f"{self.directory / 'lm'}: the token encoder's tokenizer cannot be loaded "
                                 f"({str(exc)[:200]}); {REPAIR}") from None

    @classmethod
    def from_directory(cls, directory: str | Path = DEFAULT_DIR) -> "Predictor":
        """Load ``model.safetensors`` + ``config.json``; :class:`ModelError` naming the file and what is
        wrong when either is absent, truncated, damaged or of another model (:func:`read_config`,
        :func:`read_tensor_header`, :func:`check_tensor_shapes`).

        Args:
            directory: a default-model directory.
        """
        import torch

        d = Path(directory)
        if not (d / "model.safetensors").is_file() or not (d / "config.json").is_file():
            raise ModelError(missing_model_message(d))
        config = read_config(d)
        stored = read_tensor_header(d / "model.safetensors")
        arch = _arch_of(config, d)
        torch.set_num_threads(max(1, min(4, torch.get_num_threads())))
        frozen = "token_encoder.encoder." if arch.use_tokens and arch.tokens.freeze else None
        # built on the CPU directly (a few MB; a dry run on the meta device would import torch._dynamo,
        # 1.5 s of a cold `kgraph estimate`), its shapes checked before the weights are read
        model = _build_model(arch, config, d)
        check_tensor_shapes(model, stored, d, frozen)
        model.load_state_dict(_load_tensors(d / "model.safetensors"), strict=False)
        interval = load_interval_head(d / INTERVAL_FILE) if (d / INTERVAL_FILE).exists() else None
        return cls(model.eval(), config, d, interval)

    @property
    def devices(self) -> dict[str, dict]:
        return dict(self.config.get("devices", {}))

    @property
    def trained_on(self) -> list[str]:
        """Device ids whose measured launches the model was trained on (others are extrapolation)."""
        return list(self.config.get("trained_on", []))

    def hardware_range(self) -> tuple | None:
        """``(columns, lo, hi)``: the positions of the ``hw_`` columns among ``feature_names()``, and the least and
        greatest value each takes over the devices the model was trained on (their descriptors in
        ``config.json``); None when the model names no such device. A device outside that range (a GPU twice
        as fast as any trained on, a 2-core CPU) is given to the network clipped to it, so the efficiencies it
        predicts are those of the nearest devices it knows, while the floors keep the device's own roofline:
        extrapolated, the network had priced the generated-only split's unseen EPYC at 68× its time
        (BENCHMARKS.md section 44). Computed once."""
        if self._hw_range is False:
            from kgraph.data.harness.descriptor import to_feature_vector

            columns, positions = _hardware_columns()
            vectors = [to_feature_vector(self.devices[d]) for d in self.trained_on if d in self.devices]
            values = np.asarray(vectors, dtype=np.float64)[:, positions] if vectors and columns else None
            self._hw_range = None if values is None else (np.array(columns), values.min(0), values.max(0))
        return self._hw_range

    def outside_range(self, descriptor: dict) -> list[str]:
        """The hardware features (``hw_`` names) in which ``descriptor`` lies outside the trained devices' range,
        each as ``name=value [lo, hi]``; [] inside it or when the model is not clipping."""
        from kgraph.data.features import feature_names
        from kgraph.data.harness.descriptor import to_feature_vector

        clip = self.hardware_range() if self.clamp_hardware else None
        if clip is None:
            return []
        names, (columns, lo, hi) = feature_names(), clip
        values = np.asarray(to_feature_vector(descriptor), dtype=np.float64)[_hardware_columns()[1]]
        return [f"{names[c]}={v:.3g} [{a:.3g}, {b:.3g}]"
                for c, v, a, b in zip(columns, values, lo, hi) if not a - 1e-9 <= v <= b + 1e-9]

    def range_warning(self, descriptor: dict) -> list[str]:
        """The warning ``kgraph estimate`` gives a launch on ``descriptor`` when it lies outside the trained devices'
        range (:meth:`outside_range`); [] inside it."""
        outside = self.outside_range(descriptor)
        if not outside:
            return []
        return [f"device {descriptor.get('device_id')} lies outside the trained devices' range in "
                f"{', '.join(outside)}; the model reads it clipped to that range (its floors are its own)"]

    def predict(self, launches: list[Launch], exact: list[bool] | None = None,
                assumed: list[bool] | None = None) -> list[dict]:
        """Predictions per launch: ``time_ns, floor_ns, bandwidth_gbs, dram_bw_gbs, footprint_bytes,
        footprint_source, flops, bytes, bound, bound_probability`` (natural units, the model's log outputs
        inverted; the footprint is the exact static one where the analysis proves it) and the ends of the
        time interval ``time_lo_ns, time_hi_ns`` (:data:`~kgraph.data.targets.TIME_INTERVAL`; None when
        the model directory has no ``interval.pt``). Each distinct kernel's static footprint is analysed
        once and serves both the DRAM floor and the output. ``exact`` (per launch: are its counts exact,
        ``kgraph.exact_counts``) picks each launch's interval margin where the interval head has a margin by
        exactness (:meth:`interval_margins`); without it, every launch takes the head's one margin. ``assumed`` (per
        launch: does it read a loop at an assumed trip count) puts those launches in the head's assumed group, where
        it has one."""
        from kgraph.data.floors import device_rates

        footprints = static_footprints(launches)
        margins = self.interval_margins(exact, len(launches), assumed)
        predictions, start = [], 0
        for inputs in self.featurise(launches, footprints=footprints):
            n = len(inputs[2])
            predictions += self.forward(inputs, None if margins is None else margins[start:start + n])
            start += n
        out = with_static_footprint(launches, predictions, footprints, in_place=True)  # forward's dicts are ours
        per_device: dict = {}  # each device's rates, derived once per call
        for launch, pred in zip(launches, out):
            # DRAM-side bandwidth: the traffic the footprint forces past the last-level cache ÷ time
            rates = per_device.get(id(launch.device))
            if rates is None:
                rates = per_device[id(launch.device)] = device_rates(launch.device)
            pred["dram_bw_gbs"] = max(pred["footprint_bytes"] - rates["cache"], 0.0) / pred["time_ns"]
        return out

    def interval_margins(self, exact: list[bool] | None, n: int,
                         assumed: list[bool] | None = None) -> np.ndarray | None:
        """:func:`kgraph.models.model_files.margins_of` of the interval head's margins by group (None without one)."""
        from kgraph.models.model_files import margins_of

        return margins_of(getattr(self.interval, "margins_by_exactness", None), exact, n, assumed)

    def featurise(self, launches: list[Launch], chunk: int = 8192, footprints: list | None = None) -> list[tuple]:
        """Model inputs ``(graphs, tokens, source_index, features, floors, interval_x)`` per chunk of
        ``chunk`` launches (CPU tensors; graphs and tokens once per distinct kernel of the chunk). The
        feature columns are the model's own (``config.json``'s ``feature_names``), picked by name from
        today's features; ``floors`` Float[B, K] are the launch's physical floors in ns
        (:mod:`kgraph.data.floors`); ``interval_x`` Float[B, in_dim] the interval head's inputs, picked
        from the same feature rows (None without an interval head)."""
        import torch

        from kgraph.data.features import WARP_ATOMICS_KEY, feature_names, to_launch_features
        from kgraph.data.floors import FLOORS, launch_floors_ns

        names = feature_names()
        missing = [n for n in self.config["feature_names"] if n not in names]
        if missing:
            raise ModelError(f"{self.directory}: the model reads feature(s) {missing[:3]} this kgraph does not make")
        columns = np.array([names.index(n) for n in self.config["feature_names"]])
        interval_columns = None
        if self.interval is not None:
            wanted = [*self.interval.config.launch_names, *self.interval.config.device_names]
            absent = [n for n in wanted if n not in names]
            if absent:
                raise ModelError(f"{self.directory / INTERVAL_FILE}: the interval head reads feature(s) {absent[:3]} "
                                 f"this kgraph does not make")
            interval_columns = np.array([names.index(n) for n in wanted])
        floor_columns = np.array([names.index(f"floor_{n}") for n in FLOORS])
        footprints = footprints if footprints is not None else [None] * len(launches)
        out = []
        for start in range(0, len(launches), chunk):
            rows, sources, devices, kernels = to_tables(launches[start:start + chunk], footprints[start:start + chunk])
            full = to_launch_features(rows, sources, devices, bool(self.config.get(WARP_ATOMICS_KEY, False)))
            clip = self.hardware_range() if self.clamp_hardware else None
            if clip is not None:  # the network sees at most the trained devices' range; the floors are the device's
                cols, lo, hi = clip
                full[:, cols] = np.clip(full[:, cols], lo, hi)
            features = torch.from_numpy(full[:, columns])
            # a launch of fewer work-groups than compute units has only that share of the FLOP peak: its
            # FLOP floors scaled up (the model's own floor features stay device-wide, as in training)
            units = {d: float(devices[d].get("compute_units") or "nan") for d in devices}  # once per device
            floors = launch_floors_ns(full[:, floor_columns], np.stack([rows[f"g{d}"] for d in range(3)], 1),
                                      np.stack([rows[f"l{d}"] for d in range(3)], 1),
                                      [units[d] for d in rows["device_id"].tolist()])
            graphs = tokens = None
            if self.model.config.use_graph:
                from kgraph.pyg import GraphBatch, graph_tensors

                # the values of torch_geometric's Batch.from_data_list, without importing it
                graphs = GraphBatch.from_tensors([graph_tensors(k.graph) for k in kernels])
                if self.code_lm is not None:
                    graphs.lm_pooled, graphs.lm = self.lm_vectors(kernels)
            if self.tokenizer is not None:
                enc = self.tokenizer([k.source for k in kernels], truncation=True, padding=True,
                                     max_length=self.model.config.tokens.max_length, return_tensors="pt")
                tokens = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
            interval_x = torch.from_numpy(full[:, interval_columns]) if interval_columns is not None else None
            out.append((graphs, tokens, torch.tensor(rows["kernel_index"].to_numpy(np.int64)), features, floors,
                        interval_x))
        return out

    def lm_vectors(self, kernels) -> tuple:
        """(pooled Float[U, H], nodes Float[N, H]) of U kernels: the code LM over each kernel's translation
        unit, each graph node the mean state of the tokens over its byte span (as ``kgraph lm embed``)."""
        import torch

        from kgraph.models.code_lm.embed import embed
        from kgraph.models.code_lm.graph_features import unit_text

        model, tok = self.code_lm
        pairs = [embed(model, tok, unit_text(k.graph), list(zip(k.graph.columns.start, k.graph.columns.end)))
                 for k in kernels]
        return torch.stack([p for p, _ in pairs]), torch.cat([n for _, n in pairs])

    def forward(self, inputs: tuple, margins: np.ndarray | None = None) -> list[dict]:
        """Predictions (as :meth:`predict`) of one chunk of :meth:`featurise`, run on the model's device;
        ``margins`` Float[B] or Float[B, 2]: each launch's interval margin (ln; or its lower and upper margins) in place
        of the interval head's one margin."""
        import torch

        from kgraph.data.targets import BOUND_CLASSES, TIME_INTERVAL, natural_outputs
        from kgraph.data.floors import FLOORS

        device = next(self.model.parameters()).device
        graphs, tokens, index, features, floors, interval_x = inputs
        graphs = graphs.to(device) if graphs is not None else None
        tokens = {k: v.to(device) for k, v in tokens.items()} if tokens is not None else None
        with torch.inference_mode():
            pred = self.model(graphs, tokens, index.to(device), features.to(device))
        reg = pred.regression().float().cpu().numpy()
        prob = torch.softmax(pred.bound_logits.float(), -1).cpu().numpy()
        natural = natural_outputs(reg)  # keys and inverses of the targets table: time_ns, bandwidth_gbs, ...
        if len(index):
            # never below the launch's largest floor: the bounded head keeps above the device-wide floors it
            # reads; the work-group share can raise the FLOP floors past them (bandwidth = bytes / time follows)
            time = np.asarray(natural["time_ns"], dtype=np.float64)
            raised = np.maximum(time, floors.max(1))
            if (raised > time).any():
                natural = {**natural, "time_ns": raised}
                if "bandwidth_gbs" in natural:
                    natural["bandwidth_gbs"] = np.asarray(natural["bandwidth_gbs"], dtype=np.float64) * time / raised
        # whole columns at once (the same Python floats as element by element)
        n = len(index)
        columns = {k: np.asarray(v).tolist() for k, v in natural.items()}
        classes = prob.argmax(1) if n else np.zeros(0, dtype=np.int64)
        probability = prob[np.arange(n), classes].tolist()
        floor_max = floors.max(1).tolist() if n else []
        floor_arg = floors.argmax(1).tolist() if n else []
        lo_key, hi_key = TIME_INTERVAL.keys
        if interval_x is not None:
            # the interval head's spreads (calibrated on unseen families) carried over to this model's time,
            # the lower end never below the physical floor
            with torch.inference_mode():
                offsets = self.interval.interval_offsets(interval_x.float(), margin=margins is None).double().numpy()
            if margins is not None:  # the head's formula with each launch's margins: ends never cross the point
                pair = np.asarray(margins, dtype=np.float64).reshape(len(offsets), -1)  # [B, 1] or [B, 2]
                offsets = np.stack([np.minimum(offsets[:, 0] - pair[:, 0], 0.0),
                                    np.maximum(offsets[:, 1] + pair[:, -1], 0.0)], 1)
            time = np.asarray(natural["time_ns"], dtype=np.float64)
            columns[lo_key] = np.maximum(time * np.exp(offsets[:, 0]), floors.max(1) if n else time).tolist()
            columns[hi_key] = (time * np.exp(offsets[:, 1])).tolist()
        else:
            columns[lo_key] = columns[hi_key] = [None] * n
        # each launch's dict made once from one row of every column, the model's keys first (a repeated key
        # keeps its first place and takes the last value, as a dict literal's does)
        columns.update({"floor_ns": floor_max, "floor": [FLOORS[a] for a in floor_arg],
                        "bound": [BOUND_CLASSES[c] for c in classes.tolist()], "bound_probability": probability})
        names = list(columns)
        return [dict(zip(names, row)) for row in zip(*columns.values())]


def resolve_device(name: str, known: dict[str, dict] | None = None) -> dict:
    """A device descriptor from ``--device``: a ``device.json`` file (or its dataset directory), else a
    device id or unique case-insensitive part of one (``h200``) among ``known`` (the model's training
    devices) and the datasets under ``data/datasets/``. A part that several ids contain names the one it
    ends as a whole word, when just one does (``h200`` is ``nvidia-h200``, not ``nvidia-h200-4gpu-host``)."""
    from kgraph.data import datasets_dir
    from kgraph.data.harness.descriptor import load_descriptor
    from kgraph.errors import UsageError

    path = Path(name)
    if path.is_file() or (path.is_dir() and (path / "device.json").is_file()):
        return load_descriptor(path)
    candidates = dict(known or {})
    for d in sorted(datasets_dir().glob("*/device.json")):
        try:  # by the device it describes, not the folder's name (holdout-nvidia-h200 is the nvidia-h200)
            device_id = json.loads(d.read_text()).get("device_id") or d.parent.name
        except (ValueError, UnicodeDecodeError, AttributeError):
            device_id = d.parent.name
        candidates.setdefault(str(device_id), d)
    if name in candidates:
        matches = [name]
    else:
        matches = [k for k in candidates if name.lower() in k.lower()]
        ending = [k for k in matches if k.lower().endswith("-" + name.lower())]
        matches = ending if len(matches) > 1 and len(ending) == 1 else matches
    if len(matches) != 1:
        why = "matches several devices" if matches else "is neither a descriptor file nor a known device"
        raise UsageError(f"--device {name}: {why} (known: {', '.join(sorted(matches or candidates)) or 'none'}; "
                         "or give a device.json path)")
    found = candidates[matches[0]]
    return load_descriptor(found) if isinstance(found, Path) else found


# ------------------------------------------------------------------------------------ converter
def add_arguments(parser) -> None:
    """The options of ``kgraph ship-model`` and ``python -m kgraph.models.predictor``.

    Args:
        parser: the argparse parser to fill.
    """
    parser.add_argument("--from-ckpt", required=True, nargs="+", metavar="CKPT",
                        help="Lightning checkpoint of `kgraph fit`; several of one architecture (seeds) make an "
                        "ensemble, averaged in log space")
    parser.add_argument("--out", default=str(DEFAULT_DIR), help="output directory (default models/default)")
    parser.add_argument("--half", action="store_true", help="store the weights as float16 (half the size)")
    parser.add_argument("--datasets", nargs="*", help="dataset dirs whose device.json to embed "
                        "(default: the checkpoint's data.datasets)")
    parser.add_argument("--trained-on", nargs="*", help="dataset dirs the checkpoint was trained on "
                        "(its data.datasets; recorded in config.json)")


def run(args) -> int:
    """Convert the checkpoint and print where it went and its size.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    ckpts = args.from_ckpt if len(args.from_ckpt) > 1 else args.from_ckpt[0]
    out = from_checkpoint(ckpts, args.out, args.datasets, args.trained_on, half=args.half)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"wrote {out} ({size / 2**20:.2f} MiB)")
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.models.predictor",
                       "convert a checkpoint into the shipped default model (safetensors + config.json)",
                       add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
