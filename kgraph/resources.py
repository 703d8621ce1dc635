"""Where kgraph's package folders are, found through the import system without importing them.

Package data (dialect queries, the shipped models, the examples, the StarPU sources) lives inside the
installed ``kgraph`` package: a source checkout maps the card's top-level folders onto it
(pyproject.toml's ``package-dir``), a wheel copies them. :func:`package_dir` answers for both, and nothing
in kgraph looks for a repository root. Locating a folder this way runs no code of that package, so a low
layer may name a higher layer's folder (a config's ``models/lm``) without importing it.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from kgraph.errors import ModelError


def package_dir(package: str) -> Path:
    """The folder of the installed package ``package`` (``"kgraph.models"``, ``"kgraph.examples"``)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"package {package} is not installed (reinstall kgraph: pip install -e .)")
    return Path(list(spec.submodule_search_locations)[0])


# the card's top-level folders, as a config names them, and the packages they are installed as
FOLDERS = {"models": "kgraph.models", "data": "kgraph.data", "examples": "kgraph.examples"}


def candidates(path: str | Path) -> list[Path]:
    """Where a path from a config may be: as given (absolute, or relative to the working directory),
    and for ``models/...``, ``data/...`` or ``examples/...`` also inside the installed package."""
    path = Path(path)
    if path.is_absolute():
        return [path]
    found = [Path.cwd() / path]
    if path.parts[0] in FOLDERS and len(path.parts) > 1:
        found.append(package_dir(FOLDERS[path.parts[0]]).joinpath(*path.parts[1:]))
    return found


def resolve_model_dir(path: str | Path) -> Path:
    """A local Hugging Face model directory (one with ``config.json``) named by ``path``.

    Raises:
        ModelError: naming every place looked at, when none holds a model.
    """
    found = candidates(path)
    for cand in found:
        if (cand / "config.json").is_file():
            return cand
    raise ModelError(
        f"token encoder: no Hugging Face model at '{path}' (looked for config.json in "
        f"{', '.join(str(c) for c in found)}); train one with `kgraph pretrain-lm --out {path}` "
        "or set model.tokens.path to a local model directory"
    )
