#!/usr/bin/env bash
# Score model directories on every out-of-corpus set no fit trained on, here (CPU): the hand-written holdouts
# (data/holdout to data/holdout16, every measured folder holdout*-<device> that exists; benchmarks.dataset_eval), the
# registry set's slices (registry-<device>, registry-ufo-<device>) and
# the foreign set on the H200 and the H100 (benchmarks.foreign_predict). `python -m benchmarks.worn_sets OUT_DIR`
# then reads the tables a shipping rule names, and OUT/work_sources-NAME/by_kind.csv splits each model's accuracy on
# those sets by what the source fixes of the work. Write the rule before running this on a set no model has seen.
#   [SKIP="holdout8"] bash benchmarks/score_sets.sh OUT_DIR NAME=MODEL_DIR [NAME=MODEL_DIR ...]
# SKIP: sets left out (their folder names before the device, e.g. "holdout16" or "registry-ufo": a set kept untouched
# for a later rule). The registry set's folders (docs/REGISTRY.md) need their sources.parquet (`kgraph registry sources`).
# e.g. bash benchmarks/score_sets.sh runs/s20/eval shipped=models/default v29=runs/s20/models/v29
set -eu
OUT=$1; shift
[ "$#" -ge 1 ] || { echo "score_sets: name at least one NAME=MODEL_DIR" >&2; exit 2; }
MODELS="$*"
for m in $MODELS; do
  case "$m" in *=*) [ -f "${m#*=}/config.json" ] || { echo "score_sets: ${m#*=}: no config.json (not a model)" >&2; exit 2; };;
    *) echo "score_sets: '$m' is not NAME=MODEL_DIR" >&2; exit 2;; esac
done
PY=${PYTHON:-.venv/bin/python}
D=data/datasets; mkdir -p "$OUT"
for h in holdout-nvidia-h200 holdout-nvidia-h100 holdout-pocl-xeon holdout2-nvidia-h200 holdout2-nvidia-h100 holdout2-pocl-xeon \
         holdout3-nvidia-h200 holdout3-nvidia-h100 holdout3-pocl-xeon holdout4-nvidia-h200 holdout4-nvidia-h100 holdout4-pocl-xeon \
         holdout5-nvidia-h200 holdout5-nvidia-h100 holdout5-pocl-xeon holdout6-nvidia-h200 holdout6-nvidia-h100 holdout6-pocl-xeon \
         holdout7-nvidia-h200 holdout7-nvidia-h100 holdout7-pocl-xeon \
         holdout8-nvidia-h200 holdout8-nvidia-h100 holdout8-pocl-xeon \
         holdout9-nvidia-h200 holdout9-nvidia-h100 holdout9-pocl-xeon \
         holdout10-nvidia-h200 holdout10-nvidia-h100 holdout10-pocl-xeon \
         holdout11-nvidia-h200 holdout11-nvidia-h100 holdout11-pocl-xeon \
         holdout12-nvidia-h200 holdout12-nvidia-h100 holdout12-pocl-xeon \
         holdout13-nvidia-h200 holdout13-nvidia-h100 holdout13-pocl-xeon \
         holdout14-nvidia-h200 holdout14-nvidia-h100 holdout14-pocl-xeon \
         holdout15-nvidia-h200 holdout15-nvidia-h100 holdout15-pocl-xeon \
         holdout16-nvidia-h200 holdout16-nvidia-h100 holdout16-pocl-xeon \
         registry-nvidia-h200 registry-pocl-xeon registry-ufo-nvidia-h200 registry-ufo-pocl-xeon; do
  [ -d "$D/$h" ] || continue
  skip=""; for s in ${SKIP:-}; do case "$h" in "$s"-nvidia-*|"$s"-pocl-*) skip=1;; esac; done
  [ -z "$skip" ] || continue
  "$PY" -m benchmarks.dataset_eval --data "$D/$h" --models $MODELS --out "$OUT/$h" > "$OUT/$h.log" 2>&1
  tail -n 12 "$OUT/$h.log"
  SCORED="${SCORED:-} $D/$h"
done
# every model on the same sets by what the source fixes of the work (exact / assumed trip / break / branch / other;
# benchmarks.work_sources, BENCHMARKS.md section 62): OUT/work_sources-NAME/by_kind.csv
for m in $MODELS; do
  [ -n "${SCORED:-}" ] || break
  "$PY" -m benchmarks.work_sources --no-ceiling --model "${m#*=}" --data $SCORED --out "$OUT/work_sources-${m%%=*}" \
    > "$OUT/work_sources-${m%%=*}.log" 2>&1
  tail -n 16 "$OUT/work_sources-${m%%=*}.log"
done
for m in $MODELS; do
  name=${m%%=*}; dir=${m#*=}
  "$PY" -m benchmarks.foreign_predict benchmarks/results/foreign_h200/foreign_h200.csv --model "$dir" \
    --csv "$OUT/foreign_h200-$name.csv" > "$OUT/foreign_h200-$name.log" 2>&1; tail -n 6 "$OUT/foreign_h200-$name.log"
  "$PY" -m benchmarks.foreign_predict benchmarks/results/h100_out_of_corpus/foreign_h100_measured.csv --model "$dir" \
    --device nvidia-h100 --csv "$OUT/foreign_h100-$name.csv" > "$OUT/foreign_h100-$name.log" 2>&1
  tail -n 6 "$OUT/foreign_h100-$name.log"
done
