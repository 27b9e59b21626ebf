//! The durable store: fault injection (S-FAULT-1), the single-writer lock (S-WRITER-1),
//! recovery (S-RECOVER-1/2), and checkpoints that must be ignored (K-IGNORE-1).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;
use journal_conformance::journal;
use journal_conformance::replay;
use journal_conformance::store::{self, CheckpointUse, Store, StoreFile};
use journal_conformance::ErrorCode;

fn scratch(name: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!(
        "jc-store-test-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn line(i: u64) -> String {
    let parent = if i == 0 {
        String::new()
    } else {
        format!(",\"parent_event_id\":\"e{}\"", i - 1)
    };
    format!(
        "{{\"event_id\":\"e{i}\",\"session_id\":\"s\",\"sequence\":{i},\"type\":\"user.message\",\"payload\":{{\"content\":\"m{i}\"}},\"provenance\":{{\"run_id\":\"r\"}}{parent}}}"
    )
}

fn full_replay(path: &Path) -> replay::ReplayState {
    replay::replay(
        io::BufReader::new(File::open(path).unwrap()),
        JournalProfile::Core,
        None,
    )
    .unwrap()
}

/// A file that fails on command: after `budget` more bytes a write is cut short, or
/// the next sync fails.
struct Faulty {
    inner: File,
    write_budget: Arc<AtomicU64>,
    fail_sync: Arc<AtomicU64>,
}

impl StoreFile for Faulty {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let budget = self.write_budget.load(Ordering::SeqCst);
        if (buf.len() as u64) > budget {
            // A short write: part of the bytes reach the file, then an error.
            io::Write::write_all(&mut self.inner, &buf[..budget as usize])?;
            self.write_budget.store(u64::MAX, Ordering::SeqCst);
            return Err(io::Error::other("injected short write"));
        }
        io::Write::write_all(&mut self.inner, buf)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        if self.fail_sync.swap(0, Ordering::SeqCst) == 1 {
            return Err(io::Error::other("injected sync failure"));
        }
        self.inner.sync_data()
    }
    fn truncate(&mut self, len: u64) -> io::Result<()> {
        StoreFile::truncate(&mut self.inner, len)
    }
}

#[test]
fn failed_or_short_writes_and_syncs_are_never_acknowledged() {
    let dir = scratch("faults");
    let path = dir.join("j.jsonl");
    let budget = Arc::new(AtomicU64::new(u64::MAX));
    let sync = Arc::new(AtomicU64::new(0));
    let (b, s) = (budget.clone(), sync.clone());
    let (mut st, _) = Store::open_with(&path, JournalProfile::Core, move |f| {
        Box::new(Faulty {
            inner: f,
            write_budget: b,
            fail_sync: s,
        })
    })
    .unwrap();
    assert_eq!(st.append(line(0).as_bytes()).unwrap().sequence, 0);
    let len_after_0 = std::fs::metadata(&path).unwrap().len();
    // A short write: no ack, the journal is cut back and stays valid.
    budget.store(10, Ordering::SeqCst);
    assert!(matches!(
        st.append(line(1).as_bytes()),
        Err(ReadError::Io(_))
    ));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), len_after_0);
    assert_eq!(
        journal::validate(
            io::BufReader::new(File::open(&path).unwrap()),
            JournalProfile::Core
        )
        .unwrap(),
        1
    );
    // A failed sync: no ack either.
    sync.store(1, Ordering::SeqCst);
    assert!(matches!(
        st.append(line(1).as_bytes()),
        Err(ReadError::Io(_))
    ));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), len_after_0);
    // Still appendable, with the sequence the failed appends did not take.
    assert_eq!(st.append(line(1).as_bytes()).unwrap().sequence, 1);
    // A failed group commit acknowledges nothing and rolls back.
    budget.store(5, Ordering::SeqCst);
    let lines: Vec<String> = (2..5).map(line).collect();
    let refs: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
    assert!(st.append_batch(&refs).is_err());
    let (acks, err) = st.append_batch(&refs).unwrap();
    assert_eq!(
        acks.iter().map(|a| a.sequence).collect::<Vec<_>>(),
        [2, 3, 4]
    );
    assert!(err.is_none());
    drop(st);
    assert_eq!(full_replay(&path).applied_sequences.len(), 5);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_second_writer_is_locked_out() {
    let dir = scratch("lock");
    let path = dir.join("j.jsonl");
    let (mut a, _) = Store::open(&path, JournalProfile::Core).unwrap();
    match Store::open(&path, JournalProfile::Core) {
        Err(ReadError::Invalid(e)) => assert_eq!(e.code, ErrorCode::Locked),
        Err(e) => panic!("expected locked, got {e}"),
        Ok(_) => panic!("expected locked, got a second writer"),
    }
    a.append(line(0).as_bytes()).unwrap();
    drop(a);
    let (b, _) = Store::open(&path, JournalProfile::Core).unwrap();
    assert_eq!(b.len(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn recovery_reports_then_moves_a_torn_tail_aside() {
    let dir = scratch("recover");
    let path = dir.join("j.jsonl");
    let good = format!("{}\n{}\n", line(0), line(1));
    let torn = &line(2)[..30];
    std::fs::write(&path, format!("{good}{torn}")).unwrap();
    let r = store::inspect_recovery(&path, JournalProfile::Core).unwrap();
    let t = r.torn.unwrap();
    assert_eq!(
        (t.offset, t.bytes.as_slice(), t.line),
        (good.len() as u64, torn.as_bytes(), 3)
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("{good}{torn}"),
        "a dry run changes nothing"
    );
    let (_, r) = Store::open(&path, JournalProfile::Core).unwrap();
    let moved = r.torn.unwrap().moved_to.unwrap();
    assert_eq!(std::fs::read_to_string(&moved).unwrap(), torn);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), good);
    // A second torn tail goes to a new file, never over the first.
    std::fs::write(&path, format!("{good}xx")).unwrap();
    let (_, r) = Store::open(&path, JournalProfile::Core).unwrap();
    assert_ne!(r.torn.unwrap().moved_to.unwrap(), moved);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn checkpoints_that_do_not_fit_are_ignored() {
    let dir = scratch("ck");
    let path = dir.join("j.jsonl");
    let ck = dir.join("j.ck.json");
    let (mut st, _) = Store::open(&path, JournalProfile::Core).unwrap();
    for i in 0..6 {
        st.append(line(i).as_bytes()).unwrap();
    }
    st.checkpoint(&ck).unwrap();
    for i in 6..9 {
        st.append(line(i).as_bytes()).unwrap();
    }
    drop(st);
    let want = full_replay(&path);
    let (got, used) = store::replay_from_checkpoint(&path, &ck, JournalProfile::Core).unwrap();
    assert_eq!(used, CheckpointUse::Used { tail_events: 3 });
    assert_eq!(got, want);

    let original = std::fs::read_to_string(&ck).unwrap();
    let index = dir.join("j.ck.json.ids");
    let original_index = std::fs::read(&index).unwrap();
    type Corruption<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let corruptions: Vec<Corruption> = vec![
        ("not JSON", Box::new(|| std::fs::write(&ck, "{").unwrap())),
        (
            "reducer version",
            Box::new(|| {
                std::fs::write(
                    &ck,
                    original.replace("journal-conformance/replay-1", "other/9"),
                )
                .unwrap()
            }),
        ),
        (
            "source offset",
            Box::new(|| {
                let v = journal_conformance::json::parse(&original).unwrap();
                let off = v.get("source_offset").unwrap().as_i64().unwrap();
                std::fs::write(
                    &ck,
                    original.replace(
                        &format!("\"source_offset\":{off}"),
                        &format!("\"source_offset\":{}", off - 1),
                    ),
                )
                .unwrap()
            }),
        ),
        (
            "source event",
            Box::new(|| {
                std::fs::write(
                    &ck,
                    original.replace("\"source_event_id\":\"e5\"", "\"source_event_id\":\"e4\""),
                )
                .unwrap()
            }),
        ),
        (
            "index digest",
            Box::new(|| {
                std::fs::write(&ck, &original).unwrap();
                let mut b = original_index.clone();
                b[0] ^= 1;
                std::fs::write(&index, b).unwrap()
            }),
        ),
        (
            "index missing",
            Box::new(|| std::fs::remove_file(&index).unwrap()),
        ),
        (
            "fingerprints contradict",
            Box::new(|| {
                std::fs::write(&index, &original_index).unwrap();
                let v = journal_conformance::json::parse(&original).unwrap();
                let fp = v
                    .get("source_fingerprint")
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned();
                let forged = original.replace(
                    &format!("\"source_fingerprint\":\"{fp}\""),
                    &format!("\"source_fingerprint\":\"{}\"", "0".repeat(64)),
                );
                assert_ne!(forged, original);
                std::fs::write(&ck, forged).unwrap()
            }),
        ),
        (
            "checkpoint missing",
            Box::new(|| std::fs::remove_file(&ck).unwrap()),
        ),
    ];
    for (what, corrupt) in corruptions {
        corrupt();
        let (got, used) = store::replay_from_checkpoint(&path, &ck, JournalProfile::Core).unwrap();
        assert!(
            matches!(used, CheckpointUse::Ignored(_)),
            "{what}: {used:?}"
        );
        assert_eq!(got, want, "{what}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_tail_is_checked_against_the_prefix_ids() {
    let dir = scratch("cktail");
    let path = dir.join("j.jsonl");
    let ck = dir.join("ck.json");
    let (mut st, _) = Store::open(&path, JournalProfile::Core).unwrap();
    for i in 0..4 {
        st.append(line(i).as_bytes()).unwrap();
    }
    st.checkpoint(&ck).unwrap();
    drop(st);
    // Bypass the store: a tail event reusing a prefix id, and one with an unknown parent.
    let dup = line(4).replace("\"event_id\":\"e4\"", "\"event_id\":\"e1\"");
    std::fs::write(
        &path,
        format!("{}{dup}\n", std::fs::read_to_string(&path).unwrap()),
    )
    .unwrap();
    match store::replay_from_checkpoint(&path, &ck, JournalProfile::Core) {
        Err(ReadError::Invalid(e)) => {
            assert_eq!(e.code, ErrorCode::DuplicateEventId);
            assert_eq!(e.line, Some(5));
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// S-WRITER-1 in a program that spawns processes: a child holds its parent's lock from
/// `fork` to `exec`, so a store reopened while another thread spawns must not see its
/// own released lock as another writer's (CI failed on exactly this once).
#[test]
fn reopening_while_another_thread_spawns_processes_is_not_locked_out() {
    let dir = scratch("lock-spawn");
    let path = dir.join("j.jsonl");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spawner = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::process::Command::new("true").status();
            }
        })
    };
    for i in 0..300 {
        let (mut st, _) = Store::open(&path, JournalProfile::Core).unwrap();
        st.append(line(i).as_bytes()).unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    spawner.join().unwrap();
    assert_eq!(full_replay(&path).applied_sequences.len(), 300);
    std::fs::remove_dir_all(dir).unwrap();
}
