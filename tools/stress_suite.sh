#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole release suite N times in a row under CPU load (docs/reliability.md "The suite under load").
#   tools/stress_suite.sh [-n RUNS] [-l LOADS] [-j JOBS] [-o LOGDIR]
#     -n  runs (default 20)   -l  CPU-bound busy loops at normal priority (default 2)
#     -j  ctest -j (default 2)   -o  where each run's log goes (default build/stress)
# Needs the release build (cmake --preset release && cmake --build --preset release). Prints one line per run
# (exit status, seconds, load average, the ctest summary) and exits 1 if any run failed.
set -uo pipefail
runs=20 loads=2 jobs=2 out=build/stress
while getopts "n:l:j:o:" opt; do
  case "$opt" in
    n) runs="$OPTARG" ;; l) loads="$OPTARG" ;; j) jobs="$OPTARG" ;; o) out="$OPTARG" ;;
    *) sed -n '3,8p' "$0"; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
mkdir -p "$out"
pids=()
for _ in $(seq 1 "$loads"); do (while :; do :; done) & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
failed=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  ctest --preset release -j"$jobs" >"$out/run$i.log" 2>&1; rc=$?
  [ $rc -ne 0 ] && failed=$((failed + 1))
  echo "run $i rc=$rc $(( $(date +%s) - start )) s load $(cut -d' ' -f1-3 /proc/loadavg) :: $(grep -E 'tests passed|tests failed' "$out/run$i.log" | tail -1)"
done
echo "$((runs - failed)) of $runs runs passed"
[ $failed -eq 0 ]
