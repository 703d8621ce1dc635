"""A checkout's ``kgraph/`` completed as installed: pyproject's ``package-dir`` maps ``kgraph.parsers``,
``.data``, ``.models`` and ``.examples`` to top-level folders, so the checkout's ``kgraph/`` folder alone is not the
package. Linking those folders into it (or into a copy of it) lets ``PYTHONPATH`` load another checkout's code
instead of the editable install's: how ``benchmarks.estimate_throughput --code`` measures a "before" copy and
``benchmarks/at_commit.sh`` scores a rule's baseline at a commit.

    python -m benchmarks.package_layout CHECKOUT   # links into CHECKOUT/kgraph/
"""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path


def subpackage_dirs(checkout: Path) -> dict[str, Path]:
    """``kgraph`` subpackage name -> its folder in ``checkout``, from the checkout's own pyproject ``package-dir``
    (the mapping at that commit)."""
    config = tomllib.loads((checkout / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name.split(".", 1)[1]: checkout / folder for name, folder in mapping.items()
            if name.startswith("kgraph.") and name.count(".") == 1}


def link_subpackages(checkout: Path, into: Path) -> None:
    """Link each of ``checkout``'s mapped subpackage folders into the package folder ``into`` (an entry already
    there is left as it is)."""
    for name, folder in subpackage_dirs(checkout).items():
        if folder.is_dir() and not (into / name).exists():
            (into / name).symlink_to(folder)


if __name__ == "__main__":
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "pyproject.toml").is_file():
        sys.exit("package_layout: usage: python -m benchmarks.package_layout CHECKOUT (a folder with pyproject.toml)")
    root = Path(sys.argv[1]).resolve()
    link_subpackages(root, root / "kgraph")
