//! The durable store: appends per second with a sync per append and with group commit
//! of 100, and replay from a checkpoint 10 events before the end of a large journal
//! against replay from event zero.
//!
//! `cargo bench --bench store` (env `JC_STORE_EVENTS`, default 1000000; `JC_BENCH_DIR`
//! for where files go, default the system temp dir: put it on the disk you care about).

use std::io::{BufReader, Write};
use std::time::Instant;

use journal_conformance::event::JournalProfile;
use journal_conformance::replay;
use journal_conformance::store::{self, CheckpointUse, Store};

/// Event `i` of an agent session made of 16-event turns: a user message, a model
/// request, twelve streaming deltas ending in one final, a tool request and its
/// result. Three events in sixteen contribute to the projection, as in real sessions
/// where deltas and requests dominate. Envelopes carry Trace-0.1-like metadata.
fn event(i: u64) -> String {
    let parent = if i == 0 {
        String::new()
    } else {
        format!(",\"parent_event_id\":\"e{}\"", i - 1)
    };
    let k = i % 16;
    let turn = i / 16;
    let (ty, payload) = match k {
        0 => ("user.message", format!("{{\"content\":\"Please look at module {turn} and fix the failing test.\"}}")),
        1 => ("model.request", format!("{{\"turn\":{turn},\"message_count\":{},\"tools\":[\"read\",\"edit\",\"bash\"]}}", 2 * turn + 1)),
        2..=12 => ("model.response", format!("{{\"turn\":{turn},\"delta\":\"chunk {k} \",\"accumulated\":\"...chunk {k} \",\"final\":false}}")),
        13 => ("model.response", format!("{{\"turn\":{turn},\"delta\":\"done.\",\"accumulated\":\"I read module {turn}; the assertion was off by one. done.\",\"final\":true}}")),
        14 => ("tool.request", format!("{{\"tool\":\"bash\",\"arguments\":\"{{\\\"cmd\\\":\\\"cargo test -p m{turn}\\\"}}\"}}")),
        _ => ("tool.result", format!("{{\"tool\":\"bash\",\"exit\":0,\"stdout\":\"test result: ok. 12 passed; 0 failed (module {turn})\"}}")),
    };
    format!(
        "{{\"event_id\":\"e{i}\",\"session_id\":\"bench\",\"sequence\":{i},\"timestamp\":\"2026-11-30T20:00:00Z\",\"type\":\"{ty}\",\"actor\":{{\"kind\":\"harness\",\"id\":\"agent\"}},\"payload\":{payload},\"provenance\":{{\"run_id\":\"r\",\"agent_id\":\"bench-agent\",\"model\":\"m\"}}{parent}}}"
    )
}

fn main() {
    let n: u64 = std::env::var("JC_STORE_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let base = std::env::var_os("JC_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("jc-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // Appends with a sync each, then group commit of 100.
    let appends = 2_000u64;
    let p1 = dir.join("sync-each.jsonl");
    let (mut st, _) = Store::open(&p1, JournalProfile::Core).unwrap();
    let t = Instant::now();
    for i in 0..appends {
        st.append(event(i).as_bytes()).unwrap();
    }
    let each = t.elapsed();
    drop(st);
    let p2 = dir.join("group.jsonl");
    let (mut st, _) = Store::open(&p2, JournalProfile::Core).unwrap();
    let lines: Vec<String> = (0..appends * 10).map(event).collect();
    let t = Instant::now();
    for chunk in lines.chunks(100) {
        let refs: Vec<&[u8]> = chunk.iter().map(|l| l.as_bytes()).collect();
        let (acks, err) = st.append_batch(&refs).unwrap();
        assert!(err.is_none() && acks.len() == chunk.len());
    }
    let group = t.elapsed();
    drop(st);
    println!(
        "appends (fdatasync before each acknowledgement), {}:",
        dir.display()
    );
    println!(
        "  sync per append      {:>10.0} appends/s  ({appends} appends)",
        appends as f64 / each.as_secs_f64()
    );
    println!(
        "  group commit of 100  {:>10.0} appends/s  ({} appends)",
        (appends * 10) as f64 / group.as_secs_f64(),
        appends * 10
    );

    // A large journal written directly, checkpointed 10 events before the end.
    let big = dir.join("big.jsonl");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&big).unwrap());
        for i in 0..n - 10 {
            f.write_all(event(i).as_bytes()).unwrap();
            f.write_all(b"\n").unwrap();
        }
    }
    let ck = dir.join("big.ck.json");
    let t = Instant::now();
    store::checkpoint_file(&big, &ck, JournalProfile::Core).unwrap();
    let ck_time = t.elapsed();
    {
        let (mut st, _) = Store::open(&big, JournalProfile::Core).unwrap();
        for i in n - 10..n {
            st.append(event(i).as_bytes()).unwrap();
        }
    }
    let size = std::fs::metadata(&big).unwrap().len();
    let t = Instant::now();
    let full = replay::replay(
        BufReader::with_capacity(1 << 16, std::fs::File::open(&big).unwrap()),
        JournalProfile::Core,
        None,
    )
    .unwrap();
    let from_zero = t.elapsed();
    let t = Instant::now();
    let (fast, used) = store::replay_from_checkpoint(&big, &ck, JournalProfile::Core).unwrap();
    let from_ck = t.elapsed();
    assert_eq!(used, CheckpointUse::Used { tail_events: 10 });
    assert_eq!(
        fast, full,
        "replay from the checkpoint must equal replay from zero"
    );
    println!("replay of {n} events ({:.1} MB):", size as f64 / 1e6);
    println!(
        "  write the checkpoint {:>10.1} ms (one full pass, done once)",
        ck_time.as_secs_f64() * 1e3
    );
    println!(
        "  from event zero      {:>10.1} ms  ({:.0} MB/s)",
        from_zero.as_secs_f64() * 1e3,
        size as f64 / 1e6 / from_zero.as_secs_f64()
    );
    println!(
        "  from the checkpoint  {:>10.3} ms  (10 tail events)",
        from_ck.as_secs_f64() * 1e3
    );
    println!(
        "  speed-up             {:>10.0}x",
        from_zero.as_secs_f64() / from_ck.as_secs_f64()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
