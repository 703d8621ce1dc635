#!/usr/bin/env bash
# Fits of a graph-free recipe on this machine's CPU, no device needed (BENCHMARKS.md section 43: v16, v16b and v18
# were made this way, about 2 minutes a seed on the dev box's 2 cores after a first fit builds the feature cache).
# One benchmarks.ablation process per seed, one after another, with the GPU trainer's batch and gradient clipping;
# then the unseen-launch checkpoints stripped into $OUT/back/ckpt-<variant>.tgz, which
# `bash benchmarks/lm_ablation_eval.sh $OUT/back <eval out> <variant>` scores on the never-trained sets.
#   VARIANT (static_traffic_known_valkernels; a variant with a graph encoder runs too, far slower), SEEDS ("0 1 2"),
#   SPLITS (unseen_launch), EPOCHS (14), TEST_DEVICES (nvidia-h100, for leave_device_out), OUT (runs/cpu_fits),
#   CACHE (runs/cpu_fits/cache), DATASETS (the training folders below), EXTRA (more options for every fit, e.g.
#   --data.kernel_cap=64)
# Usage (repo root, after `make`): SEEDS="3 4 5" bash benchmarks/cpu_fits.sh
set -eu
D=data/datasets
# the seven training folders of v19's recipe, and since session 27 the store-only generated kernels (generator seed 36;
# docs/MODELS.md "v41": without them a refit prices fills as escape-time loops); v38 and v40 were fit on the seven
DATASETS=${DATASETS:-"$D/nvidia-h200 $D/nvidia-h100 $D/pocl-skylake-avx512-intel-xeon $D/pocl-amd-epyc $D/generated-nvidia-h200 $D/generated-nvidia-h100 $D/generated-pocl-xeon $D/genstore-nvidia-h200 $D/genstore-pocl-xeon"}
VARIANT=${VARIANT:-static_traffic_known_valkernels}; SEEDS=${SEEDS:-0 1 2}; SPLITS=${SPLITS:-unseen_launch}
OUT=${OUT:-runs/cpu_fits}; CACHE=${CACHE:-$OUT/cache}; PY=${PYTHON:-.venv/bin/python}
mkdir -p "$OUT"
for seed in $SEEDS; do
  PYTHONPATH=. WANDB_MODE=offline OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$PY" -m benchmarks.ablation --datasets $DATASETS \
    --out "$OUT/s$seed" --variants "$VARIANT" --splits $SPLITS --test-devices ${TEST_DEVICES:-nvidia-h100} --parallel 1 \
    --cache-dir "$CACHE" --max-time 00:01:00:00 --logger csv --extra --seed_everything="$seed" \
    --data.batch_size=512 --trainer.max_epochs="${EPOCHS:-14}" --trainer.gradient_clip_val=1.0 ${EXTRA:-} > "$OUT/s$seed.log" 2>&1
  tail -n 3 "$OUT/s$seed.log"
done
case " $SPLITS " in *" unseen_launch "*)
  rm -rf runs/lmab/ckpt; mkdir -p "$OUT/back"
  for seed in $SEEDS; do
    PYTHONPATH=. "$PY" -m benchmarks.strip_checkpoints "$OUT/s$seed/$VARIANT-unseen_launch/ckpt/best-*.ckpt" --out runs/lmab/ckpt/s$seed
  done
  tar czf "$OUT/back/ckpt-$VARIANT.tgz" runs/lmab/ckpt/*/"$VARIANT"-unseen_launch.ckpt
  rm -rf runs/lmab/ckpt
  echo "checkpoints in $OUT/back/ckpt-$VARIANT.tgz";;
esac
