"""One ensemble directory from several model directories: their members side by side, averaged in log space.

    python -m kgraph.models.merge_models DIR DIR [DIR ...] --out OUT

Each input is a model directory (``models/default`` or one written by ``python -m kgraph.models.predictor``), one
model or an ensemble (:mod:`kgraph.models.ensemble`). The output holds every member of every input, in the order
given, so each *member* weighs equally: two three-member ensembles merge into six members, each model weighing half
(MODELS.md "v30": a shipped model's members beside a refit's, when the shipped model's checkpoints are gone).

What must agree, else :class:`~kgraph.errors.ModelError` names the directory and what differs: the launch feature
columns (``feature_names``) and the graph vocabulary (``vocab_version``). Members that carry a language model
(``lm/`` tokens, or a graph encoder reading code-LM vectors) are refused, as ``--from-ckpt`` refuses them.
What is taken from the first directory: ``devices`` (the descriptors the features are made with; an input's device
the first lacks is added), ``interval.pt`` when present, and the stored dtype (float16 if every input is).
``trained_on`` is the union.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from kgraph.errors import ModelError, module_main

_MEMBER = "members."


def split_members(state: dict, members: int) -> list[dict]:
    """A model directory's state dict as one state dict per member (``members.<i>.`` prefixes removed).

    Args:
        state: the tensors of ``model.safetensors``.
        members: ``config.json``'s ``ensemble`` (1: the whole state is one model).
    """
    if members < 2:
        return [dict(state)]
    out = [{} for _ in range(members)]
    for key, value in state.items():
        index, _, rest = key[len(_MEMBER):].partition(".")
        out[int(index)][rest] = value
    return out


def merge_models(directories: list[str | Path], out: str | Path) -> Path:
    """Write the ensemble of every member of ``directories`` to ``out`` (see the module docstring).

    Returns:
        ``out`` as a Path.
    """
    import torch
    from safetensors.torch import save_file

    from kgraph.models.ensemble import MAX_MEMBERS, member_state
    from kgraph.models.model_files import _load_tensors, read_config

    dirs = [Path(d) for d in directories]
    if len(dirs) < 2:
        raise ModelError(f"merge_models: give at least two model directories, not {len(dirs)}")
    out = Path(out)
    if any(d.resolve() == out.resolve() for d in dirs):
        raise ModelError(f"--out {out}: is one of the inputs; write the merge to a new directory")
    configs, states, archs = [], [], []
    for d in dirs:
        if not (d / "model.safetensors").is_file() or not (d / "config.json").is_file():
            raise ModelError(f"{d}: not a model directory (needs config.json and model.safetensors)")
        config = read_config(d)
        size = int(config.get("ensemble", 1))
        each = config.get("member_archs") or [config["arch"]] * size
        if any(a.get("use_tokens") or (a.get("use_graph") and a.get("graph", {}).get("lm_dim")) for a in each):
            raise ModelError(f"{d}: its members carry a language model; merging those is not supported")
        for field in ("feature_names", "vocab_version", "warp_atomics"):
            if configs and config.get(field) != configs[0].get(field):
                raise ModelError(f"{d}: its {field} differ from {dirs[0]}'s; an ensemble's members read the "
                                 "same launch features")
        configs.append(config)
        states += split_members(_load_tensors(d / "model.safetensors"), size)
        archs += each
    if len(states) > MAX_MEMBERS:
        raise ModelError(f"merge_models: {len(states)} members, more than an ensemble holds ({MAX_MEMBERS})")
    half = all(v.dtype == torch.float16 for s in states for v in s.values() if v.is_floating_point())
    state = member_state([{k: (v.half() if half else v.float()) if v.is_floating_point() else v
                           for k, v in s.items()} for s in states])
    first = configs[0]
    devices = {k: v for c in reversed(configs) for k, v in c["devices"].items()}
    devices.update(first["devices"])
    config = {**first, "ensemble": len(states), "devices": devices,
              "trained_on": sorted({t for c in configs for t in c.get("trained_on", [])}),
              "source": {"merged": [{"directory": str(d), "source": c.get("source", {})}
                                    for d, c in zip(dirs, configs)]}}
    config.pop("member_archs", None)
    if any(a != archs[0] for a in archs[1:]):
        config["member_archs"] = archs
    out.mkdir(parents=True, exist_ok=True)
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    if (dirs[0] / "interval.pt").is_file():
        shutil.copyfile(dirs[0] / "interval.pt", out / "interval.pt")
    return out


def add_arguments(parser) -> None:
    parser.add_argument("directories", nargs="+", metavar="DIR", help="model directories, two or more")
    parser.add_argument("--out", required=True, help="the merged directory (new)")


def run(args) -> int:
    out = merge_models(args.directories, args.out)
    members = json.loads((out / "config.json").read_text())["ensemble"]
    print(f"wrote {out}: {members} members from {len(args.directories)} directories")
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.models.merge_models",
                       "merge model directories into one ensemble (every member weighs equally)",
                       add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
