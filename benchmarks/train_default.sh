#!/usr/bin/env bash
# The call that trains the shipped default on the GPU host: one graph_only fit on the unseen_launch
# split over every measured device, alone on the machine (all cores for it), then its test
# predictions; the checkpoint (optimizer state stripped) and predictions packed into $OUT.
# Usage: MAX_TIME=00:00:08:00 bash benchmarks/train_default.sh
set -u
OUT=${OUT:-out/train_default}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
DATASETS=${DATASETS:-"data/datasets/nvidia-h200 data/datasets/nvidia-h100 data/datasets/pocl-skylake-avx512-intel-xeon data/datasets/pocl-amd-epyc"}
timeout ${FIT_TIMEOUT_S:-560} python3 -m benchmarks.ablation --datasets $DATASETS --out runs/default \
  --variants graph_only --splits unseen_launch --trainer conf/trainer/gpu.yaml --num-workers ${WORKERS:-6} \
  --max-time ${MAX_TIME:-00:00:08:00} > "$OUT/train.log" 2>&1
python3 -m benchmarks.strip_checkpoints 'runs/default/*/ckpt/best-*.ckpt' --to runs/default/best.ckpt
tar czf "$OUT/default.tgz" runs/default/best.ckpt runs/default/status.json runs/default/*/pred \
  runs/default/*/config.yaml runs/default/*/fit.log runs/default/*/predict.log 2>/dev/null
tail -n 5 "$OUT/train.log"; cat runs/default/status.json
