#!/usr/bin/env bash
# The training call made on the H200 host (one GPU, 16 cores): the ablation grid in parallel, then
# checkpoints (optimizer state stripped) and predictions packed into $OUT. Usage: bash benchmarks/h200_train.sh
set -u
OUT=${OUT:-out/h200_train}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
H200=data/datasets/nvidia-h200
ALL=${LDO_DATASETS:-"$H200 data/datasets/pocl-skylake-avx512-intel-xeon data/datasets/pocl-amd-epyc"}
LDO_TEST=${LDO_TEST:-pocl-amd-epyc}   # the held-out device of the leave-device-out run
timeout ${GRID_TIMEOUT_S:-470} python3 -m benchmarks.ablation --datasets $H200 --out runs/ablation \
  --variants hybrid graph_only tokens_only static_only no_hardware \
  --splits unseen_launch leave_kernel_out leave_family_out --trainer conf/trainer/gpu.yaml \
  --max-time ${MAX_TIME:-00:00:05:00} --parallel 15 > "$OUT/grid.log" 2>&1 &
grid=$!
timeout ${GRID_TIMEOUT_S:-470} python3 -m benchmarks.ablation --datasets $ALL --out runs/ablation \
  --variants hybrid --splits leave_device_out --test-devices $LDO_TEST --trainer conf/trainer/gpu.yaml \
  --max-time ${MAX_TIME:-00:00:05:00} > "$OUT/ldo.log" 2>&1 &
ldo=$!
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv -l 30 > "$OUT/gpu_util.csv" 2>&1 &
smi=$!
wait $grid $ldo; kill $smi 2>/dev/null
python3 -m benchmarks.strip_checkpoints 'runs/ablation/*/ckpt/best-*.ckpt' --out /tmp/ck
mv "$OUT"/*.log "$OUT"/gpu_util.csv runs/ablation/ 2>/dev/null
tar czf "$OUT/pred.tgz" runs/ablation/*/pred runs/ablation/status.json runs/ablation/*.log runs/ablation/gpu_util.csv \
  runs/ablation/*/*.log runs/ablation/*/config.yaml 2>/dev/null
tar czf "$OUT/wandb.tgz" runs/ablation/*unseen_launch/wandb 2>/dev/null
# checkpoints of the unseen_launch runs (candidates for the shipped default and the compact head)
tar czf "$OUT/ckpt-a.tgz" -C /tmp/ck hybrid-unseen_launch.ckpt no_hardware-unseen_launch.ckpt 2>/dev/null
tar czf "$OUT/ckpt-b.tgz" -C /tmp/ck graph_only-unseen_launch.ckpt tokens_only-unseen_launch.ckpt \
  static_only-unseen_launch.ckpt hybrid-leave_family_out.ckpt 2>/dev/null
ls -la "$OUT"; cat runs/ablation/status.json | head -80
