//! The fuzz targets on stable Rust, in CI: every file of `fuzz/regressions/<target>/`
//! and the inputs of every conformance vector and golden trace go through the same
//! target functions as the cargo-fuzz crate (`fuzz/targets.rs`).
//!
//! `write_seed_corpora` (ignored; run by `fuzz/seed-corpora.sh`) writes the same seed
//! inputs to `$FUZZ_SEED_DIR/<target>/`, so the corpora and this test derive them in
//! one place.

#[path = "../fuzz/targets.rs"]
mod targets;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use journal_conformance::canonical;
use journal_conformance::fingerprint::sha256_hex;
use journal_conformance::golden::GOLDEN;
use journal_conformance::json::{self, Value};
use journal_conformance::ops::Operation;
use journal_conformance::vectors::{self, Case};

type Target = fn(&[u8]);

const TARGETS: &[(&str, Target)] = &[
    ("wire_json", targets::wire_json),
    ("journal", targets::journal),
    ("journal_structured", targets::journal_structured),
    ("canonical", targets::canonical),
    ("tree", targets::tree),
    ("vectors", targets::vectors),
    ("protocol", targets::protocol),
    ("adapter_client", targets::adapter_client),
    ("fast_oracle", targets::fast_oracle),
    ("store_apply", targets::store_apply),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Seed inputs per target, named, deduplicated.
type Seeds = BTreeMap<&'static str, BTreeMap<Vec<u8>, String>>;

fn add(seeds: &mut Seeds, target: &'static str, name: &str, bytes: Vec<u8>) {
    seeds
        .entry(target)
        .or_default()
        .entry(bytes)
        .or_insert_with(|| name.to_owned());
}

fn run_request(id: usize, op: &Operation, profile: &str, input: &[u8]) -> Vec<u8> {
    let mut line = canonical::to_string(&Value::object([
        ("cmd", Value::from("run")),
        ("id", Value::from_u64(id as u64)),
        ("op", op.to_json()),
        ("profile", Value::from(profile)),
        (
            "input_base64",
            Value::from(base64::engine::general_purpose::STANDARD.encode(input)),
        ),
    ]))
    .into_bytes();
    line.push(b'\n');
    line
}

const START: &[u8] = b"{\"cmd\":\"start\",\"protocol\":1}\n";
const STOP: &[u8] = b"{\"cmd\":\"stop\"}\n";

fn case_seeds(seeds: &mut Seeds, case: &Case) {
    let name = &case.id;
    let mut session = START.to_vec();
    for (i, check) in case.checks.iter().enumerate() {
        session.extend(run_request(
            i + 1,
            &check.op,
            case.profile.as_str(),
            &case.input,
        ));
        match &check.op {
            Operation::Canonical => {
                add(seeds, "canonical", name, case.input.clone());
                add(seeds, "wire_json", name, case.input.clone());
            }
            Operation::TreeInspect => add(seeds, "tree", name, case.input.clone()),
            Operation::StoreApply { steps } => {
                let mut bytes = case.input.clone();
                bytes.push(0);
                let ops = Value::Array(steps.iter().map(|s| s.to_json()).collect());
                bytes.extend(canonical::to_string(&ops).into_bytes());
                add(seeds, "store_apply", name, bytes);
            }
            Operation::TreeApply { steps } => {
                let mut bytes = case.input.clone();
                bytes.push(0);
                let ops = Value::Array(steps.iter().map(|s| s.to_json()).collect());
                bytes.extend(canonical::to_string(&ops).into_bytes());
                add(seeds, "tree", name, bytes);
            }
            _ => {
                add(seeds, "journal", name, case.input.clone());
                for (n, line) in case.input.split(|&b| b == b'\n').enumerate() {
                    add(seeds, "wire_json", &format!("{name}#{n}"), line.to_vec());
                }
            }
        }
    }
    session.extend_from_slice(STOP);
    add(seeds, "protocol", name, session);
    // adapter_client: the reference's own replies to this case, in both modes.
    let mut persistent = vec![0u8];
    persistent.extend(
        b"{\"protocol\":1,\"implementation\":{\"name\":\"seed\"},\"operations\":[\"validate\"],\"profiles\":[\"core\"]}\n",
    );
    for (i, check) in case.checks.iter().enumerate() {
        let answer = journal_conformance::adapter::reference::reference_answer(
            &check.op,
            case.profile,
            &case.input,
        );
        let Ok(a) = answer else { continue };
        let mut reply = a.to_json();
        if let Value::Object(m) = &mut reply {
            m.push(("id".into(), Value::from_u64(i as u64 + 1)));
        }
        persistent.extend(canonical::to_string(&reply).into_bytes());
        persistent.push(b'\n');
        let (status, body) = match &a {
            journal_conformance::verdict::Answer::Result(v) => (0u8, canonical::to_string(v)),
            e => (1u8, canonical::to_string(e.to_json().get("error").unwrap())),
        };
        let mut one = vec![1u8, status];
        one.extend(body.into_bytes());
        add(seeds, "adapter_client", &format!("{name}#oneshot{i}"), one);
    }
    add(seeds, "adapter_client", name, persistent);
    let one = canonical::to_string(&vectors::to_file_json(std::slice::from_ref(case)));
    add(seeds, "vectors", name, one.into_bytes());
}

/// Every vector case, every vector file, every golden trace, decoded here.
fn seeds() -> Seeds {
    let mut seeds = Seeds::new();
    let cases = vectors::load_dir(&root().join("conformance")).expect("the corpus loads");
    assert!(cases.len() > 300, "only {} cases", cases.len());
    for case in &cases {
        case_seeds(&mut seeds, case);
    }
    let mut files = Vec::new();
    walk(&root().join("conformance"), &mut files);
    for f in files {
        let rel = f.strip_prefix(root()).unwrap().display().to_string();
        if rel.ends_with(".json") && !rel.contains("/tools/") {
            add(&mut seeds, "vectors", &rel, std::fs::read(&f).unwrap());
        }
    }
    for g in GOLDEN {
        add(&mut seeds, "journal", g.name, g.journal.to_vec());
        for (n, line) in g.journal.split(|&b| b == b'\n').enumerate() {
            add(
                &mut seeds,
                "wire_json",
                &format!("{}#{n}", g.name),
                line.to_vec(),
            );
        }
        add(
            &mut seeds,
            "canonical",
            g.name,
            g.expect.as_bytes().to_vec(),
        );
        let doc = json::parse(g.expect).unwrap();
        let profile = doc.get("profile").and_then(Value::as_str).unwrap_or("core");
        let mut session = START.to_vec();
        for (i, check) in doc
            .get("checks")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let op = Operation::from_json(check.get("op").unwrap()).unwrap();
            session.extend(run_request(i + 1, &op, profile, g.journal));
        }
        session.extend_from_slice(STOP);
        add(&mut seeds, "protocol", g.name, session);
    }
    // journal_structured reads its input as `arbitrary` bytes: any bytes will do, so
    // take the small journal seeds and a fixed pseudo-random sample.
    let small: Vec<(Vec<u8>, String)> = seeds["journal"]
        .iter()
        .filter(|(b, _)| b.len() <= 4096)
        .map(|(b, n)| (b.clone(), n.clone()))
        .collect();
    for (bytes, name) in small {
        add(&mut seeds, "journal_structured", &name, bytes);
    }
    // fast_oracle reads a journal, as `journal` does.
    let journals: Vec<(Vec<u8>, String)> = seeds["journal"]
        .iter()
        .map(|(b, n)| (b.clone(), n.clone()))
        .collect();
    for (bytes, name) in journals {
        add(&mut seeds, "fast_oracle", &name, bytes);
    }
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..256 {
        let len = 16 + (i * 7) % 512;
        let bytes = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        add(
            &mut seeds,
            "journal_structured",
            &format!("xorshift-{i}"),
            bytes,
        );
    }
    seeds
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Run `f` on each input; collect every failure instead of stopping at the first.
fn run_all(target: &str, f: Target, inputs: impl IntoIterator<Item = (String, Vec<u8>)>) -> usize {
    let mut failures = Vec::new();
    let mut n = 0;
    for (name, bytes) in inputs {
        n += 1;
        if let Err(e) = std::panic::catch_unwind(|| f(&bytes)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{target} on {name}: {msg}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    n
}

fn target(name: &str) -> Target {
    TARGETS.iter().find(|(n, _)| *n == name).unwrap().1
}

#[test]
fn regressions_replay() {
    let dir = root().join("fuzz/regressions");
    let mut total = 0;
    for (name, f) in TARGETS {
        let mut files = Vec::new();
        walk(&dir.join(name), &mut files);
        let inputs = files
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()));
        total += run_all(name, *f, inputs);
    }
    eprintln!("replayed {total} regression files");
}

fn seeds_of(name: &'static str) -> Vec<(String, Vec<u8>)> {
    seeds()
        .remove(name)
        .unwrap_or_default()
        .into_iter()
        .map(|(bytes, name)| (name, bytes))
        .collect()
}

#[test]
fn seeds_wire_json() {
    assert!(run_all("wire_json", target("wire_json"), seeds_of("wire_json")) > 100);
}

#[test]
fn seeds_journal() {
    assert!(run_all("journal", target("journal"), seeds_of("journal")) > 100);
}

#[test]
fn seeds_journal_structured() {
    let f = target("journal_structured");
    assert!(run_all("journal_structured", f, seeds_of("journal_structured")) > 200);
}

#[test]
fn seeds_canonical() {
    assert!(run_all("canonical", target("canonical"), seeds_of("canonical")) > 100);
}

#[test]
fn seeds_tree() {
    assert!(run_all("tree", target("tree"), seeds_of("tree")) > 20);
}

#[test]
fn seeds_vectors() {
    assert!(run_all("vectors", target("vectors"), seeds_of("vectors")) > 100);
}

#[test]
fn seeds_fast_oracle() {
    assert!(
        run_all(
            "fast_oracle",
            target("fast_oracle"),
            seeds_of("fast_oracle")
        ) > 100
    );
}

#[test]
fn seeds_protocol() {
    assert!(run_all("protocol", target("protocol"), seeds_of("protocol")) > 100);
}

#[test]
fn seeds_adapter_client() {
    let f = target("adapter_client");
    assert!(run_all("adapter_client", f, seeds_of("adapter_client")) > 300);
}

#[test]
fn seeds_store_apply() {
    let f = target("store_apply");
    assert!(run_all("store_apply", f, seeds_of("store_apply")) > 5);
}

/// `FUZZ_SEED_DIR=fuzz/corpus cargo test --test fuzz_regressions -- --ignored`:
/// (re)write the seed corpora, one file per input named by its SHA-256.
#[test]
#[ignore = "writes files; run by fuzz/seed-corpora.sh"]
fn write_seed_corpora() {
    let out = PathBuf::from(std::env::var("FUZZ_SEED_DIR").expect("set FUZZ_SEED_DIR"));
    for (target, inputs) in seeds() {
        let dir = out.join(target);
        std::fs::create_dir_all(&dir).unwrap();
        for bytes in inputs.keys() {
            std::fs::write(dir.join(sha256_hex(bytes)), bytes).unwrap();
        }
        eprintln!("{target}: {} seeds", inputs.len());
    }
}
