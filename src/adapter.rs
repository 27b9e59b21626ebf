//! The adapter protocol, client side (SPEC.md section "Adapter protocol", rules `A-*`).
//!
//! This module owns how the runner talks to an implementation: the built-in
//! reference (in process), a persistent adapter process speaking protocol 1 over
//! newline-delimited JSON, and one-shot adapters (one process per check).
//!
//! Supervision (SPEC.md 13.4): every adapter runs in its own process group, so the
//! real program behind a wrapper (`bash wrap.sh`, `npm run`, `npx tsx`) is reached
//! too. On a timeout, a crash, a protocol error, a restart, the end of the run and
//! SIGINT/SIGTERM to the runner the whole group is ended (SIGTERM, a short grace,
//! SIGKILL) and the leader reaped. `--timeout` bounds every wait (handshake, each
//! check, stop) whatever the adapter prints; every stream it writes is read by a
//! thread with a bound (a reply line, a one-shot's stdout, a stderr tail), so no
//! adapter can exhaust the runner's memory. An adapter whose restarts fail
//! [`MAX_RESTARTS`] times in a row is declared dead. The pure parsers of replies
//! ([`parse_handshake_line`], [`parse_run_reply`], [`judge_one_shot`]) are fuzzed.
//! It also owns [`serve`], the reference speaking the protocol out of process.

use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;

use crate::error::ReadError;
use crate::json::{self, Value};
use crate::ops::{self, Operation, Profile};
use crate::vectors::Answer;

/// Protocol version spoken by this kit.
pub const PROTOCOL: i64 = 1;
/// The longest reply line (persistent) and the most stdout of one run (one-shot)
/// accepted from an adapter: 64 MiB, an implementation limit (a babbling adapter is
/// cut off and the check errored).
pub const MAX_REPLY: usize = 64 << 20;
/// Restarts failing in a row before an adapter is declared dead.
pub const MAX_RESTARTS: u32 = 3;
/// How much of an adapter's stderr is kept for diagnostics.
const STDERR_TAIL: usize = 4096;

/// What the handshake said about the implementation.
#[derive(Clone, Debug, PartialEq)]
pub struct ImplInfo {
    pub name: String,
    pub version: String,
    pub language: String,
    pub operations: Vec<String>,
    pub profiles: Vec<String>,
}

impl ImplInfo {
    pub fn to_json(&self) -> Value {
        let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect());
        Value::object([
            ("name", Value::from(self.name.as_str())),
            ("version", Value::from(self.version.as_str())),
            ("language", Value::from(self.language.as_str())),
            ("operations", strs(&self.operations)),
            ("profiles", strs(&self.profiles)),
        ])
    }

    pub fn supports(&self, op: &Operation, profile: Profile) -> bool {
        self.operations.iter().any(|o| o == op.name())
            && self.profiles.iter().any(|p| p == profile.as_str())
    }
}

/// The outcome of asking an implementation one check.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Answer(Answer),
    Unsupported,
    /// The adapter misbehaved (A-FAULT-1): crash, hang, garbage, wrong id.
    Fault(String),
}

/// An implementation under test.
pub trait Implementation: Send {
    fn info(&self) -> &ImplInfo;
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply;
    /// The adapter's stderr written during the last check (its tail), if any.
    fn stderr_tail(&self) -> String {
        String::new()
    }
}

fn all_ops() -> Vec<String> {
    crate::ops::OPERATIONS.map(String::from).to_vec()
}

/// The built-in reference implementation, in process.
pub struct Reference {
    info: ImplInfo,
}

impl Default for Reference {
    fn default() -> Self {
        Reference {
            info: ImplInfo {
                name: "journal-conformance (reference)".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                language: "rust".into(),
                operations: all_ops(),
                profiles: vec![
                    "core".into(),
                    "trace-0.1".into(),
                    crate::tree::yoagent::PROFILE.into(),
                ],
            },
        }
    }
}

/// The reference's answer to one check.
pub fn reference_answer(op: &Operation, profile: Profile, input: &[u8]) -> Result<Answer, String> {
    to_answer(ops::execute(op, input, profile))
}

/// [`reference_answer`] with the journal operations on the checked fast path
/// (`crate::fast`); what `serve` answers, so a run against `serve` exercises it.
pub fn fast_answer(op: &Operation, profile: Profile, input: &[u8]) -> Result<Answer, String> {
    to_answer(crate::ops::execute_fast(op, input, profile))
}

fn to_answer(outcome: Result<Value, ReadError>) -> Result<Answer, String> {
    match outcome {
        Ok(v) => Ok(Answer::Result(v)),
        Err(ReadError::Invalid(e)) => Ok(Answer::Error {
            code: e.code.as_str().to_owned(),
            line: e.line,
            sequence: e.sequence,
            index: e.index,
            message: e.message,
        }),
        Err(ReadError::Io(e)) => Err(e.to_string()),
    }
}

impl Implementation for Reference {
    fn info(&self) -> &ImplInfo {
        &self.info
    }
    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        match reference_answer(op, profile, input) {
            Ok(a) => Reply::Answer(a),
            Err(e) => Reply::Fault(e),
        }
    }
}

/// The `run` request of A-RUN-1, exactly as the runner sends it.
pub fn run_request(id: i64, op: &Operation, profile: Profile, input: &[u8]) -> Value {
    Value::object([
        ("cmd", Value::from("run")),
        ("id", Value::from_i64(id)),
        ("op", op.to_json()),
        ("profile", Value::from(profile.as_str())),
        (
            "input_base64",
            Value::from(base64::engine::general_purpose::STANDARD.encode(input)),
        ),
    ])
}

/// The `start` request of A-START-1.
pub fn start_request() -> Value {
    Value::object([
        ("cmd", Value::from("start")),
        ("protocol", Value::from_i64(PROTOCOL)),
    ])
}

/// The `stop` request of A-STOP-1.
pub fn stop_request() -> Value {
    Value::object([("cmd", Value::from("stop"))])
}

/// Parse an error object (O-ERR-1) from an adapter.
fn answer_error(e: &Value) -> Result<Answer, String> {
    let code = e
        .get("code")
        .and_then(Value::as_str)
        .ok_or("error object without a string `code`")?;
    let int = |k: &str| e.get(k).and_then(Value::as_i64);
    Ok(Answer::Error {
        code: code.to_owned(),
        // A negative line or index is no location at all (O-ERR-1: line >= 1, index >= 0).
        line: int("line")
            .and_then(|l| u64::try_from(l).ok())
            .filter(|l| *l >= 1),
        sequence: int("sequence"),
        index: int("index").and_then(|i| u64::try_from(i).ok()),
        message: e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    })
}

/// An adapter command line, split as a POSIX shell splits words (quotes, backslash
/// escapes) by the `shell-words` crate, with leading `NAME=value` words applied as
/// environment variables of the adapter, as a shell does. No other shell syntax
/// (pipes, `$VAR`, globs) is interpreted: write `sh -c '...'` for that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterCommand {
    pub env: Vec<(String, String)>,
    pub argv: Vec<String>,
}

fn is_assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let ok = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| (name.to_owned(), value.to_owned()))
}

/// Split `cmd` into environment assignments and argv (see [`AdapterCommand`]).
pub fn parse_command(cmd: &str) -> Result<AdapterCommand, String> {
    let words = shell_words::split(cmd).map_err(|e| format!("adapter command {cmd:?}: {e}"))?;
    let mut env = Vec::new();
    let mut rest = words.into_iter().peekable();
    while let Some((k, v)) = rest.peek().and_then(|w| is_assignment(w)) {
        env.push((k, v));
        rest.next();
    }
    let argv: Vec<String> = rest.collect();
    if argv.is_empty() {
        return Err(format!("adapter command {cmd:?} names no program"));
    }
    Ok(AdapterCommand { env, argv })
}

/// Bounds on everything the runner waits for or reads from an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bounds every wait: the handshake, each check, the stop.
    pub timeout: Duration,
    /// Between SIGTERM and SIGKILL to the adapter's process group.
    pub grace: Duration,
    /// The longest reply line accepted in persistent mode.
    pub max_reply: usize,
    /// The most stdout accepted from one one-shot run.
    pub max_output: usize,
    /// Restarts failing in a row before the adapter is declared dead.
    pub max_restarts: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            grace: Duration::from_secs(1),
            max_reply: MAX_REPLY,
            max_output: MAX_REPLY,
            max_restarts: MAX_RESTARTS,
        }
    }
}

impl Limits {
    /// The `--timeout` given, everything else default.
    pub fn with_timeout(timeout: Duration) -> Limits {
        Limits {
            timeout,
            ..Limits::default()
        }
    }
}

/// Process groups of adapters that are running now (ended on SIGINT/SIGTERM), and
/// whether the runner is shutting down (then no adapter is started any more).
static LIVE_GROUPS: Mutex<(BTreeSet<i32>, bool)> = Mutex::new((BTreeSet::new(), false));

fn signal_group(pgid: i32, sig: i32) -> bool {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
    unsafe { libc::kill(-pgid, sig) == 0 }
}

/// End every adapter process group still running (TERM, `grace`, KILL). Called on
/// SIGINT/SIGTERM to the runner, just before it exits.
pub fn end_all_groups(grace: Duration) {
    let groups: Vec<i32> = {
        let mut g = LIVE_GROUPS.lock().unwrap_or_else(|p| p.into_inner());
        g.1 = true;
        g.0.iter().copied().collect()
    };
    for &g in &groups {
        signal_group(g, libc::SIGTERM);
    }
    let end = Instant::now() + grace;
    while Instant::now() < end && groups.iter().any(|&g| signal_group(g, 0)) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for &g in &groups {
        signal_group(g, libc::SIGKILL);
    }
}

/// End every adapter group when the runner gets SIGINT or SIGTERM, then exit with
/// status 2 (the run was interrupted: no verdict). Safe to call more than once.
pub fn install_signal_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                end_all_groups(Limits::default().grace);
                let name = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
                eprintln!("\ninterrupted by {name}: every adapter process was ended; no verdict");
                std::process::exit(2);
            }
        });
    });
}

/// A human description of how a process ended: exit status or signal.
pub fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(c) = status.code() {
        return format!("exited with status {c}");
    }
    match status.signal() {
        Some(s) => {
            let name = match s {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                13 => " (SIGPIPE)",
                15 => " (SIGTERM)",
                _ => "",
            };
            let core = if status.core_dumped() {
                ", core dumped"
            } else {
                ""
            };
            format!("was killed by signal {s}{name}{core}")
        }
        None => format!("ended ({status})"),
    }
}

/// Keeps the tail of a child's stderr, drained by a thread (memory: [`STDERR_TAIL`]).
#[derive(Clone, Default)]
struct StderrTail(Arc<Mutex<VecDeque<u8>>>, Arc<std::sync::atomic::AtomicBool>);

impl StderrTail {
    fn drain(&self, mut r: impl Read + Send + 'static) {
        let tail = self.0.clone();
        let closed = self.1.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                t.extend(&buf[..n]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
            closed.store(true, std::sync::atomic::Ordering::SeqCst);
        });
    }

    /// After the child is gone, give the drain thread a moment to read the last bytes.
    fn settle(&self, max: Duration) {
        let end = Instant::now() + max;
        while !self.1.load(std::sync::atomic::Ordering::SeqCst) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn text(&self) -> String {
        let t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let bytes: Vec<u8> = t.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim_end().to_owned()
    }

    fn clear(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

fn with_stderr(msg: String, tail: &StderrTail) -> String {
    let t = tail.text();
    if t.is_empty() {
        msg
    } else {
        format!("{msg}\n--- adapter stderr (tail) ---\n{t}")
    }
}

/// Read lines (each capped at `cap` bytes) from a child's stdout into a channel of one
/// slot: while nobody receives, the reader waits and the child blocks on its pipe, so
/// memory stays bounded whatever the adapter writes.
fn line_reader(r: impl Read + Send + 'static, cap: usize) -> Receiver<Result<Vec<u8>, String>> {
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let mut r = BufReader::with_capacity(1 << 16, r);
        loop {
            let mut line = Vec::new();
            loop {
                let buf = match r.fill_buf() {
                    Ok(b) => b,
                    Err(e) => {
                        let _ = tx.send(Err(format!("reading adapter stdout: {e}")));
                        return;
                    }
                };
                if buf.is_empty() {
                    if !line.is_empty() {
                        let _ = tx.send(Ok(line));
                    }
                    return; // EOF: the channel closes.
                }
                let (take, done) = match buf.iter().position(|&b| b == b'\n') {
                    Some(p) => (p, true),
                    None => (buf.len(), false),
                };
                if line.len() + take > cap {
                    let _ = tx.send(Err(format!(
                        "adapter wrote a line longer than {cap} bytes (cut off)"
                    )));
                    return;
                }
                line.extend_from_slice(&buf[..take]);
                r.consume(take + usize::from(done));
                if done {
                    break;
                }
            }
            if tx.send(Ok(line)).is_err() {
                return;
            }
        }
    });
    rx
}

/// Read a child's stdout in chunks into a channel of a few slots (bounded memory).
fn chunk_reader(mut r: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::sync_channel(4);
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// Write to a child's stdin from a thread, so a child that does not read cannot block us.
fn writer(mut stdin: ChildStdin) -> mpsc::Sender<Vec<u8>> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        for msg in rx {
            if stdin.write_all(&msg).and_then(|_| stdin.flush()).is_err() {
                return;
            }
        }
    });
    tx
}

/// A running adapter: its own process group (so grandchildren such as the real
/// program behind `npm run` or `bash wrap.sh` are reached too), a waiter thread that
/// reaps the leader, a writer thread for stdin. Dropping it ends the whole group.
struct Group {
    pgid: i32,
    exited: Receiver<ExitStatus>,
    status: Option<ExitStatus>,
    to_child: Option<mpsc::Sender<Vec<u8>>>,
    waiter: Option<std::thread::JoinHandle<()>>,
    grace: Duration,
}

impl Group {
    fn spawn(
        cmd: &AdapterCommand,
        extra: &[String],
        grace: Duration,
    ) -> Result<(Group, ChildStdout, StderrTail), String> {
        use std::os::unix::process::CommandExt;
        // Spawning and registering happen under the lock, so that a shutdown either
        // sees this group or refuses to start it.
        let mut live = LIVE_GROUPS.lock().unwrap_or_else(|p| p.into_inner());
        if live.1 {
            // The signal thread is ending every group and exits the process: this
            // thread must not go on to a verdict.
            drop(live);
            loop {
                std::thread::park();
            }
        }
        let mut child = Command::new(&cmd.argv[0])
            .args(&cmd.argv[1..])
            .args(extra)
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start adapter {:?}: {e}", cmd.argv[0]))?;
        let pgid = child.id() as i32;
        live.0.insert(pgid);
        drop(live);
        let tail = StderrTail::default();
        tail.drain(child.stderr.take().expect("piped stderr"));
        let stdout = child.stdout.take().expect("piped stdout");
        let to_child = Some(writer(child.stdin.take().expect("piped stdin")));
        let (tx, exited) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            if let Ok(s) = child.wait() {
                let _ = tx.send(s);
            }
        });
        Ok((
            Group {
                pgid,
                exited,
                status: None,
                to_child,
                waiter: Some(waiter),
                grace,
            },
            stdout,
            tail,
        ))
    }

    fn send(&self, bytes: Vec<u8>) {
        if let Some(tx) = &self.to_child {
            let _ = tx.send(bytes);
        }
    }

    /// Close the child's stdin (after what was sent is written).
    fn close_stdin(&mut self) {
        self.to_child = None;
    }

    /// The leader's exit status, waiting up to `wait` for it.
    fn wait_exit(&mut self, wait: Duration) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = if wait.is_zero() {
                self.exited.try_recv().ok()
            } else {
                self.exited.recv_timeout(wait).ok()
            };
        }
        self.status
    }

    /// End the whole group: SIGTERM, up to `grace` for the leader to exit, SIGKILL to
    /// every member left, and reap the leader.
    fn terminate(&mut self) {
        if self.waiter.is_none() {
            return;
        }
        self.to_child = None;
        if self.wait_exit(Duration::ZERO).is_none() {
            signal_group(self.pgid, libc::SIGTERM);
            self.wait_exit(self.grace);
        }
        signal_group(self.pgid, libc::SIGKILL);
        // After SIGKILL the leader's end is certain; bound the wait all the same.
        self.wait_exit(Duration::from_secs(5));
        if self.status.is_some() {
            if let Some(w) = self.waiter.take() {
                let _ = w.join();
            }
        }
        self.waiter = None;
        LIVE_GROUPS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .remove(&self.pgid);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// A persistent adapter's running process.
struct Live {
    group: Group,
    lines: Option<Receiver<Result<Vec<u8>, String>>>,
}

impl Live {
    fn send(&self, v: &Value) {
        let mut line = crate::canonical::to_string(v).into_bytes();
        line.push(b'\n');
        self.group.send(line);
    }

    /// The next line, waiting until `deadline`.
    fn recv(&mut self, deadline: Instant, timeout: Duration) -> Result<Vec<u8>, String> {
        let lines = self
            .lines
            .as_ref()
            .ok_or("the adapter's stdout is closed")?;
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(r) => r,
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no answer within {:.1} s (timeout)",
                timeout.as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                let left = deadline.saturating_duration_since(Instant::now());
                Err(match self.group.wait_exit(left.min(self.group.grace)) {
                    Some(s) => format!("the adapter {} before answering", describe_exit(s)),
                    None => "the adapter closed its stdout without exiting".into(),
                })
            }
        }
    }

    /// Send `stop`, close stdin, wait up to `wait` for an exit, then end the group.
    /// Nothing the adapter prints meanwhile is buffered (its stdout is dropped).
    fn stop(mut self, wait: Duration) {
        self.send(&stop_request());
        self.group.close_stdin();
        self.lines = None;
        self.group.wait_exit(wait);
        self.group.terminate();
    }
}

/// Parse one reply line as a JSON object.
fn parse_reply_line(line: &[u8]) -> Result<Value, String> {
    let v = json::parse_bytes(line).map_err(|e| {
        format!(
            "adapter wrote a line that is not JSON ({e}): {}",
            crate::error::shorten(line, 120)
        )
    })?;
    if v.as_object().is_none() {
        return Err(format!(
            "adapter wrote a non-object line: {}",
            crate::error::shorten(line, 120)
        ));
    }
    Ok(v)
}

fn parse_handshake(v: &Value) -> Result<ImplInfo, String> {
    let proto = v.get("protocol").and_then(Value::as_i64);
    if proto != Some(PROTOCOL) {
        return Err(format!(
            "adapter speaks protocol {}; this runner speaks {PROTOCOL}",
            proto.map_or("(none)".into(), |p| p.to_string())
        ));
    }
    let imp = v
        .get("implementation")
        .ok_or("handshake without `implementation`")?;
    let s = |k: &str| {
        let t = imp.get(k).and_then(Value::as_str).unwrap_or("");
        crate::error::shorten(t.as_bytes(), 200)
    };
    let list = |k: &str| -> Vec<String> {
        v.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(ImplInfo {
        name: s("name"),
        version: s("version"),
        language: s("language"),
        operations: list("operations"),
        profiles: list("profiles"),
    })
}

/// Parse a handshake line (A-START-1). Pure: used by the runner and the fuzz target.
pub fn parse_handshake_line(line: &[u8]) -> Result<ImplInfo, String> {
    parse_reply_line(line).and_then(|v| parse_handshake(&v))
}

/// Judge one persistent reply line to the request `id` (A-RUN-1, A-FAULT-1). Pure:
/// used by the runner and the fuzz target.
pub fn parse_run_reply(line: &[u8], id: i64) -> Reply {
    let v = match parse_reply_line(line) {
        Ok(v) => v,
        Err(e) => return Reply::Fault(e),
    };
    if v.get("id").and_then(Value::as_i64) != Some(id) {
        return Reply::Fault(format!(
            "answer for id {} to request id {id}: {}",
            v.get("id")
                .map_or("(none)".into(), |i| crate::error::shorten(
                    crate::canonical::to_string(i).as_bytes(),
                    40
                )),
            crate::error::shorten(line, 120)
        ));
    }
    if let Some(r) = v.get("result") {
        Reply::Answer(Answer::Result(r.clone()))
    } else if let Some(e) = v.get("error") {
        match answer_error(e) {
            Ok(a) => Reply::Answer(a),
            Err(m) => Reply::Fault(m),
        }
    } else if v.get("unsupported") == Some(&Value::Bool(true)) {
        Reply::Unsupported
    } else {
        Reply::Fault("answer has neither `result`, `error` nor `unsupported`".into())
    }
}

/// Judge a one-shot run by its exit (A-ONESHOT-1): `exit` is the exit code (`None`
/// when killed by a signal, described by `how`), `stdout` what it printed. Pure: used
/// by the runner and the fuzz target.
pub fn judge_one_shot(exit: Option<i32>, how: &str, stdout: &[u8]) -> Reply {
    let parsed = || {
        json::parse_bytes(stdout).map_err(|e| {
            format!(
                "stdout is not one JSON value ({e}): {}",
                crate::error::shorten(stdout, 120)
            )
        })
    };
    match exit {
        Some(0) => match parsed() {
            Ok(v) => Reply::Answer(Answer::Result(v)),
            Err(e) => Reply::Fault(format!("exit 0 but {e}")),
        },
        Some(1) => match parsed().and_then(|v| answer_error(&v)) {
            Ok(a) => Reply::Answer(a),
            Err(e) => Reply::Fault(format!("exit 1 but {e}")),
        },
        Some(3) => Reply::Unsupported,
        _ => Reply::Fault(format!("the adapter {how}")),
    }
}

/// A persistent adapter (protocol 1).
pub struct Persistent {
    cmd: AdapterCommand,
    limits: Limits,
    live: Option<Live>,
    tail: StderrTail,
    info: ImplInfo,
    next_id: i64,
    /// How many times the adapter was started.
    pub starts: u64,
    failed_restarts: u32,
    dead: Option<String>,
}

impl Persistent {
    /// Start the adapter and perform the handshake (bounded by the timeout).
    pub fn start(command: &str, limits: Limits) -> Result<Persistent, String> {
        let cmd = parse_command(command)?;
        let mut p = Persistent {
            cmd,
            limits,
            live: None,
            tail: StderrTail::default(),
            info: ImplInfo {
                name: String::new(),
                version: String::new(),
                language: String::new(),
                operations: vec![],
                profiles: vec![],
            },
            next_id: 0,
            starts: 0,
            failed_restarts: 0,
            dead: None,
        };
        p.info = p.restart()?;
        Ok(p)
    }

    fn restart(&mut self) -> Result<ImplInfo, String> {
        self.live = None; // ends the old group, if any
        let (group, stdout, tail) = Group::spawn(&self.cmd, &[], self.limits.grace)?;
        self.tail = tail;
        self.starts += 1;
        let mut live = Live {
            group,
            lines: Some(line_reader(stdout, self.limits.max_reply)),
        };
        live.send(&start_request());
        let deadline = Instant::now() + self.limits.timeout;
        match live
            .recv(deadline, self.limits.timeout)
            .and_then(|l| parse_handshake_line(&l))
        {
            Ok(info) => {
                self.live = Some(live);
                Ok(info)
            }
            Err(e) => {
                drop(live);
                self.tail.settle(Duration::from_millis(200));
                Err(with_stderr(format!("handshake failed: {e}"), &self.tail))
            }
        }
    }

    /// Send `stop` and let the adapter exit (its group is ended after the timeout, at
    /// most 2 s).
    pub fn stop(&mut self) {
        if let Some(live) = self.live.take() {
            live.stop(self.limits.timeout.min(Duration::from_secs(2)));
        }
    }

    fn fault(&mut self, msg: String) -> Reply {
        self.live = None;
        self.tail.settle(Duration::from_millis(300));
        Reply::Fault(with_stderr(msg, &self.tail))
    }

    /// Why the adapter is declared dead, if it is.
    pub fn dead(&self) -> Option<&str> {
        self.dead.as_deref()
    }
}

impl Drop for Persistent {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Implementation for Persistent {
    fn info(&self) -> &ImplInfo {
        &self.info
    }

    fn stderr_tail(&self) -> String {
        self.tail.text()
    }

    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        if let Some(d) = &self.dead {
            return Reply::Fault(d.clone());
        }
        if self.live.is_none() {
            match self.restart() {
                Ok(_) => self.failed_restarts = 0,
                Err(e) => {
                    self.failed_restarts += 1;
                    if self.failed_restarts >= self.limits.max_restarts {
                        self.dead = Some(format!(
                            "not run: the adapter is dead ({} restarts in a row failed; the last: {})",
                            self.failed_restarts,
                            e.lines().next().unwrap_or("")
                        ));
                    }
                    return Reply::Fault(format!("restarting the adapter: {e}"));
                }
            }
        }
        self.tail.clear();
        self.next_id += 1;
        let id = self.next_id;
        let deadline = Instant::now() + self.limits.timeout;
        let timeout = self.limits.timeout;
        let live = self.live.as_mut().expect("started above");
        live.send(&run_request(id, op, profile, input));
        let line = match live.recv(deadline, timeout) {
            Ok(l) => l,
            Err(e) => return self.fault(e),
        };
        match parse_run_reply(&line, id) {
            Reply::Fault(m) => self.fault(m),
            r => r,
        }
    }
}

/// A one-shot adapter (A-ONESHOT-1): one process (group) per check.
pub struct OneShot {
    cmd: AdapterCommand,
    limits: Limits,
    info: ImplInfo,
    /// The stderr of the last run (shared with its drain thread).
    tail: StderrTail,
}

impl OneShot {
    pub fn new(command: &str, limits: Limits) -> Result<OneShot, String> {
        let cmd = parse_command(command)?;
        let name = command.trim().to_owned();
        Ok(OneShot {
            cmd,
            limits,
            info: ImplInfo {
                name,
                version: String::new(),
                language: String::new(),
                operations: all_ops(),
                profiles: vec!["core".into(), "trace-0.1".into()],
            },
            tail: StderrTail::default(),
        })
    }

    fn run_once(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        let (mut g, stdout, tail) =
            match Group::spawn(&self.cmd, &oneshot_args(op, profile), self.limits.grace) {
                Ok(x) => x,
                Err(e) => return Reply::Fault(e),
            };
        self.tail = tail.clone();
        g.send(input.to_vec());
        g.close_stdin();
        let chunks = chunk_reader(stdout);
        let start = Instant::now();
        let deadline = start + self.limits.timeout;
        let mut out = Vec::new();
        let mut exited_at: Option<Instant> = None;
        let fault = |g: &mut Group, msg: String| {
            g.terminate();
            tail.settle(Duration::from_millis(300));
            Reply::Fault(with_stderr(msg, &tail))
        };
        loop {
            let now = Instant::now();
            if now >= deadline {
                let printed = if out.is_empty() {
                    String::new()
                } else {
                    format!(" ({} bytes on stdout so far)", out.len())
                };
                return fault(
                    &mut g,
                    format!(
                        "no answer within {:.1} s (timeout){printed}",
                        self.limits.timeout.as_secs_f64()
                    ),
                );
            }
            let slice = deadline
                .saturating_duration_since(now)
                .min(Duration::from_millis(20));
            match chunks.recv_timeout(slice) {
                Ok(c) => {
                    if out.len() + c.len() > self.limits.max_output {
                        return fault(
                            &mut g,
                            format!(
                                "adapter wrote more than {} bytes to stdout (cut off)",
                                self.limits.max_output
                            ),
                        );
                    }
                    out.extend_from_slice(&c);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    // stdout closed: judge by the exit, waiting for it until the deadline.
                    let left = deadline.saturating_duration_since(Instant::now());
                    if g.wait_exit(left).is_none() {
                        return fault(
                            &mut g,
                            format!(
                                "the adapter closed its stdout but did not exit within {:.1} s (timeout)",
                                self.limits.timeout.as_secs_f64()
                            ),
                        );
                    }
                    break;
                }
            }
            if g.wait_exit(Duration::ZERO).is_some() {
                // The adapter exited; something it started may keep stdout open. What
                // is already in the pipe arrives within moments: then judge by the exit.
                let t = *exited_at.get_or_insert_with(Instant::now);
                if t.elapsed() > Duration::from_millis(200) {
                    break;
                }
            }
        }
        let status = g.status.expect("exited");
        g.terminate(); // ends any helper left in the group
        tail.settle(Duration::from_millis(300));
        match judge_one_shot(status.code(), &describe_exit(status), &out) {
            Reply::Fault(m) => Reply::Fault(with_stderr(m, &tail)),
            r => r,
        }
    }
}

/// One-shot arguments for an operation.
pub fn oneshot_args(op: &Operation, profile: Profile) -> Vec<String> {
    let mut a = vec![op.name().to_owned()];
    match op {
        Operation::Replay { until: Some(u) } | Operation::Fingerprint { until: Some(u) } => {
            a.extend(["--until".into(), u.to_string()]);
        }
        Operation::TreeApply { steps } => {
            let ops = Value::Array(steps.iter().map(|s| s.to_json()).collect());
            a.extend(["--ops".into(), crate::canonical::to_string(&ops)]);
        }
        Operation::StoreApply { steps } => {
            let ops = Value::Array(steps.iter().map(|s| s.to_json()).collect());
            a.extend(["--steps".into(), crate::canonical::to_string(&ops)]);
        }
        Operation::Branch { at, branch_id } => {
            a.extend([
                "--at".into(),
                at.to_string(),
                "--branch-id".into(),
                branch_id.clone(),
            ]);
        }
        _ => {}
    }
    a.extend(["--profile".into(), profile.as_str().into()]);
    a
}

impl Implementation for OneShot {
    fn info(&self) -> &ImplInfo {
        &self.info
    }

    fn stderr_tail(&self) -> String {
        self.tail.text()
    }

    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        self.run_once(op, profile, input)
    }
}

/// Read one request line (A-RUN-1): with room above C-DEPTH-1, since a request carries
/// its data a few levels down (a tree step's message sits 4 levels deep).
pub fn parse_request(bytes: &[u8]) -> Result<Value, crate::error::Error> {
    json::parse_with_max_depth(json::utf8(bytes)?, crate::vectors::VECTOR_FILE_MAX_DEPTH)
}

/// `journal-conformance serve`: the reference speaking protocol 1 on stdin/stdout.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let reference = Reference::default();
    let mut write = |v: Value| -> std::io::Result<()> {
        let mut line = crate::canonical::to_string(&v).into_bytes();
        line.push(b'\n');
        output.write_all(&line)?;
        output.flush()
    };
    let mut lines = crate::wire::LineReader::new(input);
    while let Some((_, bytes, _)) = lines.next_line()? {
        let msg = match parse_request(bytes) {
            Ok(v) => v,
            Err(e) => {
                // A-REQ-1: `{"id":ID_OR_NULL,...}`; an unreadable line has no id.
                write(Value::object([
                    ("id", Value::Null),
                    (
                        "error",
                        Value::object([
                            ("code", Value::from("invalid_request")),
                            ("message", Value::from(e.to_string())),
                        ]),
                    ),
                ]))?;
                continue;
            }
        };
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        match msg.get("cmd").and_then(Value::as_str) {
            Some("start") => {
                let info = reference.info();
                write(Value::object([
                    ("protocol", Value::from_i64(PROTOCOL)),
                    (
                        "implementation",
                        Value::object([
                            ("name", Value::from(info.name.as_str())),
                            ("version", Value::from(info.version.as_str())),
                            ("language", Value::from("rust")),
                        ]),
                    ),
                    (
                        "operations",
                        info.to_json().get("operations").unwrap().clone(),
                    ),
                    ("profiles", info.to_json().get("profiles").unwrap().clone()),
                ]))?;
            }
            Some("stop") => return Ok(()),
            Some("run") => {
                let op = msg.get("op").map(Operation::from_json);
                let profile = msg
                    .get("profile")
                    .and_then(Value::as_str)
                    .map_or(Some(Profile::Core), Profile::parse);
                let input = msg
                    .get("input_base64")
                    .and_then(Value::as_str)
                    .map(|b| base64::engine::general_purpose::STANDARD.decode(b));
                // An operation this adapter does not know is unsupported (A-SKIP-1),
                // not a malformed request.
                let unknown_op = msg
                    .get("op")
                    .and_then(|o| o.get("op"))
                    .and_then(Value::as_str)
                    .is_some_and(|name| !all_ops().iter().any(|k| k == name));
                let reply = match (op, profile, input) {
                    _ if unknown_op => {
                        Value::object([("id", id), ("unsupported", Value::Bool(true))])
                    }
                    (Some(Ok(op)), Some(profile), Some(Ok(input))) => {
                        match fast_answer(&op, profile, &input) {
                            Ok(Answer::Result(v)) => Value::object([("id", id), ("result", v)]),
                            Ok(a @ Answer::Error { .. }) => {
                                let mut m = vec![("id".to_owned(), id)];
                                m.extend(a.to_json().as_object().unwrap().iter().cloned());
                                Value::Object(m)
                            }
                            Err(e) => Value::object([
                                ("id", id),
                                (
                                    "error",
                                    Value::object([
                                        ("code", Value::from("internal_error")),
                                        ("message", Value::from(e)),
                                    ]),
                                ),
                            ]),
                        }
                    }
                    (Some(Ok(_)), None, _) => {
                        Value::object([("id", id), ("unsupported", Value::Bool(true))])
                    }
                    _ => Value::object([
                        ("id", id),
                        (
                            "error",
                            Value::object([
                                ("code", Value::from("invalid_request")),
                                ("message", Value::from("malformed run request")),
                            ]),
                        ),
                    ]),
                };
                write(reply)?;
            }
            _ => write(Value::object([
                ("id", id),
                (
                    "error",
                    Value::object([
                        ("code", Value::from("invalid_request")),
                        ("message", Value::from("unknown cmd")),
                    ]),
                ),
            ]))?,
        }
    }
    Ok(())
}
