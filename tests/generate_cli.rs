//! `journal-conformance generate`: every kind writes journals that the reference
//! handles exactly as their vector sidecars say; the same seed gives the same bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use journal_conformance::adapter::Reference;
use journal_conformance::event::JournalProfile;
use journal_conformance::generate::cli::{self, EventRange, GenerateArgs};
use journal_conformance::record::Outcome;
use journal_conformance::runner::run_case;
use journal_conformance::vectors;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p =
            std::env::temp_dir().join(format!("jc-generate-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn args(kind: &str, seed: u64, profile: JournalProfile, out: &Path) -> GenerateArgs {
    GenerateArgs {
        kind: kind.to_owned(),
        count: 3,
        seed,
        events: EventRange { min: 1, max: 8 },
        profile,
        out: Some(out.to_owned()),
    }
}

/// Check one sidecar with the kit's own strict vector loader and runner; returns the
/// number of checks run.
fn check_sidecar(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let dir = path.parent().unwrap();
    let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| e.to_string());
    let cases = vectors::parse_file(&text, "generated", &read)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!cases.is_empty());
    let mut reference = Reference::default();
    let mut checks = 0;
    for case in &cases {
        assert!(
            !case.rules.is_empty() && case.rules.iter().all(|r| r.contains('-')),
            "{}",
            case.id
        );
        let rec = run_case(&mut reference, case);
        assert_eq!(rec.outcome, Outcome::Passed, "{}: {}", case.id, rec.message);
        checks += case.checks.len();
    }
    checks
}

#[test]
fn every_kind_writes_journals_that_behave_as_their_sidecars_say() {
    let dir = TempDir::new("kinds");
    let mut sidecars = 0;
    let mut checks = 0;
    for kind in cli::kinds() {
        for profile in [JournalProfile::Core, JournalProfile::Trace01] {
            let out = dir.0.join(format!("{kind}-{}", profile.as_str()));
            let summary = cli::run(&args(kind, 11, profile, &out)).unwrap();
            assert_eq!(summary.files.len(), 3);
            for (journal, sidecar) in &summary.files {
                assert!(journal.exists());
                let name = journal.file_name().unwrap().to_str().unwrap();
                assert!(name.starts_with(kind) && name.ends_with(".jsonl"), "{name}");
                checks += check_sidecar(sidecar);
                sidecars += 1;
            }
            // Nothing but the journals and sidecars (no temporary files left).
            assert_eq!(std::fs::read_dir(&out).unwrap().count(), 6);
        }
    }
    assert_eq!(sidecars, cli::kinds().len() * 2 * 3);
    assert!(checks >= sidecars);
}

fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn same_seed_same_bytes() {
    let dir = TempDir::new("seed");
    for kind in ["valid", "mixed", "torn-last-line"] {
        let a = dir.0.join(format!("{kind}-a"));
        let b = dir.0.join(format!("{kind}-b"));
        let c = dir.0.join(format!("{kind}-c"));
        cli::run(&args(kind, 42, JournalProfile::Core, &a)).unwrap();
        cli::run(&args(kind, 42, JournalProfile::Core, &b)).unwrap();
        cli::run(&args(kind, 43, JournalProfile::Core, &c)).unwrap();
        assert_eq!(tree(&a), tree(&b), "{kind}: same seed, different bytes");
        assert_ne!(tree(&a), tree(&c), "{kind}: seed ignored");
    }
}

#[test]
fn bad_arguments_are_usage_errors() {
    let dir = TempDir::new("bad");
    assert!(cli::run(&args("no-such-kind", 0, JournalProfile::Core, &dir.0)).is_err());
    assert!(cli::parse_events("5..2").is_err());
    assert!(cli::parse_events("0..3").is_err());
    assert_eq!(
        cli::parse_events("2..=4"),
        Ok(EventRange { min: 2, max: 4 })
    );
    assert_eq!(cli::parse_events("3"), Ok(EventRange { min: 3, max: 3 }));
}

#[test]
fn the_binary_runs_generate() {
    let dir = TempDir::new("bin");
    let bin = env!("CARGO_BIN_EXE_journal-conformance");
    let out = dir.0.join("out");
    let status = Command::new(bin)
        .args([
            "generate",
            "--kind",
            "sequence-gap",
            "--count",
            "2",
            "--seed",
            "5",
        ])
        .args(["--events", "2..6", "--profile", "trace-0.1", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    for n in 0..2 {
        assert!(out.join(format!("sequence-gap-{n}.jsonl")).exists());
        check_sidecar(&out.join(format!("sequence-gap-{n}.json")));
    }
    for bad in [
        vec!["generate", "--kind", "nope", "--out"],
        vec!["generate", "--events", "9..3", "--out"],
    ] {
        let status = Command::new(bin).args(&bad).arg(&out).status().unwrap();
        assert_eq!(status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn kind_list_needs_no_out_directory() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_journal-conformance"))
        .args(["generate", "--kind", "list"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.lines().any(|l| l == "sequence-gap"), "{text}");
    assert!(text.lines().any(|l| l == "mixed"), "{text}");
}
