#!/usr/bin/env bash
# One measuring call of generated kernels on the GPU host: the GPU campaign (NVIDIA OpenCL, cores 0-2) and
# the host CPU's PoCL campaign (cores 3-15) at once over prefixes of the generated space
# (kgraph.data.generator:specs_from_env), each stopping after BUDGET_S seconds (resumable); both datasets
# packed into $OUT. More launches per kernel visit than the corpus campaign (--first-chunk): a generated
# kernel's build, correctness check and plan are paid once per kernel, so long visits amortise them.
# Usage (repo root, after `source benchmarks/device_env.sh`):
#   GPU_SEED=1 GPU_COUNT=1500 CPU_SEED=0 CPU_COUNT=800 BUDGET_S=480 bash benchmarks/generated_campaign.sh
# On a host of several GPUs (kind nvidia-h200-x4), one GPU campaign runs per GPU, seeds GPU_SEED, GPU_SEED+1, ...,
# with CPU_DS= (that host's CPU is not the described Xeon):
#   CPU_DS= GPU_SEED=13 GPU_COUNTS=dependent GPU_COUNT=1500 BUDGET_S=450 bash benchmarks/generated_campaign.sh
# GPU_COUNTS=dependent counts only the data-dependent launches by instrumented runs on the GPU (static counts
# for the rest), so the rows come back complete.
# CPU_SLOW_REPEATS=1: a CPU launch slower than 0.25 s is timed once after its warm-up (not 3 times): on the Xeon the
# 1% of launches above 1 s took 47% of the timing (session 17, generated-pocl-xeon).
# GPU_COUNTS=static skips the GPU's instrumented counting runs (40% of a call's time on the H200, session 8):
# the generator's kernels have exact static counts, and data-dependent rows are left without counts for
# `kgraph dataset fill-counts` on the dev box (instrumented PoCL runs, same inputs).
# CPU_COUNTS (static) is the PoCL campaign's --counts. Kernels of seed 34's early-exit idiom (a search left by
# `break` is counted statically at its bound) are measured with GPU_COUNTS=instrumented CPU_COUNTS=instrumented.
set -u
OUT=${OUT:-out/generated_campaign}; mkdir -p "$OUT"
BUDGET_S=${BUDGET_S:-480}
# the GPU folder follows the GPU that came (a call may get an H100 while one is held, whatever kind it names:
# session 8's call 3 measured nothing, the H200 folder refusing H100 rows)
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
case "$GPU_NAME" in *H100*) GPU_KIND=h100 ;; *) GPU_KIND=h200 ;; esac
GPU_DS=${GPU_DS:-data/datasets/generated-nvidia-$GPU_KIND}
CPU_DS=${CPU_DS-data/datasets/generated-pocl-xeon}
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
SPECS=kgraph.data.generator:specs_from_env
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv,noheader
  lscpu | grep -E 'Model name|^CPU\(s\)'; } > "$OUT/env.txt" 2>&1
# One GPU campaign per GPU (CUDA_VISIBLE_DEVICES=i; generator seed GPU_SEED+i; folder GPU_DS, or GPU_DS-s<seed>
# when there are several GPUs, merged later with `kgraph dataset merge`). Each gets 3 cores beside a CPU
# campaign, else an equal share of the host's cores.
# NGPU=0 runs the CPU campaign alone, on every core (no GPU campaign contending with its timing).
NGPU=${NGPU:-$(nvidia-smi -L 2>/dev/null | wc -l)}
[ "$NGPU" -ge 1 ] || [ -n "$CPU_DS" ] || { echo "generated_campaign: no GPU and CPU_DS= empty: nothing to measure" >&2; exit 2; }
NCPU=$(nproc); PER=3; [ -z "$CPU_DS" ] && PER=$((NCPU / NGPU))
GPU_DIRS=""; pids=""
for i in $(seq 0 $((NGPU - 1))); do  # none when NGPU=0
  seed=$((${GPU_SEED:-1} + i)); ds=$GPU_DS; [ "$NGPU" -gt 1 ] && ds=$GPU_DS-s$seed
  GPU_DIRS="$GPU_DIRS $ds"
  CUDA_VISIBLE_DEVICES=$i KGRAPH_GENERATOR_SEED=$seed KGRAPH_GENERATOR_COUNT=${GPU_COUNT:-1500} \
    taskset -c $((i * PER))-$((i * PER + PER - 1)) \
    python3 -m kgraph.data.harness.campaign --device nvidia --specs $SPECS --budget-s "$BUDGET_S" --no-progress \
    --first-chunk ${GPU_FIRST_CHUNK:-24} --chunk 32 --counts ${GPU_COUNTS:-auto} --out "$ds" > "$OUT/nvidia-$i.log" 2>&1 &
  pids="$pids $!"
done
if [ -n "$CPU_DS" ]; then
  KGRAPH_GENERATOR_SEED=${CPU_SEED:-0} KGRAPH_GENERATOR_COUNT=${CPU_COUNT:-800} taskset -c $((NGPU * PER))-$((NCPU - 1)) \
    python3 -m kgraph.data.harness.campaign --device pocl --specs $SPECS --budget-s "$BUDGET_S" --no-progress \
    --first-chunk ${CPU_FIRST_CHUNK:-12} --max-launch-mb 128 --counts ${CPU_COUNTS:-static} --build-jobs 6 --out "$CPU_DS" \
    --slow-repeats ${CPU_SLOW_REPEATS:-3} \
    > "$OUT/pocl.log" 2>&1 &
  pids="$pids $!"
fi
wait $pids
# one shard per folder (a campaign flushes one a minute, each with its own footer), then the check
GPU_DIRS=${GPU_DIRS# }
python3 -m kgraph.app.cli.main dataset compact $GPU_DIRS $CPU_DS > "$OUT/compact.txt" 2>&1
# kernels whose counted work the compiler removed (data/harness/elided.py) or could fold away (an input that never
# changes the result, data/generator/dead_inputs.py: about 0.3 s a kernel on one core) leave the ok rows
python3 -m kgraph.app.cli.main dataset mark-elided $GPU_DIRS $CPU_DS --dead-inputs --jobs "$(nproc)" \
  >> "$OUT/compact.txt" 2>&1
for ds in $GPU_DIRS $CPU_DS; do python3 -m kgraph.app.cli.main dataset validate "$ds"; done > "$OUT/validate.txt" 2>&1
[ -n "$GPU_DIRS" ] && tar czf "$OUT/gpu.tgz" $GPU_DIRS
[ -n "$CPU_DS" ] && tar czf "$OUT/cpu.tgz" "$CPU_DS"
tail -n 3 "$OUT"/*.log "$OUT/validate.txt"
