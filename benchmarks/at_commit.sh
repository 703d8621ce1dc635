#!/usr/bin/env bash
# Run a command on the package as it was at another commit: a shipping rule's baseline ("the shipped model on the
# analysis of the session's start", BENCHMARKS.md section 59) is scored by that commit's code, not today's.
# A detached worktree of REV goes into a temporary folder; its kgraph/ is completed with links to the folders REV's
# pyproject maps into the package (benchmarks/package_layout.py: parsers/, data/, models/, examples/), so that with
# PYTHONPATH on it every kgraph.* import reads REV's files, not the editable install's; the command runs there
# (relative paths are REV's tree: data/datasets, models/); the worktree is removed afterwards, whatever the command's
# exit status, which this script returns.
#   bash benchmarks/at_commit.sh REV COMMAND [ARGS...]
# e.g. bash benchmarks/at_commit.sh 8a1ba38 bash benchmarks/score_sets.sh $PWD/runs/s25/evalB shipped=models/default
# (give output paths absolute: the command's working directory is the worktree). PYTHON defaults to this checkout's
# .venv/bin/python, exported for scripts that read it.
set -u
[ "$#" -ge 2 ] || { echo "at_commit: usage: bash benchmarks/at_commit.sh REV COMMAND [ARGS...]" >&2; exit 2; }
REV=$1; shift
HERE=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "at_commit: not inside a git checkout" >&2; exit 2; }
git -C "$HERE" rev-parse --verify --quiet "$REV^{commit}" > /dev/null \
  || { echo "at_commit: '$REV' is not a commit of $HERE" >&2; exit 2; }
TREE=$(mktemp -d "${TMPDIR:-/tmp}/kgraph_at_XXXXXX")
cleanup() {
  git -C "$HERE" worktree remove --force "$TREE" > /dev/null 2>&1; rm -rf "$TREE"; git -C "$HERE" worktree prune
}
trap cleanup EXIT
git -C "$HERE" worktree add --detach --quiet "$TREE" "$REV" || exit 2
export PYTHON=${PYTHON:-$HERE/.venv/bin/python}
(cd "$HERE" && "$PYTHON" -m benchmarks.package_layout "$TREE") || exit 2  # REV's own package-dir mapping
(cd "$TREE" && PYTHONPATH="$TREE${PYTHONPATH:+:$PYTHONPATH}" "$@")
