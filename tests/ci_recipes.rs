//! The CI recipes of docs/ci/ run as written, step by step, in a scratch repository laid out
//! like a user's: the kit as a git submodule at `journal-conformance/` (a copy of this
//! checkout, made a git repository), the user's adapter and skip list at the top, and for
//! JavaScript a package.json written by `npm install --save-dev ./journal-conformance/...`.
//!
//! A small runner reads each recipe's YAML and runs its jobs in order, each in a fresh
//! workspace: `run`/`script` steps in bash, `if:` with `always()`/`failure()`/`success()`,
//! `${{ ... }}` expressions, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_ENV`,
//! `GITHUB_PATH`, a matrix, `needs`, and the composite action (the kit's root action.yml,
//! expanded). The few actions a recipe uses are emulated: checkout (copies the repository;
//! the submodule only with `submodules: true`), setup-node (checks Node's major version),
//! setup-python (a fresh venv first on PATH), cache, upload-artifact (the path must exist)
//! and download-artifact. GitLab: stages, `needs`, `parallel`, `when`, `cache`, artifacts
//! (`when:`, `reports: junit`) and the image's Python as a fresh venv. Anything else in a
//! recipe fails the test, so the recipes cannot outgrow what is checked here.
//!
//! Each recipe runs twice: with a passing implementation (the kit's TypeScript naive example
//! with its skip list; the kit's independent Python implementation) and with a failing one
//! (the naive example without its skip list; a line-counting fake), and the test checks the
//! exit status of every job, the job summary, summary.md and results.html in both.
//!
//! Ignored by `cargo test` (it needs Node 20, pip with PyPI for the adapter's build backend,
//! and the kit already built): `.ci/run` runs it with the wheel it built and the binary,
//!   JC_WHEEL=path/to/journal_conformance-*.whl JC_BIN=path/to/journal-conformance \
//!     cargo test --test ci_recipes -- --ignored
//! which stand in for the recipes' own build step through their caches (a cache hit, as on
//! every run after the first): the wheel for GitHub's `wheels/`, the binary for GitLab's
//! `.kit-cache/`. JC_RECIPE_KEEP=DIR keeps each run's final results in DIR.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use yaml_rust2::{Yaml, YamlLoader};

const KIT: &str = env!("CARGO_MANIFEST_DIR");

// ---------------------------------------------------------------- the scenarios

#[test]
#[ignore = "needs Node 20, pip and the built kit (JC_WHEEL, JC_BIN): .ci/run runs it"]
fn github_workflow_passing_implementation() {
    let s = Scratch::new("gh-pass");
    let repo = s.typescript_repo(true);
    let run = GitHub::new(&s, &repo).run();
    print!("{}", run.log);
    run.assert_jobs(&[
        ("kit", true),
        ("shard 1", true),
        ("shard 2", true),
        ("shard 3", true),
        ("report", true),
    ]);
    assert!(run.ok, "the workflow failed");
    assert_eq!(
        run.step("kit", "Build the wheel (manylinux, carrying the binary)"),
        "skipped",
        "the seeded cache was not hit"
    );
    for k in 1..=3 {
        assert!(run
            .log_of(&format!("shard {k}"))
            .contains(&format!("ci-gate: shard {k}/3 exit 0")));
        let a = s.artifact(&format!("conformance-shard-{k}"));
        assert_files(
            &a,
            &[&format!("report-{k}.jsonl"), &format!("junit-{k}.xml")],
        );
    }
    let results = s.artifact("conformance-results");
    check_results(
        &results,
        &run.summary_of("report"),
        Verdict::Ok,
        "naive-journal-js",
    );
    s.keep(&results);
}

#[test]
#[ignore = "needs Node 20, pip and the built kit (JC_WHEEL, JC_BIN): .ci/run runs it"]
fn github_workflow_failing_implementation() {
    let s = Scratch::new("gh-fail");
    let repo = s.typescript_repo(false);
    let run = GitHub::new(&s, &repo).run();
    print!("{}", run.log);
    run.assert_jobs(&[
        ("kit", true),
        ("shard 1", false),
        ("shard 2", false),
        ("shard 3", false),
        ("report", false),
    ]);
    assert!(!run.ok, "the workflow passed");
    for k in 1..=3 {
        // Non-conformant (1), not broken (2).
        assert!(run
            .log_of(&format!("shard {k}"))
            .contains(&format!("ci-gate: shard {k}/3 exit 1")));
        let a = s.artifact(&format!("conformance-shard-{k}"));
        assert_files(
            &a,
            &[&format!("report-{k}.jsonl"), &format!("junit-{k}.xml")],
        );
    }
    let results = s.artifact("conformance-results");
    check_results(
        &results,
        &run.summary_of("report"),
        Verdict::Failed,
        "naive-journal-js",
    );
    assert!(
        run.log_of("report").contains("exit 1"),
        "{}",
        run.log_of("report")
    );
    s.keep(&results);
}

#[test]
#[ignore = "needs pip (PyPI for the adapter's build backend) and the built kit (JC_BIN): .ci/run runs it"]
fn gitlab_job_passing_implementation() {
    let s = Scratch::new("gl-pass");
    let repo = s.python_repo(true);
    let run = GitLab::new(&s, &repo).run();
    print!("{}", run.log);
    run.assert_jobs(&[
        ("conformance-kit", true),
        ("conformance 1/3", true),
        ("conformance 2/3", true),
        ("conformance 3/3", true),
        ("conformance-report", true),
    ]);
    assert!(run.ok);
    assert!(
        !run.log_of("conformance-kit").contains("Compiling"),
        "the seeded cache was not used"
    );
    for k in 1..=3 {
        assert!(run
            .log_of(&format!("conformance {k}/3"))
            .contains(&format!("ci-gate: shard {k}/3 exit 0")));
    }
    let results = s.artifact("conformance-report").join("conformance-results");
    check_results(
        &results,
        &run.log_of("conformance-report"),
        Verdict::Ok,
        "journal-ref-python",
    );
    s.keep(&results);
}

#[test]
#[ignore = "needs pip (PyPI for the adapter's build backend) and the built kit (JC_BIN): .ci/run runs it"]
fn gitlab_job_failing_implementation() {
    let s = Scratch::new("gl-fail");
    let repo = s.python_repo(false);
    let run = GitLab::new(&s, &repo).run();
    print!("{}", run.log);
    run.assert_jobs(&[
        ("conformance-kit", true),
        ("conformance 1/3", false),
        ("conformance 2/3", false),
        ("conformance 3/3", false),
        ("conformance-report", false),
    ]);
    assert!(!run.ok);
    for k in 1..=3 {
        assert!(run
            .log_of(&format!("conformance {k}/3"))
            .contains(&format!("ci-gate: shard {k}/3 exit 1")));
        let a = s
            .artifact(&format!("conformance {k}/3"))
            .join("conformance-results");
        assert_files(
            &a,
            &[&format!("report-{k}.jsonl"), &format!("junit-{k}.xml")],
        );
    }
    let results = s.artifact("conformance-report").join("conformance-results");
    check_results(
        &results,
        &run.log_of("conformance-report"),
        Verdict::Failed,
        "line-counter",
    );
    assert!(run.log_of("conformance-report").contains("exit 1"));
    s.keep(&results);
}

/// docs/ci.md shows the recipes as they are: each embedded copy, marked by a comment naming
/// its file, equals that file; every recipe file is embedded; each is one YAML document.
#[test]
fn docs_ci_md_embeds_the_recipe_files_as_they_are() {
    let doc = read(&Path::new(KIT).join("docs/ci.md"));
    let files = [
        "docs/ci/github-workflow.yml",
        "action.yml",
        "docs/ci/gitlab-ci.yml",
    ];
    let mut seen = Vec::new();
    let mut rest = doc.as_str();
    while let Some(a) = rest.find("<!-- ") {
        let line_end = rest[a..].find('\n').unwrap() + a;
        let marker = &rest[a + 5..line_end];
        let Some((path, _)) = marker.split_once(": tests/ci_recipes.rs checks this copy") else {
            rest = &rest[line_end..];
            continue;
        };
        let body = &rest[line_end + 1..];
        let body = body
            .strip_prefix("```yaml\n")
            .expect("a ```yaml block after the marker");
        let end = body.find("\n```").expect("the block ends");
        let copy = &body[..end + 1];
        let file = read(&Path::new(KIT).join(path));
        assert!(
            copy == file,
            "docs/ci.md's copy of {path} differs from the file"
        );
        load(path);
        seen.push(path.to_string());
        rest = &body[end..];
    }
    assert_eq!(seen, files, "docs/ci.md embeds these files, in this order");
}

#[derive(PartialEq, Clone, Copy, Debug)]
enum Verdict {
    Ok,
    Failed,
}

/// summary.md and results.html are there, name the implementation and carry the verdict,
/// and the summary was shown where the user looks (`shown`: the job summary or the log).
fn check_results(dir: &Path, shown: &str, verdict: Verdict, implementation: &str) {
    let summary = read(&dir.join("summary.md"));
    let page = read(&dir.join("results.html"));
    let line = match verdict {
        Verdict::Ok => "| **verdict** | **ok** |",
        Verdict::Failed => "| **verdict** | **FAILED** |",
    };
    assert!(
        summary.contains(line),
        "summary.md has no {line}:\n{summary}"
    );
    assert!(summary.contains(implementation), "{summary}");
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.contains(implementation),
        "results.html: {}",
        &page[..page.len().min(300)]
    );
    if verdict == Verdict::Failed {
        assert!(page.contains("failures by rule") || page.contains("Failures by rule"));
    }
    assert!(
        shown.contains(summary.trim()),
        "the summary was not shown:\n{shown}"
    );
}

fn assert_files(dir: &Path, names: &[&str]) {
    for n in names {
        let p = dir.join(n);
        assert!(
            std::fs::metadata(&p).is_ok_and(|m| m.len() > 0),
            "{} missing or empty",
            p.display()
        );
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

// ---------------------------------------------------------------- the scratch world

struct Scratch {
    root: PathBuf,
    name: &'static str,
}

impl Scratch {
    fn new(name: &'static str) -> Scratch {
        let root = std::env::temp_dir().join(format!("jc-recipes-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for d in ["artifacts", "cache", "jobs"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Scratch { root, name }
    }

    /// The user's repository with the kit at journal-conformance/: this checkout's files
    /// (tracked and not ignored, as they are in the working tree), committed in a git
    /// repository of its own, as a submodule is.
    fn repo_with_kit(&self) -> PathBuf {
        let repo = self.root.join("repo");
        let kit = repo.join("journal-conformance");
        std::fs::create_dir_all(&kit).unwrap();
        let files = sh(Command::new("git")
            .args([
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ])
            .current_dir(KIT));
        for f in files.split('\0').filter(|f| !f.is_empty()) {
            let (from, to) = (Path::new(KIT).join(f), kit.join(f));
            if from.is_file() {
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(&from, &to).unwrap();
            }
        }
        let git = |args: &[&str]| {
            sh(Command::new("git")
                .args(["-c", "user.name=ci", "-c", "user.email=ci@example.invalid"])
                .args(args)
                .current_dir(&kit))
        };
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "the kit"]);
        repo
    }

    /// The kit's naive TypeScript example as the user's implementation; `pass`: with its
    /// skip list, else with an empty one.
    fn typescript_repo(&self, pass: bool) -> PathBuf {
        let repo = self.repo_with_kit();
        let ex = Path::new(KIT).join("adapters/typescript/examples");
        for f in ["adapter.mjs", "naive-journal.mjs"] {
            std::fs::copy(ex.join(f), repo.join(f)).unwrap();
        }
        if pass {
            std::fs::copy(
                ex.join("known-deviations.txt"),
                repo.join("known-deviations.txt"),
            )
            .unwrap();
        } else {
            std::fs::write(repo.join("known-deviations.txt"), "# none yet\n").unwrap();
        }
        // What the user ran once, with the submodule checked out.
        sh(Command::new("npm")
            .args(["install", "--save-dev", "--no-audit", "--no-fund"])
            .arg("./journal-conformance/adapters/typescript")
            .current_dir(&repo));
        let pkg = read(&repo.join("package.json"));
        assert!(
            pkg.contains("\"file:journal-conformance/adapters/typescript\""),
            "{pkg}"
        );
        std::fs::remove_dir_all(repo.join("node_modules")).unwrap(); // not committed
        repo
    }

    /// The kit's independent Python implementation (examples/python) as the user's, or
    /// (`pass` false) a fake that only counts lines.
    fn python_repo(&self, pass: bool) -> PathBuf {
        let repo = self.repo_with_kit();
        if pass {
            let ex = Path::new(KIT).join("examples/python");
            for f in [
                "adapter.py",
                "journal_ref.py",
                "tree_ref.py",
                "store_ref.py",
            ] {
                std::fs::copy(ex.join(f), repo.join(f)).unwrap();
            }
        } else {
            std::fs::write(
                repo.join("adapter.py"),
                "# Counts lines: wrong wherever a journal should be rejected.\n\
                 from journal_conformance_adapter import serve\n\
                 serve(validate=lambda data, req: {\"event_count\": data.count(b\"\\n\")},\n\
                 \x20     name=\"line-counter\", version=\"1\")\n",
            )
            .unwrap();
        }
        std::fs::write(repo.join("known-deviations.txt"), "# none\n").unwrap();
        repo
    }

    fn kit_rev(repo: &Path) -> String {
        sh(Command::new("git")
            .args(["-C", "journal-conformance", "rev-parse", "HEAD"])
            .current_dir(repo))
        .trim()
        .to_string()
    }

    fn artifact(&self, name: &str) -> PathBuf {
        let p = self.root.join("artifacts").join(name.replace('/', "_"));
        assert!(p.is_dir(), "no artifact {name}");
        p
    }

    fn keep(&self, results: &Path) {
        if let Some(dir) = std::env::var_os("JC_RECIPE_KEEP") {
            let to = Path::new(&dir).join(self.name);
            let _ = std::fs::remove_dir_all(&to);
            std::fs::create_dir_all(&to).unwrap();
            copy_dir(results, &to);
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// A job's environment: this process's, less anything that would reach the kit without
/// the recipe installing it (JC_*, a journal-conformance on PATH, an active venv).
fn base_env() -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = std::env::vars()
        .filter(|(k, _)| {
            !k.starts_with("JC_")
                && !k.starts_with("GITHUB_")
                && !k.starts_with("CI_")
                && !k.starts_with("CARGO")
                && ![
                    "VIRTUAL_ENV",
                    "PYTHONPATH",
                    "PYTHONHOME",
                    "NODE_PATH",
                    "RUSTUP_TOOLCHAIN",
                ]
                .contains(&k.as_str())
        })
        .collect();
    let path = std::env::var("PATH").unwrap_or_default();
    let kept: Vec<&str> = path
        .split(':')
        .filter(|d| !d.is_empty() && !Path::new(d).join("journal-conformance").exists())
        .collect();
    env.insert("PATH".into(), kept.join(":"));
    env.insert("CI".into(), "true".into());
    env
}

fn sh(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        o.status.success(),
        "{cmd:?}: {}\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    cp(from, to, "-a");
}

/// `cp -a`, or with `-al` hard links: for trees a job reads and never edits in place (the
/// checkout, pip), which makes a fresh workspace cheap. Across file systems, a copy.
fn cp(from: &Path, to: &Path, how: &str) {
    std::fs::create_dir_all(to).unwrap();
    let src = format!("{}/.", from.display());
    let linked = how == "-al"
        && Command::new("cp")
            .args(["-al", &src])
            .arg(to)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if !linked {
        sh(Command::new("cp").args(["-a", &src]).arg(to));
    }
}

/// What a job left in the kit's checkout (`git status --ignored`): nothing, or a line each.
fn kit_writes(ws: &Path) -> String {
    let kit = ws.join("journal-conformance");
    if !kit.join(".git").exists() {
        return String::new();
    }
    sh(Command::new("git")
        .args(["status", "--porcelain", "--ignored"])
        .current_dir(&kit))
}

/// A copy of the user's repository as a CI checkout has it: without node_modules, and
/// with the submodule's files only when asked for (else its empty directory).
fn checkout(repo: &Path, ws: &Path, submodules: bool) {
    std::fs::create_dir_all(ws).unwrap();
    for e in std::fs::read_dir(repo).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let to = ws.join(&name);
        if name == "node_modules" {
            continue;
        }
        if name == "journal-conformance" && !submodules {
            std::fs::create_dir_all(&to).unwrap();
        } else if e.file_type().unwrap().is_dir() {
            cp(&e.path(), &to, "-al");
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A fresh venv with pip (`python -m pip`), whose bin/ goes first on PATH: setup-python, or
/// an image's Python. pip is linked from one venv kept in cargo's target directory per
/// Python version (ensurepip takes seconds each time).
fn fresh_python(dir: &Path) -> PathBuf {
    static TEMPLATE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let site = |venv: &Path| -> PathBuf {
        let lib = venv.join("lib");
        let py = std::fs::read_dir(&lib)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        py.join("site-packages")
    };
    let template = TEMPLATE.get_or_init(|| {
        let version = sh(Command::new("python3").arg("--version"));
        let t = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("ci-recipes-{}", version.trim().replace(' ', "-")));
        if !t.join("ready").exists() {
            let _ = std::fs::remove_dir_all(&t);
            sh(Command::new("python3").arg("-m").arg("venv").arg(&t));
            std::fs::write(t.join("ready"), "").unwrap();
        }
        t
    });
    sh(Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(dir));
    for e in std::fs::read_dir(site(template)).unwrap() {
        let e = e.unwrap();
        let n = e.file_name().to_string_lossy().into_owned();
        if n == "pip" || (n.starts_with("pip-") && n.ends_with(".dist-info")) {
            cp(&e.path(), &site(dir).join(&n), "-al");
        }
    }
    dir.join("bin")
}

fn yaml_str(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Real(r) => Some(r.clone()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn keys(y: &Yaml) -> Vec<String> {
    y.as_hash()
        .map(|h| h.keys().filter_map(yaml_str).collect())
        .unwrap_or_default()
}

fn assert_keys(y: &Yaml, allowed: &[&str], what: &str) {
    for k in keys(y) {
        assert!(
            allowed.contains(&k.as_str()),
            "{what}: `{k}` is not emulated by tests/ci_recipes.rs"
        );
    }
}

fn load(path: &str) -> Yaml {
    let text = read(&Path::new(KIT).join(path));
    let mut docs = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(docs.len(), 1, "{path}");
    docs.remove(0)
}

/// A bash script's run: its status and its output (stdout and stderr, interleaved).
fn bash(args: &[&str], script: &str, dir: &Path, env: &BTreeMap<String, String>) -> (bool, String) {
    let file = dir.with_extension("sh");
    std::fs::write(&file, script).unwrap();
    let out = Command::new("bash")
        .args(args)
        .arg(&file)
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

// ---------------------------------------------------------------- results of a run

struct Run {
    ok: bool,
    log: String,
    /// (job, ok, summary, log, steps as (name, outcome))
    jobs: Vec<JobResult>,
}

struct JobResult {
    name: String,
    ok: bool,
    summary: String,
    log: String,
    steps: Vec<(String, &'static str)>,
}

impl Run {
    fn job(&self, name: &str) -> &JobResult {
        self.jobs
            .iter()
            .find(|j| j.name == name)
            .unwrap_or_else(|| panic!("no job {name}"))
    }
    fn assert_jobs(&self, want: &[(&str, bool)]) {
        let got: Vec<(&str, bool)> = self.jobs.iter().map(|j| (j.name.as_str(), j.ok)).collect();
        assert_eq!(got, want, "jobs and their results");
    }
    fn log_of(&self, job: &str) -> String {
        self.job(job).log.clone()
    }
    fn summary_of(&self, job: &str) -> String {
        self.job(job).summary.clone()
    }
    fn step(&self, job: &str, step: &str) -> &'static str {
        self.job(job)
            .steps
            .iter()
            .find(|(n, _)| n == step)
            .unwrap_or_else(|| panic!("no step {step} in {job}"))
            .1
    }
}

// ---------------------------------------------------------------- GitHub Actions

/// The values `${{ ... }}` and `if:` see.
#[derive(Clone, Default)]
struct Ctx {
    matrix: BTreeMap<String, String>,
    inputs: Option<BTreeMap<String, String>>,
    action_path: Option<PathBuf>,
    workspace: PathBuf,
    env: BTreeMap<String, String>,
    steps: BTreeMap<String, BTreeMap<String, String>>,
    failed: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum V {
    S(String),
    B(bool),
    Null,
}

impl V {
    fn truthy(&self) -> bool {
        match self {
            V::S(s) => !s.is_empty(),
            V::B(b) => *b,
            V::Null => false,
        }
    }
    fn text(&self) -> String {
        match self {
            V::S(s) => s.clone(),
            V::B(b) => b.to_string(),
            V::Null => String::new(),
        }
    }
}

/// GitHub's expression language, the part the recipes use: `a.b.c` lookups, 'strings',
/// `==`, `!=`, `!`, `&&`, `||`, parentheses, and always()/success()/failure()/cancelled().
fn eval(expr: &str, ctx: &Ctx) -> V {
    let toks = tokenize(expr);
    let mut p = Parser { toks, i: 0, ctx };
    let v = p.or();
    assert_eq!(p.i, p.toks.len(), "cannot evaluate `{expr}`");
    v
}

fn tokenize(s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '\'' {
            let mut j = i + 1;
            let mut lit = String::from("'");
            while j < c.len() {
                if c[j] == '\'' && c.get(j + 1) == Some(&'\'') {
                    lit.push('\'');
                    j += 2;
                } else if c[j] == '\'' {
                    break;
                } else {
                    lit.push(c[j]);
                    j += 1;
                }
            }
            assert!(j < c.len(), "unterminated string in `{s}`");
            out.push(lit);
            i = j + 1;
        } else if "=!&|".contains(ch) && i + 1 < c.len() && "=&|".contains(c[i + 1]) {
            out.push(c[i..i + 2].iter().collect());
            i += 2;
        } else if "()!,".contains(ch) {
            out.push(ch.to_string());
            i += 1;
        } else {
            let mut j = i;
            while j < c.len() && (c[j].is_alphanumeric() || "_-.*".contains(c[j])) {
                j += 1;
            }
            assert!(j > i, "unexpected `{ch}` in `{s}`");
            out.push(c[i..j].iter().collect());
            i = j;
        }
    }
    out
}

struct Parser<'a> {
    toks: Vec<String>,
    i: usize,
    ctx: &'a Ctx,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn next(&mut self) -> String {
        self.i += 1;
        self.toks
            .get(self.i - 1)
            .cloned()
            .expect("expression ends early")
    }
    fn or(&mut self) -> V {
        let mut v = self.and();
        while self.peek() == Some("||") {
            self.next();
            let r = self.and();
            v = if v.truthy() { v } else { r };
        }
        v
    }
    fn and(&mut self) -> V {
        let mut v = self.cmp();
        while self.peek() == Some("&&") {
            self.next();
            let r = self.cmp();
            v = if v.truthy() { r } else { v };
        }
        v
    }
    fn cmp(&mut self) -> V {
        let l = self.unary();
        match self.peek() {
            Some("==") | Some("!=") => {
                let eq = self.next() == "==";
                let r = self.unary();
                V::B((l.text().to_lowercase() == r.text().to_lowercase()) == eq)
            }
            _ => l,
        }
    }
    fn unary(&mut self) -> V {
        if self.peek() == Some("!") {
            self.next();
            return V::B(!self.unary().truthy());
        }
        self.primary()
    }
    fn primary(&mut self) -> V {
        let t = self.next();
        if t == "(" {
            let v = self.or();
            assert_eq!(self.next(), ")");
            return v;
        }
        if let Some(lit) = t.strip_prefix('\'') {
            return V::S(lit.to_string());
        }
        if self.peek() == Some("(") {
            self.next();
            assert_eq!(self.next(), ")", "{t}() takes no arguments here");
            return V::B(match t.as_str() {
                "always" => true,
                "success" => !self.ctx.failed,
                "failure" => self.ctx.failed,
                "cancelled" => false,
                f => panic!("function {f}() is not emulated"),
            });
        }
        match t.as_str() {
            "true" => return V::B(true),
            "false" => return V::B(false),
            "null" => return V::Null,
            _ if t.chars().all(|c| c.is_ascii_digit()) => return V::S(t),
            _ => {}
        }
        let parts: Vec<&str> = t.split('.').collect();
        let c = self.ctx;
        let found = match parts.as_slice() {
            ["matrix", k] => c.matrix.get(*k).cloned(),
            ["inputs", k] => Some(
                c.inputs
                    .as_ref()
                    .expect("inputs outside a composite action")
                    .get(*k)
                    .cloned()
                    .unwrap_or_else(|| panic!("no input {k}")),
            ),
            ["env", k] => c.env.get(*k).cloned(),
            ["github", "action_path"] => Some(
                c.action_path
                    .as_ref()
                    .expect("github.action_path outside an action")
                    .display()
                    .to_string(),
            ),
            ["github", "workspace"] => Some(c.workspace.display().to_string()),
            ["steps", id, "outputs", k] => Some(
                c.steps
                    .get(*id)
                    .and_then(|o| o.get(*k))
                    .cloned()
                    .unwrap_or_default(),
            ),
            _ => panic!("`{t}` is not emulated"),
        };
        found.map(V::S).unwrap_or(V::Null)
    }
}

/// `${{ expr }}` replaced by its value, in any text.
fn interpolate(text: &str, ctx: &Ctx) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(a) = rest.find("${{") {
        out.push_str(&rest[..a]);
        let b = rest[a..].find("}}").expect("unterminated ${{") + a;
        out.push_str(&eval(&rest[a + 3..b], ctx).text());
        rest = &rest[b + 2..];
    }
    out.push_str(rest);
    out
}

/// An `if:` condition: GitHub adds `success() &&` unless a status function is named.
fn condition(y: &Yaml, ctx: &Ctx) -> bool {
    let Some(expr) = yaml_str(y) else {
        return !ctx.failed;
    };
    let expr = expr.trim();
    let expr = expr
        .strip_prefix("${{")
        .and_then(|e| e.strip_suffix("}}"))
        .unwrap_or(expr);
    let status = ["always()", "success()", "failure()", "cancelled()"]
        .iter()
        .any(|f| expr.contains(f));
    let v = eval(expr, ctx).truthy();
    if status {
        v
    } else {
        v && !ctx.failed
    }
}

struct GitHub<'a> {
    s: &'a Scratch,
    repo: &'a Path,
    workflow: Yaml,
}

/// One job's state while its steps run.
struct Job {
    name: String,
    dir: PathBuf,
    ctx: Ctx,
    path: Vec<String>,
    log: String,
    summary: String,
    steps: Vec<(String, &'static str)>,
    post: Vec<(PathBuf, String)>, // caches to save: (path, key)
}

impl<'a> GitHub<'a> {
    fn new(s: &'a Scratch, repo: &'a Path) -> GitHub<'a> {
        // The cache the recipe's kit job fills on its first run, filled with the wheel CI built.
        let wheel =
            PathBuf::from(std::env::var("JC_WHEEL").expect("JC_WHEEL: the wheel .ci/run built"));
        let key = format!("journal-conformance-wheel-{}", Scratch::kit_rev(repo));
        let cached = s.root.join("cache").join(&key).join("wheels");
        std::fs::create_dir_all(&cached).unwrap();
        std::fs::copy(&wheel, cached.join(wheel.file_name().unwrap())).unwrap();
        GitHub {
            s,
            repo,
            workflow: load("docs/ci/github-workflow.yml"),
        }
    }

    fn run(&self) -> Run {
        let w = &self.workflow;
        assert_keys(w, &["name", "on", "jobs"], "workflow");
        let mut results: Vec<JobResult> = Vec::new();
        let mut by_job: BTreeMap<String, bool> = BTreeMap::new();
        let mut log = String::new();
        for (name, job) in w["jobs"].as_hash().unwrap() {
            let name = yaml_str(name).unwrap();
            assert_keys(job, &["runs-on", "needs", "if", "strategy", "steps"], &name);
            let needs: Vec<String> = match &job["needs"] {
                Yaml::Array(a) => a.iter().filter_map(yaml_str).collect(),
                y => yaml_str(y).into_iter().collect(),
            };
            let needs_ok = needs.iter().all(|n| {
                *by_job
                    .get(n)
                    .unwrap_or_else(|| panic!("{name} needs {n}, which has not run before it"))
            });
            let ctx = Ctx {
                failed: !needs_ok,
                ..Ctx::default()
            };
            if !condition(&job["if"], &ctx) {
                log.push_str(&format!("=== job {name}: skipped\n"));
                by_job.insert(name.clone(), false);
                continue;
            }
            let strategy = &job["strategy"];
            assert_keys(strategy, &["fail-fast", "matrix"], "strategy");
            let matrix: Vec<BTreeMap<String, String>> = match strategy["matrix"].as_hash() {
                None => vec![BTreeMap::new()],
                Some(m) => {
                    assert_eq!(m.len(), 1, "one matrix dimension is emulated");
                    let (k, vs) = m.iter().next().unwrap();
                    vs.as_vec()
                        .unwrap()
                        .iter()
                        .map(|v| BTreeMap::from([(yaml_str(k).unwrap(), yaml_str(v).unwrap())]))
                        .collect()
                }
            };
            let fail_fast = strategy["fail-fast"].as_bool().unwrap_or(true);
            let mut all_ok = true;
            for m in matrix {
                let label = match m.values().next() {
                    Some(v) => format!("{name} {v}"),
                    None => name.clone(),
                };
                if fail_fast && !all_ok {
                    log.push_str(&format!("=== job {label}: cancelled (fail-fast)\n"));
                    continue;
                }
                let r = self.job(&label, job, m);
                log.push_str(&format!(
                    "=== job {label}: {}\n{}",
                    if r.ok { "success" } else { "FAILURE" },
                    r.log
                ));
                all_ok &= r.ok;
                results.push(r);
            }
            by_job.insert(name, all_ok);
        }
        Run {
            ok: results.iter().all(|r| r.ok),
            log,
            jobs: results,
        }
    }

    fn job(&self, label: &str, job: &Yaml, matrix: BTreeMap<String, String>) -> JobResult {
        let dir = self.s.root.join("jobs").join(label.replace(' ', "-"));
        let ws = dir.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        let mut env = base_env();
        env.insert("GITHUB_ACTIONS".into(), "true".into());
        env.insert("GITHUB_WORKSPACE".into(), ws.display().to_string());
        env.insert("RUNNER_TEMP".into(), dir.join("tmp").display().to_string());
        let path = env["PATH"].split(':').map(String::from).collect();
        let mut j = Job {
            name: label.to_string(),
            dir,
            ctx: Ctx {
                matrix,
                workspace: ws,
                env,
                ..Ctx::default()
            },
            path,
            log: String::new(),
            summary: String::new(),
            steps: Vec::new(),
            post: Vec::new(),
        };
        // No kit reaches the job but through its steps.
        let (found, _) = self.shell(&mut j, "command -v journal-conformance", &["-c"]);
        assert!(
            !found,
            "{label}: a journal-conformance is on PATH before any step"
        );
        for (i, step) in job["steps"].as_vec().unwrap().iter().enumerate() {
            self.step(&mut j, step, i);
        }
        for (path, key) in std::mem::take(&mut j.post) {
            if !j.ctx.failed {
                let to = self.s.root.join("cache").join(&key);
                copy_dir(&j.ctx.workspace.join(&path), &to.join(&path));
            }
        }
        let written = kit_writes(&j.ctx.workspace);
        assert!(
            written.is_empty(),
            "{label}: the job wrote into the kit's checkout:\n{written}"
        );
        JobResult {
            name: j.name,
            ok: !j.ctx.failed,
            summary: j.summary,
            log: j.log,
            steps: j.steps,
        }
    }

    fn shell(&self, j: &mut Job, script: &str, args: &[&str]) -> (bool, String) {
        let mut env = j.ctx.env.clone();
        env.insert("PATH".into(), j.path.join(":"));
        if args == ["-c"] {
            let o = Command::new("bash")
                .arg("-c")
                .arg(script)
                .current_dir(&j.ctx.workspace)
                .env_clear()
                .envs(&env)
                .output()
                .unwrap();
            return (
                o.status.success(),
                String::from_utf8_lossy(&o.stdout).into_owned(),
            );
        }
        let files = [
            "GITHUB_OUTPUT",
            "GITHUB_STEP_SUMMARY",
            "GITHUB_ENV",
            "GITHUB_PATH",
        ];
        for f in files {
            let p = j.dir.join(f);
            std::fs::write(&p, "").unwrap();
            env.insert(f.into(), p.display().to_string());
        }
        let (ok, out) = bash(args, script, &j.ctx.workspace, &env);
        j.summary
            .push_str(&read(&j.dir.join("GITHUB_STEP_SUMMARY")));
        for line in read(&j.dir.join("GITHUB_PATH")).lines() {
            j.path.insert(0, line.to_string());
        }
        for (k, v) in key_values(&read(&j.dir.join("GITHUB_ENV"))) {
            j.ctx.env.insert(k, v);
        }
        (ok, out)
    }

    fn step(&self, j: &mut Job, step: &Yaml, index: usize) {
        assert_keys(
            step,
            &["name", "id", "if", "run", "uses", "with", "shell", "env"],
            &format!("{} step {index}", j.name),
        );
        let uses = yaml_str(&step["uses"]);
        let name = yaml_str(&step["name"])
            .or_else(|| yaml_str(&step["run"]).map(|r| r.lines().next().unwrap_or("").to_string()))
            .or_else(|| uses.clone())
            .unwrap();
        if !condition(&step["if"], &j.ctx) {
            j.log.push_str(&format!("--- {name}: skipped\n"));
            j.steps.push((name, "skipped"));
            return;
        }
        let id = yaml_str(&step["id"]);
        let mut with = BTreeMap::new();
        if let Some(h) = step["with"].as_hash() {
            for (k, v) in h {
                with.insert(
                    yaml_str(k).unwrap(),
                    interpolate(&yaml_str(v).unwrap(), &j.ctx),
                );
            }
        }
        let saved_env = j.ctx.env.clone();
        if let Some(h) = step["env"].as_hash() {
            for (k, v) in h {
                let v = interpolate(&yaml_str(v).unwrap(), &j.ctx);
                j.ctx.env.insert(yaml_str(k).unwrap(), v);
            }
        }
        let started = std::time::Instant::now();
        let (ok, out, outputs) = if let Some(script) = yaml_str(&step["run"]) {
            let script = interpolate(&script, &j.ctx);
            let args: &[&str] = match yaml_str(&step["shell"]).as_deref() {
                None => &["-e"],
                Some("bash") => &["--noprofile", "--norc", "-eo", "pipefail"],
                Some(other) => panic!("shell {other} is not emulated"),
            };
            let (ok, out) = self.shell(j, &script, args);
            (ok, out, key_values(&read(&j.dir.join("GITHUB_OUTPUT"))))
        } else {
            self.action(j, uses.as_deref().unwrap(), &with)
        };
        j.ctx.env = saved_env;
        if let Some(id) = id {
            j.ctx.steps.insert(id, outputs);
        }
        j.log.push_str(&format!(
            "--- {name}: {} ({:.1} s)\n{out}",
            if ok { "ok" } else { "FAILED" },
            started.elapsed().as_secs_f64()
        ));
        j.steps.push((name, if ok { "success" } else { "failure" }));
        if !ok {
            j.ctx.failed = true;
        }
    }

    /// The emulated actions: (ok, log, outputs).
    fn action(
        &self,
        j: &mut Job,
        uses: &str,
        with: &BTreeMap<String, String>,
    ) -> (bool, String, BTreeMap<String, String>) {
        let allow = |keys: &[&str]| {
            for k in with.keys() {
                assert!(
                    keys.contains(&k.as_str()),
                    "{uses}: `with: {k}` is not emulated"
                );
            }
        };
        let ws = j.ctx.workspace.clone();
        let none = BTreeMap::new();
        match uses {
            "actions/checkout@v4" => {
                allow(&["submodules"]);
                checkout(
                    self.repo,
                    &ws,
                    with.get("submodules").is_some_and(|v| v == "true"),
                );
                (true, String::new(), none)
            }
            "actions/setup-node@v4" => {
                allow(&["node-version"]);
                let (_, v) = self.shell(j, "node --version", &["-c"]);
                let want = format!("v{}.", with["node-version"]);
                (v.starts_with(&want), format!("node {v}"), none)
            }
            "actions/setup-python@v5" => {
                allow(&["python-version"]);
                assert_eq!(
                    with["python-version"], "3.x",
                    "the emulation gives one Python 3"
                );
                let bin = fresh_python(&j.dir.join("python"));
                j.path.insert(0, bin.display().to_string());
                (true, String::new(), none)
            }
            "actions/cache@v4" => {
                allow(&["path", "key"]);
                let (path, key) = (with["path"].trim_end_matches('/'), &with["key"]);
                let stored = self.s.root.join("cache").join(key);
                let hit = stored.is_dir();
                if hit {
                    copy_dir(&stored, &ws);
                } else {
                    j.post.push((PathBuf::from(path), key.clone()));
                }
                let out = BTreeMap::from([("cache-hit".to_string(), hit.to_string())]);
                (
                    true,
                    format!("cache {key}: {}\n", if hit { "hit" } else { "miss" }),
                    out,
                )
            }
            "actions/upload-artifact@v4" => {
                allow(&["name", "path"]);
                let (name, path) = (&with["name"], ws.join(&with["path"]));
                let to = self.s.root.join("artifacts").join(name);
                if !path.exists() {
                    return (
                        false,
                        format!("upload {name}: {} not found\n", with["path"]),
                        none,
                    );
                }
                assert!(!to.exists(), "artifact {name} uploaded twice");
                copy_dir(&path, &to);
                (true, format!("uploaded {name}\n"), none)
            }
            "actions/download-artifact@v4" => {
                allow(&["name", "pattern", "merge-multiple", "path"]);
                let to = ws.join(&with["path"]);
                let store = self.s.root.join("artifacts");
                let names: Vec<String> = match (with.get("name"), with.get("pattern")) {
                    (Some(n), None) => vec![n.clone()],
                    (None, Some(p)) => {
                        let prefix = p.strip_suffix('*').expect("a pattern PREFIX* is emulated");
                        let mut v: Vec<String> = std::fs::read_dir(&store)
                            .unwrap()
                            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                            .filter(|n| n.starts_with(prefix))
                            .collect();
                        v.sort();
                        v
                    }
                    _ => panic!("download-artifact: name or pattern"),
                };
                let merge = with.get("merge-multiple").is_some_and(|v| v == "true");
                assert!(
                    with.contains_key("name") || merge,
                    "pattern without merge-multiple"
                );
                for n in &names {
                    if !store.join(n).is_dir() {
                        return (false, format!("no artifact {n}\n"), none);
                    }
                    copy_dir(&store.join(n), &to);
                }
                (!names.is_empty(), format!("downloaded {names:?}\n"), none)
            }
            local if local.starts_with("./") => self.composite(j, &ws.join(local), with),
            other => panic!("action {other} is not emulated"),
        }
    }

    fn composite(
        &self,
        j: &mut Job,
        dir: &Path,
        with: &BTreeMap<String, String>,
    ) -> (bool, String, BTreeMap<String, String>) {
        let file = dir.join("action.yml");
        if !file.is_file() {
            return (
                false,
                format!("{} not found\n", file.display()),
                BTreeMap::new(),
            );
        }
        let action = YamlLoader::load_from_str(&read(&file)).unwrap().remove(0);
        assert_keys(
            &action,
            &["name", "description", "inputs", "outputs", "runs"],
            "action.yml",
        );
        assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
        let mut inputs = BTreeMap::new();
        for (k, v) in action["inputs"].as_hash().unwrap() {
            let k = yaml_str(k).unwrap();
            assert_keys(v, &["description", "required", "default"], &k);
            let given = with.get(&k).cloned();
            if v["required"].as_bool() == Some(true) {
                assert!(given.is_some(), "action.yml: input {k} is required");
            }
            inputs.insert(
                k,
                given
                    .or_else(|| yaml_str(&v["default"]))
                    .unwrap_or_default(),
            );
        }
        for k in with.keys() {
            assert!(inputs.contains_key(k), "action.yml has no input {k}");
        }
        let outer = j.ctx.clone();
        j.ctx.inputs = Some(inputs);
        j.ctx.action_path = Some(dir.to_path_buf());
        j.ctx.steps = BTreeMap::new();
        let before = j.ctx.failed;
        let first = j.steps.len();
        let mut out = String::new();
        for (i, step) in action["runs"]["steps"].as_vec().unwrap().iter().enumerate() {
            assert!(
                yaml_str(&step["shell"]).is_some(),
                "a composite run step needs shell:"
            );
            let log_len = j.log.len();
            self.step(j, step, i);
            out.push_str(&j.log[log_len..]);
            j.log.truncate(log_len);
        }
        // Did one of the composite's own steps fail (not an earlier step of the job)?
        let ok = j.steps[first..].iter().all(|(_, o)| *o != "failure");
        let failed = j.ctx.failed;
        j.ctx = Ctx {
            failed: before || failed,
            env: j.ctx.env.clone(),
            ..outer
        };
        (ok, out, BTreeMap::new())
    }
}

/// `name=value` lines (and `name<<DELIM` blocks) of GITHUB_OUTPUT / GITHUB_ENV.
fn key_values(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if let Some((k, delim)) = l.split_once("<<") {
            let mut v = Vec::new();
            for l in lines.by_ref() {
                if l == delim {
                    break;
                }
                v.push(l);
            }
            out.insert(k.to_string(), v.join("\n"));
        } else if let Some((k, v)) = l.split_once('=') {
            out.insert(k.to_string(), v.to_string());
        }
    }
    out
}

// ---------------------------------------------------------------- GitLab CI

struct GitLab<'a> {
    s: &'a Scratch,
    repo: &'a Path,
    pipeline: Yaml,
}

impl<'a> GitLab<'a> {
    fn new(s: &'a Scratch, repo: &'a Path) -> GitLab<'a> {
        // The cache the recipe's kit job fills on its first run, filled with the binary CI built.
        let bin = PathBuf::from(std::env::var("JC_BIN").expect("JC_BIN: the kit's binary"));
        let rev = Scratch::kit_rev(repo);
        let cached = s
            .root
            .join("cache/journal-conformance-kit/.kit-cache")
            .join(rev)
            .join("bin");
        std::fs::create_dir_all(&cached).unwrap();
        std::fs::copy(&bin, cached.join("journal-conformance")).unwrap();
        GitLab {
            s,
            repo,
            pipeline: load("docs/ci/gitlab-ci.yml"),
        }
    }

    fn run(&self) -> Run {
        let p = &self.pipeline;
        let globals = &p["variables"];
        let stages: Vec<String> = p["stages"]
            .as_vec()
            .unwrap()
            .iter()
            .filter_map(yaml_str)
            .collect();
        let mut jobs: Vec<(String, &Yaml)> = p
            .as_hash()
            .unwrap()
            .iter()
            .map(|(k, v)| (yaml_str(k).unwrap(), v))
            .filter(|(k, _)| !["variables", "stages"].contains(&k.as_str()))
            .collect();
        for (name, _) in &jobs {
            assert!(
                !name.starts_with('.') && name != "default" && name != "include",
                "{name}"
            );
        }
        let stage_of = |j: &Yaml| {
            let s = yaml_str(&j["stage"]).unwrap_or_else(|| "test".into());
            stages
                .iter()
                .position(|x| *x == s)
                .unwrap_or_else(|| panic!("stage {s}"))
        };
        jobs.sort_by_key(|(_, j)| stage_of(j));
        let mut results: Vec<JobResult> = Vec::new();
        let mut by_job: BTreeMap<String, (bool, Vec<String>)> = BTreeMap::new();
        let mut log = String::new();
        for (name, job) in jobs {
            assert_keys(
                job,
                &[
                    "stage",
                    "image",
                    "needs",
                    "parallel",
                    "script",
                    "cache",
                    "artifacts",
                    "when",
                    "variables",
                ],
                &name,
            );
            let needs: Vec<String> = job["needs"]
                .as_vec()
                .map(|v| v.iter().filter_map(yaml_str).collect())
                .unwrap_or_default();
            let mut needs_ok = true;
            let mut from = Vec::new();
            for n in &needs {
                let (ok, instances) = by_job
                    .get(n)
                    .unwrap_or_else(|| panic!("{name} needs {n}, which has not run before it"));
                needs_ok &= ok;
                from.extend(instances.iter().cloned());
            }
            let when = yaml_str(&job["when"]).unwrap_or_else(|| "on_success".into());
            assert!(
                ["on_success", "always"].contains(&when.as_str()),
                "when: {when}"
            );
            if when == "on_success" && !needs_ok {
                log.push_str(&format!("=== job {name}: skipped\n"));
                by_job.insert(name, (false, vec![]));
                continue;
            }
            let n = job["parallel"].as_i64().unwrap_or(0);
            let mut all_ok = true;
            let mut instances = Vec::new();
            for k in 0..n.max(1) {
                let label = if n > 0 {
                    format!("{name} {}/{n}", k + 1)
                } else {
                    name.clone()
                };
                let mut vars: Vec<(String, String)> = Vec::new();
                for scope in [globals, &job["variables"]] {
                    if let Some(h) = scope.as_hash() {
                        for (k, v) in h {
                            vars.push((yaml_str(k).unwrap(), yaml_str(v).unwrap()));
                        }
                    }
                }
                if n > 0 {
                    vars.push(("CI_NODE_INDEX".into(), (k + 1).to_string()));
                    vars.push(("CI_NODE_TOTAL".into(), n.to_string()));
                }
                let r = self.job(&label, job, &vars, &from);
                log.push_str(&format!(
                    "=== job {label}: {}\n{}",
                    if r.ok { "success" } else { "FAILURE" },
                    r.log
                ));
                all_ok &= r.ok;
                instances.push(label);
                results.push(r);
            }
            by_job.insert(name, (all_ok, instances));
        }
        Run {
            ok: results.iter().all(|r| r.ok),
            log,
            jobs: results,
        }
    }

    fn job(
        &self,
        label: &str,
        job: &Yaml,
        vars: &[(String, String)],
        needs: &[String],
    ) -> JobResult {
        let dir = self
            .s
            .root
            .join("jobs")
            .join(label.replace([' ', '/'], "-"));
        let ws = dir.join("ws");
        let submodules = vars
            .iter()
            .any(|(k, v)| k == "GIT_SUBMODULE_STRATEGY" && (v == "recursive" || v == "normal"));
        checkout(self.repo, &ws, submodules);
        let mut env = base_env();
        env.insert("GITLAB_CI".into(), "true".into());
        env.insert("CI_PROJECT_DIR".into(), ws.display().to_string());
        env.insert("CI_JOB_NAME".into(), label.to_string());
        for (k, v) in vars {
            env.insert(k.clone(), v.clone());
        }
        let image = yaml_str(&job["image"]).expect("image:");
        let mut log = format!("image {image}\n");
        if image.starts_with("python:") {
            let bin = fresh_python(&dir.join("python"));
            let path = format!("{}:{}", bin.display(), env["PATH"]);
            env.insert("PATH".into(), path);
        } else if image.starts_with("rust:") {
            // The machine's cargo stands in for the image's (a cache hit never uses it).
        } else {
            panic!("image {image} is not emulated");
        }
        // Artifacts of the jobs it needs, then the cache.
        let store = self.s.root.join("artifacts");
        for n in needs {
            copy_dir(&store.join(n.replace('/', "_")), &ws);
        }
        let cache = &job["cache"];
        assert_keys(cache, &["key", "paths"], "cache");
        let cache_key = yaml_str(&cache["key"]);
        if let Some(key) = &cache_key {
            let stored = self.s.root.join("cache").join(key);
            if stored.is_dir() {
                copy_dir(&stored, &ws);
            }
        }
        let script: Vec<String> = job["script"]
            .as_vec()
            .expect("script:")
            .iter()
            .map(|l| yaml_str(l).unwrap())
            .collect();
        let (ok, out) = bash(&["-eo", "pipefail"], &script.join("\n"), &ws, &env);
        log.push_str(&out);
        // The cache is saved after a successful job; artifacts by their `when:`.
        if let (true, Some(key)) = (ok, &cache_key) {
            for p in cache["paths"].as_vec().unwrap().iter().filter_map(yaml_str) {
                let p = p.trim_end_matches('/');
                copy_dir(&ws.join(p), &self.s.root.join("cache").join(key).join(p));
            }
        }
        let mut ok = ok;
        let art = &job["artifacts"];
        assert_keys(art, &["when", "paths", "reports", "expose_as"], "artifacts");
        let when = yaml_str(&art["when"]).unwrap_or_else(|| "on_success".into());
        if when == "always" || (when == "on_success" && ok) {
            let to = store.join(label.replace('/', "_"));
            std::fs::create_dir_all(&to).unwrap();
            for p in art["paths"].as_vec().unwrap().iter().filter_map(yaml_str) {
                let from = ws.join(p.trim_end_matches('/'));
                if !from.exists() {
                    // GitLab warns; a missing result is what this test is for.
                    log.push_str(&format!("artifact {p}: not found\n"));
                    ok = false;
                    continue;
                }
                let dest = to.join(p.trim_end_matches('/'));
                if from.is_dir() {
                    copy_dir(&from, &dest);
                } else {
                    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                    std::fs::copy(&from, &dest).unwrap();
                }
            }
            if let Some(junit) = yaml_str(&art["reports"]["junit"]) {
                let (d, pat) = junit.rsplit_once('/').unwrap();
                let (pre, post) = pat.split_once('*').unwrap();
                let found = std::fs::read_dir(ws.join(d)).is_ok_and(|rd| {
                    rd.filter_map(|e| e.ok()).any(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        n.starts_with(pre) && n.ends_with(post)
                    })
                });
                if !found {
                    log.push_str(&format!("junit report {junit}: not found\n"));
                    ok = false;
                }
            }
        }
        let written = kit_writes(&ws);
        assert!(
            written.is_empty(),
            "{label}: the job wrote into the kit's checkout:\n{written}"
        );
        JobResult {
            name: label.to_string(),
            ok,
            summary: String::new(),
            log,
            steps: vec![],
        }
    }
}
