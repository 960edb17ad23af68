#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The CUDA path's device check, in one go, on a machine with an NVIDIA GPU (sm_80 or newer) and a fresh checkout:
#   1. configure with the `cuda` preset (ATTNSCOPE_CUDA=ON) and build tst_cuda and attnscope-cli;
#   2. run the cuda-labelled tests (parity with fp64 for every mask kind, weights, cancel);
#   3. `attnscope-cli bench --backend cuda --json` for n in {1024, 4096, 8192, 16384}, d in {64, 128},
#      f16 and f32, causal and not, H = 16, B = 1 (n = 8192, d = 64, H = 16 is the headline row);
#   4. the PyTorch SDPA peer (tools/peer_sdpa_cuda.py) on the same sizes, if torch with CUDA is importable.
# Everything goes to the directory given as $1, else $OUT, else ./cuda-device-check. Each step logs to its own
# file and a failing step does not stop the later ones; the exit code is 1 if any step failed.
#
#   bash bench/cuda_device_check.sh [OUTDIR]
# Environment: SIZES="1024 4096" DIMS="64" DTYPES="f16" to shrink the sweep; JOBS (default: nproc);
#              BUILD_DIR (default build/cuda); PYTHON (default tools/.venv/bin/python if present, else python3).
set -u
cd "$(dirname "$0")/.."
OUTDIR="${1:-${OUT:-$PWD/cuda-device-check}}"
mkdir -p "$OUTDIR"
BUILD_DIR="${BUILD_DIR:-build/cuda}"
JOBS="${JOBS:-$(nproc)}"
SIZES="${SIZES:-1024 4096 8192 16384}"
DIMS="${DIMS:-64 128}"
DTYPES="${DTYPES:-f16 f32}"
HEADS="${HEADS:-16}"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x tools/.venv/bin/python ]]; then PYTHON=tools/.venv/bin/python; else PYTHON=python3; fi
fi
failed=0
step() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$OUTDIR/summary.txt"; }
fail() { echo "   FAILED: $*" | tee -a "$OUTDIR/summary.txt"; failed=1; }

: > "$OUTDIR/summary.txt"
step "system"
{
  date -u
  uname -a
  nvidia-smi || echo "nvidia-smi not found"
  nvcc --version || /usr/local/cuda/bin/nvcc --version || echo "nvcc not found"
  git rev-parse HEAD 2>/dev/null && git status --short 2>/dev/null | head -50
} > "$OUTDIR/system.txt" 2>&1

step "configure (cuda preset, $BUILD_DIR)"
if ! cmake --preset cuda -B "$BUILD_DIR" > "$OUTDIR/configure.log" 2>&1; then
  fail "configure, see configure.log"; tail -20 "$OUTDIR/configure.log"
fi

step "build tst_cuda attnscope-cli (-j$JOBS)"
start=$(date +%s)
if ! cmake --build "$BUILD_DIR" -j"$JOBS" --target tst_cuda attnscope-cli > "$OUTDIR/build.log" 2>&1; then
  fail "build, see build.log"; grep -m20 -E "error|Error" "$OUTDIR/build.log"
fi
echo "   build took $(( $(date +%s) - start )) s" | tee -a "$OUTDIR/summary.txt"

step "ctest -L cuda"
if ! QT_QPA_PLATFORM=offscreen ctest --test-dir "$BUILD_DIR" -L cuda --output-on-failure --timeout 1200 \
      > "$OUTDIR/ctest.log" 2>&1; then
  fail "cuda tests, see ctest.log"
fi
# The per-row results (which rows ran, which skipped and why).
QT_QPA_PLATFORM=offscreen "$BUILD_DIR/tests/tst_cuda" -o "$OUTDIR/tst_cuda.txt,txt" > /dev/null 2>&1 || true
tail -3 "$OUTDIR/ctest.log" | tee -a "$OUTDIR/summary.txt"

CLI="$BUILD_DIR/app/attnscope-cli"
step "bench --backend cuda (n: $SIZES; d: $DIMS; dtype: $DTYPES; H=$HEADS)"
: > "$OUTDIR/bench_cuda.jsonl"
if [[ -x "$CLI" ]]; then
  for dtype in $DTYPES; do
    for d in $DIMS; do
      for n in $SIZES; do
        for causal in "" "--causal"; do
          if ! "$CLI" bench --backend cuda --dtype "$dtype" --n "$n" --d "$d" --heads "$HEADS" --batch 1 $causal \
                 --reps 20 --warmups 3 --max-seconds 20 --gemm-size 1024 --json \
                 >> "$OUTDIR/bench_cuda.jsonl" 2>> "$OUTDIR/bench_cuda.err"; then
            fail "bench dtype=$dtype n=$n d=$d $causal (see bench_cuda.err)"
          fi
        done
      done
    done
  done
  # The same headline row on the CPU's tiled kernel, for the record.
  "$CLI" bench --backend tiled --n 8192 --d 64 --heads 16 --causal --reps 3 --json \
    > "$OUTDIR/bench_tiled_headline.jsonl" 2>> "$OUTDIR/bench_cuda.err" || fail "tiled headline bench"
else
  fail "no $CLI"
fi

step "PyTorch SDPA peer"
if "$PYTHON" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" > /dev/null 2>&1; then
  peer_dtypes=$(echo "$DTYPES")
  if ! "$PYTHON" tools/peer_sdpa_cuda.py --n $SIZES --d $DIMS --dtype $peer_dtypes --causal both \
         --heads "$HEADS" > "$OUTDIR/peer_sdpa.jsonl" 2> "$OUTDIR/peer_sdpa.err"; then
    fail "peer (see peer_sdpa.err)"
  fi
else
  echo "   skipped: torch with CUDA is not importable by $PYTHON" | tee -a "$OUTDIR/summary.txt"
fi

step "summary"
if [[ -s "$OUTDIR/bench_cuda.jsonl" ]]; then
  "$PYTHON" - "$OUTDIR" <<'EOF' | tee -a "$OUTDIR/summary.txt" || true
import json, os, sys
out = sys.argv[1]
def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip().startswith("{")]
peer = {(r["dtype"], r["n"], r["d"], r["causal"]): r for r in rows("peer_sdpa.jsonl")}
print(f"{'dtype':>5} {'n':>6} {'d':>4} {'causal':>6} {'ms':>9} {'TFLOP/s':>8} {'err':>9} {'peer ms':>9} {'peer TF':>8}")
for r in rows("bench_cuda.jsonl"):
    if r.get("backend") != "cuda":
        continue
    p = peer.get((r.get("dtype"), r["n"], r["d"], r["causal"]), {})
    err = r.get("max_abs_err_vs_fp64")
    print(f"{r.get('dtype','?'):>5} {r['n']:>6} {r['d']:>4} {str(r['causal']):>6} {str(r.get('ms_median')):>9} "
          f"{str(r.get('tflops')):>8} {('%.2g' % err) if err is not None else '-':>9} "
          f"{str(p.get('ms_median','-')):>9} {str(p.get('tflops','-')):>8}" + (f"  ERROR {r['error']}" if 'error' in r else ""))
EOF
fi
echo "results in $OUTDIR" | tee -a "$OUTDIR/summary.txt"
exit $failed
