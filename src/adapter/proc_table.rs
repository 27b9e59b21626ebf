//! The process table as /proc shows it (Linux), for supervision (SPEC.md 13.4): who is
//! whose child, in which process group, a zombie or not, and since when (the start time
//! tells a process from a later one given the same pid). Elsewhere there is no /proc: the
//! table is empty and supervision falls back to process groups alone.

use std::collections::HashMap;

/// One process: what supervision needs of /proc/PID/stat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub ppid: i32,
    pub pgid: i32,
    /// Exited and not yet reaped by its parent (`Z`), or dead (`X`).
    pub zombie: bool,
    /// Clock ticks after boot when it started (field 22).
    pub start: u64,
}

/// Parse /proc/PID/stat. The command name (field 2, in parentheses) may hold spaces and
/// parentheses itself, so the fields are counted after the LAST `)`.
pub(crate) fn parse_stat(text: &str) -> Option<Entry> {
    let (_, rest) = text.rsplit_once(')')?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // f[0] is field 3 (state): ppid is field 4, pgrp 5, starttime 22.
    let state = f.first()?.chars().next()?;
    Some(Entry {
        ppid: f.get(1)?.parse().ok()?,
        pgid: f.get(2)?.parse().ok()?,
        zombie: state == 'Z' || state == 'X',
        start: f.get(19)?.parse().ok()?,
    })
}

/// One process's entry now, if it exists.
pub(crate) fn stat(pid: i32) -> Option<Entry> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// A snapshot of every process (threads are not processes: /proc lists thread-group
/// leaders, and `ppid` names the parent process).
pub(crate) struct Table(pub HashMap<i32, Entry>);

impl Table {
    pub(crate) fn scan() -> Table {
        let mut t = HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for e in dir.flatten() {
                let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                    continue;
                };
                if let Some(s) = stat(pid) {
                    t.insert(pid, s);
                }
            }
        }
        Table(t)
    }

    /// `roots` and every descendant of theirs in this snapshot (each once).
    pub(crate) fn with_descendants(&self, roots: impl IntoIterator<Item = i32>) -> Vec<i32> {
        let mut kids: HashMap<i32, Vec<i32>> = HashMap::new();
        for (&pid, e) in &self.0 {
            kids.entry(e.ppid).or_default().push(pid);
        }
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let mut todo: Vec<i32> = roots.into_iter().collect();
        while let Some(p) = todo.pop() {
            if seen.insert(p) {
                out.push(p);
                todo.extend(kids.get(&p).into_iter().flatten());
            }
        }
        out
    }
}

/// Does `pid`'s environment hold `NAME=value` exactly (/proc/PID/environ: what it was
/// started with)? False when it cannot be read (a zombie, another user's process).
pub(crate) fn environ_has(pid: i32, name_value: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == name_value.as_bytes()))
}

/// Make this process a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): a descendant
/// orphaned by its parent's exit (a double-forked daemon, a `setsid` child whose parent
/// exited) becomes this process's child, not init's, so it can still be found and ended.
/// Elsewhere there is no such thing: false, and orphans escape to init as before.
pub(crate) fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(2) with an integer option and argument; no memory is passed.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Send `sig` to `pid` if it is still the process that started at `start` (it may have
/// ended and its pid been given to another since the snapshot).
pub(crate) fn signal(pid: i32, start: u64, sig: i32) {
    if stat(pid).is_some_and(|e| e.start == start) {
        // SAFETY: kill(2) on one pid; no memory is touched.
        unsafe { libc::kill(pid, sig) };
    }
}

/// Reap `pid`, a child of this process, if it has exited (never blocks).
pub(crate) fn reap(pid: i32) {
    let mut status = 0;
    // SAFETY: waitpid(2) on one pid with WNOHANG; `status` is a valid out-pointer.
    unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_counted_after_the_last_parenthesis() {
        // A command name with spaces and parentheses, as `prctl(PR_SET_NAME)` allows.
        let line = "4242 (a) b (c) d) S 17 4240 4240 0 -1 4194560 200 0 0 0 1 2 0 0 20 0 1 0 98765 1000 200 18446744073709551615\n";
        assert_eq!(
            parse_stat(line),
            Some(Entry {
                ppid: 17,
                pgid: 4240,
                zombie: false,
                start: 98765
            })
        );
        let z = "7 (sleep) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0";
        assert!(parse_stat(z).unwrap().zombie);
        assert_eq!(parse_stat("7 (sleep"), None);
        assert_eq!(parse_stat("7 (x) S 1 2"), None);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn this_process_is_in_the_table_with_its_parent() {
        let me = std::process::id() as i32;
        let t = Table::scan();
        let e = t.0.get(&me).expect("this process is listed");
        // SAFETY: getppid(2) touches no memory.
        assert_eq!(e.ppid, unsafe { libc::getppid() });
        assert_eq!(stat(me).map(|s| s.start), Some(e.start));
        assert!(t.with_descendants([e.ppid]).contains(&me));
    }
}
