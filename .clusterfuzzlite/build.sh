#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every [[bin]] of fuzz/Cargo.toml (the same discovery
# as fuzz/run.sh and fuzz/ci-smoke.sh, fuzz/toolchain.sh), each with its dictionary, its
# libFuzzer options (max_len and timeout as fuzz/run.sh) and its committed corpus as
# the seed corpus. The sanitizer comes from the platform ($SANITIZER, $RUSTFLAGS):
# `cargo fuzz build -O` as the OSS-Fuzz Rust guide says, with debug assertions kept
# (the targets' invariants include the library's debug_assert!s).
cd "$SRC/journal-conformance"
. fuzz/toolchain.sh
cd fuzz
cargo fuzz build -O --debug-assertions
bin_dir=target/x86_64-unknown-linux-gnu/release
for t in $(fuzz_targets); do
  cp "$bin_dir/$t" "$OUT/"
  cat $(fuzz_dicts "$t") > "$OUT/$t.dict"
  printf '[libfuzzer]\nmax_len = %s\ntimeout = 1\ndict = %s.dict\n' \
    "$(fuzz_max_len "$t")" "$t" > "$OUT/$t.options"
  fuzz_unpack "$t"
  if [ -d "corpus/$t" ] && [ -n "$(ls -A "corpus/$t")" ]; then
    (cd "corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  fi
done
