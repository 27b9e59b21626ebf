#!/usr/bin/env bash
# Sourced by fuzz/run.sh, fuzz/ci-smoke.sh and .clusterfuzzlite/build.sh: which targets
# exist and how cargo-fuzz is called on the toolchain that is there.
#
#   fuzz_targets      the [[bin]] names of fuzz/Cargo.toml, one a line (so a target added
#                     there is run, smoked and built for ClusterFuzzLite without editing
#                     any script)
#   fuzz_max_len T    target T's default -max_len (bytes)
#   fuzz_dicts T      target T's dictionaries (paths relative to fuzz/), merged into one
#   fuzz_unpack T     unpack the committed corpus corpus/T.tar.xz into corpus/T/ (adds
#                     the files a working corpus lacks; keeps what is there)
#   fuzz_cargo ARGS   `cargo [+nightly] fuzz ARGS` with the sanitizer flag chosen below
#
# Toolchain: nightly when `cargo +nightly` works (AddressSanitizer, cargo-fuzz's default),
# otherwise the default (stable) toolchain with `--sanitizer none` and RUSTC_BOOTSTRAP=1
# (cargo-fuzz passes a few -Z flags). FUZZ_TOOLCHAIN=stable (or any toolchain name) and
# FUZZ_SANITIZER=none|address|leak override the choice; `leak` (LeakSanitizer alone, no
# instrumentation) works on stable too, 2 to 3 times slower than `none` (fuzz/README.md).
fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

fuzz_targets() {
  awk '/^\[\[bin\]\]/ { inbin = 1; next }
       /^\[/          { inbin = 0 }
       inbin && /^name *=/ { gsub(/^name *= *"|".*$/, ""); print }' "$fuzz_dir/Cargo.toml"
}

# 8 KiB holds a 4301-digit integer; 16 KiB a journal of a few dozen events.
fuzz_max_len() {
  case "$1" in
    wire_json|canonical) echo 8192 ;;
    *) echo 16384 ;;
  esac
}

fuzz_unpack() {
  local archive="$fuzz_dir/corpus/$1.tar.xz"
  mkdir -p "$fuzz_dir/corpus/$1"
  if [ -f "$archive" ]; then
    tar -xJf "$archive" -C "$fuzz_dir/corpus" --skip-old-files
  fi
}

fuzz_dicts() {
  case "$1" in
    wire_json|canonical) echo "dicts/json.dict" ;;
    *) echo "dicts/json.dict dicts/journal.dict" ;;
  esac
}

if [ -n "${FUZZ_TOOLCHAIN:-}" ] && [ "$FUZZ_TOOLCHAIN" != nightly ]; then
  fuzz_toolchain=(+"$FUZZ_TOOLCHAIN")
  fuzz_sanitizer=${FUZZ_SANITIZER:-none}
  export RUSTC_BOOTSTRAP=1
elif cargo +nightly --version >/dev/null 2>&1; then
  fuzz_toolchain=(+nightly)
  fuzz_sanitizer=${FUZZ_SANITIZER:-address}
else
  fuzz_toolchain=()
  fuzz_sanitizer=${FUZZ_SANITIZER:-none}
  export RUSTC_BOOTSTRAP=1
fi

fuzz_describe() {
  echo "fuzz: $(cargo "${fuzz_toolchain[@]}" --version), $(cargo fuzz --version 2>/dev/null || echo 'no cargo-fuzz'), sanitizer $fuzz_sanitizer${RUSTC_BOOTSTRAP:+, RUSTC_BOOTSTRAP=1}"
}

# `cargo fuzz SUBCOMMAND ARGS...` with the toolchain and the sanitizer inserted.
fuzz_cargo() {
  local sub=$1
  shift
  cargo "${fuzz_toolchain[@]}" fuzz "$sub" --sanitizer "$fuzz_sanitizer" "$@"
}
