//! The seed chapter's exercises A-D, on the golden traces (expected values from the
//! seed's own Python implementation, quoted in golden/README.md and SPEC.md G-1).

use journal_conformance::branch::branch;
use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;
use journal_conformance::replay::replay;
use journal_conformance::ErrorCode;

const S07: &[u8] = include_bytes!("../golden/s07-session-replay.golden.jsonl");
const S02: &[u8] = include_bytes!("../golden/s02-events-streaming.golden.jsonl");

fn first_lines(data: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for line in data.split_inclusive(|&b| b == b'\n').take(n) {
        out.extend_from_slice(line);
    }
    out
}

#[test]
fn exercise_a_gap_raises_before_any_view() {
    let three = String::from_utf8(first_lines(S07, 3)).unwrap();
    let gapped = three.replacen("\"sequence\":2", "\"sequence\":4", 1);
    assert_ne!(three, gapped, "the mutation must apply");
    for profile in [JournalProfile::Core, JournalProfile::Trace01] {
        match replay(gapped.as_bytes(), profile, None) {
            Err(ReadError::Invalid(e)) => {
                assert_eq!(e.code, ErrorCode::SequenceGap);
                assert_eq!(e.line, Some(3));
                assert_eq!(e.sequence, Some(4));
                assert_eq!(e.event_id.as_deref(), Some("evt-002"));
            }
            other => panic!("expected sequence_gap, got {other:?}"),
        }
    }
    // The unmodified prefix is fine.
    assert!(replay(three.as_bytes(), JournalProfile::Trace01, None).is_ok());
}

#[test]
fn exercise_b_partial_replay_through_2() {
    let s = replay(S07, JournalProfile::Trace01, Some(2)).unwrap();
    assert_eq!(
        s.user_messages,
        ["Explain replay and branch lineage in one sentence."]
    );
    assert!(s.assistant_messages.is_empty());
    assert_eq!(s.stop_reason, None);
    assert_eq!(s.applied_sequences, [0, 1, 2]);
    assert_eq!(
        s.fingerprint,
        "1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb"
    );
}

#[test]
fn s07_replay_through_4_matches_the_seed() {
    let s = replay(S07, JournalProfile::Trace01, Some(4)).unwrap();
    assert_eq!(
        s.fingerprint,
        "1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e"
    );
    assert_eq!(s.applied_sequences.len(), 5);
    assert_eq!(s.stop_reason.as_deref(), Some("completed"));
}

#[test]
fn exercise_c_streaming_gives_one_assistant_message() {
    let s = replay(S02, JournalProfile::Trace01, None).unwrap();
    assert_eq!(s.assistant_messages, ["Observe events, not hidden state."]);
    assert_eq!(s.applied_sequences.len(), 7);
}

#[test]
fn exercise_d_two_branches_share_lineage_and_differ_in_id() {
    let a = branch(
        S07,
        JournalProfile::Trace01,
        2,
        "branch-alternative-response",
    )
    .unwrap();
    let b = branch(S07, JournalProfile::Trace01, 2, "branch-other").unwrap();
    assert_eq!(a.parent_fingerprint, b.parent_fingerprint);
    assert_eq!(a.inherited_event_ids, b.inherited_event_ids);
    assert_ne!(a.branch_id, b.branch_id);
    assert_eq!(a.inherited_event_ids, ["evt-000", "evt-001", "evt-002"]);
    assert_eq!(
        a.parent_fingerprint,
        "1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb"
    );
    assert_eq!(a.parent_run_id, "run-s07-session-replay-golden");
    assert_eq!(a.fork_sequence, 2);
}
