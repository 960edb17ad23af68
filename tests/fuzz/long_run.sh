#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Long local fuzzing runs (docs/reliability.md "Fuzzing for hours"). Needs the fuzz build:
#   cmake --preset fuzz && cmake --build --preset fuzz
#
#   tests/fuzz/long_run.sh [-t SECONDS] [-r RUNS] [-j PARALLEL] [-T TIMEOUT] [-x] [TARGET ...]
#     -t  wall-clock limit per target (-max_total_time), default 3600
#     -r  executions per target (-runs), default 1000000; 0: no limit (then -t decides)
#     -j  targets fuzzed at the same time, default 2 (each is one single-threaded process, under nice)
#     -T  seconds of wall-clock time one input may take before it counts as a hang, default 60 (a niced process on
#         a busy machine can wait seconds for a core; replay a timeout on an idle machine before believing it)
#     -x  explore: libFuzzer's fork mode with -ignore_crashes/-ignore_timeouts/-ignore_ooms, so one finding
#         does not end the run; every finding is kept in the artifacts folder
#   TARGET: the fuzz_* names without the prefix (default: every target built)
#
# Each target's corpus lives in build/fuzz/long/TARGET/corpus (seeded with corpus/TARGET and regressions/TARGET,
# except the KNOWN_OPEN inputs) and grows across runs; findings go to build/fuzz/long/TARGET/artifacts. The summary
# gives per target the executions, the findings (crashes, sanitizer reports, timeouts, out-of-memory) and the
# exit status. Copy a finding into regressions/TARGET/ once it is understood.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/fuzz/tests/fuzz"
work="$root/build/fuzz/long"
seconds=3600 runs=1000000 parallel=2 timeout=60 explore=0
while getopts "t:r:j:T:x" opt; do
  case "$opt" in
    t) seconds="$OPTARG" ;; r) runs="$OPTARG" ;; j) parallel="$OPTARG" ;; T) timeout="$OPTARG" ;; x) explore=1 ;;
    *) sed -n '4,20p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$bin"/fuzz_*; do
    name="$(basename "$f")"; name="${name#fuzz_}"
    [ "$name" = make_inputs ] || targets+=("$name")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "no fuzz targets in $bin: build the fuzz preset first" >&2; exit 2; }

run_one() {
  local t="$1" dir="$work/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local open; open="$(grep -oE "^$t/[^ ]+" "$root/tests/fuzz/regressions/KNOWN_OPEN" | sed "s|^$t/||" || true)"
  for f in "$root/tests/fuzz/corpus/$t"/* "$root/tests/fuzz/regressions/$t"/*; do
    [ -f "$f" ] || continue
    grep -qxF "$(basename "$f")" <<<"$open" && continue
    cp -n "$f" "$dir/corpus/seed-$(basename "$f")"
  done
  local mode=(-runs="$runs")
  [ "$explore" = 1 ] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  [ "$runs" = 0 ] && [ "$explore" = 0 ] && mode=()
  local status=0
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    nice -n 19 "$bin/fuzz_$t" "${mode[@]}" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2560 \
      -malloc_limit_mb=2048 -dict="$root/tests/fuzz/json.dict" -print_final_stats=1 \
      -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$dir/log" 2>&1 || status=$?
  local executed findings
  executed="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$dir/log" | grep -oE '[0-9]+$' | awk '{s+=$1} END {if (NR) print s}')"
  [ -n "$executed" ] || executed="$(grep -oE '^#[0-9]+' "$dir/log" | tail -1 | tr -d '#')"
  # crash-, leak-, timeout-, oom- artifacts are findings; slow-unit- ones (> 10 s) are only listed.
  findings="$(find "$dir/artifacts" -type f ! -name 'slow-unit-*' | wc -l)"
  printf '%-18s executions %10s   findings %3s   slow units %3s   exit %s   corpus %s files\n' "$t" "${executed:-?}" \
    "$findings" "$(find "$dir/artifacts" -type f -name 'slow-unit-*' | wc -l)" "$status" "$(find "$dir/corpus" -type f | wc -l)"
}
export -f run_one
export root bin work seconds runs timeout explore

echo "fuzzing ${targets[*]}: ${seconds} s and $([ "$runs" = 0 ] && echo unlimited || echo "$runs") runs each, $parallel at a time$([ "$explore" = 1 ] && echo ', explore mode')"
printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_one {}'
