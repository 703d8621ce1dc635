#!/usr/bin/env bash
# The second hand-written holdout (data/holdout2, docs/HOLDOUT2.md; never trained on) measured on the GPU host by
# the campaign harness: first on the GPU that came (folder holdout2-nvidia-h200 or -h100), then, alone on the
# host's cores, on its Xeon through PoCL (holdout2-pocl-xeon; CPU_DS= skips it). One after the other, so neither
# campaign's timing contends with the other's. Resumable: a second call continues each folder where it stopped.
# Usage (repo root, after `WHEELS=.whlc source benchmarks/device_env.sh`):
#   OUT=$OUT GPU_BUDGET_S=200 CPU_BUDGET_S=260 bash benchmarks/holdout2_campaign.sh
# SET=holdout3 measures the third hand-written set (data/holdout3, docs/HOLDOUT3.md) into holdout3-* folders.
set -u
SET=${SET:-holdout2}
OUT=${OUT:-out/$SET}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
SPECS=kgraph.data.$SET:specs
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
case "$GPU_NAME" in *H100*) GPU_KIND=h100 ;; *) GPU_KIND=h200 ;; esac
GPU_DS=${GPU_DS-data/datasets/$SET-nvidia-$GPU_KIND}
CPU_DS=${CPU_DS-data/datasets/$SET-pocl-xeon}
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; lscpu | grep -E 'Model name|^CPU\(s\)'; } \
  > "$OUT/env.txt" 2>&1
DIRS=""
if [ -n "$GPU_DS" ]; then
  timeout $((${GPU_BUDGET_S:-200} + 60)) python3 -m kgraph.data.harness.campaign --device nvidia --specs $SPECS \
    --budget-s ${GPU_BUDGET_S:-200} --no-progress --out "$GPU_DS" > "$OUT/nvidia.log" 2>&1
  DIRS="$GPU_DS"
fi
if [ -n "$CPU_DS" ]; then
  timeout $((${CPU_BUDGET_S:-260} + 60)) python3 -m kgraph.data.harness.campaign --device pocl --specs $SPECS \
    --budget-s ${CPU_BUDGET_S:-260} --no-progress --out "$CPU_DS" > "$OUT/pocl.log" 2>&1
  DIRS="$DIRS $CPU_DS"
fi
[ -n "$DIRS" ] || { echo "holdout2_campaign: GPU_DS= and CPU_DS= both empty: nothing to measure" >&2; exit 2; }
python3 -m kgraph.app.cli.main dataset compact $DIRS > "$OUT/compact.txt" 2>&1
python3 -m kgraph.app.cli.main dataset mark-elided $DIRS >> "$OUT/compact.txt" 2>&1
for ds in $DIRS; do python3 -m kgraph.app.cli.main dataset validate "$ds"; done > "$OUT/validate.txt" 2>&1
tar czf "$OUT/$SET.tgz" $DIRS
tail -n 3 "$OUT"/*.log "$OUT/validate.txt"; cat "$OUT/env.txt"
