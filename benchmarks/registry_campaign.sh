#!/usr/bin/env bash
# The registry set (data/registry, docs/REGISTRY.md; never trained on) timed on the GPU host: its units
# (.cache/registry/units.jsonl, carried: `kgraph registry plan` resolved them on the dev box) are planned and sized on
# the host's PoCL by PLAN_SHARDS parallel planners (unless .cache/registry/plan.jsonl is carried), then timed first on
# the GPU that came (folder registry-nvidia-h200 or -h100), then, alone on the host's cores, on its Xeon through
# PoCL (registry-pocl-xeon; CPU_DS= skips it). One after the other, so neither campaign's timing contends with the
# other's. Resumable: a second call continues each folder where it stopped.
# Usage (repo root, after `WHEELS=.whlc source benchmarks/device_env.sh`):
#   OUT=$OUT GPU_BUDGET_S=200 CPU_BUDGET_S=260 bash benchmarks/registry_campaign.sh
set -u
OUT=${OUT:-out/registry}; mkdir -p "$OUT"
CACHE=${CACHE:-.cache/registry}
LOGS=$CACHE/logs; mkdir -p "$LOGS" "$CACHE/plans"  # everything comes back in one archive ($OUT/registry.tgz)
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
if [ ! -f "$CACHE/plan.jsonl" ]; then
  [ -f "$CACHE/units.jsonl" ] || { echo "registry_campaign: no $CACHE/units.jsonl (carry it)" >&2; exit 2; }
  N=${PLAN_SHARDS:-8}
  for i in $(seq 0 $((N - 1))); do
    timeout ${PLAN_BUDGET_S:-240} python3 -m kgraph.data.registry.cli plan --cache "$CACHE" --shard $i/$N \
      --plan plans/plan-$i.jsonl > "$LOGS/plan-$i.log" 2>&1 &
  done
  wait
  cat "$CACHE"/plans/plan-*.jsonl > "$CACHE/plan.jsonl"
fi
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
case "$GPU_NAME" in *H100*) GPU_KIND=h100 ;; *) GPU_KIND=h200 ;; esac
# SOURCE=<name in sources.json> measures that source's kernels alone into registry-<name>-* folders (a slice)
SLICE=${SOURCE:+${SOURCE%%-*}-}
GPU_DS=${GPU_DS-data/datasets/registry-${SLICE}nvidia-$GPU_KIND}
CPU_DS=${CPU_DS-data/datasets/registry-${SLICE}pocl-xeon}
ONLY=${SOURCE:+--source $SOURCE}
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; lscpu | grep -E 'Model name|^CPU\(s\)'; } \
  > "$LOGS/env.txt" 2>&1
DIRS=""
if [ -n "$GPU_DS" ]; then
  timeout $((${GPU_BUDGET_S:-200} + 40)) python3 -m kgraph.data.registry.cli measure --cache "$CACHE" --device nvidia $ONLY \
    --budget-s ${GPU_BUDGET_S:-200} --out "$GPU_DS" > "$LOGS/nvidia.log" 2>&1
  DIRS="$GPU_DS"
fi
if [ -n "$CPU_DS" ]; then
  timeout $((${CPU_BUDGET_S:-260} + 40)) python3 -m kgraph.data.registry.cli measure --cache "$CACHE" --device pocl $ONLY \
    --budget-s ${CPU_BUDGET_S:-260} --out "$CPU_DS" > "$LOGS/pocl.log" 2>&1
  DIRS="$DIRS $CPU_DS"
fi
[ -n "$DIRS" ] || { echo "registry_campaign: GPU_DS= and CPU_DS= both empty: nothing to measure" >&2; exit 2; }
python3 -m kgraph.app.cli.main dataset compact $DIRS > "$LOGS/compact.txt" 2>&1
for ds in $DIRS; do python3 -m kgraph.app.cli.main dataset validate "$ds"; done > "$LOGS/validate.txt" 2>&1
tar czf "$OUT/registry.tgz" $DIRS "$CACHE/plans" "$CACHE/plan.jsonl" "$LOGS"
tail -n 3 "$LOGS"/*.log "$LOGS/validate.txt"; cat "$LOGS/env.txt"
