#!/usr/bin/env bash
# Score what benchmarks/lm_ablation_device.sh brought back, here (CPU): each variant's checkpoints (one per seed)
# become one ensemble model directory, scored on the out-of-corpus sets that no fit saw: the hand-written holdout
# on the H200, the H100 and the Xeon (benchmarks.dataset_eval) and the foreign set on the H200 and the H100
# (benchmarks.foreign_predict), the shipped default (models/default, as "shipped") beside them.
#   bash benchmarks/lm_ablation_eval.sh BACK_DIR OUT_DIR [VARIANT ...]   (default: bounded_traffic bounded_traffic_lm)
# TRAINED_ON="DIR ..." names the training folders when they are not the seven of cpu_fits.sh. The second hand-written
# holdout (holdout2-*, docs/HOLDOUT2.md), the third to seventh (holdout3-* to holdout7-*) are scored too where their folders exist
# (benchmarks/score_sets.sh, which scores any model directories).
# BACK_DIR holds ckpt-<variant>.tgz (ckpt.tgz before session 9); the ensembles go to runs/lmab_eval/models/<variant>, the tables to OUT_DIR.
set -eu
BACK=$1; OUT=$2; shift 2
VARIANTS=${*:-bounded_traffic bounded_traffic_lm}
PY=${PYTHON:-.venv/bin/python}
W=runs/lmab_eval; mkdir -p "$W" "$OUT"
for a in "$BACK"/ckpt*.tgz; do tar xzf "$a" -C "$W"; done   # ckpt.tgz (before session 9) or ckpt-<variant>.tgz
D=data/datasets
CORPUS="$D/nvidia-h200 $D/nvidia-h100 $D/pocl-skylake-avx512-intel-xeon $D/pocl-amd-epyc"
ALL="$CORPUS $D/generated-nvidia-h200 $D/generated-nvidia-h100 $D/generated-pocl-xeon"
MODELS="shipped=models/default"
for v in $VARIANTS; do
  cks=$(ls "$W"/runs/lmab/ckpt/s*/"$v"-unseen_launch.ckpt)
  "$PY" -m kgraph.models.predictor --half --from-ckpt $cks --out "$W/models/$v" --datasets $CORPUS --trained-on ${TRAINED_ON:-$ALL}
  cp models/default/interval.pt "$W/models/$v/"   # the code-free interval head, as v6's
  MODELS="$MODELS $v=$W/models/$v"
done
bash benchmarks/score_sets.sh "$OUT" $MODELS
