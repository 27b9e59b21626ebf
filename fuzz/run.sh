#!/usr/bin/env bash
# Run one fuzz target with the resource rules of fuzz/README.md:
#   fuzz/run.sh TARGET [SECONDS] [more libFuzzer flags, e.g. -jobs=2 -workers=2]
# SECONDS defaults to 600; 0 means run until stopped. Needs a nightly toolchain and
# cargo-fuzz. The corpus is fuzz/corpus/TARGET (seed it with fuzz/seed-corpora.sh);
# fuzz/regressions/TARGET is read as a second corpus; crashes land in
# fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
targets="wire_json journal journal_structured canonical tree vectors protocol"
target=${1:-}
if [ -z "$target" ] || ! grep -qw -- "$target" <<<"$targets"; then
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
case "$target" in
  wire_json|canonical) dicts="dicts/json.dict"; max_len=8192 ;;
  *) dicts="dicts/json.dict dicts/journal.dict"; max_len=16384 ;;
esac

mkdir -p "corpus/$target" "regressions/$target" "artifacts/$target" target
dict="target/$target.dict"
cat $dicts > "$dict"   # libFuzzer takes one -dict: merge the token lists

exec cargo +nightly fuzz run --sanitizer none "$target" "corpus/$target" "regressions/$target" -- \
  -dict="$dict" \
  -timeout="$timeout_s" \
  -rss_limit_mb="$rss_mb" \
  -malloc_limit_mb="$malloc_mb" \
  -max_len="$max_len" \
  -max_total_time="$secs" \
  -artifact_prefix="artifacts/$target/" \
  -print_final_stats=1 \
  "$@"
