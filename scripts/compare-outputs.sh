#!/usr/bin/env bash
# Compare everything two builds of the kit write for the same runs: stdout, stderr and
# exit status of `test`, its --report and --junit files, and `summary` (markdown, --json,
# --html) of those reports. Used to show that a redesign changed no behaviour:
#
#   scripts/compare-outputs.sh OLD_BINARY NEW_BINARY [SCRATCH_DIR]
#
# Runs: the built-in reference; the reference out of process (`serve`); the TypeScript
# example with and without its skip list; the Python example; fake adapters with planted
# faults (tests/fakes/fake_adapter.py), crashing, hanging and babbling ones; a skip list
# written by --write-skip-file. Timings are masked (durations, the closing line's seconds,
# JUnit's time attributes, the adapter stderr tails); nothing else is. Exits 0 when every output is byte-identical,
# 1 with a diff otherwise. Needs python3 and node. REUSE_OLD=1 keeps the old binary's
# outputs from an earlier call with the same SCRATCH_DIR.
set -uo pipefail
old=$(realpath "$1"); new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${3:-$(mktemp -d)}
mkdir -p "$scratch"
cd "$root"

ts_adapter=adapters/typescript/examples/adapter.mjs
[ -f "$ts_adapter" ] || ts_adapter=adapters/typescript/examples/adapter.js
ts_skip=adapters/typescript/examples/known-deviations.txt
fake=tests/fakes/fake_adapter.py

# The adapter's stderr tail is read by a thread as the adapter writes it, so how much of
# it a case shows is timing (in every version): it is masked too.
mask() {
  perl -0pe 's/\n  adapter stderr \(tail\):\n(    .*\n)*//g; s#\s*<system-err>.*?</system-err>##gs' | sed -E -e "s#$scratch/(old|new)#SCRATCH#g" -e "s#$old#BIN#g" -e "s#$new#BIN#g" -e 's/"duration_ms":[0-9]+/"duration_ms":0/g' \
    -e 's/\(([0-9]+\.[0-9]+) s\)/(T s)/g' \
    -e 's/ time="[^"]*"/ time="0"/g' \
    -e 's/ timestamp="[^"]*"/ timestamp="0"/g' \
    -e 's/[0-9]+(\.[0-9]+)? ms\b/N ms/g'
}

# run NAME ARGS...: `test` with a report and JUnit, through both binaries. `@BIN@` in an
# argument is the binary under test (for fakes that proxy to its `serve`), `@DIR@` the
# run's output directory.
run() {
  local name=$1; shift
  for side in old new; do
    # REUSE_OLD=1: keep the old binary's outputs of an earlier call (same SCRATCH_DIR).
    [ "$side" = old ] && [ "${REUSE_OLD:-0}" = 1 ] && [ -f "$scratch/old/$name/status" ] && continue
    local bin=${!side} dir="$scratch/$side/$name"
    mkdir -p "$dir"
    local args=()
    for a in "$@"; do a=${a//@BIN@/$bin}; args+=("${a//@DIR@/$dir}"); done
    "$bin" test "${args[@]}" --report "$dir/report.jsonl" --junit "$dir/junit.xml" \
      >"$dir/stdout" 2>"$dir/stderr"
    echo $? >"$dir/status"
    if [ -f "$dir/report.jsonl" ]; then
      "$bin" summary "$dir/report.jsonl" >"$dir/summary.md" 2>&1; echo $? >>"$dir/summary.md"
      "$bin" summary --json "$dir/report.jsonl" >"$dir/summary.json" 2>&1; echo $? >>"$dir/summary.json"
      "$bin" summary --html "$dir/page.html" "$dir/report.jsonl" >/dev/null 2>&1; echo $? >"$dir/page.status"
    fi
  done
}

run reference
run reference-terse --format terse
run reference-json --format json
run reference-list --list
run reference-filter journal/ --rule 'J-*'
run reference-shard1 --partition count:1/2
run reference-shard2 --partition count:2/2
run serve --adapter "@BIN@ serve" --properties 64
run ts-skip --adapter "node $ts_adapter" --skip-file "$ts_skip"
run ts-noskip --adapter "node $ts_adapter" --properties 64 --write-skip-file "@DIR@/written-skip.txt"
run ts-oneshot --adapter "node $ts_adapter" --one-shot --properties 0 journal/
[ -f examples/python/adapter.py ] && run python --adapter "python3 examples/python/adapter.py" --properties 64
for mode in wrong-stop-reason+accept-gaps wrong-code no-line extra-member accept-everything \
            wrong-stop+drop-tools tree-tips-reversed+tree-save-newline canonical-ascii store-dup-false \
            no-canonical no-operations; do
  run "fake-$mode" --adapter "python3 $fake $mode @BIN@" --properties 32
done
# A fault on every answer restarts the adapter for every check: one group.
for mode in garbage wrong-id; do
  run "fake-$mode" --adapter "python3 $fake $mode @BIN@" --properties 8 wire/
done
run fake-crash --adapter "python3 $fake crash @BIN@" --properties 0 journal/
run fake-hang --adapter "python3 $fake hang @BIN@" --timeout 4 --properties 0 --exact journal/gap
run fake-babble --adapter "python3 $fake babble @BIN@" --properties 0 --exact journal/gap
run fake-silent --adapter "python3 $fake silent @BIN@"
run empty-selection zz-nothing-matches

# Shards merged by summary, and reports of two implementations side by side.
for side in old new; do
  bin=${!side}; d="$scratch/$side"
  "$bin" summary "$d/reference-shard1/report.jsonl" "$d/reference-shard2/report.jsonl" \
    "$d/ts-skip/report.jsonl" >"$d/merged.md" 2>&1; echo $? >>"$d/merged.md"
  "$bin" summary --html "$d/merged.html" "$d/reference-shard1/report.jsonl" \
    "$d/reference-shard2/report.jsonl" "$d/fake-wrong-code/report.jsonl" >/dev/null 2>&1; echo $? >"$d/merged.status"
done

status=0
for f in $(cd "$scratch/old" && find . -type f | sort); do
  if ! diff -q <(mask <"$scratch/old/$f") <(mask <"$scratch/new/$f") >/dev/null 2>&1; then
    echo "DIFFERS: $f"
    diff <(mask <"$scratch/old/$f") <(mask <"$scratch/new/$f") | head -20
    status=1
  fi
done
extra=$(cd "$scratch/new" && find . -type f | sort | while read -r f; do [ -f "$scratch/old/$f" ] || echo "$f"; done)
[ -z "$extra" ] || { echo "only in the new run: $extra"; status=1; }
n=$(cd "$scratch/old" && find . -type f | wc -l)
[ "$status" = 0 ] && echo "identical: $n files (timings masked) in $scratch"
exit $status
