#!/usr/bin/env bash
# Builds the fuzz targets and runs each on its kept corpus and regressions; fails on any crash,
# timeout (5 s) or sanitizer report.
#
#   bash Fuzz/run.sh [seconds] [target…]     fuzz each target for `seconds` (default 30), one at a time
#   bash Fuzz/run.sh --merge [target…]       minimise Fuzz/.build/work/<target> and Fuzz/corpus/<target> into
#                                            Fuzz/corpus/<target> (libFuzzer's -set_cover_merge=1: the features of -merge=1, fewer files)
#
# Targets: csv, values, predicate, geoargs, area, sheet (all when none is named). Each first replays every input in
# Fuzz/regressions/<target>/ (the crashers found so far), then fuzzes with Fuzz/corpus/<target>/ and
# the regressions as seeds. New inputs go to Fuzz/.build/work/<target>/, never into the repository; a
# crash is written to Fuzz/.build/crashes/<target>/ (copy it to Fuzz/regressions/<target>/ and add a test).
# The last line per target is libFuzzer's executions count.
set -euo pipefail
cd "$(dirname "$0")"
all=(csv values predicate geoargs area sheet)
declare -A max_len=([csv]=256 [values]=128 [predicate]=512 [geoargs]=128 [area]=512 [sheet]=512)
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"
# Let libFuzzer report a Swift trap itself, rather than the Swift runtime's backtracer, which ASan trips over.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

if [ "${1:-}" = "--merge" ]; then
  shift
  targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
  bash build.sh "${targets[@]}" 2>&1 | grep -v "Cannot export local symbol" >&2 || true
  for t in "${targets[@]}"; do
    fresh=$(mktemp -d)
    mkdir -p "corpus/$t" ".build/work/$t"
    ".build/fuzz-$t" -set_cover_merge=1 -max_len="${max_len[$t]}" "$fresh" "corpus/$t" ".build/work/$t" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
    if [ -z "$(ls "$fresh")" ]; then echo "$t: the merge kept nothing; Fuzz/corpus/$t left as it was" >&2; exit 1; fi
    rm -f "corpus/$t"/*
    cp "$fresh"/* "corpus/$t"/
    rm -rf "$fresh"
    echo "$t: $(ls "corpus/$t" | wc -l) inputs in Fuzz/corpus/$t"
  done
  exit 0
fi

seconds="${1:-30}"
[ $# -gt 0 ] && shift
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
bash build.sh "${targets[@]}" 2>&1 | grep -v "Cannot export local symbol" >&2

failed=()
for t in "${targets[@]}"; do
  mkdir -p ".build/work/$t" ".build/crashes/$t" "corpus/$t" "regressions/$t"
  log=".build/fuzz-$t.log"
  regressions=(regressions/"$t"/*)
  if [ -e "${regressions[0]}" ]; then
    if ! ".build/fuzz-$t" -timeout=5 "${regressions[@]}" > "$log" 2>&1; then
      echo "fuzz $t: a regression input fails again; see Fuzz/$log" >&2
      tail -30 "$log" >&2
      failed+=("$t")
      continue
    fi
  fi
  status=0
  ".build/fuzz-$t" -max_total_time="$seconds" -timeout=5 -max_len="${max_len[$t]}" -print_final_stats=1 \
    -artifact_prefix=".build/crashes/$t/" ".build/work/$t" "corpus/$t" "regressions/$t" > "$log" 2>&1 || status=$?
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  if [ "$status" -ne 0 ]; then
    echo "fuzz $t: FAILED after ${runs:-?} executions (exit $status); see Fuzz/$log and Fuzz/.build/crashes/$t/" >&2
    grep -E "ERROR|Fatal error|panic|precondition|SUMMARY|Test unit written" "$log" | head -10 >&2 || true
    failed+=("$t")
  else
    echo "fuzz $t: ${runs:-?} executions in ${seconds} s, no crash"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
