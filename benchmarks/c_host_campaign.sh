#!/usr/bin/env bash
# The C-function campaign (kgraph.data.harness.c_campaign, launch catalog) on a many-core host.
#
#   benchmarks/c_host_campaign.sh [BUDGET_S=420] [WORKERS=12] [CPUS=2-13] [CORES="1 2 4 8 12"]
#
# Run from anywhere (it cd's to the repo root), after `source benchmarks/device_env.sh` on a bare host
# (it sources it itself when kgraph is not importable). Pins the campaign to CPUS (taskset; all CPUs
# when taskset is missing) and runs WORKERS single-core workers side by side, WORKERS // k workers of k
# CPUs for each core count k. Writes OUT/c_host/cpu-c-<model>-<k>c/ (OUT default out/c_host_campaign),
# OUT/c_host.log (one line per launch) and OUT/c_host-summary.json. Resumes: folders already in
# OUT/c_host, else the committed data/datasets/c-<model>/ ones, are copied in first and their launches
# skipped, so running it again continues the catalog. The lead commits OUT/c_host/* to
# data/datasets/c-<model>/.
set -u
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO" || exit 2
BUDGET="${1:-420}"; WORKERS="${2:-12}"; CPUS="${3:-2-13}"; CORES="${4:-1 2 4 8 12}"
OUT="${OUT:-$REPO/out/c_host_campaign}"
PY="${PYTHON:-python3}"
if ! "$PY" -c "import kgraph.data.harness.c_campaign" 2>/dev/null; then
  # shellcheck disable=SC1091
  source benchmarks/device_env.sh || { echo "kgraph not importable and device_env.sh failed" >&2; exit 2; }
fi
export KGRAPH_C_CACHE="${KGRAPH_C_CACHE:-/tmp/kgraph-c-cache}"
DEST="$OUT/c_host"; mkdir -p "$DEST"
# the GPU host's VM reports the same model name as the dev box's ("Intel(R) Xeon(R) Processor"): its own slug
export KGRAPH_C_SLUG="${KGRAPH_C_SLUG:-xeon-gpu-host}"
SLUG="$("$PY" -c 'from kgraph.data.harness.c_campaign import model_slug; print(model_slug())')"
for d in data/datasets/c-"$SLUG"/cpu-c-*; do  # resume from the committed folders of this CPU
  [ -d "$d" ] && [ ! -e "$DEST/$(basename "$d")" ] && cp -r "$d" "$DEST/" && rm -f "$DEST/$(basename "$d")/.lock"
done
PIN=(); command -v taskset >/dev/null && PIN=(taskset -c "$CPUS")
{ echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo), slug $SLUG, pinned: ${PIN[*]:-none}";
  echo "cc: $(cc --version | head -1)"; } | tee "$OUT/c_host.log" >&2
# shellcheck disable=SC2086
timeout $((BUDGET + 150)) "${PIN[@]}" "$PY" -m kgraph.data.harness.c_campaign --out "$DEST" \
  --budget-s "$BUDGET" --cores $CORES --workers "$WORKERS" --timeout-s 30 \
  > "$OUT/c_host-summary.json" 2>> "$OUT/c_host.log"
rc=$?
cat "$OUT/c_host-summary.json"; tail -3 "$OUT/c_host.log"
for d in "$DEST"/cpu-c-*; do "$PY" -m kgraph.app.cli.main dataset validate "$d" 2>&1 | tail -2; done
exit $rc
