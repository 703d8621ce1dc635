#!/usr/bin/env bash
# The GPU call of the generated <-> hand-written splits: the bounded model and its unbounded ablation
# trained on generated kernels only and tested on the 48 hand-written families, and the reverse, in
# parallel on one GPU; predictions and the two bounded checkpoints packed into $OUT. Usage (repo root,
# after `source benchmarks/device_env.sh`): MAX_TIME=00:00:05:00 bash benchmarks/h200_generated.sh
set -u
OUT=${OUT:-out/h200_generated}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
DS="data/datasets/generated-nvidia-h200 data/datasets/nvidia-h200"
timeout ${GRID_TIMEOUT_S:-480} python3 -m benchmarks.ablation --datasets $DS --out runs/generated --variants bounded graph_only \
  --splits generated_to_written written_to_generated --trainer conf/trainer/gpu.yaml --num-workers 3 \
  --max-time ${MAX_TIME:-00:00:05:00} --parallel 4 > "$OUT/grid.log" 2>&1
python3 -m benchmarks.strip_checkpoints 'runs/generated/bounded-*/ckpt/best-*.ckpt' --out /tmp/ck
cp runs/generated/status.json "$OUT/status.json"
tar czf "$OUT/pred.tgz" runs/generated/*/pred runs/generated/*/*.log 2>/dev/null
cp /tmp/ck/*.ckpt "$OUT/" 2>/dev/null
ls -la "$OUT"; cat "$OUT/grid.log"
