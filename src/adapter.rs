//! The adapter protocol, client side (SPEC.md section "Adapter protocol", rules `A-*`).
//!
//! This module owns how the runner talks to an implementation: the built-in
//! reference (in process), a persistent adapter process speaking protocol 1 over
//! newline-delimited JSON, and one-shot adapters (one process per check). Every
//! child is read by dedicated threads (no deadlock whatever it writes), bounded by a
//! timeout, killed when it misbehaves, and restarted for the next check; none is left
//! behind. It also owns [`serve`], the reference speaking the protocol out of process.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;

use crate::event::Profile;
use crate::journal::ReadError;
use crate::json::{self, Value};
use crate::ops::{self, Operation};
use crate::vectors::Answer;

/// Protocol version spoken by this kit.
pub const PROTOCOL: i64 = 1;
/// The longest reply line accepted from an adapter (a babbling adapter is cut off).
pub const MAX_REPLY: usize = 256 << 20;
/// The least time an adapter gets to answer the handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
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
}

fn all_ops() -> Vec<String> {
    [
        "validate",
        "replay",
        "fingerprint",
        "branch",
        "canonical",
        "tree_inspect",
        "tree_apply",
        "store_apply",
    ]
    .map(String::from)
    .to_vec()
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
    match ops::execute(op, input, profile) {
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

/// Split a command line into words: whitespace separates, single and double quotes group.
pub fn split_command(cmd: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => match chars.next() {
                Some(n) => cur.push(n),
                None => return Err("trailing backslash".into()),
            },
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                cur.push(chars.next().ok_or("trailing backslash")?);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unterminated quote".into());
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err("empty adapter command".into());
    }
    Ok(words)
}

/// Keeps the tail of a child's stderr, drained by a thread.
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
                let mut t = tail.lock().unwrap();
                t.extend(&buf[..n]);
                while t.len() > STDERR_TAIL {
                    t.pop_front();
                }
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
        let t = self.0.lock().unwrap();
        let bytes: Vec<u8> = t.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim_end().to_owned()
    }

    fn clear(&self) {
        self.0.lock().unwrap().clear();
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

/// Read lines (capped at [`MAX_REPLY`]) from a child's stdout into a channel.
fn line_reader(r: impl Read + Send + 'static) -> Receiver<Result<Vec<u8>, String>> {
    let (tx, rx) = mpsc::channel();
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
                match buf.iter().position(|&b| b == b'\n') {
                    Some(p) => {
                        line.extend_from_slice(&buf[..p]);
                        r.consume(p + 1);
                        break;
                    }
                    None => {
                        let n = buf.len();
                        line.extend_from_slice(buf);
                        r.consume(n);
                    }
                }
                if line.len() > MAX_REPLY {
                    let _ = tx.send(Err(format!(
                        "adapter wrote a line longer than {MAX_REPLY} bytes"
                    )));
                    return;
                }
            }
            if tx.send(Ok(line)).is_err() {
                return;
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

struct Process {
    child: Child,
    to_child: Option<mpsc::Sender<Vec<u8>>>,
    from_child: Receiver<Result<Vec<u8>, String>>,
}

impl Process {
    fn spawn(argv: &[String], extra: &[String]) -> Result<(Process, StderrTail), String> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start adapter {:?}: {e}", argv[0]))?;
        let tail = StderrTail::default();
        tail.drain(child.stderr.take().unwrap());
        let from_child = line_reader(child.stdout.take().unwrap());
        let to_child = Some(writer(child.stdin.take().unwrap()));
        Ok((
            Process {
                child,
                to_child,
                from_child,
            },
            tail,
        ))
    }

    fn send(&self, v: &Value) {
        let mut line = crate::canonical::to_string(v).into_bytes();
        line.push(b'\n');
        if let Some(tx) = &self.to_child {
            let _ = tx.send(line);
        }
    }

    fn recv(&self, timeout: Duration) -> Result<Vec<u8>, String> {
        match self.from_child.recv_timeout(timeout) {
            Ok(r) => r,
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no answer within {:.1} s (timeout)",
                timeout.as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                Err("the adapter closed its stdout (crashed or exited)".into())
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Close stdin and wait up to `grace` for a clean exit, then kill.
    fn finish(&mut self, grace: Duration) {
        self.to_child = None;
        let end = Instant::now() + grace;
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// A persistent adapter (protocol 1).
pub struct Persistent {
    argv: Vec<String>,
    timeout: Duration,
    proc_: Option<Process>,
    tail: StderrTail,
    info: ImplInfo,
    next_id: i64,
    /// How many times the adapter had to be (re)started.
    pub starts: u64,
}

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
            "adapter speaks protocol {:?}; this runner speaks {PROTOCOL}",
            proto
        ));
    }
    let imp = v
        .get("implementation")
        .ok_or("handshake without `implementation`")?;
    let s = |k: &str| imp.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
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

impl Persistent {
    /// Start the adapter and perform the handshake.
    pub fn start(command: &str, timeout: Duration) -> Result<Persistent, String> {
        let argv = split_command(command)?;
        let mut p = Persistent {
            argv,
            timeout,
            proc_: None,
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
        };
        p.info = p.restart()?;
        Ok(p)
    }

    fn restart(&mut self) -> Result<ImplInfo, String> {
        if let Some(mut old) = self.proc_.take() {
            old.kill();
        }
        let (proc_, tail) = Process::spawn(&self.argv, &[])?;
        self.tail = tail;
        self.starts += 1;
        proc_.send(&start_request());
        // Starting an interpreter can take longer than one check may: the handshake
        // gets at least HANDSHAKE_TIMEOUT.
        let hs = proc_
            .recv(self.timeout.max(HANDSHAKE_TIMEOUT))
            .and_then(|l| parse_reply_line(&l))
            .and_then(|v| parse_handshake(&v))
            .map_err(|e| with_stderr(format!("handshake failed: {e}"), &self.tail));
        self.proc_ = Some(proc_);
        hs
    }

    /// Send `stop` and let the adapter exit (killed after 2 s).
    pub fn stop(&mut self) {
        if let Some(mut p) = self.proc_.take() {
            p.send(&stop_request());
            p.finish(Duration::from_secs(2));
        }
    }

    fn fault(&mut self, msg: String) -> Reply {
        if let Some(mut p) = self.proc_.take() {
            p.kill();
        }
        self.tail.settle(Duration::from_millis(500));
        Reply::Fault(with_stderr(msg, &self.tail))
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

    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        if self.proc_.is_none() {
            if let Err(e) = self.restart() {
                return self.fault(format!("restarting the adapter: {e}"));
            }
        }
        self.tail.clear();
        self.next_id += 1;
        let id = self.next_id;
        let p = self.proc_.as_ref().unwrap();
        p.send(&run_request(id, op, profile, input));
        let v = match p.recv(self.timeout).and_then(|l| parse_reply_line(&l)) {
            Ok(v) => v,
            Err(e) => return self.fault(e),
        };
        if v.get("id").and_then(Value::as_i64) != Some(id) {
            return self.fault(format!(
                "answer for id {} to request id {id}: {}",
                v.get("id")
                    .map_or("(none)".into(), crate::canonical::to_string),
                crate::error::shorten(crate::canonical::to_string(&v).as_bytes(), 120)
            ));
        }
        if let Some(r) = v.get("result") {
            Reply::Answer(Answer::Result(r.clone()))
        } else if let Some(e) = v.get("error") {
            match answer_error(e) {
                Ok(a) => Reply::Answer(a),
                Err(m) => self.fault(m),
            }
        } else if v.get("unsupported") == Some(&Value::Bool(true)) {
            Reply::Unsupported
        } else {
            self.fault("answer has neither `result`, `error` nor `unsupported`".into())
        }
    }
}

/// A one-shot adapter (A-ONESHOT-1): one process per check.
pub struct OneShot {
    argv: Vec<String>,
    timeout: Duration,
    info: ImplInfo,
}

impl OneShot {
    pub fn new(command: &str, timeout: Duration) -> Result<OneShot, String> {
        let argv = split_command(command)?;
        let name = argv.join(" ");
        Ok(OneShot {
            argv,
            timeout,
            info: ImplInfo {
                name,
                version: String::new(),
                language: String::new(),
                operations: all_ops(),
                profiles: vec!["core".into(), "trace-0.1".into()],
            },
        })
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

    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        let (mut p, tail) = match Process::spawn(&self.argv, &oneshot_args(op, profile)) {
            Ok(x) => x,
            Err(e) => return Reply::Fault(e),
        };
        if let Some(tx) = p.to_child.take() {
            let _ = tx.send(input.to_vec());
            // Dropping the sender ends the writer thread, which closes stdin.
        }
        let start = Instant::now();
        let mut out = Vec::new();
        loop {
            let left = self.timeout.saturating_sub(start.elapsed());
            match p.from_child.recv_timeout(left) {
                Ok(Ok(line)) => {
                    out.extend_from_slice(&line);
                    out.push(b'\n');
                }
                Ok(Err(e)) => return Reply::Fault(with_stderr(e, &tail)),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    p.kill();
                    return Reply::Fault(with_stderr(
                        format!(
                            "no answer within {:.1} s (timeout)",
                            self.timeout.as_secs_f64()
                        ),
                        &tail,
                    ));
                }
            }
        }
        let status = loop {
            match p.child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if start.elapsed() < self.timeout => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                _ => {
                    p.kill();
                    return Reply::Fault(with_stderr(
                        "adapter did not exit (timeout)".into(),
                        &tail,
                    ));
                }
            }
        };
        tail.settle(Duration::from_millis(500));
        let parsed = || {
            json::parse_bytes(&out).map_err(|e| {
                with_stderr(
                    format!(
                        "stdout is not one JSON value ({e}): {}",
                        crate::error::shorten(&out, 120)
                    ),
                    &tail,
                )
            })
        };
        match status.code() {
            Some(0) => match parsed() {
                Ok(v) => Reply::Answer(Answer::Result(v)),
                Err(e) => Reply::Fault(e),
            },
            Some(1) => {
                match parsed().and_then(|v| answer_error(&v).map_err(|e| with_stderr(e, &tail))) {
                    Ok(a) => Reply::Answer(a),
                    Err(e) => Reply::Fault(e),
                }
            }
            Some(3) => Reply::Unsupported,
            other => Reply::Fault(with_stderr(
                match other {
                    Some(c) => format!("adapter exited with status {c}"),
                    None => "adapter was killed by a signal".into(),
                },
                &tail,
            )),
        }
    }
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
        let msg = match json::parse_bytes(bytes) {
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
                        match reference_answer(&op, profile, &input) {
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
