#!/usr/bin/env bash
# The out-of-corpus sets on a second GPU (an H100, kind nvidia-h100-x1): the hand-written holdout kernels
# measured by the campaign harness (data/datasets/holdout-nvidia-h100, never trained on) and the foreign set by
# `kgraph measure`'s path (benchmarks/foreign_measure.py). Scored on the dev box with benchmarks.dataset_eval
# and benchmarks.foreign_predict --device <the H100 descriptor>.
# Usage (repo root, after `WHEELS=.whlc source benchmarks/device_env.sh`): bash benchmarks/h100_out_of_corpus.sh
set -u
OUT=${OUT:-out/h100}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/env.txt" 2>&1
timeout ${HOLDOUT_TIMEOUT_S:-200} python3 -m kgraph.data.harness.campaign --device nvidia --specs kgraph.data.holdout:specs \
  --budget-s ${HOLDOUT_BUDGET_S:-150} --no-progress --out data/datasets/holdout-nvidia-h100 > "$OUT/holdout.log" 2>&1
python3 -m kgraph.app.cli.main dataset validate data/datasets/holdout-nvidia-h100 > "$OUT/validate.txt" 2>&1
tar czf "$OUT/holdout.tgz" data/datasets/holdout-nvidia-h100
timeout ${FOREIGN_TIMEOUT_S:-260} python3 benchmarks/foreign_measure.py --device nvidia --timeout-s 45 \
  --csv "$OUT/foreign_h100.csv" > "$OUT/foreign.log" 2>&1
tail -n 3 "$OUT/holdout.log" "$OUT/validate.txt" "$OUT/foreign.log"; cat "$OUT/env.txt"
