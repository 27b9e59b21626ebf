#!/usr/bin/env bash
# CI smoke run of every fuzz target, ~30 s each (FUZZ_SMOKE_SECONDS), from seeded
# corpora, with the resource rules of fuzz/run.sh. Where no nightly toolchain or no
# cargo-fuzz is installed, it says so and exits 0: the stable replay of the same target
# bodies (tests/fuzz_regressions.rs) runs in `cargo test` anyway.
set -euo pipefail
cd "$(dirname "$0")"
secs=${FUZZ_SMOKE_SECONDS:-30}
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz smoke: skipped (no nightly toolchain; the stable replay ran in cargo test)"
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke: skipped (cargo-fuzz is not installed; the stable replay ran in cargo test)"
  exit 0
fi
./seed-corpora.sh >/dev/null 2>&1
cargo +nightly fuzz build --sanitizer none   # as fuzz/run.sh: release with debug assertions
mkdir -p artifacts
status=0
for t in wire_json journal journal_structured canonical tree vectors protocol; do
  echo "--- fuzz smoke: $t (${secs}s)"
  if ! ./run.sh "$t" "$secs" > "artifacts/smoke-$t.log" 2>&1; then
    status=1
    echo "fuzz smoke: $t FAILED; tail of its log:"
    tail -n 40 "artifacts/smoke-$t.log"
  else
    grep -E '^(Done|stat::number_of_executed_units)' "artifacts/smoke-$t.log" | tr '\n' ' '
    echo
  fi
done
exit $status
