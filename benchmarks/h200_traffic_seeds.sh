#!/usr/bin/env bash
# The second GPU call of the traffic comparison (BENCHMARKS.md section 15): the bounded model with and without
# the traffic features on all six datasets (corpus + generated), unseen-launch split, two more model seeds each
# (seed_everything 1 and 2; the data split stays seed 0), four fits at once on device-resident batches, each a
# full cosine schedule of EPOCHS epochs. Back in $OUT: the stripped checkpoints (scored on the out-of-corpus
# sets on the dev box) and the logs; test predictions are made there too when the call's time allows.
# SEEDS (default "1 2"), VARIANTS (default "bounded bounded_traffic") and SPLITS (default unseen_launch;
# leave_device_out holds out TEST_DEVICES, default nvidia-h100) pick the fits, all at once; the v6 members were
# made with SEEDS="0 1 2" VARIANTS=bounded_traffic, its split table (BENCHMARKS.md section 18) with SEEDS=0
# SPLITS="leave_kernel_out leave_family_out leave_device_out generated_to_written".
# Usage (repo root, after `WHEELS=.whlt source benchmarks/device_env.sh`):
#   EPOCHS=16 MAX_TIME=00:00:05:30 bash benchmarks/h200_traffic_seeds.sh
set -u
OUT=${OUT:-out/traffic_seeds}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
D=data/datasets
ALL="$D/nvidia-h200 $D/nvidia-h100 $D/pocl-skylake-avx512-intel-xeon $D/pocl-amd-epyc $D/generated-nvidia-h200 $D/generated-pocl-xeon"
CACHE=runs/seeds/cache
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 > runs_gpu_util.csv 2>&1 &
SMI=$!
start=$(date +%s)
python3 -m benchmarks.build_graph_cache "$CACHE" $ALL > cache_all.log 2>&1
echo "cache built in $(( $(date +%s) - start )) s"
pids=""
SEEDS=${SEEDS:-1 2}; VARIANTS=${VARIANTS:-bounded bounded_traffic}; SPLITS=${SPLITS:-unseen_launch}
set -- $VARIANTS; NV=$#; set -- $SPLITS; NP=$(( NV * $# ))
for seed in $SEEDS; do
  timeout ${GRID_TIMEOUT_S:-430} python3 -m benchmarks.ablation --datasets $ALL --out runs/seeds/s$seed \
    --variants $VARIANTS --splits $SPLITS --test-devices ${TEST_DEVICES:-nvidia-h100} --parallel $NP --trainer conf/trainer/gpu.yaml \
    --cache-dir "$CACHE" --max-time "${MAX_TIME:-00:00:05:30}" --logger csv --extra --seed_everything=$seed \
    --data.resident=true --data.batch_size=${BATCH:-512} --trainer.max_epochs=${EPOCHS:-16} > grid_s$seed.log 2>&1 &
  pids="$pids $!"
done
wait $pids
kill $SMI
for seed in $SEEDS; do
  python3 -m benchmarks.strip_checkpoints "runs/seeds/s$seed/*/ckpt/best-*.ckpt" --out runs/seeds/ckpt/s$seed >> strip.log 2>&1
done
ls -laR runs/seeds/ckpt
tar czf "$OUT/ckpt.tgz" runs/seeds/ckpt 2>/dev/null
tar czf "$OUT/pred.tgz" runs/seeds/*/*/pred 2>/dev/null
tar czf "$OUT/logs.tgz" cache_all.log grid_*.log strip.log runs_gpu_util.csv runs/seeds/*/status.json \
  runs/seeds/*/*/fit.log runs/seeds/*/*/predict.log runs/seeds/*/*/version_*/metrics.csv 2>/dev/null
ls -la "$OUT"; cat runs/seeds/*/status.json; tail -n 3 cache_all.log grid_*.log
