#!/usr/bin/env bash
# The CI gate of docs/ci.md and action.yml, in one script so the recipes cannot drift from
# what the kit's own CI (.ci/run) exercises.
#
#   scripts/ci-gate.sh test  --adapter CMD [--skip-file F] [--shard K/N] [--out DIR] [-- EXTRA...]
#   scripts/ci-gate.sh merge [--out DIR]
#
# `test` runs the corpus against the adapter, writing DIR/report-K.jsonl and DIR/junit-K.xml
# (K = the shard, 1 unsharded), and exits with the kit's status (0 conformant, 1 not, 2 usage).
# `merge` joins every DIR/report-*.jsonl into DIR/summary.md and the page DIR/results.html,
# prints summary.md, appends it to $GITHUB_STEP_SUMMARY when that is set, and only then
# exits with the merged verdict: a failing gate still leaves its summary and page.
# JC_BIN names the kit's command (default: journal-conformance on PATH).
set -euo pipefail
bin=${JC_BIN:-journal-conformance}
usage() { sed -n '5,6p' "$0" | sed 's/^# *//' >&2; exit 2; }
[ $# -ge 1 ] || usage
mode=$1; shift
out=conformance-results adapter="" skip="" shard="1/1" extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --adapter) adapter=$2; shift 2 ;;
    --skip-file) skip=$2; shift 2 ;;
    --shard) shard=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "ci-gate: unknown argument $1" >&2; usage ;;
  esac
done
mkdir -p "$out"
case $mode in
  test)
    [ -n "$adapter" ] || { echo "ci-gate: test needs --adapter CMD" >&2; exit 2; }
    [[ $shard =~ ^([0-9]+)/([0-9]+)$ ]] || { echo "ci-gate: --shard wants K/N, got $shard" >&2; exit 2; }
    k=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
    args=(test --adapter "$adapter" --report "$out/report-$k.jsonl" --junit "$out/junit-$k.xml")
    [ -n "$skip" ] && args+=(--skip-file "$skip")
    if [ "$n" -gt 1 ]; then
      if "$bin" test --help 2>/dev/null | grep -q -- '--partition'; then
        args+=(--partition "count:$k/$n")
      elif [ "$k" -gt 1 ]; then
        echo "ci-gate: this kit has no --partition; shard 1/$n runs every case, shard $k/$n nothing"
        exit 0
      else
        echo "ci-gate: this kit has no --partition; shard 1/$n runs every case"
      fi
    fi
    status=0
    "$bin" "${args[@]}" ${extra[@]+"${extra[@]}"} || status=$?
    echo "ci-gate: shard $k/$n exit $status; report $out/report-$k.jsonl, JUnit $out/junit-$k.xml"
    exit "$status"
    ;;
  merge)
    shopt -s nullglob
    reports=("$out"/report-*.jsonl)
    [ ${#reports[@]} -gt 0 ] || { echo "ci-gate: no $out/report-*.jsonl to merge" >&2; exit 2; }
    # The verdict is kept, not acted on, until every output is written and shown.
    status=0
    "$bin" summary --html "$out/results.html" "${reports[@]}" > "$out/summary.md" || status=$?
    cat "$out/summary.md"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi
    echo "ci-gate: merged ${#reports[@]} report(s) into $out/summary.md and $out/results.html; exit $status"
    exit "$status"
    ;;
  *) usage ;;
esac
