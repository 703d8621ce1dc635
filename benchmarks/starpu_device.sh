#!/usr/bin/env bash
# The StarPU comparison (benchmarks.runtime_starpu: kgraph vs history calibrated/cold vs regression
# vs eager) on a bare host, against the StarPU bundle made by benchmarks/starpu_bundle.sh (.starpu/).
#
#   benchmarks/starpu_device.sh [--opencl pocl|gpu|cpu|both|gpu,cpu...] [--ncpu N] [--sizes 4x128 6x192 ...]
#                               [--budget-s S] [--workloads cholesky gemm] [--cpu-descriptor core|xeon]
#                               [--cpu-model c|pocl]
#                               [--five-runs [--runs 5] [--repeats 1] [--cpu-sizes 4x128 ...] [--cpu-budget-s S]
#                                [--regression-across-sizes]]
#
# Run from anywhere (it cd's to the repo root). Writes into $OUT (default out/starpu_device):
# system.txt (nproc, lscpu, gcc, glibc, GPUs, OpenCL ICDs), build.log, ldd.txt, probe-MODE.log
# (StarPU's worker list for one small run), report-MODE.md + times-MODE.csv + runtime_starpu-MODE.log.
# --opencl pocl: the OpenCL worker is PoCL on the CPU (STARPU_OPENCL_ONLY_ON_CPUS=1), model device
# pocl-skylake-avx512-intel-xeon; gpu: StarPU's OpenCL worker is the host's GPU through the NVIDIA
# ICD (STARPU_OPENCL_ON_CPUS=0), model device nvidia-h200; cpu: CPU workers only (no OpenCL worker).
# CPU workers (one core each) run C corpus functions (tile_codelets.c) and are predicted by the C-function
# head (--cpu-model c, the default: models/c_functions/head.pt exported here with this host's one-core
# descriptor, cpu-model.log + host-1core.json; docs/RUNTIME.md "CPU workers: the C-function model");
# --cpu-model pocl (or a failed export): mapped to a one-thread PoCL descriptor measured here first
# (cpu-core/device.json, id pocl-xeon-1core; --cpu-descriptor xeon: the whole-Xeon one, as before).
# --five-runs: benchmarks.starpu_five_runs instead (issue 12 §6: every model over --runs runs from a
# cold start; five_runs-MODE.{md,csv,png}, times-MODE.csv, five_runs-MODE.log); the cpu mode runs
# --cpu-sizes and gets --cpu-budget-s (default: an equal share).
# Every step is under `timeout`; the benchmark shares --budget-s (default 240 s) among the modes.
set -u

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO" || exit 2
BUNDLE="${KGRAPH_STARPU_BUNDLE:-$REPO/.starpu}"   # the variable: tests only
OUT="${OUT:-$REPO/out/starpu_device}"
PYTHON="${PYTHON:-python3}"
MODE=pocl; NCPU=""; BUDGET=240; SIZES=(); WORKLOADS=(cholesky gemm)
FIVE=0; RUNS=5; REPEATS=1; CPU_SIZES=(4x128 8x128 6x256); CPU_BUDGET=""; CPU_DESC=core; REG_SHARED=(); CPU_MODEL=c
CPU_DEVICE=pocl-skylake-avx512-intel-xeon   # CPU workers; the one-core descriptor replaces it (--cpu-descriptor)
CPU_DEVICE_XEON=pocl-skylake-avx512-intel-xeon  # PoCL as the OpenCL worker (--opencl pocl)
GPU_DEVICE=nvidia-h200
EXPORT=""   # made below: the shipped compact head exported to C (a build output, never committed)

usage() { sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --opencl) MODE="${2:?--opencl needs pocl, gpu or both}"; shift 2 ;;
    --ncpu) NCPU="${2:?--ncpu needs a number}"; shift 2 ;;
    --budget-s) BUDGET="${2:?--budget-s needs seconds}"; shift 2 ;;
    --sizes) shift; SIZES=(); while [ $# -gt 0 ] && [[ "$1" != --* ]]; do SIZES+=("$1"); shift; done ;;
    --workloads) shift; WORKLOADS=(); while [ $# -gt 0 ] && [[ "$1" != --* ]]; do WORKLOADS+=("$1"); shift; done ;;
    --cpu-sizes) shift; CPU_SIZES=(); while [ $# -gt 0 ] && [[ "$1" != --* ]]; do CPU_SIZES+=("$1"); shift; done ;;
    --five-runs) FIVE=1; shift ;;
    --runs) RUNS="${2:?--runs needs a number}"; shift 2 ;;
    --repeats) REPEATS="${2:?--repeats needs a number}"; shift 2 ;;
    --cpu-budget-s) CPU_BUDGET="${2:?--cpu-budget-s needs seconds}"; shift 2 ;;
    --cpu-descriptor) CPU_DESC="${2:?--cpu-descriptor needs core or xeon}"; shift 2 ;;
    --cpu-model) CPU_MODEL="${2:?--cpu-model needs c or pocl}"; shift 2 ;;
    --regression-across-sizes) REG_SHARED=(--regression-across-sizes); shift ;;
    -h|--help) usage ;;
    *) echo "starpu_device: unknown option $1" >&2; usage ;;
  esac
done
MODES=()
for m in ${MODE//,/ }; do
  case "$m" in pocl|gpu|cpu) MODES+=("$m") ;; both) MODES+=(pocl gpu) ;;
    *) echo "starpu_device: --opencl must be pocl, gpu, cpu (CPU workers only) or both (or a comma list), not $MODE" >&2
       exit 2 ;; esac
done
[ ${#MODES[@]} -gt 0 ] || { echo "starpu_device: --opencl must be pocl, gpu, cpu (CPU workers only) or both (or a comma list), not $MODE" >&2; exit 2; }
[[ "$BUDGET" =~ ^[0-9]+$ ]] || { echo "starpu_device: --budget-s must be whole seconds, not $BUDGET" >&2; exit 2; }
[[ "$CPU_BUDGET" =~ ^[0-9]*$ ]] || { echo "starpu_device: --cpu-budget-s must be whole seconds, not $CPU_BUDGET" >&2; exit 2; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "starpu_device: --runs must be a positive number, not $RUNS" >&2; exit 2; }
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || { echo "starpu_device: --repeats must be a positive number, not $REPEATS" >&2; exit 2; }
case "$CPU_DESC" in core|xeon) ;; *) echo "starpu_device: --cpu-descriptor must be core or xeon, not $CPU_DESC" >&2; exit 2 ;; esac
case "$CPU_MODEL" in c|pocl) ;; *) echo "starpu_device: --cpu-model must be c or pocl, not $CPU_MODEL" >&2; exit 2 ;; esac
if [ ${#SIZES[@]} -eq 0 ]; then  # five runs: GPU tasks of 100 us and more at 512 and 768 (docs/RUNTIME.md)
  if [ $FIVE -eq 1 ]; then SIZES=(8x256 4x512 4x768); else SIZES=(4x128 6x192 8x256 10x256); fi
fi

if [ ! -f "$BUNDLE/starpu.env" ] || [ ! -e "$BUNDLE/lib/libstarpu-1.3.so" ]; then
  echo "starpu_device: no StarPU bundle at $BUNDLE: run benchmarks/starpu_bundle.sh on a box with" \
       "libstarpu-dev and carry .starpu with the repo" >&2
  exit 3
fi
BUNDLE="$(cd "$BUNDLE" && pwd)"
for tool in gcc timeout; do
  command -v "$tool" >/dev/null || { echo "starpu_device: $tool is not installed on this host" >&2; exit 3; }
done
mkdir -p "$OUT" || exit 2
OUT="$(cd "$OUT" && pwd)"
export PATH="$PATH:$BUNDLE/bin"   # the bundled make only where the host has none
while IFS='=' read -r key value; do
  [ -n "$key" ] && export "$key=${value//@BUNDLE@/$BUNDLE}"
done < "$BUNDLE/starpu.env"
export PYTHONUNBUFFERED=1

# --- the host --------------------------------------------------------------------------------
NPROC=$(nproc)
[ -n "$NCPU" ] || NCPU=$(( NPROC > 4 ? NPROC / 2 : 1 ))
glibc_have=$(ldd --version 2>/dev/null | head -1 | awk '{print $NF}')
glibc_need=$(awk '/^glibc_needed/ {sub("GLIBC_", "", $2); print $2}' "$BUNDLE/MANIFEST")
{
  echo "date: $(date -u +%FT%TZ)"; echo "nproc: $NPROC"; echo "ncpu workers: $NCPU"
  lscpu 2>/dev/null | head -20
  echo "gcc: $(gcc --version | head -1)"; echo "make: $(make --version | head -1) ($(command -v make))"
  echo "glibc: $glibc_have (bundle needs $glibc_need)"
  echo "python: $($PYTHON --version 2>&1)"
  command -v nvidia-smi >/dev/null && timeout 30 nvidia-smi -L
  echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-}"; ls -l "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}" 2>&1
  echo "bundle:"; cat "$BUNDLE/MANIFEST"
} > "$OUT/system.txt" 2>&1
cat "$OUT/system.txt"
if [ -n "$glibc_have" ] && [ -n "$glibc_need" ] &&
   [ "$(printf '%s\n%s\n' "$glibc_need" "$glibc_have" | sort -V | head -1)" != "$glibc_need" ]; then
  echo "starpu_device: this host's glibc $glibc_have is older than the bundle's $glibc_need" >&2; exit 3
fi

# --- build and check that everything resolves from the bundle + glibc --------------------------
BUILD="$(mktemp -d /tmp/kgraph_starpu_build.XXXXXX)" || exit 2
PROBE_HOME="$(mktemp -d /tmp/kgraph_starpu_probe.XXXXXX)" || exit 2
trap 'rm -rf "$BUILD" "$PROBE_HOME"' EXIT
EXPORT="$BUILD/export"
CORE_DEVICE=()
unset KGRAPH_STARPU_CPU_MODEL_DIR
if [ "$CPU_MODEL" = c ]; then  # the C-function head (trained and committed: seconds here), this host's one-core descriptor
  if timeout 120 "$PYTHON" -m kgraph.app.runtime.cpu_functions export --out "$BUILD/cpu_model" --measure \
       > "$OUT/cpu-model.log" 2>&1; then
    export KGRAPH_STARPU_CPU_MODEL_DIR="$BUILD/cpu_model"   # read by the Makefile (CPU_MODEL_DIR) of every build
    cp "$BUILD/cpu_model/host-1core.json" "$OUT/" 2>/dev/null; tail -1 "$OUT/cpu-model.log"
  else
    echo "starpu_device: exporting the C-function model failed (see $OUT/cpu-model.log): CPU workers are" \
         "mapped to a PoCL descriptor" | tee -a "$OUT/system.txt" >&2; tail -5 "$OUT/cpu-model.log" >&2
    CPU_MODEL=pocl
  fi
fi
if [ "$CPU_DESC" = core ] && [ "$CPU_MODEL" = pocl ]; then  # CPU workers run one core each: a one-thread PoCL descriptor, measured here
  if timeout 300 "$PYTHON" -m benchmarks.starpu_five_runs --describe-cpu-core "$OUT/cpu-core" > "$OUT/cpu-core.log" 2>&1; then
    CORE_DEVICE=(--device "$OUT/cpu-core"); CPU_DEVICE=pocl-xeon-1core; tail -1 "$OUT/cpu-core.log"
  else
    echo "starpu_device: measuring the one-core PoCL descriptor failed (see $OUT/cpu-core.log): CPU workers" \
         "keep the whole-Xeon descriptor $CPU_DEVICE" | tee -a "$OUT/system.txt" >&2
  fi
fi
if ! "$PYTHON" -m kgraph.app.cli.main export --format c --out "$EXPORT" --kernels data/corpus/tiles/*.cl "${CORE_DEVICE[@]}" > "$OUT/export.log" 2>&1; then
  echo "starpu_device: exporting the compact head to C failed (see $OUT/export.log):" >&2; tail -20 "$OUT/export.log" >&2; exit 4
fi
if ! timeout 300 make -s -C kgraph/app/runtime/starpu MODEL_DIR="$EXPORT" BUILD="$BUILD" KERNEL_DIR="$REPO/data/corpus/tiles" \
     C_CORPUS_DIR="$REPO/data/corpus/c" > "$OUT/build.log" 2>&1; then
  echo "starpu_device: building the workload failed (see $OUT/build.log):" >&2; tail -20 "$OUT/build.log" >&2; exit 4
fi
ldd "$BUILD/tiled_workload" > "$OUT/ldd.txt" 2>&1
if grep -q "not found" "$OUT/ldd.txt"; then
  echo "starpu_device: unresolved libraries:" >&2; grep "not found" "$OUT/ldd.txt" >&2; exit 4
fi
echo "built $BUILD/tiled_workload; libraries from the bundle: $(grep -c "$BUNDLE" "$OUT/ldd.txt")"

# --- OpenCL ICDs: the GPU needs the NVIDIA ICD next to the system ones -------------------------
# (pocl: $OCL_ICD_VENDORS, else /etc/OpenCL/vendors, else an ICD for the PoCL shipped with pyopencl).
icd_dir() {
  local have="${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"
  if [ "$1" = gpu ] && ! grep -qs nvidia "$have"/*.icd; then
    mkdir -p /tmp/kgraph_icd && echo libnvidia-opencl.so.1 > /tmp/kgraph_icd/nvidia.icd
    cp /etc/OpenCL/vendors/*.icd /tmp/kgraph_icd/ 2>/dev/null; echo /tmp/kgraph_icd
  elif ls "$have"/*.icd > /dev/null 2>&1; then
    echo "$have"
  else
    timeout 60 "$PYTHON" -c "import sys; from pathlib import Path
from kgraph.app.runtime.starpu_runner import pocl_icd_dir
print(pocl_icd_dir(Path(sys.argv[1])) or sys.argv[1])" /tmp/kgraph_icd_pocl
  fi
}

# --- per mode: a probe run listing StarPU's workers, then the comparison -----------------------
per_mode=$(( BUDGET / ${#MODES[@]} ))
if [ -n "$CPU_BUDGET" ] && [[ " ${MODES[*]} " == *" cpu "* ]] && [ ${#MODES[@]} -gt 1 ]; then
  per_mode=$(( (BUDGET - CPU_BUDGET) / (${#MODES[@]} - 1) ))
fi
status=0
for mode in "${MODES[@]}"; do
  budget=$per_mode; sizes=("${SIZES[@]}"); nocl=1
  if [ "$mode" = gpu ]; then
    ocl=(--opencl gpu --opencl-device "$GPU_DEVICE"); onc=0
  elif [ "$mode" = cpu ]; then
    ocl=(--opencl none); onc=1; nocl=0; [ $FIVE -eq 1 ] && sizes=("${CPU_SIZES[@]}")
    [ -n "$CPU_BUDGET" ] && budget=$CPU_BUDGET
  else
    ocl=(--opencl cpu --opencl-device "$CPU_DEVICE_XEON"); onc=1
    # PoCL gets the cores the StarPU workers (NCPU CPU + 1 OpenCL driver thread) leave free
    # (POCL_MAX_PTHREAD_COUNT: the PoCL of pyopencl's wheel; POCL_CPU_MAX_CU_COUNT: newer PoCL).
    export POCL_CPU_MAX_CU_COUNT=$(( NPROC - NCPU - 1 > 1 ? NPROC - NCPU - 1 : 1 ))
    export POCL_MAX_PTHREAD_COUNT=$POCL_CPU_MAX_CU_COUNT
  fi
  export OCL_ICD_VENDORS="$(icd_dir "$mode")"
  echo "== $mode: OCL_ICD_VENDORS=$OCL_ICD_VENDORS POCL_CPU_MAX_CU_COUNT=${POCL_CPU_MAX_CU_COUNT:-} budget ${budget}s =="
  STARPU_HOME="$PROBE_HOME/$mode" STARPU_SCHED=eager STARPU_NCPU="$NCPU" STARPU_NOPENCL=$nocl STARPU_NCUDA=0 \
    STARPU_OPENCL_ON_CPUS=$onc STARPU_OPENCL_ONLY_ON_CPUS=$onc STARPU_WORKER_STATS=1 \
    timeout 120 "$BUILD/tiled_workload" cholesky 4 64 none > "$OUT/probe-$mode.log" 2>&1
  echo "probe rc $? ($OUT/probe-$mode.log):"; grep -E "OpenCL|workload|CPU 0|rror" "$OUT/probe-$mode.log" | head -8
  if [ $nocl -eq 1 ] && ! grep -q "^OpenCL 0" "$OUT/probe-$mode.log"; then  # STARPU_WORKER_STATS lists the workers by name
    echo "starpu_device: StarPU found no OpenCL device for --opencl $mode (see $OUT/probe-$mode.log); skipped" >&2
    status=5; continue
  fi
  if [ $FIVE -eq 1 ]; then
    report="$OUT/five_runs-$mode.md"; log="$OUT/five_runs-$mode.log"
    timeout -k 10 "$budget" "$PYTHON" -m benchmarks.starpu_five_runs --export "$EXPORT" --ncpu "$NCPU" \
      --cpu-device "$CPU_DEVICE" "${ocl[@]}" --sizes "${sizes[@]}" --workloads "${WORKLOADS[@]}" --runs "$RUNS" --repeats "$REPEATS" \
      "${REG_SHARED[@]}" --budget-s $(( budget > 40 ? budget - 20 : budget / 2 )) --out-dir "$OUT" --tag "$mode" > "$log" 2>&1
  else
    report="$OUT/report-$mode.md"; log="$OUT/runtime_starpu-$mode.log"
    [ "$mode" = cpu ] && { echo "starpu_device: --opencl cpu (CPU workers only) needs --five-runs" >&2; status=2; continue; }
    timeout -k 10 "$budget" "$PYTHON" -m benchmarks.runtime_starpu --export "$EXPORT" --ncpu "$NCPU" \
      --cpu-device "$CPU_DEVICE" "${ocl[@]}" --sizes "${sizes[@]}" --workloads "${WORKLOADS[@]}" \
      --out "$report" --time-table "$OUT/times-$mode.csv" > "$log" 2>&1
  fi
  rc=$?
  [ $rc -eq 124 ] && echo "$mode ran past ${budget}s: the report holds the runs it finished"
  [ $rc -ne 0 ] && { status=$rc; tail -5 "$log"; }
  unset POCL_CPU_MAX_CU_COUNT POCL_MAX_PTHREAD_COUNT
  echo "-- $(basename "$report") (rc $rc):"; cat "$report" 2>/dev/null || echo "(none)"
done
exit $status
