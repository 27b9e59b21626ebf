//! A persistent adapter (protocol 1, SPEC.md 13.1): one process answering every check
//! over newline-delimited JSON, restarted after a fault, declared dead after
//! [`super::process::MAX_RESTARTS`] failed restarts in a row.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::process::{
    describe_exit, line_reader, parse_command, with_stderr, AdapterCommand, Group, Limits,
    StderrTail,
};
use super::protocol::{parse_handshake_line, parse_run_reply_within, Request};
use super::{ImplInfo, Implementation, Reply};
use crate::ops::Operation;
use crate::ops::Profile;

/// A persistent adapter's running process.
struct Live {
    group: Group,
    lines: Option<Receiver<Result<Vec<u8>, String>>>,
}

impl Live {
    fn send(&self, r: Request) {
        self.group.send(r.line());
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
        self.send(Request::Stop);
        self.group.close_stdin();
        self.lines = None;
        self.group.wait_exit(wait);
        self.group.terminate();
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
        live.send(Request::Start);
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

    fn process_peak_memory(&self) -> Option<u64> {
        self.live.as_ref()?.group.leader_peak_rss()
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
        live.send(Request::Run {
            id,
            op,
            profile,
            input,
        });
        let line = match live.recv(deadline, timeout) {
            Ok(l) => l,
            Err(e) => return self.fault(e),
        };
        // What the adapter wrote to stderr before its answer belongs to this request.
        self.tail.catch_up(Duration::from_secs(1));
        match parse_run_reply_within(&line, id, self.limits.max_reply_values) {
            Reply::Fault(m) => self.fault(m),
            r => r,
        }
    }
}
