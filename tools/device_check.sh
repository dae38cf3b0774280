#!/usr/bin/env bash
# The course on a GPU machine, in one go: the bench's GPU measurements and the GPU cells of lessons
# 1, 3, 6 and 9 (issue 15). Labels come from the machine (GPU model and count, CPU cores).
#
#     bash tools/device_check.sh [GROUP...]     GROUP: gpu (default), lessons, cpu, all
#       gpu      nccl_world1, gloo_shared_gpu, then the lessons, then a pytest of the GPU-decision code
#       lessons  only lessons 1, 3, 6, 9
#       cpu      the CPU measurements of FACTS.md (1..16 ranks; needs ~6 min on 16 cores)
# The default group fits one 10-minute device call (limits below sum to ~8 min); run `cpu` in a
# second call only if device time is left.
#
# For a later session that is lent a GPU (torch 2.11 CUDA, matplotlib, pytest and psutil are there;
# jupyter, nbval and ipywidgets are not):
#   1. Run the CPU tests here first. Then, with the device tool, from the repository root:
#          run(command="bash tools/device_check.sh", timeout_s=600)
#      The lessons then run through tools/run_lessons.py: each notebook's code cells in order, as a
#      kernel would (%%writefile, %run -n, last values, figures as PNG), every assert checked.
#   2. To run them in a real kernel instead (nbclient), carry wheels (see /work/.library/device/
#      README.md: pip download --no-deps --only-binary=:all: --python-version 3.12 ... -d .whl for
#      nbclient nbformat jupyter_client jupyter_core ipykernel ipython pyzmq tornado traitlets
#      comm debugpy matplotlib-inline fastjsonschema jsonschema and their own needs), then:
#          run(command="bash tools/device_check.sh", carry=[".whl"], timeout_s=600)
#      This script installs .whl/*.whl into /tmp/site and uses nbclient when it imports.
#   3. What comes back ($OUT, at most 8 files): summary.txt (each step's exit code and seconds, the
#      machine), device_check.log (all output), nccl_world1.json, gloo_shared_gpu.json (bench
#      results with `python -m ddp_lessons bench`'s schema), lessons.tar.gz (per-lesson logs, PNGs,
#      executed notebooks with --kernel). A bench JSON becomes reference data by copying it to
#      ddp_lessons/data/ (its label already names the machine); the lesson logs are the reference
#      outputs of the GPU cells: say in the issue note which steps ran and which did not.

set -u
OUT=${OUT:-device-check-out}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
LOG="$OUT/device_check.log"
DAY=$(date +%Y-%m-%d)
GROUPS_ASKED=" ${*:-gpu} "

wants() {  # wants GROUP: was GROUP (or one that includes it) asked for?
    [[ $GROUPS_ASKED == *" $1 "* || $GROUPS_ASKED == *" all "* ]] ||
        { [[ $1 == lessons && $GROUPS_ASKED == *" gpu "* ]]; }
}

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

if [ -d .whl ]; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl >>"$LOG" 2>&1 && export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi

# Labels from the machine, e.g. "1x NVIDIA H200" and "16-core CPU".
CORES=$(nproc)
GPUS=$("$PY" -c "import torch; print(torch.cuda.device_count())" 2>/dev/null || echo 0)
GPU_NAME=$("$PY" -c "import torch; print(torch.cuda.get_device_name(0))" 2>/dev/null || echo "no GPU")
CPU_LABEL="$CORES-core CPU"
{
    echo "date $DAY; groups:$GROUPS_ASKED"
    "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'gpus', torch.cuda.device_count())"
    echo "cpu cores $CORES; gpus $GPUS x $GPU_NAME"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
} >>"$OUT/summary.txt" 2>&1

if wants gpu; then
    bench nccl_world1 80 --world-sizes 1 --backend nccl --steps 30 --warmup 10 --baseline \
        --label "${GPUS}x $GPU_NAME, 1 rank, nccl, $DAY"
    # Ranks sharing ONE GPU: pinned to GPU 0, so on a multi-GPU host they do not spread out.
    CUDA_VISIBLE_DEVICES=0 bench gloo_shared_gpu 90 --backend gloo --world-sizes 1 2 4 --steps 20 \
        --warmup 5 --bucket-sweep 0.001 0.25 --accumulate 4 \
        --label "ranks sharing 1 $GPU_NAME, gloo, $DAY"
fi
if wants lessons; then
    KERNEL=$("$PY" -c "import nbclient, ipykernel" 2>/dev/null && echo --kernel)
    step lessons 270 "$PY" tools/run_lessons.py $KERNEL "$OUT/lessons" notebooks/01_why_ddp.ipynb \
        notebooks/03_devices.ipynb notebooks/06_gradient_sync.ipynb notebooks/09_scaling.ipynb
    tar -czf "$OUT/lessons.tar.gz" -C "$OUT" lessons && rm -rf "$OUT/lessons"
fi
if wants gpu; then
    step pytest 50 "$PY" -m pytest -q -p no:cacheprovider -m "not slow" tests/test_bench.py \
        tests/test_plots_scaling.py tests/test_backend.py tests/test_timing.py
fi
if wants cpu; then
    bench cpu_1thread 160 --device cpu --threads 1 --world-sizes 1 2 4 8 16 --steps 12 --warmup 3 \
        --bucket-sweep 0.001 0.25 --accumulate 4 --label "$CPU_LABEL, 1 thread/rank, $DAY" \
        --notes "As FACTS.md measured: 1 thread/rank, batch 64/rank (weak), global batch 256 (strong)."
    bench cpu_oversubscribed 60 --device cpu --threads 1 --world-sizes 4 --models cnn --scalings weak \
        --oversubscribe --steps 8 --warmup 2 --label "$CPU_LABEL, 4 ranks, $DAY"
    bench cpu_threads_policy 100 --device cpu --world-sizes 1 2 4 8 16 --models cnn mlp --scalings weak \
        --steps 12 --warmup 3 --label "$CPU_LABEL, cores/ranks threads, $DAY"
fi
echo "finished $(date +%H:%M:%S)" >>"$OUT/summary.txt"
