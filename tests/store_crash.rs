//! Crash test (issue "Durable journal store"): a child process appends events and prints
//! an acknowledgement only once each is durable; we SIGKILL it at random moments, reopen,
//! and check that every acknowledged event is there, the journal validates, and a torn
//! tail was moved aside rather than lost.
//!
//! `JC_CRASH_ROUNDS=1000 cargo test --release --test store_crash` runs 1,000 rounds;
//! `JC_CRASH_SEED=N` replays a run.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use journal_conformance::event::JournalProfile;
use journal_conformance::journal;
use journal_conformance::store::Store;

const BIN: &str = env!("CARGO_BIN_EXE_journal-conformance");

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn event(i: u64, size: usize) -> String {
    let parent = if i == 0 {
        String::new()
    } else {
        format!(",\"parent_event_id\":\"e{}\"", i - 1)
    };
    format!(
        "{{\"event_id\":\"e{i}\",\"session_id\":\"s\",\"sequence\":{i},\"type\":\"user.message\",\"payload\":{{\"content\":\"{}\"}},\"provenance\":{{\"run_id\":\"r\"}}{parent}}}",
        "x".repeat(size)
    )
}

#[test]
fn acknowledged_events_survive_sigkill() {
    let rounds: u64 = std::env::var("JC_CRASH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let seed: u64 = std::env::var("JC_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("crash test: {rounds} rounds, JC_CRASH_SEED={seed}");
    let mut rng = Rng(seed);
    let dir = std::env::temp_dir().join(format!("jc-crash-{}-{seed}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("journal.jsonl");
    // Sequence numbers of every acknowledged event (event e<n> has sequence n).
    let mut acked_total: Vec<u64> = Vec::new();
    let mut torn_seen = 0;
    for round in 0..rounds {
        // Where the journal stands now (recovering a torn tail, as any writer would).
        let (st, rec) = Store::open(&path, JournalProfile::Core).unwrap();
        if rec.torn.is_some() {
            torn_seen += 1;
        }
        let start = st.len();
        drop(st);
        let mut child = Command::new(BIN)
            .args(["append", path.to_str().unwrap(), "-", "--batch"])
            .arg(if rng.below(2) == 0 { "1" } else { "8" })
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let sizes: Vec<usize> = (0..200)
            .map(|_| {
                if rng.below(10) == 0 {
                    1 << (16 + rng.below(6))
                } else {
                    rng.below(200) as usize
                }
            })
            .collect();
        let writer = std::thread::spawn(move || {
            for (k, size) in sizes.into_iter().enumerate() {
                if stdin
                    .write_all(format!("{}\n", event(start + k as u64, size)).as_bytes())
                    .is_err()
                {
                    return;
                }
            }
        });
        let acks = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().unwrap();
        let a = acks.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                a.lock().unwrap().push(line);
            }
        });
        std::thread::sleep(Duration::from_micros(rng.below(150_000)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        reader.join().unwrap();
        writer.join().unwrap();
        let acks = acks.lock().unwrap().clone();
        for (k, a) in acks.iter().enumerate() {
            let want = format!(
                "{{\"ack\":{{\"duplicate\":false,\"event_id\":\"e{0}\",\"sequence\":{0}}}}}",
                start + k as u64
            );
            assert_eq!(
                a, &want,
                "round {round}: unexpected acknowledgement (seed {seed})"
            );
            acked_total.push(start + k as u64);
        }
        // A kill rarely tears a write by itself; in a third of the rounds, tear one the
        // way a power cut would: a prefix of the next line, never acknowledged.
        if rng.below(3) == 0 {
            let next = format!("{}\n", event(u64::MAX, rng.below(300) as usize));
            let cut = 1 + rng.below(next.len() as u64 - 1) as usize;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(&next.as_bytes()[..cut]).unwrap();
        }
        // Every acknowledged event is on disk, in order, and the journal validates once
        // any torn tail is moved aside.
        let (st, rec) = Store::open(&path, JournalProfile::Core).unwrap();
        let needed = acked_total.last().map_or(0, |n| n + 1);
        assert!(
            st.len() >= needed,
            "round {round}: lost acknowledged events (seed {seed})"
        );
        if let Some(t) = &rec.torn {
            torn_seen += 1;
            let moved = t.moved_to.as_ref().unwrap();
            assert_eq!(
                std::fs::read(moved).unwrap(),
                t.bytes,
                "round {round}: torn bytes not preserved"
            );
        }
        drop(st);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for &n in &acked_total {
            let l = lines.get(n as usize).unwrap_or_else(|| {
                panic!("round {round}: acknowledged e{n} missing (seed {seed})")
            });
            assert!(
                l.starts_with(&format!("{{\"event_id\":\"e{n}\"")),
                "round {round}: line {n} is not e{n} (seed {seed})"
            );
        }
        if !text.is_empty() {
            journal::validate(text.as_bytes(), JournalProfile::Core).unwrap();
        }
    }
    eprintln!(
        "crash test: {} acknowledged events kept, {torn_seen} torn tails moved aside",
        acked_total.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
