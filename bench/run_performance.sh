#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The sweep behind docs/performance.md: every configuration is one `attnscope-cli bench --json` process (validate
# first, then time, GEMM ceiling in the same process at the same thread count), appended as JSON lines; then
# format_performance.py turns the lines into Markdown tables.
#
#   bench/run_performance.sh [--cli PATH] [--out FILE.jsonl] [--md FILE.md] [--quick]
#
# Run it on a quiet machine (nothing else building); it takes tens of minutes. --quick runs two small
# configurations and a small memory run, to check the pipeline. OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are passed
# through exactly as the caller set them (see docs/performance.md for when to set them, both together).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
cli="$root/build/release/app/attnscope-cli"
out="$root/docs/performance.jsonl"
md=""
quick=0

while [[ $# -gt 0 ]]; do
  case "$1" in
    --cli) cli="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --md) md="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '3,12p' "$0"; exit 0 ;;
    *) echo "run_performance.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [[ ! -x "$cli" ]]; then
  echo "run_performance.sh: no attnscope-cli at '$cli' (build the release preset or pass --cli)" >&2
  exit 1
fi

if [[ $quick -eq 1 ]]; then
  sizes=(256 1024); dims=(64); masks=(""); threads=(1 2); memory_n=4096
else
  sizes=(256 1024 4096 16384); dims=(64 128); masks=("" "--causal"); threads=(1 2); memory_n=32768
fi

mkdir -p "$(dirname "$out")"
: > "$out"
failures=0

run() {   # run ARGS...: one bench process, its lines appended to $out
  echo "+ attnscope-cli bench $*" >&2
  if ! "$cli" bench "$@" --json >> "$out"; then
    failures=$((failures + 1))
    echo "run_performance.sh: failed: bench $*" >&2
  fi
}

for n in "${sizes[@]}"; do
  # H = 8 as in the issue's headline configuration; fewer heads and a tighter time budget at the longest n.
  heads=8; budget=60
  if [[ $n -ge 16384 ]]; then heads=2; budget=30; fi
  for d in "${dims[@]}"; do
    for mask in "${masks[@]}"; do
      for t in "${threads[@]}"; do
        # --backend all: tiled and unfused interleaved in one process (and cuda where a device is present).
        # The bench itself skips unfused, with a reason line, when its score scratch would exceed 4 GiB.
        # shellcheck disable=SC2086
        run --n "$n" --d "$d" --heads "$heads" --threads "$t" $mask --backend all \
            --unfused-limit-gib 4 --max-seconds "$budget"
      done
    done
  done
done

# Peak RSS at long n, in a process of its own: nothing O(n^2) is allocated, so peak_rss_mib should stay within
# qkvo_mib + 64 MiB (rss_within_target in the line).
run --memory --n "$memory_n" --d 64 --heads 8 --threads 2 --backend tiled --reps 3 --warmups 1 --max-seconds 60

echo "run_performance.sh: $(wc -l < "$out") lines in $out, $failures failed runs" >&2
if [[ -n "$md" ]]; then
  python3 "$here/format_performance.py" "$out" > "$md"
  echo "run_performance.sh: tables in $md" >&2
else
  python3 "$here/format_performance.py" "$out"
fi
[[ $failures -eq 0 ]]
