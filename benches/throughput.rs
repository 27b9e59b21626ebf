//! Throughput benchmark (see `benches/README.md`).
//!
//! Generates a deterministic core-profile journal of about `JC_BENCH_MB` megabytes
//! (10^6 bytes, default 100) in the temp directory, then times, on that file read
//! through a `BufReader<File>` of 64 KiB (as the CLI reads files):
//!
//! * `validate`:    `journal::validate` (wire + JSON + envelope + journal rules)
//! * `replay`:      `replay::replay(.., None)` (validate + projection + fingerprint)
//! * `fingerprint`: `replay::fingerprint(.., None)` (validate + fingerprint)
//! * `sha2`:        SHA-256 (the `sha2` crate) over the raw file bytes
//! * `sha256sum`:   `sha256sum FILE` as a subprocess, when the tool exists
//!
//! and, as timing splits for profiling, the cost of the layers underneath:
//!
//! * `split:lines`:           `wire::LineReader` only (split on `\n`)
//! * `split:lines+parse`:     lines + `wire::parse_line` (UTF-8 + strict JSON parser)
//! * `split:lines+parse+canon`: the above + `canonical::write` of each value
//!
//! Each measurement is repeated `JC_BENCH_RUNS` times (default 5); the median and
//! the minimum are reported, with the peak RSS of the process during that
//! measurement (VmHWM, reset before each measurement through `/proc/self/clear_refs`).
//!
//! Run without `--bench` (that is, by `cargo test --benches`), it does a 1 MB, one
//! run smoke test instead.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use journal_conformance::event::JournalProfile;
use journal_conformance::{canonical, journal, replay, wire};
use sha2::{Digest, Sha256};

const SEED: u64 = 0x9E37_79B9_7F4A_7C15;
const READ_CAPACITY: usize = 1 << 16;

// ---------------------------------------------------------------------------------
// Deterministic generator
// ---------------------------------------------------------------------------------

/// xorshift64 (Marsaglia): small, fast, and the same sequence on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform-ish in `lo..=hi` (modulo bias is irrelevant here).
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick(&mut self, xs: &[&'static str]) -> &'static str {
        xs[(self.next() % xs.len() as u64) as usize]
    }

    /// A float with a fraction, sometimes with a large or tiny exponent.
    fn float(&mut self) -> f64 {
        match self.next() % 10 {
            0 => (self.range(1, 99_999) as f64) * 1e-9,
            1 => (self.range(1, 99_999) as f64) * 1e17,
            _ => (self.range(0, 9_999_999) as f64) / 1000.0 + 0.001,
        }
    }
}

const WORDS: &[&str] = &[
    "the",
    "journal",
    "replay",
    "event",
    "stream",
    "tool",
    "result",
    "parser",
    "canonical",
    "fingerprint",
    "invariant",
    "sequence",
    "session",
    "agent",
    "model",
    "token",
    "cache",
    "append",
    "only",
    "line",
    "value",
    "check",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "we",
    "file",
    "path",
    "test",
    "build",
    "error",
    "fix",
    "read",
    "write",
    "function",
    "return",
    "naïve",
    "café",
    "größe",
    "résumé",
    "日本語",
    "テスト",
    "数据",
    "проверка",
    "данные",
    "λόγος",
    "αβγ",
    "🚀",
    "✅",
    "🦀",
    "∑",
    "→",
    "—",
    "\"quoted\"",
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "`code`",
    "{braces}",
    "[brackets]",
    "x=1;",
    "über",
    "niño",
    "ça",
];

const PATHS: &[&str] = &[
    "src/lib.rs",
    "src/json.rs",
    "src/journal.rs",
    "tests/replay.rs",
    "docs/SPEC.md",
    "src/日本/mod.rs",
    "crates/core/src/lib.rs",
];

const TOOLS: &[&str] = &["read_file", "grep", "run_tests"];

/// Append `s` as a JSON string. With `ascii`, every non-ASCII character is written as
/// a `\uXXXX` escape (surrogate pairs above the BMP), as `ensure_ascii` writers do.
fn json_str(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn sentence(rng: &mut Rng, lo: u64, hi: u64) -> String {
    let n = rng.range(lo, hi);
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    s
}

/// A JSON string literal of a sentence; 5% of them `\u`-escaped.
fn text(rng: &mut Rng, lo: u64, hi: u64) -> String {
    let ascii = rng.chance(5);
    let s = sentence(rng, lo, hi);
    let mut out = String::with_capacity(s.len() + 2);
    json_str(&mut out, &s, ascii);
    out
}

fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    json_str(&mut out, s, false);
    out
}

struct Generator {
    rng: Rng,
    out: BufWriter<File>,
    seq: u64,
    bytes: u64,
    line: String,
    counts: [u64; 7],
}

const TYPES: [&str; 7] = [
    "session.start",
    "user.message",
    "model.request",
    "model.response",
    "tool.request",
    "tool.result",
    "session.stop",
];

impl Generator {
    fn emit(&mut self, ty: &str, actor: &str, payload: &str) -> std::io::Result<()> {
        let n = self.seq;
        let t = 1_000 * n + self.rng.range(0, 999);
        let l = &mut self.line;
        l.clear();
        let _ = write!(
            l,
            r#"{{"trace_version":"0.1.0","event_id":"evt-{n}","session_id":"s","sequence":{n},"timestamp":"2026-08-10T{:02}:{:02}:{:02}.{:03}Z","type":"{ty}","actor":{{"kind":"{actor}","id":"bench-{actor}"}},"payload":{payload},"provenance":{{"run_id":"r","agent_id":"bench-agent","snapshot_id":"bench-agent-2026-08-10","surface":"sdk","harness_mode":"fake","model":"bench-model-v1","provider":"local-fixture"}},"redaction":"#,
            (t / 3_600_000) % 24,
            (t / 60_000) % 60,
            (t / 1_000) % 60,
            t % 1_000,
        );
        if self.rng.chance(3) {
            l.push_str(r#"{"status":"redacted","fields":["payload.content"]}"#);
        } else {
            l.push_str(r#"{"status":"clean","fields":[]}"#);
        }
        if n > 0 {
            let _ = write!(l, r#","parent_event_id":"evt-{}""#, n - 1);
        }
        l.push_str("}\n");
        self.out.write_all(l.as_bytes())?;
        self.bytes += l.len() as u64;
        self.seq += 1;
        let i = TYPES.iter().position(|t| *t == ty).expect("known type");
        self.counts[i] += 1;
        Ok(())
    }

    fn usage(&mut self) -> String {
        format!(
            r#"{{"input_tokens":{},"output_tokens":{},"cache_hit_ratio":{:?},"cost_usd":{:?}}}"#,
            self.rng.range(100, 200_000),
            self.rng.range(1, 8_000),
            self.rng.float(),
            self.rng.float(),
        )
    }

    fn tool_output(&mut self, tool: &str) -> String {
        let r = &mut self.rng;
        let mut o = String::new();
        match tool {
            "read_file" => {
                let path = quoted(r.pick(PATHS));
                let _ = write!(o, r#"{{"path":{path},"lines":["#);
                let n = r.range(5, 40);
                let first = r.range(1, 500);
                for i in 0..n {
                    if i > 0 {
                        o.push(',');
                    }
                    let _ = write!(o, r#"{{"n":{},"text":{}}}"#, first + i, text(r, 0, 14));
                }
                let _ = write!(
                    o,
                    r#"],"stats":{{"bytes":{},"ratio":{:?},"mtime_ns":{}}},"truncated":{}}}"#,
                    r.range(0, 1 << 20),
                    r.float(),
                    // Beyond i64: the parser keeps integers exact.
                    if r.chance(10) {
                        "123456789012345678901234567890".to_string()
                    } else {
                        r.range(0, 1 << 62).to_string()
                    },
                    r.chance(20),
                );
            }
            "grep" => {
                let _ = write!(o, r#"{{"pattern":{},"matches":["#, text(r, 1, 3));
                let n = r.range(0, 25);
                for i in 0..n {
                    if i > 0 {
                        o.push(',');
                    }
                    let _ = write!(
                        o,
                        r#"{{"path":{},"line":{},"column":{},"preview":{},"score":{:?}}}"#,
                        quoted(r.pick(PATHS)),
                        r.range(1, 5_000),
                        r.range(1, 120),
                        text(r, 3, 16),
                        r.float(),
                    );
                }
                let _ = write!(o, r#"],"count":{n}}}"#);
            }
            _ => {
                let failed = if r.chance(30) { r.range(1, 4) } else { 0 };
                let _ = write!(
                    o,
                    r#"{{"exit_code":{},"passed":{},"failed":{failed},"duration_s":{:?},"failures":["#,
                    if failed > 0 { 101 } else { 0 },
                    r.range(0, 900),
                    r.float(),
                );
                for i in 0..failed {
                    if i > 0 {
                        o.push(',');
                    }
                    let _ = write!(
                        o,
                        r#"{{"name":"tests::case_{}","message":{},"trace":[{},{},{}],"delta":-{}}}"#,
                        r.range(0, 999),
                        text(r, 5, 30),
                        text(r, 2, 6),
                        text(r, 2, 6),
                        text(r, 2, 6),
                        r.range(1, 1_000_000),
                    );
                }
                o.push_str(r#"],"env":{"RUST_LOG":"debug","CI":null,"nested":{"a":[1,[2,[3,{"b":null}]]]}}}"#);
            }
        }
        o
    }

    fn turn(&mut self, turn: u64) -> std::io::Result<()> {
        let long = self.rng.chance(10);
        let content = if long {
            text(&mut self.rng, 150, 400)
        } else {
            text(&mut self.rng, 3, 60)
        };
        self.emit(
            "user.message",
            "user",
            &format!(r#"{{"content":{content},"turn":{turn}}}"#),
        )?;
        let mut messages = 2 * turn - 1;
        let request = |messages: u64, temp: f64| {
            format!(
                r#"{{"turn":{turn},"message_count":{messages},"roles":["system","user","assistant"],"tools":["read_file","grep","run_tests"],"temperature":{temp:?},"max_tokens":4096}}"#
            )
        };
        let temp = (self.rng.range(0, 10) as f64) / 10.0 + 0.05;
        self.emit("model.request", "harness", &request(messages, temp))?;
        // Tool rounds.
        for _ in 0..self.rng.range(0, 3) {
            let tool = self.rng.pick(TOOLS);
            let call = format!("call-{}", self.seq);
            let args = match tool {
                "read_file" => format!(
                    r#"{{"path":{},"start":{},"end":{}}}"#,
                    quoted(self.rng.pick(PATHS)),
                    self.rng.range(1, 100),
                    self.rng.range(101, 900)
                ),
                "grep" => format!(
                    r#"{{"pattern":{},"paths":["src","tests"],"ignore_case":{}}}"#,
                    text(&mut self.rng, 1, 3),
                    self.rng.chance(50)
                ),
                _ => r#"{"command":["cargo","test","--release"],"timeout_s":600}"#.to_string(),
            };
            let say = text(&mut self.rng, 3, 20);
            let usage = self.usage();
            self.emit(
                "model.response",
                "model",
                &format!(
                    r#"{{"turn":{turn},"content":{say},"tool_calls":[{{"id":"{call}","name":"{tool}","arguments":{args}}}],"usage":{usage}}}"#
                ),
            )?;
            self.emit(
                "tool.request",
                "harness",
                &format!(r#"{{"tool_call_id":"{call}","name":"{tool}","arguments":{args}}}"#),
            )?;
            let output = self.tool_output(tool);
            let elapsed = self.rng.float();
            let ok = self.rng.chance(90);
            self.emit(
                "tool.result",
                "tool",
                &format!(
                    r#"{{"tool_call_id":"{call}","name":"{tool}","ok":{ok},"elapsed_ms":{elapsed:?},"output":{output}}}"#
                ),
            )?;
            messages += 2;
            self.emit("model.request", "harness", &request(messages, temp))?;
        }
        // The answer: plain, or streamed as deltas then one final event.
        if self.rng.chance(50) {
            let answer = text(&mut self.rng, 10, 120);
            let usage = self.usage();
            self.emit(
                "model.response",
                "model",
                &format!(
                    r#"{{"turn":{turn},"content":{answer},"tool_calls":[],"usage":{usage},"stop":"end_turn"}}"#
                ),
            )?;
        } else {
            let mut acc = String::new();
            for i in 0..self.rng.range(3, 12) {
                let delta = sentence(&mut self.rng, 1, 10) + " ";
                acc.push_str(&delta);
                self.emit(
                    "model.response",
                    "model",
                    &format!(
                        r#"{{"turn":{turn},"index":{i},"delta":{},"accumulated":{},"final":false,"tool_calls":[]}}"#,
                        quoted(&delta),
                        quoted(&acc)
                    ),
                )?;
            }
            let usage = self.usage();
            self.emit(
                "model.response",
                "model",
                &format!(
                    r#"{{"turn":{turn},"accumulated":{},"final":true,"tool_calls":[],"usage":{usage}}}"#,
                    quoted(&acc)
                ),
            )?;
        }
        Ok(())
    }
}

struct Generated {
    bytes: u64,
    events: u64,
    counts: [u64; 7],
}

/// Write a journal of at least `target` bytes (one line past it at most a turn).
fn generate(path: &Path, target: u64) -> std::io::Result<Generated> {
    let mut g = Generator {
        rng: Rng(SEED),
        out: BufWriter::with_capacity(1 << 20, File::create(path)?),
        seq: 0,
        bytes: 0,
        line: String::with_capacity(1 << 16),
        counts: [0; 7],
    };
    g.emit(
        "session.start",
        "harness",
        r#"{"max_turns":1000000,"tool_count":3,"cwd":"/work/プロジェクト","config":{"sandbox":true,"retries":3,"backoff":1.5}}"#,
    )?;
    let mut turn = 0;
    while g.bytes < target {
        turn += 1;
        g.turn(turn)?;
    }
    g.emit(
        "session.stop",
        "harness",
        &format!(
            r#"{{"reason":"completed","turns":{turn},"wall_s":{:?}}}"#,
            12345.678
        ),
    )?;
    g.out.flush()?;
    Ok(Generated {
        bytes: g.bytes,
        events: g.seq,
        counts: g.counts,
    })
}

// ---------------------------------------------------------------------------------
// Measurement
// ---------------------------------------------------------------------------------

/// Removes the file when dropped (also on panic).
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Reset the peak RSS (VmHWM) to the current RSS (Linux >= 4.0); false if unsupported.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn open(path: &Path) -> BufReader<File> {
    BufReader::with_capacity(READ_CAPACITY, File::open(path).expect("open bench file"))
}

/// On-CPU and run-queue wait time of this (single-threaded) process's main thread,
/// from `/proc/self/schedstat` (nanoseconds); `None` where unavailable.
fn schedstat() -> Option<(Duration, Duration)> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let mut f = s.split_whitespace().map(|x| x.parse::<u64>().ok());
    Some((
        Duration::from_nanos(f.next()??),
        Duration::from_nanos(f.next()??),
    ))
}

struct Row {
    name: &'static str,
    /// Wall-clock time.
    median: Duration,
    min: Duration,
    /// On-CPU time of this process (`None` for a subprocess or without schedstat).
    cpu_median: Option<Duration>,
    /// Total time spent runnable but waiting for a CPU, over all runs.
    waited: Option<Duration>,
    peak_kib: Option<u64>,
    result: String,
}

fn measure(name: &'static str, runs: usize, mut f: impl FnMut() -> String) -> Row {
    let resettable = reset_peak_rss();
    let mut times = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    let mut waited = Some(Duration::ZERO);
    let mut result: Option<String> = None;
    for _ in 0..runs {
        let before = schedstat();
        let start = Instant::now();
        let r = f();
        times.push(start.elapsed());
        match (before, schedstat()) {
            (Some((c0, w0)), Some((c1, w1))) => {
                cpu.push(c1 - c0);
                waited = waited.map(|w| w + (w1 - w0));
            }
            _ => waited = None,
        }
        match &result {
            None => result = Some(r),
            Some(prev) => assert_eq!(prev, &r, "{name}: result differs between runs"),
        }
    }
    times.sort();
    cpu.sort();
    Row {
        name,
        median: times[times.len() / 2],
        min: times[0],
        cpu_median: (cpu.len() == runs).then(|| cpu[runs / 2]),
        waited,
        peak_kib: if resettable {
            status_kib("VmHWM:")
        } else {
            None
        },
        result: result.unwrap_or_default(),
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn mb_per_s(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a non-negative integer, got {v:?}")),
        Err(_) => default,
    }
}

/// The in-process layer table of the reference (the oracle), `JC_BENCH_LAYERS=1`.
fn layers() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: smoke-test then.
    let bench = std::env::args().any(|a| a == "--bench");
    let mb = env_u64("JC_BENCH_MB", if bench { 100 } else { 1 }).max(1);
    let runs = env_u64("JC_BENCH_RUNS", if bench { 5 } else { 1 }).max(1) as usize;

    let path = std::env::temp_dir().join(format!("jc-bench-{}.jsonl", std::process::id()));
    let file = TempFile(path);
    let path = file.0.as_path();

    let start = Instant::now();
    let gen = generate(path, mb * 1_000_000).expect("generate bench journal");
    let bytes = gen.bytes;
    println!(
        "generated {} ({:.1} MB, {} events, {:.1} s)",
        path.display(),
        bytes as f64 / 1e6,
        gen.events,
        start.elapsed().as_secs_f64()
    );
    let mix: Vec<String> = TYPES
        .iter()
        .zip(gen.counts)
        .map(|(t, c)| format!("{t} {c}"))
        .collect();
    println!("mix: {}", mix.join(", "));
    println!("runs per measurement: {runs} (median and min reported; MB = 10^6 bytes)");
    println!(
        "RSS before measuring: {} KiB",
        status_kib("VmRSS:").unwrap_or(0)
    );
    println!("load average before: {}", loadavg());

    // Warm the page cache so every measurement reads from memory alike.
    std::io::copy(&mut open(path), &mut std::io::sink()).expect("read bench file");

    // JC_BENCH_ONLY=name,name: run only those measurements (e.g. under a profiler).
    let only: Option<Vec<String>> = std::env::var("JC_BENCH_ONLY")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_owned()).collect());
    let want = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|n| n == name));
    let mut rows: Vec<Row> = Vec::new();

    if want("validate") {
        rows.push(measure("validate", runs, || {
            let n = journal::validate(open(path), JournalProfile::Core).expect("valid journal");
            n.to_string()
        }));
    }

    if want("fingerprint") {
        rows.push(measure("fingerprint", runs, || {
            replay::fingerprint(open(path), JournalProfile::Core, None).expect("valid journal")
        }));
    }

    if want("sha2") {
        rows.push(measure("sha2", runs, || {
            let mut r = open(path);
            let mut h = Sha256::new();
            loop {
                let buf = r.fill_buf().expect("read bench file");
                if buf.is_empty() {
                    break;
                }
                h.update(buf);
                let n = buf.len();
                r.consume(n);
            }
            journal_conformance::fingerprint::hex(&h.finalize())
        }));
    }

    if want("sha256sum") {
        match Command::new("sha256sum").arg("--version").output() {
            Ok(o) if o.status.success() => {
                let mut row = measure("sha256sum", runs, || {
                    let o = Command::new("sha256sum")
                        .arg(path)
                        .output()
                        .expect("run sha256sum");
                    assert!(o.status.success(), "sha256sum failed");
                    String::from_utf8_lossy(&o.stdout)
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_owned()
                });
                // The child's memory and CPU time, not ours.
                row.peak_kib = None;
                row.cpu_median = None;
                row.waited = None;
                rows.push(row);
            }
            _ => println!("sha256sum: not found, skipped"),
        }
    }

    if want("split:lines") {
        rows.push(measure("split:lines", runs, || {
            let mut lines = wire::LineReader::new(open(path));
            let mut n = 0u64;
            while let Some((_, bytes, _)) = lines.next_line().expect("read") {
                n += bytes.len() as u64;
            }
            n.to_string()
        }));
    }

    if want("split:lines+parse") {
        rows.push(measure("split:lines+parse", runs, || {
            let mut lines = wire::LineReader::new(open(path));
            let mut n = 0u64;
            while let Some((number, bytes, _)) = lines.next_line().expect("read") {
                let v = wire::parse_line(number, bytes).expect("valid line");
                n += v.as_object().map_or(0, |o| o.len()) as u64;
            }
            n.to_string()
        }));
    }

    if want("split:lines+parse+canon") {
        rows.push(measure("split:lines+parse+canon", runs, || {
            let mut lines = wire::LineReader::new(open(path));
            let mut out = Vec::with_capacity(1 << 16);
            let mut n = 0u64;
            while let Some((number, bytes, _)) = lines.next_line().expect("read") {
                let v = wire::parse_line(number, bytes).expect("valid line");
                out.clear();
                canonical::write(&v, &mut out);
                n += out.len() as u64;
            }
            n.to_string()
        }));
    }

    // Last: the projection it builds (every message and tool result) stays in the
    // allocator's heap after it is dropped and would inflate the peaks measured after it.
    if want("replay") {
        rows.push(measure("replay", runs, || {
            let state =
                replay::replay(open(path), JournalProfile::Core, None).expect("valid journal");
            assert_eq!(state.applied_sequences.len() as u64, gen.events);
            state.fingerprint
        }));
    }

    // Cross-checks: the measured code computed what it should.
    let result = |name: &str| {
        rows.iter()
            .find(|r| r.name == name)
            .map(|r| r.result.clone())
    };
    if let Some(n) = result("validate") {
        assert_eq!(n, gen.events.to_string(), "validate: wrong event count");
    }
    if let (Some(a), Some(b)) = (result("replay"), result("fingerprint")) {
        assert_eq!(a, b, "replay and fingerprint disagree");
    }
    if let (Some(a), Some(b)) = (result("sha256sum"), result("sha2")) {
        assert_eq!(a, b, "sha256sum and sha2 disagree");
    }
    let file_sha = result("sha2").unwrap_or_else(|| "-".into());
    let fp = result("fingerprint")
        .or_else(|| result("replay"))
        .unwrap_or_else(|| "-".into());

    // Print in the order of benches/README.md.
    let order = [
        "validate",
        "replay",
        "fingerprint",
        "sha2",
        "sha256sum",
        "split:lines",
        "split:lines+parse",
        "split:lines+parse+canon",
    ];
    rows.sort_by_key(|r| order.iter().position(|n| *n == r.name));

    println!();
    println!(
        "| measurement | wall median s | wall min s | CPU median s | MB/s (wall median) | MB/s (wall min) | MB/s (CPU median) | run-queue wait s | peak RSS MiB |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let opt = |d: Option<Duration>, f: &dyn Fn(Duration) -> String| d.map_or("-".to_string(), f);
    for r in &rows {
        println!(
            "| {} | {:.3} | {:.3} | {} | {:.1} | {:.1} | {} | {} | {} |",
            r.name,
            r.median.as_secs_f64(),
            r.min.as_secs_f64(),
            opt(r.cpu_median, &|d| format!("{:.3}", d.as_secs_f64())),
            mb_per_s(bytes, r.median),
            mb_per_s(bytes, r.min),
            opt(r.cpu_median, &|d| format!("{:.1}", mb_per_s(bytes, d))),
            opt(r.waited, &|d| format!("{:.3}", d.as_secs_f64())),
            r.peak_kib
                .map_or("-".to_string(), |k| format!("{:.1}", k as f64 / 1024.0)),
        );
    }
    println!();
    println!("file sha256:  {file_sha}");
    println!("fingerprint:  {fp}");
    println!("load average after:  {}", loadavg());
    println!(
        "peak RSS (VmHWM) at the end: {} KiB",
        status_kib("VmHWM:").unwrap_or(0)
    );
}

// ---------------------------------------------------------------------------------
// The issue-15 comparison: the CLI (fast path) against `sha256sum`, child processes
// ---------------------------------------------------------------------------------

/// A content of 50 to 400 characters, as Python's `json.dumps(..., ensure_ascii=False)`
/// writes it (non-ASCII raw, `"` `\` and controls escaped).
fn content(rng: &mut Rng) -> String {
    let want = rng.range(50, 400) as usize;
    let mut s = String::new();
    while s.chars().count() < want {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    let cut: String = s.chars().take(want).collect();
    quoted(&cut)
}

/// Write a Trace 0.1 journal of `events` events (it passes `--profile trace-0.1`):
/// compact separators, keys in writer order (not sorted), every event with actor,
/// provenance, redaction, a timestamp, and a parent.
fn generate_trace(path: &Path, events: u64) -> std::io::Result<u64> {
    let mut rng = Rng(SEED ^ 0x15);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut bytes = 0u64;
    let mut line = String::with_capacity(4096);
    let mut acc = String::new();
    for seq in 0..events {
        let ms = seq * 137;
        let (day, rem) = (ms / 86_400_000, ms % 86_400_000);
        let ts = format!(
            "2026-12-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            1 + day % 28,
            rem / 3_600_000,
            rem / 60_000 % 60,
            rem / 1000 % 60,
            rem % 1000
        );
        let (ty, kind, payload) = if seq == 0 {
            (
                "session.start",
                "harness",
                r#"{"cwd":"/work/プロジェクト","model":"m-large","tools":["read_file","grep","run_tests"]}"#.to_string(),
            )
        } else if seq == events - 1 {
            (
                "session.stop",
                "harness",
                r#"{"reason":"completed"}"#.to_string(),
            )
        } else {
            match seq % 8 {
                1 => (
                    "user.message",
                    "user",
                    format!(r#"{{"content":{}}}"#, content(&mut rng)),
                ),
                2 => (
                    "model.request",
                    "harness",
                    format!(
                        r#"{{"messages":{},"model":"m-large","temperature":0.2}}"#,
                        seq / 8 * 2 + 1
                    ),
                ),
                3 | 4 => {
                    let delta = content(&mut rng);
                    acc.push_str(delta.trim_matches('"'));
                    (
                        "model.response",
                        "model",
                        format!(
                            r#"{{"delta":{delta},"index":{},"final":false}}"#,
                            seq % 8 - 3
                        ),
                    )
                }
                5 => {
                    let p = format!(
                        r#"{{"accumulated":{},"final":true,"usage":{{"input_tokens":{},"output_tokens":{}}}}}"#,
                        content(&mut rng),
                        rng.range(100, 90_000),
                        rng.range(10, 4000)
                    );
                    acc.clear();
                    ("model.response", "model", p)
                }
                6 => (
                    "tool.request",
                    "harness",
                    format!(
                        r#"{{"tool_call_id":"call-{seq}","name":"read_file","arguments":{{"path":"{}"}}}}"#,
                        rng.pick(PATHS)
                    ),
                ),
                7 => (
                    "tool.result",
                    "tool",
                    format!(
                        r#"{{"tool_call_id":"call-{}","name":"read_file","ok":true,"output":{{"text":{},"lines":{}}},"elapsed_ms":{:?}}}"#,
                        seq - 1,
                        content(&mut rng),
                        rng.range(1, 900),
                        rng.float()
                    ),
                ),
                _ => (
                    "model.response",
                    "model",
                    format!(r#"{{"content":{},"tool_calls":[]}}"#, content(&mut rng)),
                ),
            }
        };
        line.clear();
        let _ = write!(
            line,
            r#"{{"trace_version":"0.1.0","event_id":"evt-{seq:07}","session_id":"sess-2026-12-01-issue-15-a","sequence":{seq},"timestamp":"{ts}","type":"{ty}","actor":{{"kind":"{kind}","id":"{kind}-1"}},"payload":{payload},"provenance":{{"run_id":"run-15","agent_id":"agent-1","snapshot_id":"snap-42-0001","surface":"cli","harness_mode":"fake","model":"m-large"}},"redaction":{{"status":"clean","fields":[]}}"#
        );
        if seq > 0 {
            let _ = write!(line, r#","parent_event_id":"evt-{:07}""#, seq - 1);
        }
        let _ = write!(line, r#","duration_ms":{}}}"#, rng.range(0, 5000));
        line.push('\n');
        out.write_all(line.as_bytes())?;
        bytes += line.len() as u64;
    }
    out.flush()?;
    Ok(bytes)
}

struct ChildRun {
    wall: Duration,
    cpu: f64,
    max_rss_kib: u64,
}

/// Run `cmd` to completion with stdout to `stdout`; wall time and the child's own
/// peak RSS (`wait4`'s `ru_maxrss`).
// The child is reaped by `wait4` (which also gives its rusage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_child(program: &Path, args: &[&std::ffi::OsStr], stdout: std::process::Stdio) -> ChildRun {
    // The child's `ru_maxrss` starts from this process's peak RSS (the kernel records
    // the old address space's high-water mark at exec), so bring that peak down to the
    // current RSS first, and keep the current RSS small (`malloc_trim`).
    // SAFETY: plain FFI without arguments that could be invalid.
    unsafe { libc::malloc_trim(0) };
    reset_peak_rss();
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdout(stdout)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("run {}: {e}", program.display()));
    let mut status = 0;
    // SAFETY: plain FFI; `usage` is written by the kernel.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(r, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{} {args:?} failed: status {status}",
        program.display()
    );
    ChildRun {
        wall,
        cpu: usage.ru_utime.tv_sec as f64
            + usage.ru_utime.tv_usec as f64 / 1e6
            + usage.ru_stime.tv_sec as f64
            + usage.ru_stime.tv_usec as f64 / 1e6,
        max_rss_kib: usage.ru_maxrss as u64,
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

struct Measured {
    name: String,
    /// `fingerprint`, `validate`, `replay` or the other tool's name.
    command: &'static str,
    /// Median wall time, seconds, and median of the ratios to the anchor's runs next to
    /// each run.
    median: f64,
    ratio: f64,
    /// Median CPU time (user + system, all threads) and its ratio to the anchor's.
    cpu: f64,
    cpu_ratio: f64,
    peak_kib: u64,
}

/// The anchor every command is timed against (issue 25): `openssl dgst -sha256` (SHA-NI
/// where the CPU has it, about the speed limit of hashing the file), or `sha256sum` when
/// there is no openssl.
fn anchor() -> (&'static str, Vec<&'static str>) {
    match Command::new("openssl").arg("version").output() {
        Ok(o) if o.status.success() => ("openssl dgst -sha256", vec!["openssl", "dgst", "-sha256"]),
        _ => ("sha256sum", vec!["sha256sum"]),
    }
}

/// One round = anchor, cmd, anchor, cmd, ... for each command (each profile's
/// fingerprint, validate and replay, and `sha256sum` when the anchor is openssl),
/// `runs` rounds. Returns the anchor's median, the rows and the anchor's peak.
fn versus_anchor(
    file: &Path,
    canonical_copy: Option<&Path>,
    runs: usize,
    profiles: &[JournalProfile],
    anchor: &[&'static str],
) -> (f64, Vec<Measured>, u64) {
    let cli = Path::new(env!("CARGO_BIN_EXE_journal-conformance")).as_os_str();
    let f = file.as_os_str();
    let null = || std::process::Stdio::null();
    // (row name, command, its arguments, the file the anchor hashes right before it)
    type Cmd<'a> = (
        String,
        &'static str,
        Vec<&'a std::ffi::OsStr>,
        &'a std::ffi::OsStr,
    );
    let mut commands: Vec<Cmd> = Vec::new();
    for profile in profiles {
        let p = std::ffi::OsStr::new(profile.as_str());
        for cmd in ["fingerprint", "validate", "replay"] {
            commands.push((
                format!("{cmd} ({})", profile.as_str()),
                cmd,
                vec![cli, cmd.as_ref(), "--profile".as_ref(), p, f],
                f,
            ));
        }
    }
    // JC_BENCH_CANONICAL: the same events with every line already canonical (the
    // canonical-line fast path), measured in the same run.
    if let Some(c) = canonical_copy {
        let c = c.as_os_str();
        for profile in profiles {
            let p = std::ffi::OsStr::new(profile.as_str());
            for cmd in ["fingerprint", "replay"] {
                commands.push((
                    format!("{cmd} ({}, canonical lines)", profile.as_str()),
                    cmd,
                    vec![cli, cmd.as_ref(), "--profile".as_ref(), p, c],
                    c,
                ));
            }
        }
    }
    if anchor[0] != "sha256sum" && Command::new("sha256sum").arg("--version").output().is_ok() {
        commands.push((
            "sha256sum".into(),
            "sha256sum",
            vec!["sha256sum".as_ref(), f],
            f,
        ));
    }
    let anchor_base: Vec<&std::ffi::OsStr> = anchor.iter().map(|a| a.as_ref()).collect();
    let n = commands.len();
    let mut anchor_times = Vec::new();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut peaks = vec![0u64; n];
    let mut cpus: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut cpu_ratios: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut anchor_peak = 0;
    for _ in 0..runs {
        for (i, (_, _, args, anchored)) in commands.iter().enumerate() {
            let mut anchor_args = anchor_base.clone();
            anchor_args.push(anchored);
            let s = run_child(Path::new(anchor_args[0]), &anchor_args[1..], null());
            let c = run_child(Path::new(args[0]), &args[1..], null());
            anchor_times.push(s.wall.as_secs_f64());
            anchor_peak = anchor_peak.max(s.max_rss_kib);
            times[i].push(c.wall.as_secs_f64());
            ratios[i].push(c.wall.as_secs_f64() / s.wall.as_secs_f64());
            peaks[i] = peaks[i].max(c.max_rss_kib);
            cpus[i].push(c.cpu);
            cpu_ratios[i].push(c.cpu / s.cpu.max(1e-3));
        }
    }
    let rows = commands
        .iter()
        .enumerate()
        .map(|(i, (name, command, _, _))| Measured {
            name: name.clone(),
            command,
            median: median(times[i].clone()),
            ratio: median(ratios[i].clone()),
            cpu: median(cpus[i].clone()),
            cpu_ratio: median(cpu_ratios[i].clone()),
            peak_kib: peaks[i],
        })
        .collect();
    (median(anchor_times), rows, anchor_peak)
}

/// `JC_BENCH_CANONICAL`: `to` holds `from`'s lines, each rewritten in canonical form by
/// the oracle (`fast::canonical_lines`); the fingerprint is the same (checked).
fn canonical_lines(from: &Path, to: &Path) -> std::io::Result<()> {
    let data = std::fs::read(from)?;
    std::fs::write(to, journal_conformance::fast::canonical_lines(&data, 1))?;
    let fp = |p: &Path| {
        let cli = env!("CARGO_BIN_EXE_journal-conformance");
        let o = Command::new(cli)
            .arg("fingerprint")
            .arg(p)
            .output()
            .expect("run fingerprint");
        assert!(o.status.success(), "fingerprint {}", p.display());
        o.stdout
    };
    assert_eq!(
        fp(from),
        fp(to),
        "the canonical copy has the same fingerprint"
    );
    Ok(())
}

/// Bytes `replay` prints, and a check of the CLI's outputs against the oracle.
fn check_outputs(file: &Path, profile: JournalProfile) -> u64 {
    let cli = env!("CARGO_BIN_EXE_journal-conformance");
    let run = |args: &[&str]| {
        let o = Command::new(cli)
            .args(args)
            .arg(file)
            .output()
            .expect("run the CLI");
        assert!(o.status.success(), "{args:?} failed");
        o.stdout
    };
    let fp = run(&["fingerprint", "--profile", profile.as_str()]);
    let printed = run(&["replay", "--profile", profile.as_str()]);
    let oracle = replay::replay(open(file), profile, None).expect("valid journal");
    let mut want = canonical::to_string(&oracle.to_json()).into_bytes();
    want.push(b'\n');
    assert!(printed == want, "replay output differs from the oracle's");
    assert_eq!(String::from_utf8_lossy(&fp).trim(), oracle.fingerprint);
    printed.len() as u64
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() {
    if std::env::var_os("JC_BENCH_LAYERS").is_some() {
        return layers();
    }
    let bench = std::env::args().any(|a| a == "--bench");
    let events = env_u64("JC_BENCH_EVENTS", if bench { 200_000 } else { 2_000 }).max(2);
    let runs = env_u64("JC_BENCH_RUNS", if bench { 5 } else { 1 }).max(1) as usize;
    // Both profiles by default (issue 25: "both profiles, measured in one run").
    let profiles = match std::env::var("JC_BENCH_PROFILE").as_deref() {
        Ok("trace-0.1") => vec![JournalProfile::Trace01],
        Ok("core") => vec![JournalProfile::Core],
        _ => vec![JournalProfile::Core, JournalProfile::Trace01],
    };
    let (anchor_name, anchor_cmd) = anchor();
    let linearity = std::env::var_os("JC_BENCH_LINEARITY").is_some();
    println!(
        "machine: {} cores, load average before: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        loadavg()
    );
    let mut scales = vec![events];
    if linearity {
        scales.push(events * 10);
    }
    let mut results = Vec::new();
    for &n in &scales {
        let path =
            std::env::temp_dir().join(format!("jc-bench-trace-{}-{n}.jsonl", std::process::id()));
        let file = TempFile(path);
        let bytes = generate_trace(&file.0, n).expect("generate the journal");
        std::io::copy(&mut open(&file.0), &mut std::io::sink()).expect("warm the cache");
        if let Some(keep) = std::env::var_os("JC_BENCH_KEEP") {
            // A copy for profiling (`perf record`, callgrind) outside the benchmark.
            std::fs::copy(&file.0, &keep).expect("copy the journal to JC_BENCH_KEEP");
        }
        let printed = if n <= 1_000_000 {
            let mut printed = None;
            for &p in &profiles {
                printed = Some(check_outputs(&file.0, p));
            }
            printed
        } else {
            None
        };
        // SAFETY: as in run_child.
        unsafe { libc::malloc_trim(0) };
        println!(
            "benchmark process RSS before spawning (a floor for every child's peak): {:.1} MiB",
            mib(status_kib("VmRSS:").unwrap_or(0))
        );
        let canonical_copy = match std::env::var_os("JC_BENCH_CANONICAL") {
            Some(_) => {
                let copy = TempFile(file.0.with_extension("canonical.jsonl"));
                canonical_lines(&file.0, &copy.0).expect("write the canonical copy");
                std::io::copy(&mut open(&copy.0), &mut std::io::sink()).expect("warm the cache");
                Some(copy)
            }
            None => None,
        };
        let (anchor_s, rows, anchor_peak) = versus_anchor(
            &file.0,
            canonical_copy.as_ref().map(|c| c.0.as_path()),
            runs,
            &profiles,
            &anchor_cmd,
        );
        println!();
        println!(
            "journal: {n} events, {:.1} MB; {runs} rounds, each command right after `{anchor_name}` of the same file (median {anchor_s:.3} s, peak {:.1} MiB); replay prints {}",
            bytes as f64 / 1e6,
            mib(anchor_peak),
            printed.map_or("(not checked at this size)".into(), |p| format!("{:.1} MB", p as f64 / 1e6)),
        );
        println!("| command | wall median s | wall / {anchor_name} (median of paired ratios) | goal | CPU median s | CPU / {anchor_name} | peak RSS MiB | memory goal MiB | met |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
        for r in &rows {
            // Issue 25: every command within 2.0x the anchor; validate and fingerprint
            // in 5% of the file plus 3 MiB; replay in 1.5x what it prints plus 8 MiB.
            let (time_goal, mem_goal) = match r.command {
                "fingerprint" | "validate" => (2.0, bytes as f64 * 0.05 / 1048576.0 + 3.0),
                "replay" => (
                    2.0,
                    printed.map_or(f64::NAN, |p| p as f64 * 1.5 / 1048576.0 + 8.0),
                ),
                _ => (f64::NAN, f64::NAN),
            };
            // NaN (no goal, or the output size not measured at this size) compares
            // false: "NO" is never printed for an unknown goal, "-" or "?" is.
            let met = if time_goal.is_nan() {
                "-"
            } else if mem_goal.is_nan() {
                "?"
            } else if r.ratio <= time_goal && mib(r.peak_kib) <= mem_goal {
                "yes"
            } else {
                "NO"
            };
            let goal = |g: f64, unit: &str| {
                if g.is_nan() {
                    "-".to_string()
                } else {
                    format!("<= {g:.1}{unit}")
                }
            };
            println!(
                "| {} | {:.3} | {:.2}x | {} | {:.3} | {:.2}x | {:.1} | {} | {} |",
                r.name,
                r.median,
                r.ratio,
                goal(time_goal, "x"),
                r.cpu,
                r.cpu_ratio,
                mib(r.peak_kib),
                goal(mem_goal, ""),
                met
            );
        }
        results.push((n, rows));
    }
    if let [(n1, a), (n10, b)] = &results[..] {
        println!();
        println!("linearity ({n1} -> {n10} events):");
        for (x, y) in a.iter().zip(b) {
            println!(
                "  {}: time x{:.2}, peak RSS {:.1} -> {:.1} MiB",
                x.name,
                y.median / x.median,
                mib(x.peak_kib),
                mib(y.peak_kib)
            );
        }
    }
    println!();
    println!("load average after: {}", loadavg());
}
