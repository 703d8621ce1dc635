#!/usr/bin/env bash
# The GPU call of the roofline-bounded model: the bounded time head against its unbounded ablation
# (graph_only), side by side on the same splits — unseen launches, unseen kernels, unseen families (H200),
# and leave-device-out (train H200 + CPUs, test H100) — in parallel on one H200; predictions and stripped
# checkpoints packed into $OUT. Usage (repo root, after `source benchmarks/device_env.sh`):
#   MAX_TIME=00:00:05:30 bash benchmarks/h200_bounded.sh
set -u
OUT=${OUT:-out/h200_bounded}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
H200=data/datasets/nvidia-h200
ALL="$H200 data/datasets/nvidia-h100 data/datasets/pocl-skylake-avx512-intel-xeon data/datasets/pocl-amd-epyc"
T=${GRID_TIMEOUT_S:-500}
timeout $T python3 -m benchmarks.ablation --datasets $H200 --out runs/bounded --variants bounded graph_only \
  --splits unseen_launch leave_kernel_out leave_family_out --trainer conf/trainer/gpu.yaml --num-workers 2 \
  --max-time ${MAX_TIME:-00:00:05:30} --parallel 6 > "$OUT/grid.log" 2>&1 &
grid=$!
timeout $T python3 -m benchmarks.ablation --datasets $ALL --out runs/bounded_ldo --variants bounded graph_only \
  --splits leave_device_out --test-devices nvidia-h100 --trainer conf/trainer/gpu.yaml --num-workers 2 \
  --max-time ${MAX_TIME:-00:00:05:30} --parallel 2 > "$OUT/ldo.log" 2>&1 &
ldo=$!
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv -l 20 > "$OUT/gpu_util.csv" 2>&1 &
smi=$!
wait $grid $ldo; kill $smi 2>/dev/null
python3 -m benchmarks.strip_checkpoints 'runs/bounded*/*/ckpt/best-*.ckpt' --out /tmp/ck
cp runs/bounded/status.json "$OUT/status.json"; cp runs/bounded_ldo/status.json "$OUT/status_ldo.json"
tar czf "$OUT/pred.tgz" runs/bounded*/*/pred runs/bounded*/*/*.log runs/bounded*/*/config.yaml 2>/dev/null
tar czf "$OUT/ckpt.tgz" -C /tmp/ck . 2>/dev/null
ls -la "$OUT"; tail -3 "$OUT"/grid.log "$OUT"/ldo.log
