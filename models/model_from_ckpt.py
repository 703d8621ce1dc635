"""A ``kgraph fit`` Lightning checkpoint (or several, one ensemble) -> a default-model directory
(``model.safetensors`` + ``config.json``, and the language models the architecture reads: ``lm/`` for a token
encoder, ``code_lm/`` for per-node code-LM vectors). The CLI is ``python -m kgraph.models.predictor --from-ckpt``;
the directory format is :mod:`kgraph.models.model_files`'s."""
from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

from kgraph.errors import ModelError
from kgraph.models.model_files import FORMAT, MAX_BYTES


def _read_checkpoint(ckpt: Path) -> tuple:
    """(arch ``ModelConfig`` with its vocabulary sizes resolved, the model's state dict, the hyper-parameters,
    the whole checkpoint dict) of a ``kgraph fit`` checkpoint, read with ``weights_only=True``."""
    import torch

    from kgraph.models.graph_encoder import resolve_vocab

    if not ckpt.is_file():
        raise ModelError(f"--from-ckpt {ckpt}: no such checkpoint")
    # weights_only: tensors and plain data only, so a crafted file cannot run code while it is read
    try:
        blob = torch.load(str(ckpt), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises UnpicklingError, RuntimeError, EOFError, ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"--from-ckpt {ckpt}: refused: not a checkpoint of plain tensors and data that loads "
                         f"with weights_only=True ({first[:200]}); only `kgraph fit` checkpoints are converted") from None
    if not isinstance(blob, dict):
        raise ModelError(f"{ckpt}: not a kgraph fit checkpoint (a {type(blob).__name__}, not a dict)")
    hp = blob.get("hyper_parameters", {})
    if "arch" not in hp or "state_dict" not in blob:
        raise ModelError(f"{ckpt}: not a kgraph fit checkpoint (no arch hyper-parameter or state_dict)")
    arch = hp["arch"]
    if isinstance(arch, dict):  # LightningCLI stores the parsed config as plain dicts
        from kgraph.models.kgraph_model import ModelConfig

        arch = ModelConfig.from_dict(arch)
    arch.graph.node_vocab_sizes, arch.graph.num_edge_types, arch.graph.num_edge_positions = resolve_vocab(arch.graph)
    state = {k[len("model."):]: v.contiguous() for k, v in blob["state_dict"].items() if k.startswith("model.")}
    return arch, state, hp, blob


def from_checkpoint(ckpt: "str | Path | list", out: str | Path, datasets: list[str] | None = None,
                    trained_on: list[str] | None = None, half: bool = False) -> Path:
    """Convert a ``kgraph fit`` Lightning checkpoint into a default-model directory; several checkpoints
    of one feature set (fits that differ in their seed, or in their architecture) into one ensemble directory
    (:mod:`kgraph.models.ensemble`: ``"ensemble": K`` in ``config.json``, and ``member_archs`` when the members'
    architectures differ).

    ``datasets``: dataset dirs whose device descriptors to embed; ``trained_on``: the dataset dirs the
    checkpoint was trained on (recorded so ``kgraph estimate`` can warn on other devices); ``half``: store
    the floating-point weights as float16 (half the bytes; the model still computes in float32).
    """
    from safetensors.torch import save_file

    from kgraph.data.features import WARP_ATOMICS_KEY, feature_names
    from kgraph.models.ensemble import MAX_MEMBERS, lead_member, member_state
    from kgraph.schema import VOCAB_VERSION

    ckpts = [Path(c) for c in (ckpt if isinstance(ckpt, (list, tuple)) else [ckpt])]
    if not 1 <= len(ckpts) <= MAX_MEMBERS:
        raise ModelError(f"--from-ckpt: give 1 to {MAX_MEMBERS} checkpoints, not {len(ckpts)}")
    read = [_read_checkpoint(c) for c in ckpts]
    names = list(read[0][2].get("feature_names") or feature_names())
    for c, (_, _, other_hp, _) in zip(ckpts[1:], read[1:]):
        if list(other_hp.get("feature_names") or feature_names()) != names:
            raise ModelError(f"--from-ckpt {c}: its feature columns differ from {ckpts[0]}'s; an ensemble's "
                             "members read the same launch features")
    archs = [dataclasses.asdict(r[0]) for r in read]
    mixed = any(a != archs[0] for a in archs[1:])
    arch, state, hp, blob = read[lead_member([r[0] for r in read])]  # its architecture is config.json's 'arch'
    if len(read) > 1:
        if any(r[0].use_tokens for r in read):
            raise ModelError("--from-ckpt: an ensemble of models with a token encoder is not supported "
                             "(each member would carry its own language model)")
        if mixed and any(r[0].use_graph and r[0].graph.lm_dim for r in read):
            raise ModelError("--from-ckpt: an ensemble of members of different architectures whose graph "
                             "encoders read code-LM vectors is not supported")
        state = member_state([r[1] for r in read])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if arch.use_tokens:
        from kgraph.resources import resolve_model_dir

        lm = resolve_model_dir(arch.tokens.path)
        if (out / "lm").exists():
            shutil.rmtree(out / "lm")
        shutil.copytree(lm, out / "lm")
        if arch.tokens.freeze:
            state = {k: v for k, v in state.items() if not k.startswith("token_encoder.encoder.")}
        arch.tokens.path = "lm"
    if arch.use_graph and arch.graph.lm_dim:
        from kgraph.models.model_files import LM_FOLDER
        from kgraph.resources import resolve_model_dir

        lm_dir = resolve_model_dir(arch.graph.lm_path)
        (out / LM_FOLDER).mkdir(exist_ok=True)
        for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"):
            if (lm_dir / name).is_file():
                shutil.copyfile(lm_dir / name, out / LM_FOLDER / name)
        arch.graph.lm_path = LM_FOLDER
    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.data.device_descriptors import read_descriptors

    trained = list(trained_on or blob.get("datamodule_hyper_parameters", {}).get("datasets", []))
    datasets = list(datasets or trained)
    trained_descriptors = [json.loads((Path(p) / "device.json").read_text()) for p in trained
                           if (Path(p) / "device.json").is_file()]
    trained_on = [d["device_id"] for d in trained_descriptors]
    # the descriptors the checkpoint's features were made with (Lightning saves the DataModule's state_dict
    # under its class name); a checkpoint from before they were recorded was made by a DataModule that kept
    # each device's last dataset's descriptor (its own roofline, not the campaigns merged into its folder since).
    # Devices it was not trained on, from the datasets.
    recorded = (blob.get(KGraphDataModule.__qualname__, {}).get("devices")
                or {d["device_id"]: {k: v for k, v in d.items() if k != "campaign_rooflines"}
                    for d in trained_descriptors})
    devices = {**read_descriptors(datasets), **recorded}
    config = {"format": FORMAT, "arch": dataclasses.asdict(arch), "feature_names": names, WARP_ATOMICS_KEY: True,
              "vocab_version": VOCAB_VERSION, "devices": devices, "trained_on": sorted(set(trained_on)),
              "source": {"checkpoint": ckpts[0].name, "datasets": datasets, "global_step": blob.get("global_step")}}
    if len(read) > 1:
        config["ensemble"] = len(read)
        if mixed:
            config["member_archs"] = archs
        config["source"]["checkpoints"] = [c.name for c in ckpts]
        config["source"]["global_steps"] = [r[3].get("global_step") for r in read]
    if half:
        state = {k: v.half() if v.is_floating_point() else v for k, v in state.items()}
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    if size > MAX_BYTES:
        print(f"warning: {out} is {size / 2**20:.1f} MiB, over the 20 MiB budget of the shipped model", file=sys.stderr)
    return out
