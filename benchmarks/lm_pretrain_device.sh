#!/usr/bin/env bash
# One GPU call of the code LM's pretraining (issue 11, docs/LM.md "Pretraining"): installs kgraph without
# its dependencies (the host has torch, transformers and tokenizers; the carried folder WHEELS needs only
# setuptools), then runs `python -m kgraph.models.code_lm.pretrain` for SESSION minutes of a schedule of
# MINUTES minutes in all. Carry `lm_corpus/gpu` on the first call; a warm host keeps `lm_corpus/` (packed
# tokens, the checkpoint in lm_corpus/run/) between calls, so the same command run again within the idle
# window resumes the schedule. Every call writes the model as it stands (int8 weights, metrics, loss curve)
# to $OUT/code_lm-<n>.tgz (one archive: a call brings back only a few files), the log to $OUT/pretrain-<n>.log.
# Usage (repo root): WHEELS=.whls MINUTES=13 SESSION=6.5 bash benchmarks/lm_pretrain_device.sh
set -u
OUT=${OUT:-out/lm}; mkdir -p "$OUT"
if [ -z "${SKIP_INSTALL:-}" ]; then  # SKIP_INSTALL=1: kgraph is installed already (benchmarks/device_env.sh sourced)
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ${WHEELS:-.whls}/*.whl || exit 3
  PYTHONPATH=/tmp/site python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/kg . || exit 3
  export PYTHONPATH=/tmp/kg:/tmp/site PYTHONSAFEPATH=1
fi
export PYTHONUNBUFFERED=1
n=$(ls lm_corpus/run/calls 2>/dev/null | wc -l); mkdir -p lm_corpus/run/calls; touch lm_corpus/run/calls/$n
python3 -c "import torch, transformers, tokenizers; from transformers import ModernBertConfig; print('torch', torch.__version__, 'transformers', transformers.__version__, 'tokenizers', tokenizers.__version__, torch.cuda.get_device_name())" || exit 4
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 10 > "$OUT/gpu_util-$n.csv" 2>&1 &
SMI=$!
timeout ${TIMEOUT_S:-540} python3 -m kgraph.models.code_lm.pretrain --corpus lm_corpus --minutes "${MINUTES:-14}" \
  --session-minutes "${SESSION:-7}" --eval-every-minutes 3.5 --out "$OUT/code_lm" > "$OUT/pretrain-$n.log" 2>&1
echo "pretrain exit $?"
kill $SMI
tail -n 4 "$OUT/pretrain-$n.log"; ls -la "$OUT/code_lm" lm_corpus/run
# a call brings back only a few files: the model folder as one archive
tar czf "$OUT/code_lm-$n.tgz" -C "$OUT" code_lm && rm -rf "$OUT/code_lm"
