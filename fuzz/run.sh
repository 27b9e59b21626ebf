#!/usr/bin/env bash
# Run one fuzz target with the resource rules of fuzz/README.md:
#   fuzz/run.sh TARGET [SECONDS] [more libFuzzer flags, e.g. -jobs=2 -workers=2 -runs=N]
# SECONDS defaults to 600; 0 means run until stopped. TARGET is any [[bin]] of
# fuzz/Cargo.toml. Needs cargo-fuzz (`cargo install --locked cargo-fuzz`); works on stable
# (`--sanitizer none`) and on nightly (AddressSanitizer), see fuzz/toolchain.sh.
# FUZZ_MAX_LEN overrides the target's -max_len (the larger-input runs of fuzz/README.md).
# FUZZ_BIN_DIR=DIR runs DIR/TARGET, an already built binary, instead of `cargo fuzz run`
# (which rebuilds first): a long campaign keeps fuzzing the code it started with.
# FUZZ_REPEAT=N runs the target N times, SECONDS each, and fails at the first run that
# fails (saying which): a finding that shows in one run of three is not luck of the draw
# (fuzz/ci-smoke.sh runs every target this way; `FUZZ_REPEAT=30 fuzz/run.sh T 3` to hunt one).
# The corpus is fuzz/corpus/TARGET; fuzz/regressions/TARGET is read as a second corpus;
# crashes land in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
. ./toolchain.sh
targets=$(fuzz_targets | tr '\n' ' ')
target=${1:-}
if [ -z "$target" ] || ! grep -qxF -- "$target" <(fuzz_targets); then
  echo "usage: fuzz/run.sh TARGET [SECONDS] [libFuzzer flags...]; TARGET is one of: $targets" >&2
  exit 2
fi
secs=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))

# Resource rules (fuzz/README.md): no input over 1 s, at most 1 GiB resident and no
# single allocation over 256 MiB, inputs of bounded size per target.
timeout_s=1
rss_mb=1024
malloc_mb=256
dicts=$(fuzz_dicts "$target")
max_len=${FUZZ_MAX_LEN:-$(fuzz_max_len "$target")}
# store_apply writes scratch journals (with fsync): on tmpfs where there is one.
if [ "$target" = store_apply ] && [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi

fuzz_unpack "$target"   # the committed, minimised corpus (corpus/TARGET.tar.xz)
mkdir -p "corpus/$target" "regressions/$target" "artifacts/$target" target
dict="target/$target.dict"
cat $dicts > "$dict"   # libFuzzer takes one -dict: merge the token lists

if [ -n "${FUZZ_BIN_DIR:-}" ]; then
  run_target() {
    local bin=$FUZZ_BIN_DIR/$1 args=() a
    shift
    for a in "$@"; do [ "$a" = -- ] || args+=("$a"); done
    "$bin" "${args[@]}"
  }
else
  run_target() { fuzz_cargo run "$@"; }
fi
repeat=${FUZZ_REPEAT:-1}
if ! [ "$repeat" -ge 1 ] 2>/dev/null; then
  echo "fuzz/run.sh: FUZZ_REPEAT must be a positive integer, got '$repeat'" >&2
  exit 2
fi
for (( run = 1; run <= repeat; run++ )); do
  [ "$repeat" -eq 1 ] || echo "fuzz/run.sh: $target, run $run of $repeat (${secs}s)"
  status=0
  run_target "$target" "corpus/$target" "regressions/$target" -- \
    -dict="$dict" \
    -timeout="$timeout_s" \
    -rss_limit_mb="$rss_mb" \
    -malloc_limit_mb="$malloc_mb" \
    -max_len="$max_len" \
    -max_total_time="$secs" \
    -artifact_prefix="artifacts/$target/" \
    -print_final_stats=1 \
    "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "fuzz/run.sh: $target failed in run $run of $repeat (exit $status)" >&2
    exit "$status"
  fi
done
