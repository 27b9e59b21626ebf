#!/usr/bin/env bash
# The mutation gate in CI (issue 19 item 1; conformance/mutants/README.md).
#
#   scripts/mutants-ci.sh [BASE]
#
# Runs cargo-mutants (27.1.0, .cargo/mutants.toml: tests/mutation_gate.rs is the only
# test) on the reference's gated semantic modules (below), in a campaign tree made from HEAD's commit
# (scripts/mutants-tree.sh; uncommitted changes are not in it):
#
# - when BASE is given, or a merge base with origin/main or main exists, and the diff
#   against it touches those modules: only the mutants on the changed lines (--in-diff);
# - otherwise: one fixed shard, MUTANTS_SHARD (default: K/N with N=${MUTANTS_SHARDS:-400}
#   and K from the commit's tree hash, so a commit always runs the same few mutants and
#   successive commits walk through all of them; 400 shards of the gated modules' ~2,000
#   mutants are five each: at 30 to 60 s a mutant on a slow machine, ten took CI's step
#   to 9 minutes and the whole run past 30).
# MUTANTS_ARGS adds arguments to cargo mutants (e.g. MUTANTS_ARGS='--re fingerprint' with
# MUTANTS_SHARD=0/1 re-runs chosen mutants).
#
# Exit 0 when every mutant it ran was caught, unviable, timed out (a reference that hangs
# fails the runner's own timeout), or is listed in conformance/mutants/explained.txt;
# 1 when a mutant was missed and is not listed (it prints them); 2 on any other failure
# (the unmutated gate failing included).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# The modules whose campaign is complete (conformance/mutants/README.md, "Results"): every
# mutant of theirs is caught, unviable, timed out or explained, so a miss here is NEW.
# fast/differential.rs is not among them: it is the checker of the fast path, which no
# answering path calls.
# MUTANTS_MODULES='src/a.rs src/b.rs' overrides the list (a campaign of one module).
modules=(src/wire.rs src/event.rs src/journal.rs src/replay.rs src/fingerprint.rs src/branch.rs
  src/canonical.rs src/tree/yoagent.rs src/profile.rs src/tree.rs src/store.rs src/ops.rs
  src/json.rs src/fast/ids.rs src/fast/mod.rs src/fast/tape.rs src/fast/yoagent.rs src/fast/vouch.rs)
if [ -n "${MUTANTS_MODULES:-}" ]; then read -r -a modules <<<"$MUTANTS_MODULES"; fi
file_args=()
for m in "${modules[@]}"; do file_args+=(--file "$m"); done

# MUTANTS_OUT=DIR keeps cargo-mutants' output (DIR/mutants.out: caught.txt, missed.txt, ...).
if [ -n "${MUTANTS_OUT:-}" ]; then
  out=$MUTANTS_OUT; mkdir -p "$out"; rm -rf "$out/tree"
else
  out=$(mktemp -d "${TMPDIR:-/tmp}/mutants-ci.XXXXXX")
  trap 'rm -rf "$out"' EXIT
fi

base=${1:-}
if [ -z "$base" ]; then
  base=$(git merge-base HEAD origin/main 2>/dev/null || git merge-base HEAD main 2>/dev/null || true)
  [ "$base" = "$(git rev-parse HEAD)" ] && base=""
fi
plain_modules=()
for m in "${modules[@]}"; do plain_modules+=("${m//\*.rs/}"); done
if [ -n "$base" ] && ! git diff --quiet "$base" -- "${plain_modules[@]}"; then
  git diff "$base" -- "${plain_modules[@]}" >"$out/diff"
  selection=(--in-diff "$out/diff")
  echo "mutants-ci: the mutants on the lines changed since $base"
else
  n=${MUTANTS_SHARDS:-400}
  k=$(( 0x$(git rev-parse 'HEAD^{tree}' | cut -c1-7) % n ))
  shard=${MUTANTS_SHARD:-$k/$n}
  # Round-robin: mutant i runs in shard i % N, so every shard holds some (cargo-mutants'
  # default, consecutive slices of ceil(total/N), leaves the last shards empty: with about
  # 2,000 mutants shards 182 to 199 held none, and a commit landing there checked nothing).
  selection=(--shard "$shard" --sharding round-robin)
  echo "mutants-ci: shard $shard of the gated modules' mutants (${modules[*]})"
fi

# A mutant that panics on every case (a wrong span in the fast path) makes the gate's CLI
# children print a panic each; with backtraces, symbolising them took 96 to 111 s for one
# such mutant against 45 to 47 s without (tape.rs `Tape::write`, two cores), so CI's 60 s
# timeout hid what is a plain catch. The panic message itself is still printed.
export RUST_BACKTRACE=0
cargo mutants --version || exit 2
repo=$(pwd)
# The campaign tree: HEAD with the gate as the only test target (scripts/mutants-tree.sh);
# its builds share the repository's target directory, so dependencies are reused.
scripts/mutants-tree.sh "$out/tree" >/dev/null || exit 2
# Wherever cargo's target directory is (CARGO_TARGET_DIR, build.target-dir): ask cargo.
if [ -z "${CARGO_TARGET_DIR:-}" ]; then
  CARGO_TARGET_DIR=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])') || exit 2
fi
export CARGO_TARGET_DIR
# explained.txt must not hold stale or ambiguous entries. An entry names a mutant
# without its line:column (which move with unrelated edits), unless that name is not
# unique in its file (`replace + with * in f` can be several mutants): then it must
# carry its line:column too, so that it excuses that one mutant only. Each entry must
# name a mutant cargo-mutants still makes (an entry left behind by a fixed or removed
# function would explain nothing, and could one day excuse a real miss of the same name).
strip() { sed -E 's/^([^:]+):[0-9]+:[0-9]+: /\1: /'; }
explained_keys() {
  grep -v '^#' conformance/mutants/explained.txt | grep -v '^\s*$' |
    sed -E 's/^(equivalent|outside|beyond-data): //; s/ -- .*$//'
}
explained_files=()
while IFS= read -r f; do explained_files+=(--file "$f"); done < <(explained_keys | sed -E 's/^([^: ]+)(:[0-9]+:[0-9]+)?: .*/\1/' | sort -u)
if [ "${#explained_files[@]}" -gt 0 ]; then
  made_full=$(cd "$out/tree" && cargo mutants --list "${explained_files[@]}") || exit 2
  made=$(strip <<<"$made_full")
  bad=0
  while IFS= read -r key; do
    if [[ "$key" =~ ^[^:]+:[0-9]+:[0-9]+:\  ]]; then
      n=$(grep -cxF -- "$key" <<<"$made_full")
    else
      n=$(grep -cxF -- "$key" <<<"$made")
      if [ "$n" -gt 1 ]; then
        echo "AMBIGUOUS (in conformance/mutants/explained.txt, it names $n mutants; give its line:column): $key"
        bad=1
        continue
      fi
    fi
    if [ "$n" = 0 ]; then
      echo "STALE (in conformance/mutants/explained.txt, but cargo-mutants makes no such mutant): $key"
      bad=1
    fi
  done < <(explained_keys)
  if [ "$bad" = 1 ]; then
    echo "mutants-ci: remove the stale entries or update them to the mutant's current name" >&2
    exit 1
  fi
fi
# A shard that holds no mutant would check nothing and pass: refuse it.
if [ "${selection[0]}" = --shard ] && [ -z "${MUTANTS_ARGS:-}" ]; then
  count=$(cd "$out/tree" && cargo mutants --list "${file_args[@]}" "${selection[@]}" | wc -l) || exit 2
  echo "mutants-ci: $count mutants in the shard"
  [ "$count" -gt 0 ] || { echo "mutants-ci: the shard holds no mutant: it would check nothing" >&2; exit 2; }
fi
# The test timeout: MUTANTS_TIMEOUT_MULTIPLIER times the unmutated baseline's test time
# (which then runs without a timeout), or a fixed MUTANTS_TIMEOUT. A fixed one applies to
# the baseline too: in a slow hour CI's baseline took more than its 60 s and the step
# failed (exit 4) having tested nothing; a multiple of the baseline moves with the machine.
if [ -n "${MUTANTS_TIMEOUT_MULTIPLIER:-}" ]; then
  timeout_args=(--timeout-multiplier "$MUTANTS_TIMEOUT_MULTIPLIER")
else
  timeout_args=(--timeout "${MUTANTS_TIMEOUT:-120}")
fi
start=$(date +%s)
(cd "$out/tree" && cargo mutants --in-place --no-shuffle "${timeout_args[@]}" \
  "${file_args[@]}" "${selection[@]}" ${MUTANTS_ARGS:-} -o "$out")
rc=$?
echo "mutants-ci: cargo mutants exited $rc after $(( $(date +%s) - start )) s"
# 0 all caught; 2 some missed; 3 some timed out; 4 the unmutated tree failed; 1 usage.
case $rc in
  0 | 2 | 3) ;;
  *) echo "mutants-ci: cargo mutants failed (exit $rc)" >&2; exit 2 ;;
esac

missed="$out/mutants.out/missed.txt"
[ -f "$missed" ] || exit 0
# Entries are compared without their line:column (strip, above), which move with
# unrelated edits, or with it where the name alone is ambiguous.
listed=$(explained_keys)
new=0
while IFS= read -r m; do
  [ -z "$m" ] && continue
  key=$(printf '%s\n' "$m" | strip)
  if ! grep -qxF -- "$key" <<<"$listed" && ! grep -qxF -- "$m" <<<"$listed"; then
    echo "MISSED (not in conformance/mutants/explained.txt): $m"
    new=1
  fi
done <"$missed"
if [ "$new" = 1 ]; then
  echo "mutants-ci: add a vector that catches each (conformance/README.md), or explain it in conformance/mutants/explained.txt" >&2
  exit 1
fi
echo "mutants-ci: every miss is explained"
