#!/usr/bin/env bash
# One GPU call: does the traffic-by-access-pattern feature group (conf/model/bounded_traffic.yaml,
# kgraph.analysis.traffic) help the bounded model, side by side with it on the same data and schedule?
#   grid "corpus" (the v3 default's four datasets): bounded and bounded_traffic x unseen_launch and
#                  leave_family_out (4 fits);
#   grid "all"    (plus the two generated datasets): bounded_traffic x unseen_launch (1 fit);
# all five at once on one GPU on device-resident batches, each a full cosine schedule of EPOCHS epochs
# (MAX_TIME a safety cap). Back in $OUT: the stripped checkpoints (scored on the out-of-corpus sets on the
# dev box, `benchmarks.dataset_eval`), the test predictions, the logs.
# Usage (repo root, after `WHEELS=.whlt source benchmarks/device_env.sh`):
#   EPOCHS=16 MAX_TIME=00:00:04:40 bash benchmarks/h200_traffic.sh
set -u
OUT=${OUT:-out/traffic}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
D=data/datasets
CORPUS="$D/nvidia-h200 $D/nvidia-h100 $D/pocl-skylake-avx512-intel-xeon $D/pocl-amd-epyc"
ALL="$CORPUS $D/generated-nvidia-h200 $D/generated-pocl-xeon"
CACHE=runs/traffic/cache
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 > runs_gpu_util.csv 2>&1 &
SMI=$!
# 1. graphs and features once per dataset list, before the fits share the cache
start=$(date +%s)
python3 -m benchmarks.build_graph_cache "$CACHE" $ALL > cache_all.log 2>&1
python3 -m benchmarks.build_graph_cache "$CACHE" $CORPUS > cache_corpus.log 2>&1
echo "caches built in $(( $(date +%s) - start )) s"
# 2. the fits (and their test predictions)
common=(--trainer conf/trainer/gpu.yaml --cache-dir "$CACHE" --max-time "${MAX_TIME:-00:00:04:40}" --logger csv
        --extra --data.resident=true --data.batch_size=${BATCH:-512} --trainer.max_epochs=${EPOCHS:-16})
timeout ${GRID_TIMEOUT_S:-390} python3 -m benchmarks.ablation --datasets $CORPUS --out runs/traffic/corpus \
  --variants bounded bounded_traffic --splits unseen_launch leave_family_out --parallel 4 "${common[@]}" \
  > grid_corpus.log 2>&1 &
g1=$!
timeout ${GRID_TIMEOUT_S:-390} python3 -m benchmarks.ablation --datasets $ALL --out runs/traffic/all \
  --variants bounded_traffic --splits unseen_launch --parallel 1 "${common[@]}" > grid_all.log 2>&1 &
g2=$!
wait $g1 $g2
kill $SMI
# 3. packed for the trip back: stripped checkpoints, predictions, logs
python3 -m benchmarks.strip_checkpoints 'runs/traffic/corpus/*/ckpt/best-*.ckpt' --out runs/traffic/ckpt > strip.log 2>&1
python3 -m benchmarks.strip_checkpoints 'runs/traffic/all/*/ckpt/best-*.ckpt' \
  --to runs/traffic/ckpt/all-bounded_traffic-unseen_launch.ckpt >> strip.log 2>&1
ls -la runs/traffic/ckpt
tar czf "$OUT/ckpt.tgz" runs/traffic/ckpt 2>/dev/null
tar czf "$OUT/pred.tgz" runs/traffic/*/*/pred 2>/dev/null
tar czf "$OUT/logs.tgz" cache_*.log grid_*.log strip.log runs_gpu_util.csv runs/traffic/*/status.json \
  runs/traffic/*/*/fit.log runs/traffic/*/*/predict.log runs/traffic/*/*/version_*/metrics.csv 2>/dev/null
ls -la "$OUT"; cat runs/traffic/*/status.json; tail -n 3 cache_*.log grid_*.log
