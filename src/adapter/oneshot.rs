//! A one-shot adapter (SPEC.md 13.2, `A-ONESHOT-1`): one process (group) per check,
//! given the operation as arguments and the input on stdin, judged by its exit status
//! and stdout.

use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use super::process::{
    chunk_reader, describe_exit, parse_command, with_stderr, AdapterCommand, Group, Limits,
    StderrTail,
};
use super::protocol::{judge_one_shot_within, oneshot_args};
use super::{all_ops, ImplInfo, Implementation, Reply};
use crate::ops::Operation;
use crate::ops::Profile;

/// A one-shot adapter (A-ONESHOT-1): one process (group) per check.
pub struct OneShot {
    cmd: AdapterCommand,
    limits: Limits,
    info: ImplInfo,
    /// The stderr of the last run (shared with its drain thread).
    tail: StderrTail,
    /// The last run's peak resident memory, when it exited.
    peak: Option<u64>,
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
            peak: None,
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
        self.peak = g.peak_rss;
        g.terminate(); // ends any helper left in the group
        tail.settle(Duration::from_millis(300));
        let reply = judge_one_shot_within(
            status.code(),
            &describe_exit(status),
            &out,
            self.limits.max_reply_values,
        );
        match reply {
            Reply::Fault(m) => Reply::Fault(with_stderr(m, &tail)),
            r => r,
        }
    }
}

impl Implementation for OneShot {
    fn info(&self) -> &ImplInfo {
        &self.info
    }

    fn stderr_tail(&self) -> String {
        self.tail.text()
    }

    fn run(&mut self, op: &Operation, profile: Profile, input: &[u8]) -> Reply {
        self.peak = None;
        self.run_once(op, profile, input)
    }

    fn peak_memory(&self) -> Option<u64> {
        self.peak
    }
}
