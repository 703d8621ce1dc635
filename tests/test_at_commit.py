"""benchmarks/at_commit.sh: a command runs on the package as it was at a commit (every kgraph.* import from that
commit's worktree, not the editable install), and the worktree is gone afterwards; misuse is one line; the throughput
benchmark's copy maps the same folders (benchmarks/package_layout.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "at_commit.sh"


def _worktrees() -> int:
    out = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True, check=True)
    return len(out.stdout.splitlines())


def test_imports_read_the_commit_and_the_worktree_goes():
    before = _worktrees()
    probe = ("import os, kgraph.analysis.patterns as p, kgraph.data as d, kgraph.models as m; "
             "print(os.getcwd()); print(p.__file__); print(d.__file__); print(m.__file__)")
    done = subprocess.run(["bash", str(SCRIPT), "HEAD", sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    cwd, *files = done.stdout.split()
    assert Path(cwd).name.startswith("kgraph_at_") and not Path(cwd).exists()
    for f in files:  # each module from the worktree (through its kgraph/ links), none from the checkout
        assert f.startswith(cwd + "/kgraph/"), f
        assert not f.startswith(str(ROOT) + "/"), f
    assert _worktrees() == before


def test_exit_status_is_the_commands():
    done = subprocess.run(["bash", str(SCRIPT), "HEAD", "bash", "-c", "exit 7"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 7


def test_misuse_is_one_line():
    done = subprocess.run(["bash", str(SCRIPT), "not-a-commit-xyz", "true"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert "'not-a-commit-xyz' is not a commit" in done.stderr
    done = subprocess.run(["bash", str(SCRIPT), "HEAD"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "usage" in done.stderr


def test_the_throughput_benchmarks_copy_maps_the_same_folders():
    """``estimate_throughput --code`` builds its copy from the same pyproject mapping (benchmarks/package_layout.py)."""
    import shutil

    from benchmarks.estimate_throughput import mapped_package
    from benchmarks.package_layout import subpackage_dirs

    root = Path(mapped_package(str(ROOT)))
    try:
        names = subpackage_dirs(ROOT)
        assert set(names) == {"parsers", "data", "models", "examples"}
        for name, folder in names.items():
            assert (root / "kgraph" / name).resolve() == folder.resolve()
        assert (root / "kgraph" / "analysis").resolve() == (ROOT / "kgraph" / "analysis").resolve()
    finally:
        shutil.rmtree(root)
