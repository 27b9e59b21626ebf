//! Store edges of issue 16 (SPEC.md 16.1, 16.2): a failed recovery on a full disk
//! leaves no `.torn-K` behind; a symlinked journal's directory is the target's; `append
//! --batch N` acknowledges what the input has ready instead of waiting for N lines.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use journal_conformance::event::JournalProfile;
use journal_conformance::store::{self, Store};

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

fn event(i: u64) -> String {
    let parent = if i == 0 {
        String::new()
    } else {
        format!(",\"parent_event_id\":\"e{}\"", i - 1)
    };
    format!(
        "{{\"event_id\":\"e{i}\",\"session_id\":\"s\",\"sequence\":{i},\"type\":\"user.message\",\"payload\":{{\"content\":\"hi\"}},\"provenance\":{{\"run_id\":\"r\"}}{parent}}}"
    )
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jc-edges-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A 64 KiB tmpfs at `dir`, unmounted on drop; `None` (with the reason printed) where
/// mounting is impossible (not root, no CAP_SYS_ADMIN, not Linux). CI runs as root.
struct SmallFs(PathBuf);

impl SmallFs {
    fn mount(dir: &Path) -> Option<SmallFs> {
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(SmallFs(dir.to_owned())),
            Ok(o) => {
                eprintln!(
                    "SKIPPED: cannot mount a 64 KiB tmpfs for the full-disk test ({}): run as root",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("SKIPPED: cannot run mount for the full-disk test ({e})");
                None
            }
        }
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// S-RECOVER-1 on a full disk: moving the torn tail aside fails (ENOSPC), the open fails
/// with exit 2, and NO `.torn-1` is left (an empty one used to be, so the next recovery
/// wrote `.torn-2` and a reader took the empty file for the torn bytes). Once there is
/// room, recovery writes `.torn-1` with the torn bytes.
#[test]
fn a_failed_recovery_on_a_full_disk_leaves_no_torn_file() {
    let dir = scratch("fulldisk");
    let Some(_fs) = SmallFs::mount(&dir) else {
        return;
    };
    let journal = dir.join("j.jsonl");
    let mut bytes = format!("{}\n", event(0)).into_bytes();
    let torn = vec![b'x'; 24 << 10]; // an unterminated last line of 24 KiB
    bytes.extend(&torn);
    std::fs::write(&journal, &bytes).unwrap();
    // Fill the rest, so the 24 KiB copy cannot be written.
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let chunk = [0u8; 4096];
    while f.write_all(&chunk).and_then(|_| f.sync_all()).is_ok() {}
    drop(f);

    let out = Command::new(BIN)
        .args(["recover", "--apply"])
        .arg(&journal)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let aside = dir.join("j.jsonl.torn-1");
    assert!(
        !aside.exists(),
        "a failed recovery left {} ({} bytes)",
        aside.display(),
        std::fs::metadata(&aside).map(|m| m.len()).unwrap_or(0)
    );
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        bytes,
        "the journal changed"
    );

    std::fs::remove_file(&filler).unwrap();
    let out = Command::new(BIN)
        .args(["recover", "--apply"])
        .arg(&journal)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read(&aside).unwrap(),
        torn,
        ".torn-1 holds the torn bytes"
    );
    assert!(!dir.join("j.jsonl.torn-2").exists());
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        format!("{}\n", event(0)).into_bytes()
    );
}

/// S-ACK-1 / S-RECOVER-1 through a symlink: the directory the store syncs (for a new
/// journal) and where a torn tail goes is the TARGET's, not the link's.
#[test]
fn a_symlinked_journal_uses_the_target_directory() {
    let base = scratch("symlink");
    let (links, data) = (base.join("links"), base.join("data"));
    std::fs::create_dir_all(&links).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    let target = data.join("real.jsonl");
    let link = links.join("j.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let data = std::fs::canonicalize(&data).unwrap();
    // Dangling (the journal does not exist yet): still the target's directory.
    assert_eq!(store::journal_dir(&link).unwrap(), data);
    // A relative link, and a chain of links.
    let rel = links.join("rel.jsonl");
    std::os::unix::fs::symlink("../data/real.jsonl", &rel).unwrap();
    let chain = links.join("chain.jsonl");
    std::os::unix::fs::symlink(&rel, &chain).unwrap();
    assert_eq!(store::journal_dir(&rel).unwrap(), data);
    assert_eq!(store::journal_dir(&chain).unwrap(), data);
    // Creating through the link, then a torn tail through the link.
    let (mut st, _) = Store::open(&link, JournalProfile::Core).unwrap();
    st.append(event(0).as_bytes()).unwrap();
    drop(st);
    assert!(target.is_file(), "the target was created");
    assert_eq!(store::journal_dir(&link).unwrap(), data);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&target)
        .unwrap();
    f.write_all(b"{\"torn").unwrap();
    drop(f);
    let (_, rec) = Store::open(&chain, JournalProfile::Core).unwrap();
    let moved = rec.torn.unwrap().moved_to.unwrap();
    assert_eq!(moved, data.join("real.jsonl.torn-1"), "next to the target");
    assert!(!links.join("chain.jsonl.torn-1").exists());
    // A plain path: its own directory.
    assert_eq!(
        store::journal_dir(&base.join("plain.jsonl")).unwrap(),
        std::fs::canonicalize(&base).unwrap()
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// S-BATCH-1 with a producer that waits for each acknowledgement: `append --batch 64`
/// commits what the input has ready (one line) and acknowledges it, instead of waiting
/// for 64 lines or the end of the input (which never come: a stall).
#[test]
fn group_commit_acknowledges_what_is_ready() {
    let dir = scratch("batch");
    let journal = dir.join("j.jsonl");
    let mut child = Command::new(BIN)
        .args(["append", "--batch", "64"])
        .arg(&journal)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for i in 0..3 {
        stdin
            .write_all(format!("{}\n", event(i)).as_bytes())
            .unwrap();
        stdin.flush().unwrap();
        let ack = rx.recv_timeout(Duration::from_secs(20));
        let Ok(ack) = ack else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no acknowledgement of event {i} within 20 s: the batch waits for more lines");
        };
        assert_eq!(
            ack,
            format!("{{\"ack\":{{\"duplicate\":false,\"event_id\":\"e{i}\",\"sequence\":{i}}}}}")
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    // A burst that is all ready at once still goes in batches (one ack per line).
    let burst: String = (3..40).map(|i| format!("{}\n", event(i))).collect();
    let out = Command::new(BIN)
        .args(["append", "--batch", "8"])
        .arg(&journal)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(burst.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 37);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 11 point 9: an `append` error names the journal and the line the event would
/// have had in it, and the input line it came from (it used to say `<stdin>:8` for
/// journal line 8, whatever the input line).
#[test]
fn append_errors_name_the_journal_line_and_the_input_line() {
    let dir = scratch("append-lines");
    let journal = dir.join("j.jsonl");
    let first: String = (0..7).map(|i| format!("{}\n", event(i))).collect();
    std::fs::write(&journal, first).unwrap();
    // Input line 2 is a gap (sequence 9 where 8 is due): journal line 9 would be it.
    let input = format!("{}\n{}\n", event(7), event(9));
    let mut c = Command::new(BIN)
        .arg("append")
        .arg(&journal)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = c.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = format!("{}:9: error[sequence_gap]", journal.display());
    assert!(stderr.starts_with(&want), "{stderr}");
    assert!(stderr.contains("(from <stdin> line 2)"), "{stderr}");
    assert!(!stderr.contains("<stdin>:"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
