//! `journal-conformance show CASE-ID`: one conformance case, readable (issue 12 item 3;
//! SPEC.md 12, rules `V-CASE-1`, `V-EXPECT-1`).
//!
//! This module owns printing one case of the corpus: its description, rules with their
//! titles, tags, level, profile, escaped input ([`journal_conformance::explain::escape`]) and checks;
//! `--input` writes its exact input bytes (to pipe into one's own implementation) and
//! `--json` its vector ([`journal_conformance::vectors::to_file_json`]). An unknown id is a usage
//! error (exit 2) that suggests close ids. A `properties/<op>/<hash>` id not in the
//! corpus is looked up among the counterexamples runs keep (SPEC.md 13.6, D-KEEP-1).

use std::io::Write;
use std::path::PathBuf;

use crate::io::{EXIT_OK, EXIT_USAGE};
use journal_conformance::differential::counterexamples;
use journal_conformance::preview::{self, Preview};
use journal_conformance::vectors::Case;
use journal_conformance::{canonical, runner};

/// A `properties/...` id that is not in the corpus: the counterexample a run kept.
fn find_kept(id: &str) -> Result<Option<Case>, String> {
    counterexamples::find_kept(&counterexamples::kept_dir(), id)
}

/// How many input bytes the human view shows escaped (`--input` has them all).
pub const SHOW_BYTES: usize = 64 * 1024;

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The case id, `<group>/<name>` (as `test --list` prints it).
    pub case: String,
    /// Write the case's exact input bytes to stdout, nothing else.
    #[arg(long, conflicts_with = "json")]
    pub input: bool,
    /// Print the case as a vector file (`{"cases":[...]}`, canonical JSON).
    #[arg(long)]
    pub json: bool,
    /// Corpus directory (default: the corpus embedded in this binary).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
}

pub fn run(args: ShowArgs) -> i32 {
    let cases = match runner::load_corpus(args.corpus.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: loading the corpus: {e}");
            return EXIT_USAGE;
        }
    };
    let kept = match cases.iter().any(|c| c.id == args.case) {
        false if journal_conformance::record::is_differential_id(&args.case) => {
            match find_kept(&args.case) {
                Ok(Some(c)) => Some(c),
                Ok(None) => {
                    let dir = counterexamples::kept_dir();
                    eprintln!(
                        "error: no case {:?} in the corpus, and no run kept a counterexample of that id in {}",
                        args.case,
                        dir.display()
                    );
                    eprintln!(
                        "(every `test` run keeps the kinds it prints there, or in ${}; a run with --counterexamples DIR also writes them to DIR: `journal-conformance show --corpus DIR {}`)",
                        counterexamples::KEPT_ENV,
                        args.case
                    );
                    return EXIT_USAGE;
                }
                Err(e) => {
                    eprintln!("error: reading the kept counterexample: {e}");
                    return EXIT_USAGE;
                }
            }
        }
        _ => None,
    };
    let Some(case) = kept
        .as_ref()
        .or_else(|| cases.iter().find(|c| c.id == args.case))
    else {
        let near = close_ids(&args.case, &cases);
        eprintln!("error: no case {:?} in the corpus", args.case);
        if !near.is_empty() {
            eprintln!("did you mean: {}?", near.join(", "));
        }
        eprintln!("(`journal-conformance test --list` lists every case id)");
        return EXIT_USAGE;
    };
    let out = if args.input {
        case.input.clone()
    } else if args.json {
        let mut t = canonical::to_string(&journal_conformance::vectors::to_file_json(
            std::slice::from_ref(case),
        ));
        t.push('\n');
        t.into_bytes()
    } else {
        render(case).into_bytes()
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&out).and_then(|()| stdout.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: writing to stdout: {e}");
            EXIT_USAGE
        }
    }
}

/// The human view of a case.
pub fn render(case: &Case) -> String {
    let mut s = format!(
        "{}\n  description: {}\n  rules:\n",
        case.id, case.description
    );
    for r in &case.rules {
        let t = journal_conformance::rules::title(r).unwrap_or("(not a rule of this SPEC.md)");
        s.push_str(&format!("    {r}: {t}\n"));
    }
    let tags = if case.tags.is_empty() {
        "-".to_owned()
    } else {
        case.tags.join(", ")
    };
    s.push_str(&format!("  tags: {tags}\n"));
    s.push_str(&format!("  level: {}\n", case.level.as_str()));
    s.push_str(&format!("  profile: {}\n", case.profile.as_str()));
    s.push_str(&Preview::with_limit(&case.input, SHOW_BYTES).render("  "));
    s.push_str("  checks:\n");
    for (n, c) in case.checks.iter().enumerate() {
        s.push_str(&format!(
            "    {}. {}\n",
            n + 1,
            canonical::to_string(&c.op.to_json())
        ));
        let e = preview::escape(canonical::to_string(&c.expect.to_json()).as_bytes(), 4000).0;
        s.push_str(&format!("       expect: {e}\n"));
    }
    s
}

/// Up to five ids close to `wanted`: by the edit distance of the case names (the part
/// after the last `/`), the same group first among equals.
fn close_ids(wanted: &str, cases: &[Case]) -> Vec<String> {
    let (group, name) = wanted.rsplit_once('/').unwrap_or(("", wanted));
    let mut scored: Vec<(f64, bool, &str)> = cases
        .iter()
        .map(|c| {
            let score = strsim::normalized_damerau_levenshtein(name, &c.name);
            (score, c.group == group, c.id.as_str())
        })
        .filter(|(score, _, _)| *score >= 0.6)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
    scored
        .into_iter()
        .take(5)
        .map(|(_, _, id)| id.to_owned())
        .collect()
}
