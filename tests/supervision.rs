//! No process outlives the kit (SPEC.md 13.4, A-GROUP-1): helpers that leave the adapter's
//! process group (a `setsid` child, a double-forked daemon, one with an empty environment;
//! tests/fakes/escape.py plants them) are ended with the adapter in both modes, nothing is
//! left as a zombie of the kit while it runs, and SIGHUP ends every adapter like SIGTERM.
//! Every check is by pid (FAKE_PIDFILE) through /proc.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{bin, fake, root, scratch};

/// State (`R`, `S`, `Z`, ...) and parent of `pid`, from /proc/PID/stat: the command name
/// in parentheses may hold spaces and parentheses, so the fields are read after the last `)`.
fn stat(pid: i32) -> Option<(char, i32)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut f = s.rsplit_once(')')?.1.split_whitespace();
    let state = f.next()?.chars().next()?;
    let ppid = f.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Is `pid` a live process? A zombie counts as ended (its parent reaps it).
fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|(s, _)| s != 'Z' && s != 'X')
}

fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Every pid of `p` has ended (a delivered SIGKILL may take a moment to take effect).
fn assert_ended(p: &[i32], what: &str) {
    let end = Instant::now() + Duration::from_secs(3);
    while p.iter().any(|&x| alive(x)) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<_> = p.iter().filter(|&&x| alive(x)).collect();
    assert!(
        left.is_empty(),
        "{what}: processes left behind: {left:?} of {p:?}"
    );
}

/// The children of `parent` now, with their states.
fn children(parent: i32) -> Vec<(i32, char)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|p| stat(p).filter(|&(_, pp)| pp == parent).map(|(s, _)| (p, s)))
        .collect()
}

fn escape(kinds: &str, adapter: &str) -> String {
    let script = root().join("tests/fakes/escape.py");
    format!("python3 {} {kinds} -- {adapter}", script.display())
}

fn example() -> String {
    format!(
        "python3 {}",
        root().join("examples/python/adapter.py").display()
    )
}

const KINDS: &str = "setsid,daemon,daemon-noenv";

fn run(pidfile: &Path, args: &[&str]) -> (i32, String) {
    let o = Command::new(bin())
        .args(args)
        .env("FAKE_PIDFILE", pidfile)
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

#[test]
fn helpers_that_leave_the_group_of_a_persistent_adapter_are_ended() {
    let d = scratch("escape-persistent");
    let pidfile = d.path().join("pids");
    let adapter = escape(KINDS, &fake("ok"));
    let (status, out) = run(
        &pidfile,
        &[
            "test",
            "journal/gap",
            "--exact",
            "--properties",
            "0",
            "--timeout",
            "5",
            "--adapter",
            &adapter,
        ],
    );
    assert_eq!(status, 0, "{out}");
    // Three helpers, the fake (the adapter) and its `serve` child.
    let p = pids(&pidfile);
    assert_eq!(p.len(), 5, "{p:?}");
    assert_ended(&p, "persistent");
}

#[test]
fn helpers_that_leave_the_group_of_a_one_shot_adapter_are_ended() {
    let d = scratch("escape-oneshot");
    let pidfile = d.path().join("pids");
    let adapter = escape(KINDS, &example());
    let (status, out) = run(
        &pidfile,
        &[
            "test",
            "journal/gap",
            "--exact",
            "--properties",
            "0",
            "--one-shot",
            "--timeout",
            "5",
            "--adapter",
            &adapter,
        ],
    );
    assert_eq!(status, 0, "{out}");
    // Three helpers per check, and the case has two checks (validate, replay).
    let p = pids(&pidfile);
    assert_eq!(p.len(), 6, "{p:?}");
    assert_ended(&p, "one-shot");
}

/// While the kit runs: after a crash, the restarted adapter starts only once the old one's
/// daemon and its orphaned `serve` are ended and reaped; the kit then has no zombie child
/// and no child but the new adapter and that adapter's own daemon.
#[test]
fn a_restart_leaves_neither_orphans_nor_zombies_of_the_kit() {
    let d = scratch("escape-restart");
    let pidfile = d.path().join("pids");
    // The first start crashes at its first check; the restart (for the case's second
    // check) never answers the handshake.
    let adapter = escape("daemon", &fake("dead-after-crash"));
    let mut kit = Command::new(bin())
        .args([
            "test",
            "journal/gap",
            "--exact",
            "--properties",
            "0",
            "--timeout",
            "3",
            "--adapter",
            &adapter,
        ])
        .env("FAKE_PIDFILE", &pidfile)
        .env("FAKE_STATE", d.path().join("state"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let kit_pid = kit.id() as i32;
    // daemon 1, adapter 1, serve 1; then daemon 2, adapter 2 (waiting in its handshake).
    let end = Instant::now() + Duration::from_secs(20);
    while pids(&pidfile).len() < 5 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    let p = pids(&pidfile);
    assert_eq!(p.len(), 5, "{p:?}");
    let kids = children(kit_pid);
    let zombies: Vec<_> = kids.iter().filter(|(_, s)| *s == 'Z').collect();
    assert!(
        zombies.is_empty(),
        "zombie children of the kit: {zombies:?}"
    );
    for (pid, _) in &kids {
        assert!(
            p[3..].contains(pid),
            "child {pid} of the kit is not the second start's: {kids:?} {p:?}"
        );
    }
    assert_ended(&p[..3], "the first start, while the kit runs");
    let status = kit.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{status}");
    assert_ended(&p, "after the run");
}

/// SIGHUP (the terminal closed) is handled like SIGTERM: every adapter process is ended,
/// even one that ignores SIGTERM and SIGHUP, and the kit exits 2.
#[test]
fn sighup_to_the_kit_ends_every_adapter_process() {
    let d = scratch("sighup");
    let pidfile = d.path().join("pids");
    let adapter = escape("setsid,daemon", &fake("ignore-term"));
    let kit = Command::new(bin())
        .args([
            "test",
            "--timeout",
            "60",
            "--properties",
            "0",
            "--adapter",
            &adapter,
        ])
        .env("FAKE_PIDFILE", &pidfile)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Two helpers, the fake and its `serve`: the fake then hangs in its first check.
    let end = Instant::now() + Duration::from_secs(20);
    while pids(&pidfile).len() < 4 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    let p = pids(&pidfile);
    assert_eq!(p.len(), 4, "{p:?}");
    // SAFETY: kill(2) on our own child; no memory is touched.
    assert_eq!(unsafe { libc::kill(kit.id() as i32, libc::SIGHUP) }, 0);
    let o = kit.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{} {err}", o.status);
    assert!(err.contains("SIGHUP"), "{err}");
    assert_ended(&p, "SIGHUP");
}
