#!/usr/bin/env bash
# One measuring call on the GPU host (one GPU, 16 cores): the GPU campaign (NVIDIA OpenCL) on cores
# 0-2 and the host CPU's PoCL campaign on cores 3-15, at once, each stopping after BUDGET_S seconds
# (resumable: the next call continues where this one stopped); both datasets packed into $OUT.
# Usage, after the wheel and ICD lines of ../shared/device/wheels.sh:
#   BUDGET_S=520 bash benchmarks/device_campaign.sh
set -u
OUT=${OUT:-out/campaign}; mkdir -p "$OUT"
BUDGET_S=${BUDGET_S:-520}
GPU_DS=${GPU_DS:-data/datasets/nvidia-h200}
CPU_DS=${CPU_DS-data/datasets/pocl-skylake-avx512-intel-xeon}
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/env.txt" 2>&1
GPU_CORES=${GPU_CORES:-0-2}   # CPU_DS= (empty) runs the GPU campaign alone, on every core
[ -z "$CPU_DS" ] && GPU_CORES=0-$(( $(nproc) - 1 ))
taskset -c "$GPU_CORES" python3 -m kgraph.data.harness.campaign --device nvidia --budget-s "$BUDGET_S" --no-progress \
  --out "$GPU_DS" > "$OUT/nvidia.log" 2>&1 &
pids=$!
if [ -n "$CPU_DS" ]; then
  taskset -c 3-15 python3 -m kgraph.data.harness.campaign --device pocl --budget-s "$BUDGET_S" --max-launch-mb 256 \
    --counts static --build-jobs 4 --no-progress --out "$CPU_DS" > "$OUT/pocl.log" 2>&1 &
  pids="$pids $!"
fi
wait $pids
for ds in $GPU_DS $CPU_DS; do python3 -m kgraph.app.cli.main dataset validate "$ds"; done > "$OUT/validate.txt" 2>&1
tar czf "$OUT/gpu.tgz" "$GPU_DS"
[ -n "$CPU_DS" ] && tar czf "$OUT/cpu.tgz" "$CPU_DS"
tail -n 2 "$OUT"/*.log "$OUT/validate.txt"
