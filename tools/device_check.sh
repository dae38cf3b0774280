#!/usr/bin/env bash
# Lesson 9 device check: measure the scaling bench on the course's GPU host in one go (at most 9 min).
#
# Run from the repository root on the GPU machine, e.g. with the device tool:
#     run(command="bash tools/device_check.sh", timeout_s=600)
# It needs torch (CUDA build), matplotlib, pytest and psutil; no jupyter. If psutil is missing
# there (the machine has no internet), download a wheel here first and carry it:
#     .venv/bin/python -m pip download psutil --only-binary=:all: \
#         --platform manylinux2014_x86_64 -d .whl        # psutil wheels are abi3: any CPython 3
#     run(command="bash tools/device_check.sh", carry=[".whl"], timeout_s=600)
#
# Writes into $OUT (default ./device-check-out), at most 8 files:
#   nccl_world1.json         1 rank, nccl on the GPU, plus the same loop without torchrun
#   gloo_shared_gpu.json     1, 2, 4 ranks sharing the one GPU with gloo, bucket sweep, no_sync
#   cpu_1thread.json         CPU gloo, 1 thread/rank, 1..16 ranks, weak + strong (as FACTS.md)
#   cpu_oversubscribed.json  CPU gloo, 4 ranks x 1 thread vs 4 ranks x all cores (as FACTS.md)
#   cpu_threads_policy.json  CPU gloo, threads per rank = cores // ranks, 1..16 ranks
#   summary.txt              each step's exit code and seconds; device_check.log: all output
# Steps run most important first, each under its own time limit, so a slow one loses only itself.
# A JSON from here becomes reference data with `python -m ddp_lessons bench`'s schema as is:
# copy it to ddp_lessons/data/ and give it a `label` naming the machine and date.

set -u
OUT=${OUT:-device-check-out}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
LOG="$OUT/device_check.log"
DAY=$(date +%Y-%m-%d)

step() {  # step NAME SECONDS COMMAND...: run COMMAND with a time limit, log it, record rc and seconds
    local name=$1 limit=$2 start rc
    shift 2
    start=$(date +%s)
    echo "=== $name: $*" >>"$LOG"
    timeout --kill-after=10 "$limit" "$@" >>"$LOG" 2>&1
    rc=$?
    echo "$name rc=$rc $(($(date +%s) - start))s" | tee -a "$OUT/summary.txt"
}

bench() {  # bench NAME SECONDS ARGS...: one `python -m ddp_lessons bench` run saved as NAME.json
    local name=$1 limit=$2
    shift 2
    step "$name" "$limit" "$PY" -m ddp_lessons bench --quiet --output "$OUT/$name.json" "$@"
}

if ! "$PY" -c "import psutil" 2>/dev/null && [ -d .whl ]; then
    "$PY" -m pip install --quiet --no-index --find-links .whl psutil >>"$LOG" 2>&1
fi
{
    echo "date $DAY"
    "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'gpus', torch.cuda.device_count())"
    nproc
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
} >>"$OUT/summary.txt" 2>&1

bench nccl_world1 80 --world-sizes 1 --backend nccl --steps 30 --warmup 10 --baseline \
    --label "1x H200, nccl, $DAY"
bench cpu_1thread 160 --device cpu --threads 1 --world-sizes 1 2 4 8 16 --steps 12 --warmup 3 \
    --bucket-sweep 0.001 0.25 --accumulate 4 --label "16-core CPU, 1 thread/rank, $DAY" \
    --notes "As FACTS.md measured: 1 thread/rank, batch 64/rank (weak), global batch 256 (strong)."
bench cpu_oversubscribed 60 --device cpu --threads 1 --world-sizes 4 --models cnn --scalings weak \
    --oversubscribe --steps 8 --warmup 2 --label "16-core CPU, 4 ranks, $DAY"
bench gloo_shared_gpu 90 --backend gloo --world-sizes 1 2 4 --steps 20 --warmup 5 \
    --bucket-sweep 0.001 0.25 --accumulate 4 --label "ranks sharing 1 H200, gloo, $DAY"
bench cpu_threads_policy 100 --device cpu --world-sizes 1 2 4 8 16 --models cnn mlp --scalings weak \
    --steps 12 --warmup 3 --label "16-core CPU, cores/ranks threads, $DAY"
step pytest 50 "$PY" -m pytest -q -p no:cacheprovider tests/test_bench.py tests/test_plots_scaling.py
echo "finished $(date +%H:%M:%S)" >>"$OUT/summary.txt"
