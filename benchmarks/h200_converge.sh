#!/usr/bin/env bash
# The GPU call that trains to convergence on device-resident batches (--data.resident): the bounded model
# and its unbounded ablation on unseen launches, the bounded model on unseen families and generated-only ->
# hand-written, FITS at once on one GPU, each a full cosine schedule of EPOCHS epochs (MAX_TIME only a
# safety cap); GPU utilisation sampled every 5 s; then the bounded unseen-launch model converted to a model
# directory and scored on the out-of-corpus sets. Everything packed into $OUT. Usage (repo root, after
# `source benchmarks/device_env.sh`):  EPOCHS=30 MAX_TIME=00:00:06:30 bash benchmarks/h200_converge.sh
set -u
OUT=${OUT:-out/converge}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
D=data/datasets
ALL=${DATASETS:-"$D/nvidia-h200 $D/nvidia-h100 $D/pocl-skylake-avx512-intel-xeon $D/pocl-amd-epyc $D/generated-nvidia-h200 $D/generated-pocl-xeon"}
CACHE=${CACHE:-runs/conv/cache}
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 > "$OUT/gpu_util.csv" 2>&1 &
SMI=$!
# 1. the graph cache once, before the fits share it (a shared cache built by several fits at once would race)
python3 -m benchmarks.build_graph_cache "$CACHE" $ALL > "$OUT/cache.log" 2>&1
# 2. the fits
timeout ${GRID_TIMEOUT_S:-480} python3 -m benchmarks.ablation --datasets $ALL --out runs/conv \
  --variants ${VARIANTS:-bounded graph_only} --splits ${SPLITS:-unseen_launch leave_family_out generated_to_written} \
  --trainer conf/trainer/gpu.yaml --cache-dir "$CACHE" --max-time ${MAX_TIME:-00:00:06:30} --parallel ${FITS:-4} --logger ${LOGGER:-wandb} \
  --extra --data.resident=true --data.batch_size=${BATCH:-512} --trainer.max_epochs=${EPOCHS:-30} > "$OUT/grid.log" 2>&1
kill $SMI
# 3. the bounded unseen-launch model as a model directory, on the out-of-corpus sets
python3 -m benchmarks.strip_checkpoints 'runs/conv/bounded-unseen_launch/ckpt/best-*.ckpt' --to runs/conv/best.ckpt
python3 -m kgraph.models.predictor --from-ckpt runs/conv/best.ckpt --out runs/conv/model --datasets $ALL --trained-on $ALL \
  > "$OUT/convert.log" 2>&1
for h in ${EVAL_SETS-holdout-nvidia-h200 holdout-pocl-xeon}; do  # EVAL_SETS= : score them elsewhere (CPU work)
  timeout ${EVAL_TIMEOUT_S:-150} python3 -m benchmarks.dataset_eval --data $D/$h --models conv=runs/conv/model \
    shipped=models/default --out runs/conv/$h > "$OUT/$h.log" 2>&1
done
# 4. packed for the trip back (at most 8 files of 16 MiB): a metrics table, one predictions archive per run,
#    the logs (per-epoch CSV metrics, GPU utilisation), the model directory with its checkpoint
python3 -m benchmarks.prediction_metrics 'runs/conv/*/pred/*.parquet' --datasets $ALL --out runs/conv/summary.csv \
  > runs/conv/summary.txt 2>&1
cp "$OUT"/*.log "$OUT/gpu_util.csv" runs/conv/ 2>/dev/null
rm -f "$OUT"/*.log "$OUT/gpu_util.csv"
for run in runs/conv/*/pred; do name=$(basename "$(dirname "$run")"); tar czf "$OUT/pred_$name.tgz" "$run"; done
tar czf "$OUT/logs.tgz" runs/conv/status.json runs/conv/summary.* runs/conv/*.log runs/conv/gpu_util.csv \
  runs/conv/*/fit.log runs/conv/*/predict.log runs/conv/*/version_* runs/conv/holdout-* 2>/dev/null
tar czf "$OUT/model.tgz" runs/conv/model runs/conv/best.ckpt 2>/dev/null
ls -la "$OUT"; cat runs/conv/summary.txt; tail -n 8 runs/conv/grid.log runs/conv/cache.log
