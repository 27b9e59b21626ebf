//! Supervision of adapter processes (SPEC.md 13.4): every adapter runs in its own
//! process group, so the real program behind a wrapper (`bash wrap.sh`, `npm run`,
//! `npx tsx`) is reached too. On a timeout, a crash, a protocol error, a restart, the end
//! of the run and SIGINT/SIGTERM to the runner the whole group is ended (SIGTERM, a short
//! grace, SIGKILL) and the leader reaped. `--timeout` bounds every wait whatever the
//! adapter prints; every stream it writes is read by a thread with a bound (a reply line,
//! a one-shot's stdout, a stderr tail), so no adapter can exhaust the runner's memory.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::proc_table::{self, Table};

/// The longest reply line (persistent) and the most stdout of one run (one-shot)
/// accepted from an adapter: 64 MiB, an implementation limit (a babbling adapter is
/// cut off and the check errored).
pub const MAX_REPLY: usize = 64 << 20;
/// What the adapters of one run may have printed and not yet handed over, all jobs
/// together: 256 MiB (SPEC.md 13.4, A-LIMIT-1). Each of `--jobs N` adapters gets an
/// equal share as its caps, at most [`MAX_REPLY`] ([`Limits::for_jobs`]), so that `yes`
/// at `-j 24` cannot buffer 24 x 64 MiB.
pub const RUN_OUTPUT_BUDGET: usize = 256 << 20;
/// The values the replies of one run's adapters may hold at once, all jobs together:
/// 4 x [`crate::json::MAX_VALUES`] (the value tree costs up to ~100 bytes a value), shared
/// as [`RUN_OUTPUT_BUDGET`] is.
pub const RUN_VALUE_BUDGET: usize = 4 * crate::json::MAX_VALUES;
/// Restarts failing in a row before an adapter is declared dead.
pub const MAX_RESTARTS: u32 = 3;
/// How much of an adapter's stderr is kept for diagnostics.
const STDERR_TAIL: usize = 4096;

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
    /// The most values a reply (or a one-shot run's stdout) may hold (SPEC.md 16.5).
    pub max_reply_values: usize,
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
            max_reply_values: crate::json::MAX_VALUES,
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

    /// The limits of one of `jobs` adapters of a run: the `--timeout` given, and its
    /// share of [`RUN_OUTPUT_BUDGET`] (at most [`MAX_REPLY`]) as the reply line cap and
    /// the one-shot output cap, and of [`RUN_VALUE_BUDGET`] (at most
    /// [`crate::json::MAX_VALUES`]) as the value budget of a reply.
    pub fn for_jobs(timeout: Duration, jobs: usize) -> Limits {
        let share = (RUN_OUTPUT_BUDGET / jobs.max(1)).min(MAX_REPLY);
        let values = (RUN_VALUE_BUDGET / jobs.max(1)).min(crate::json::MAX_VALUES);
        Limits {
            timeout,
            max_reply: share,
            max_output: share,
            max_reply_values: values,
            ..Limits::default()
        }
    }
}

/// The variable every adapter is started with: `PID:N`, this kit's pid and a sequence
/// number. Its descendants inherit it, so an orphan of an adapter that the kit inherits
/// as subreaper is still known as that adapter's after it left its process group.
pub const ADAPTER_VAR: &str = "JOURNAL_CONFORMANCE_ADAPTER";

/// A running adapter as supervision knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Adapter {
    /// Its leader's pid, which is its process group's id.
    pgid: i32,
    /// The leader's start time (/proc), 0 where unknown.
    start: u64,
    /// `ADAPTER_VAR=value`, as /proc/PID/environ shows it.
    token: String,
}

/// Adapters whose leader has not been ended and reaped yet (by pgid), and whether the
/// runner is shutting down (then no adapter is started any more).
struct Live {
    adapters: BTreeMap<i32, Adapter>,
    shutting_down: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    adapters: BTreeMap::new(),
    shutting_down: false,
});

/// Set by [`supervise`]: every child of this process that is not an adapter's leader is
/// an adapter's orphan (the kit is their subreaper), to be ended with the adapters.
static SUPERVISING: AtomicBool = AtomicBool::new(false);

fn live() -> MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

fn signal_group(pgid: i32, sig: i32) -> bool {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
    unsafe { libc::kill(-pgid, sig) == 0 }
}

/// The processes that belong to `ending` in `t`: each one's leader (while it is still
/// the process that was started), every member of its process group, every child of this
/// process carrying its [`ADAPTER_VAR`] (an orphan reparented to the kit), with
/// `everything` every child of this process that is not a live adapter's leader, and all
/// their descendants. Never this process nor another live adapter's leader. Added to
/// `targets` (pid and start time).
fn collect(
    t: &Table,
    l: &Live,
    ending: &[Adapter],
    everything: bool,
    me: i32,
    targets: &mut HashMap<i32, u64>,
) {
    let roots = t.0.iter().filter_map(|(&pid, e)| {
        let ours = match l.adapters.get(&pid) {
            Some(a) => ending.contains(a) && (a.start == 0 || a.start == e.start),
            None => {
                ending.iter().any(|a| a.pgid == e.pgid)
                    || (e.ppid == me
                        && (everything
                            || ending
                                .iter()
                                .any(|a| proc_table::environ_has(pid, &a.token))))
            }
        };
        ours.then_some(pid)
    });
    for p in t.with_descendants(roots.collect::<Vec<_>>()) {
        let other_leader = l.adapters.get(&p).is_some_and(|a| {
            !ending.contains(a) && (a.start == 0 || Some(a.start) == t.0.get(&p).map(|e| e.start))
        });
        if p != me && !other_leader {
            if let Some(e) = t.0.get(&p) {
                targets.entry(p).or_insert(e.start);
            }
        }
    }
}

/// End `ending` and every process that belongs to them ([`collect`]; with no other
/// adapter live and [`supervise`] in force, every child of the kit that is not a leader):
/// SIGTERM, up to `grace` for them to exit, SIGKILL to what is left (and to anything they
/// started meanwhile), and reap each one that became this process's child, so none is left
/// a zombie. Leaders are reaped by their waiter threads, never here. The process table is
/// read again every 10 ms, so descendants forked late are found too. Returns whether it
/// ended everything (no other adapter was live).
fn end(ending: &[Adapter], grace: Duration) -> bool {
    let me = std::process::id() as i32;
    let mut targets: HashMap<i32, u64> = HashMap::new();
    let mut termed: HashSet<i32> = HashSet::new();
    let mut killed = false;
    let term_until = Instant::now() + grace;
    let kill_until = term_until + Duration::from_secs(5);
    let mut first = true;
    loop {
        let (busy, everything) = {
            let l = live();
            let everything = SUPERVISING.load(Ordering::SeqCst)
                && l.adapters.values().all(|a| ending.contains(a));
            let t = Table::scan();
            collect(&t, &l, ending, everything, me, &mut targets);
            let sig = if killed { libc::SIGKILL } else { libc::SIGTERM };
            if first || killed {
                for a in ending {
                    signal_group(a.pgid, sig);
                }
            }
            let state = |p: i32, s: u64| t.0.get(&p).filter(|e| e.start == s);
            let running = |p: i32| {
                targets
                    .get(&p)
                    .and_then(|&s| state(p, s))
                    .is_some_and(|e| !e.zombie)
            };
            let mut busy = false;
            for (&p, &s) in &targets {
                let Some(e) = state(p, s) else { continue };
                if !e.zombie {
                    busy = true;
                    if killed || termed.insert(p) {
                        proc_table::signal(p, s, sig);
                    }
                } else if e.ppid == me {
                    let leader = l
                        .adapters
                        .get(&p)
                        .is_some_and(|a| a.start == 0 || a.start == s);
                    if !leader {
                        proc_table::reap(p);
                    }
                } else if running(e.ppid) {
                    busy = true; // its parent is ending: it comes to us (subreaper)
                }
            }
            if t.0.is_empty() {
                // No /proc: the process groups are all there is to go by.
                busy |= ending.iter().any(|a| signal_group(a.pgid, 0));
            }
            (busy, everything)
        };
        first = false;
        let now = Instant::now();
        if !busy || now >= kill_until {
            return everything;
        }
        if !killed && now >= term_until {
            killed = true;
            continue;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// End every adapter and every process of theirs ([`end`]); no adapter is started after
/// this. Called on SIGINT, SIGTERM or SIGHUP to the runner, just before it exits.
fn end_all(grace: Duration) {
    let ending: Vec<Adapter> = {
        let mut l = live();
        l.shutting_down = true;
        l.adapters.values().cloned().collect()
    };
    end(&ending, grace);
}

/// Take charge of every process the runner starts (SPEC.md 13.4, A-GROUP-1): become a
/// child subreaper (Linux; elsewhere orphans still escape to init), so that descendants
/// orphaned by their parent's exit become the kit's children and are ended with the
/// adapters; and on SIGINT, SIGTERM or SIGHUP end every adapter process and exit with
/// status 2 (the run was interrupted: no verdict). Call it before the first adapter starts,
/// in a process whose only children are adapters (the command line): from then on every
/// child of this process that is not an adapter's leader is taken for an adapter's orphan.
/// Safe to call more than once.
pub fn supervise() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        proc_table::become_subreaper();
        SUPERVISING.store(true, Ordering::SeqCst);
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                end_all(Limits::default().grace);
                let name = match sig {
                    SIGINT => "SIGINT",
                    SIGHUP => "SIGHUP",
                    _ => "SIGTERM",
                };
                // After SIGHUP the terminal may be gone: a failed write must not panic
                // this thread before it exits.
                let _ = writeln!(
                    std::io::stderr(),
                    "\ninterrupted by {name}: every adapter process was ended; no verdict"
                );
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
///
/// The third member is the drain's read lock, holding the pipe's descriptor while it is
/// open (`-1` after): the thread waits for bytes without it, then reads and keeps them
/// holding it, so [`StderrTail::catch_up`], which looks at the pipe holding it, sees
/// either bytes not yet read or a tail that already has them, never bytes in between.
#[derive(Clone)]
pub(crate) struct StderrTail(
    Arc<Mutex<VecDeque<u8>>>,
    Arc<std::sync::atomic::AtomicBool>,
    Arc<Mutex<i32>>,
);

impl Default for StderrTail {
    fn default() -> Self {
        StderrTail(Arc::default(), Arc::default(), Arc::new(Mutex::new(-1)))
    }
}

/// Whether `fd` has bytes to read now (or is at its end: then a read returns 0).
fn readable(fd: i32, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; `fd` stays open while the caller holds the read lock
    // or owns the pipe.
    let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
    n > 0 && p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0
}

impl StderrTail {
    pub(crate) fn drain(&self, mut r: std::process::ChildStderr) {
        use std::os::fd::AsRawFd;
        let tail = self.0.clone();
        let closed = self.1.clone();
        let lock = self.2.clone();
        let fd = r.as_raw_fd();
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = fd;
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                if !readable(fd, -1) {
                    // Interrupted (EINTR): wait again.
                    continue;
                }
                let mut held = lock.lock().unwrap_or_else(|p| p.into_inner());
                let n = match r.read(&mut buf) {
                    Ok(n) if n > 0 => n,
                    _ => {
                        *held = -1;
                        break;
                    }
                };
                let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                t.extend(&buf[..n]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
                drop(t);
                drop(held);
            }
            closed.store(true, std::sync::atomic::Ordering::SeqCst);
        });
    }

    /// Wait (at most `max`) until the tail holds every byte the child had written to
    /// stderr when this is called: an adapter that logs a request before answering it
    /// has its lines in that request's tail, however late the drain thread runs.
    pub(crate) fn catch_up(&self, max: Duration) {
        let end = Instant::now() + max;
        loop {
            {
                let held = self.2.lock().unwrap_or_else(|p| p.into_inner());
                if *held < 0 || !readable(*held, 0) {
                    return;
                }
            }
            if Instant::now() >= end {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// After the child is gone, give the drain thread a moment to read the last bytes.
    pub(crate) fn settle(&self, max: Duration) {
        let end = Instant::now() + max;
        while !self.1.load(std::sync::atomic::Ordering::SeqCst) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The tail as text, every control, format or invalid byte but `\n` escaped
    /// ([`crate::preview::escape`]): an adapter's escape sequences never reach a terminal,
    /// a JUnit file or a page raw.
    pub(crate) fn text(&self) -> String {
        let t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let bytes: Vec<u8> = t.iter().copied().collect();
        crate::preview::escape(&bytes, usize::MAX)
            .0
            .trim_end()
            .to_owned()
    }

    pub(crate) fn clear(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

pub(crate) fn with_stderr(msg: String, tail: &StderrTail) -> String {
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
pub(crate) fn line_reader(
    r: impl Read + Send + 'static,
    cap: usize,
) -> Receiver<Result<Vec<u8>, String>> {
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
pub(crate) fn chunk_reader(mut r: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
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
pub(crate) fn writer(mut stdin: ChildStdin) -> mpsc::Sender<Vec<u8>> {
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
/// reaps the leader, a writer thread for stdin. Dropping it ends the whole group and every
/// descendant ([`end`]).
pub(crate) struct Group {
    adapter: Adapter,
    exited: Receiver<(ExitStatus, u64)>,
    pub(crate) status: Option<ExitStatus>,
    /// The leader's peak resident memory in bytes (`wait4`'s `ru_maxrss`), once it exited.
    pub(crate) peak_rss: Option<u64>,
    to_child: Option<mpsc::Sender<Vec<u8>>>,
    waiter: Option<std::thread::JoinHandle<()>>,
    pub(crate) grace: Duration,
}

impl Group {
    pub(crate) fn spawn(
        cmd: &AdapterCommand,
        extra: &[String],
        grace: Duration,
    ) -> Result<(Group, ChildStdout, StderrTail), String> {
        use std::os::unix::process::CommandExt;
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let token = format!(
            "{}:{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        // Spawning and registering happen under the lock, so that a shutdown either
        // sees this group or refuses to start it, and an end never takes the new leader
        // for an orphan.
        let mut live = live();
        if live.shutting_down {
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
            .env(ADAPTER_VAR, &token)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start adapter {:?}: {e}", cmd.argv[0]))?;
        let pgid = child.id() as i32;
        // Not reaped before the waiter below starts: readable even if it exited already.
        let start = proc_table::stat(pgid).map_or(0, |e| e.start);
        let adapter = Adapter {
            pgid,
            start,
            token: format!("{ADAPTER_VAR}={token}"),
        };
        live.adapters.insert(pgid, adapter.clone());
        drop(live);
        let tail = StderrTail::default();
        tail.drain(child.stderr.take().expect("piped stderr"));
        let stdout = child.stdout.take().expect("piped stdout");
        let to_child = Some(writer(child.stdin.take().expect("piped stdin")));
        let (tx, exited) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            // wait4, not Child::wait: the same reaping, and the leader's peak memory
            // (what `scale` reports for one-shot adapters).
            use std::os::unix::process::ExitStatusExt;
            let pid = child.id() as libc::pid_t;
            let mut status: libc::c_int = 0;
            // SAFETY: rusage is plain data; wait4 writes it and the status.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            loop {
                let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
                if r == pid {
                    // ru_maxrss is in kilobytes on Linux.
                    let peak = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
                    let _ = tx.send((ExitStatus::from_raw(status), peak));
                    break;
                }
                if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                // Reaped elsewhere (cannot happen: leaders are only reaped here).
                if let Ok(s) = child.wait() {
                    let _ = tx.send((s, 0));
                }
                break;
            }
        });
        Ok((
            Group {
                adapter,
                exited,
                status: None,
                peak_rss: None,
                to_child,
                waiter: Some(waiter),
                grace,
            },
            stdout,
            tail,
        ))
    }

    pub(crate) fn send(&self, bytes: Vec<u8>) {
        if let Some(tx) = &self.to_child {
            let _ = tx.send(bytes);
        }
    }

    /// The leader's peak resident memory so far in bytes (`VmHWM` of /proc/PID/status;
    /// `None` where /proc is not there or it has exited).
    pub(crate) fn leader_peak_rss(&self) -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.adapter.pgid)).ok()?;
        let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    /// Close the child's stdin (after what was sent is written).
    pub(crate) fn close_stdin(&mut self) {
        self.to_child = None;
    }

    /// The leader's exit status, waiting up to `wait` for it.
    pub(crate) fn wait_exit(&mut self, wait: Duration) -> Option<ExitStatus> {
        if self.status.is_none() {
            let got = if wait.is_zero() {
                self.exited.try_recv().ok()
            } else {
                self.exited.recv_timeout(wait).ok()
            };
            if let Some((status, peak)) = got {
                self.status = Some(status);
                self.peak_rss = (peak > 0).then_some(peak);
            }
        }
        self.status
    }

    /// End the adapter: its group and every descendant ([`end`]: SIGTERM, the grace,
    /// SIGKILL, reaping), then reap the leader. The last adapter to end also ends every
    /// orphan left that no adapter could be told by.
    pub(crate) fn terminate(&mut self) {
        if self.waiter.is_none() {
            return;
        }
        self.to_child = None;
        let swept = end(std::slice::from_ref(&self.adapter), self.grace);
        // After SIGKILL the leader's end is certain; bound the wait all the same.
        self.wait_exit(Duration::from_secs(5));
        if self.status.is_some() {
            if let Some(w) = self.waiter.take() {
                let _ = w.join();
            }
        }
        self.waiter = None;
        let last = {
            let mut l = live();
            l.adapters.remove(&self.adapter.pgid);
            l.adapters.is_empty()
        };
        if last && !swept && SUPERVISING.load(Ordering::SeqCst) {
            // Other adapters were live while this one ended: orphans that carry no
            // adapter's mark (an emptied environment) were left for the last one.
            end(&[], self.grace);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.terminate();
    }
}
