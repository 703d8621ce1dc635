#!/usr/bin/env bash
# The GPU call that trains the shipped default of the roofline-bounded model: one bounded fit on the
# unseen_launch split over every measured device, alone on the GPU; the stripped checkpoint and its test
# predictions packed into $OUT. Usage (repo root, after `source benchmarks/device_env.sh`):
#   MAX_TIME=00:00:06:30 bash benchmarks/train_bounded_default.sh
set -u
OUT=${OUT:-out/train_bounded}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
DATASETS=${DATASETS:-"data/datasets/nvidia-h200 data/datasets/nvidia-h100 data/datasets/pocl-skylake-avx512-intel-xeon data/datasets/pocl-amd-epyc"}
timeout ${FIT_TIMEOUT_S:-540} python3 -m benchmarks.ablation --datasets $DATASETS --out runs/default \
  --variants bounded --splits unseen_launch --trainer conf/trainer/gpu.yaml --num-workers 6 \
  --max-time ${MAX_TIME:-00:00:06:30} > "$OUT/train.log" 2>&1
python3 -m benchmarks.strip_checkpoints 'runs/default/*/ckpt/best-*.ckpt' --to runs/default/best.ckpt
cp runs/default/best.ckpt "$OUT/best.ckpt"
tar czf "$OUT/pred.tgz" runs/default/status.json runs/default/*/pred runs/default/*/config.yaml runs/default/*/fit.log 2>/dev/null
ls -la "$OUT"; tail -n 3 "$OUT/train.log"
