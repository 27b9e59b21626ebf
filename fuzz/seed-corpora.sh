#!/usr/bin/env bash
# Refresh fuzz/corpus/<target>/ from the conformance vectors (each case's input,
# input_base64 or input_file bytes, per target as tests/fuzz_regressions.rs derives
# them) and the golden traces. Existing corpus files are kept; seeds are named by
# their SHA-256, so re-running only adds what changed. Works on stable Rust.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
FUZZ_SEED_DIR="$root/fuzz/corpus" cargo test --quiet --test fuzz_regressions \
  write_seed_corpora -- --ignored --exact --nocapture
for d in fuzz/corpus/*/; do
  printf '%-12s %5d files\n' "$(basename "$d")" "$(find "$d" -type f | wc -l)"
done
