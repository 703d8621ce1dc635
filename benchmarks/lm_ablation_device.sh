#!/usr/bin/env bash
# The code-LM ablation of issue 11 on one GPU (BENCHMARKS.md, docs/LM.md "Use in kgraph"): fits of the v6 recipe
# with and without the pretrained code LM, all at once on device-resident batches, on one shared graph cache.
#   VARIANTS  model variants (conf/model/<v>.yaml), default "bounded_traffic bounded_traffic_lm"
#   SEEDS     seed_everything values, default "0 1"; SPLITS default unseen_launch (all data: the out-of-corpus
#             sets are scored on the dev box from the checkpoints)
#   EPOCHS (10), MAX_TIME (00:00:05:30), GRID_TIMEOUT_S (420), DATASETS (the seven training folders)
#   DEADLINE_S: seconds after this script starts by which every grid must have ended (the call's 600 s less the
#             archiving); when set, GRID_TIMEOUT_S and MAX_TIME follow from what the cache build left (a fit's
#             max time is the grid's less FIT_SETUP_S, 90 s, for loading and the test predictions)
#   Each fit process gets cores / fits intra-op threads (six fits of 16 threads each on 16 cores ran at a third
#             of three fits' aggregate step rate).
#   FT_VARIANTS (none): variants fitted in a second grid, on FT_SPLITS (default SPLITS), with FT_EPOCHS (6) epochs, for a fine-tuned LM, whose
#             steps cost about 3x a frozen one's: a full, shorter cosine schedule inside the call rather than a
#             longer one cut by the time limit. Their checkpoints come back one file each, in float16.
# The LM vectors of every kernel (kgraph lm embed) are made first, beside the graph cache, when a variant
# needs them. Back in $OUT: the unseen-launch checkpoints (ckpt-<variant>.tgz), every run's test predictions
# (pred-s<seed>.tgz, one per seed: three seeds' in one archive outgrew the 16 MiB a returned file may have), logs
# (logs.tgz); FT_VARIANTS add one checkpoint file per run (8 files a call returns). A warm host's runs of an
# earlier call are removed first (the graph cache is kept), so only this call's runs come back.
# Usage (repo root, after `WHEELS=.whlt source benchmarks/device_env.sh`): bash benchmarks/lm_ablation_device.sh
set -u
OUT=${OUT:-out/lm_ablation}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 WANDB_MODE=offline
D=data/datasets
DATASETS=${DATASETS:-"$D/nvidia-h200 $D/nvidia-h100 $D/pocl-skylake-avx512-intel-xeon $D/pocl-amd-epyc $D/generated-nvidia-h200 $D/generated-nvidia-h100 $D/generated-pocl-xeon"}
VARIANTS=${VARIANTS:-bounded_traffic bounded_traffic_lm}; SEEDS=${SEEDS:-0 1}; SPLITS=${SPLITS:-unseen_launch}
CACHE=runs/lmab/cache
rm -rf runs/lmab/s* runs/lmab/ckpt
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 > runs_gpu_util.csv 2>&1 &
SMI=$!
start=$(date +%s)
FT_VARIANTS=${FT_VARIANTS:-}
if [[ " $VARIANTS $FT_VARIANTS " == *" bounded_traffic_lm "* ]]; then
  # the LM vectors (GPU) while the graph cache is built (CPU): both parse every kernel once
  python3 -m kgraph.app.cli.main lm embed --datasets $DATASETS --out runs/lm/lm_features.pt --weights models/code_lm/weights --device cuda \
    --jobs 6 > lm_embed.log 2>&1 &
  EMBED=$!
fi
python3 -m benchmarks.build_graph_cache "$CACHE" $DATASETS > cache_all.log 2>&1
echo "cache built in $(( $(date +%s) - start )) s"; cat cache_all.log
if [ -n "${DEADLINE_S:-}" ]; then
  GRID_TIMEOUT_S=$(( DEADLINE_S - ($(date +%s) - start) ))
  fit_s=$(( GRID_TIMEOUT_S - ${FIT_SETUP_S:-90} ))
  MAX_TIME=$(printf "00:%02d:%02d:%02d" $(( fit_s / 3600 )) $(( fit_s % 3600 / 60 )) $(( fit_s % 60 )))
  echo "grids get $GRID_TIMEOUT_S s, fits $MAX_TIME"
fi
set -- $SPLITS; nfits=$(( $(echo $SEEDS | wc -w) * ($(echo $VARIANTS | wc -w) * $# + $(echo $FT_VARIANTS | wc -w) * $(echo ${FT_SPLITS:-$SPLITS} | wc -w)) ))
threads=$(( $(nproc) / (nfits > 0 ? nfits : 1) )); export OMP_NUM_THREADS=$(( threads > 0 ? threads : 1 ))
echo "$nfits fits, $OMP_NUM_THREADS threads each"
[ -n "${EMBED:-}" ] && { wait $EMBED; echo "lm embed exit $? at $(( $(date +%s) - start )) s"; tail -n 2 lm_embed.log; }
grid() {  # grid SEED TAG EPOCHS "SPLIT..." VARIANT...: one benchmarks.ablation process, all its runs at once
  local seed=$1 tag=$2 epochs=$3 splits=$4; shift 4
  local variants="$*" nv=$#; set -- $splits
  timeout ${GRID_TIMEOUT_S:-420} python3 -m benchmarks.ablation --datasets $DATASETS --out runs/lmab/s$seed$tag \
    --variants $variants --splits $splits --test-devices ${TEST_DEVICES:-nvidia-h100} --parallel $(( nv * $# )) \
    --trainer conf/trainer/gpu.yaml --cache-dir "$CACHE" --max-time "${MAX_TIME:-00:00:05:30}" --logger csv \
    --extra --seed_everything=$seed --data.resident=true --data.batch_size=${BATCH:-512} \
    --trainer.max_epochs=$epochs > grid_s${seed}$tag.log 2>&1
}
pids=""
for seed in $SEEDS; do
  if [ -n "$VARIANTS" ]; then grid $seed "" ${EPOCHS:-10} "$SPLITS" $VARIANTS & pids="$pids $!"; fi
  if [ -n "$FT_VARIANTS" ]; then grid $seed _ft ${FT_EPOCHS:-6} "${FT_SPLITS:-$SPLITS}" $FT_VARIANTS & pids="$pids $!"; fi
done
wait $pids
echo "grids ended at $(( $(date +%s) - start )) s"
kill $SMI
for seed in $SEEDS; do
  python3 -m benchmarks.strip_checkpoints "runs/lmab/s$seed/*/ckpt/best-*.ckpt" --out runs/lmab/ckpt/s$seed >> strip.log 2>&1
  for v in $FT_VARIANTS; do for sp in ${FT_SPLITS:-$SPLITS}; do  # too large for the archive: one float16 file each
    python3 -m benchmarks.strip_checkpoints "runs/lmab/s${seed}_ft/$v-$sp/ckpt/best-*.ckpt" --half \
      --to "$OUT/s$seed-$v-$sp.ckpt" >> strip.log 2>&1
  done; done
done
# a call returns at most 8 files of 16 MiB: the unseen-launch checkpoints (all the out-of-corpus scoring needs)
# in one archive per variant (three stripped checkpoints are ~9 MiB), every run's test predictions in one
for v in $VARIANTS; do
  tar czf "$OUT/ckpt-$v.tgz" runs/lmab/ckpt/*/"$v"-unseen_launch.ckpt 2>/dev/null || rm -f "$OUT/ckpt-$v.tgz"
done
for seed in $SEEDS; do tar czf "$OUT/pred-s$seed.tgz" runs/lmab/s$seed*/*/pred 2>/dev/null; done
tar czf "$OUT/logs.tgz" cache_all.log lm_embed.log grid_*.log strip.log runs_gpu_util.csv runs/lmab/*/status.json \
  runs/lmab/*/*/fit.log runs/lmab/*/*/predict.log runs/lmab/*/*/version_*/metrics.csv 2>/dev/null
ls -la "$OUT"; cat runs/lmab/*/status.json; tail -n 3 cache_all.log grid_*.log
