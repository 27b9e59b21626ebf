#!/usr/bin/env bash
# CI smoke run of every fuzz target (every [[bin]] of fuzz/Cargo.toml), FUZZ_SMOKE_SECONDS
# each (default 20) split into FUZZ_SMOKE_RUNS runs (FUZZ_REPEAT of fuzz/run.sh), from the
# committed corpora plus the seeds, with the resource rules of fuzz/run.sh. With a leak
# checker (ASan, or FUZZ_SANITIZER=leak) the default is 3 short runs instead of one: every
# run replays the whole corpus and starts and stops the target's threads again, so a
# finding that shows once in a few runs (fast_oracle's LeakSanitizer report of threads
# still exiting, issue 20) is caught in the smoke, not later. With `--sanitizer none` (CI on
# stable) no such report can exist, and a repeat only replays the corpus again (about 80 s
# of a slow CI hour for the ten targets): the default is one run.
# It FAILS when it cannot fuzz (no cargo-fuzz, a build error) and when any run of any target
# finds a crash, a leak, a timeout or an out-of-memory input: it never skips.
set -euo pipefail
cd "$(dirname "$0")"
. ./toolchain.sh
secs=${FUZZ_SMOKE_SECONDS:-20}
if [ "$fuzz_sanitizer" = none ]; then runs=${FUZZ_SMOKE_RUNS:-1}; else runs=${FUZZ_SMOKE_RUNS:-3}; fi
if ! [ "$runs" -ge 1 ] 2>/dev/null; then
  echo "fuzz smoke: FUZZ_SMOKE_RUNS must be a positive integer, got '$runs'" >&2
  exit 2
fi
per_run=$(( (secs + runs - 1) / runs ))
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke: FAILED: cargo-fuzz is not installed (cargo install --locked cargo-fuzz)" >&2
  exit 1
fi
fuzz_describe
./seed-corpora.sh >/dev/null
# Build every target once, as fuzz/run.sh will run them (release with debug assertions).
t0=$(date +%s)
fuzz_cargo build
echo "fuzz smoke: built $(fuzz_targets | wc -l) targets in $(( $(date +%s) - t0 ))s"
# FUZZ_SMOKE_BUILD_ONLY=1: stop here (CI builds first, starts its background builds, then
# runs this script again, whose build is then a no-op).
[ "${FUZZ_SMOKE_BUILD_ONLY:-}" = 1 ] && exit 0
mkdir -p artifacts
status=0
for t in $(fuzz_targets); do
  echo "--- fuzz smoke: $t ($runs runs of ${per_run}s)"
  if ! FUZZ_REPEAT=$runs ./run.sh "$t" "$per_run" > "artifacts/smoke-$t.log" 2>&1; then
    status=1
    echo "fuzz smoke: $t FAILED; tail of its log:"
    tail -n 40 "artifacts/smoke-$t.log"
  else
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "artifacts/smoke-$t.log" | tr '\n' ' '
    echo
  fi
done
# The implementers' template (fuzz/template/, docs/fuzzing.md), as shipped: its Mine
# forwards to the reference, so oracle::check must find nothing in a fixed number of runs
# from a fixed seed (FUZZ_TEMPLATE_RUNS, not seconds), with the resource rules of run.sh. It
# shares fuzz/target and starts from fuzz/Cargo.lock, so the library built above is reused
# and only the template's own crate is compiled.
truns=${FUZZ_TEMPLATE_RUNS:-20000}
echo "--- fuzz smoke: template/against_reference ($truns runs, seed 1)"
[ -f template/Cargo.lock ] || cp Cargo.lock template/Cargo.lock
tcorpus=$(mktemp -d)
cp ../golden/*.golden.jsonl "$tcorpus/"
if ! CARGO_TARGET_DIR="$fuzz_dir/target" fuzz_cargo run --fuzz-dir template against_reference "$tcorpus" -- \
     -runs="$truns" -seed=1 -dict="$fuzz_dir/dicts/json.dict" -timeout=1 -rss_limit_mb=1024 \
     -malloc_limit_mb=256 -max_len=16384 -artifact_prefix="$fuzz_dir/artifacts/template-" \
     > artifacts/smoke-template.log 2>&1; then
  status=1
  echo "fuzz smoke: template FAILED; tail of its log:"
  tail -n 40 artifacts/smoke-template.log
else
  grep -E '^(Done|stat::number_of_executed_units)' artifacts/smoke-template.log | tr '\n' ' '
  echo
fi
rm -rf "$tcorpus"
exit $status
