#!/usr/bin/env bash
# Make the tree a mutation campaign runs in (conformance/mutants/README.md):
#
#   scripts/mutants-tree.sh DIR
#
# DIR gets the committed tree of HEAD (git archive) with a manifest whose only test target
# is tests/mutation_gate.rs: the library's and the binary's unit tests, doctests, examples
# and every other integration test are switched off and the dev-dependencies removed.
# cargo-mutants builds each mutant with `cargo test --no-run` whatever test selection is
# configured, so in the repository itself every mutant would compile ~30 test targets
# (two minutes on two cores), and a dev-dependency's features (jsonschema turns on
# serde_json's `float_roundtrip`) would change the reference the gate runs. DIR's
# .cargo/config.toml sets JC_MUTATION_TREE=1, which tells the gate it runs such a build:
# there it stops at its first failed test (tests/mutation_gate.rs, `fail_fast`).
# Point CARGO_TARGET_DIR at an existing target directory to reuse its dependencies.
set -euo pipefail
dir=${1:?usage: scripts/mutants-tree.sh DIR}
cd "$(dirname "$0")/.."
mkdir -p "$dir"
git archive HEAD | tar -x -C "$dir"
# git archive gives every file its commit's time. A target directory that once built a
# MUTATED file at this path (a campaign stopped mid-mutant, MUTANTS_OUT reused) has outputs
# newer than that, and cargo would reuse the mutated build as the unmutated one: every file
# gets the time of now, so cargo rebuilds what is here.
find "$dir" -type f -exec touch {} +
python3 - "$dir/Cargo.toml" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('default-run = "journal-conformance"\n',
              'default-run = "journal-conformance"\nautotests = false\nautoexamples = false\nautobenches = false\n', 1)
s = s.replace('path = "src/lib.rs"\n', 'path = "src/lib.rs"\ntest = false\ndoctest = false\n', 1)
s = s.replace('required-features = ["cli"]\n', 'required-features = ["cli"]\ntest = false\n', 1)
s = re.sub(r'\[\[bench\]\]\nname = "throughput"\nharness = false\n', '', s)
s = re.sub(r'\n\[dev-dependencies\]\n(?:[^\[]*\n)', '\n', s)
s += '\n[[test]]\nname = "mutation_gate"\npath = "tests/mutation_gate.rs"\n'
assert 'autotests = false' in s and 'doctest = false' in s and '[dev-dependencies]' not in s
open(p, 'w').write(s)
EOF
mkdir -p "$dir/.cargo"
printf '[env]\nJC_MUTATION_TREE = "1"\n' >>"$dir/.cargo/config.toml"
echo "$dir"
