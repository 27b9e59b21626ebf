//! One test per error code: a minimal input derived by hand from SPEC.md, the code
//! and the location the spec requires. `every_code_is_tested` fails when a code is
//! added to `ErrorCode` without a test here.

use journal_conformance::branch::branch;
use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;
use journal_conformance::journal::validate;
use journal_conformance::ops::{execute, Operation};
use journal_conformance::replay::replay;
use journal_conformance::{Error, ErrorCode};

fn line(i: u64, extra: &str) -> String {
    format!(
        "{{\"event_id\":\"e{i}\",\"session_id\":\"s\",\"sequence\":{i},\"type\":\"t\",\"payload\":{{}},\"provenance\":{{\"run_id\":\"r\"}}{extra}}}\n"
    )
}

fn err_of(r: Result<impl std::fmt::Debug, ReadError>) -> Error {
    match r {
        Err(ReadError::Invalid(e)) => e,
        other => panic!("expected a conformance error, got {other:?}"),
    }
}

fn validate_err(input: &[u8]) -> Error {
    err_of(validate(input, JournalProfile::Core))
}

fn check(e: &Error, code: ErrorCode, line: Option<u64>, sequence: Option<i64>) {
    assert_eq!(e.code, code, "{e:?}");
    assert_eq!(e.line, line, "line of {e:?}");
    assert_eq!(e.sequence, sequence, "sequence of {e:?}");
}

const TESTED: &[ErrorCode] = &[
    ErrorCode::InvalidUtf8,
    ErrorCode::UnexpectedBom,
    ErrorCode::BlankLine,
    ErrorCode::InvalidJson,
    ErrorCode::DuplicateKey,
    ErrorCode::LoneSurrogate,
    ErrorCode::NumberOutOfRange,
    ErrorCode::NestingTooDeep,
    ErrorCode::MalformedEvent,
    ErrorCode::ProfileViolation,
    ErrorCode::InvalidPayload,
    ErrorCode::EmptyJournal,
    ErrorCode::SequenceGap,
    ErrorCode::MixedSession,
    ErrorCode::MixedRun,
    ErrorCode::DuplicateEventId,
    ErrorCode::UnknownParent,
    ErrorCode::SequenceOutOfRange,
    ErrorCode::InvalidBranchId,
    ErrorCode::MalformedEntry,
    ErrorCode::DuplicateEntryId,
    ErrorCode::EmptySession,
    ErrorCode::UnknownEntry,
    ErrorCode::UnknownCheckpoint,
    ErrorCode::HistoryDiverged,
    ErrorCode::IdSpaceExhausted,
    ErrorCode::ConflictingDuplicate,
    ErrorCode::Locked,
];

#[test]
fn every_code_is_tested() {
    for c in ErrorCode::ALL {
        assert!(TESTED.contains(c), "no test for {c}");
        assert_eq!(ErrorCode::from_str_code(c.as_str()), Some(*c));
    }
}

#[test]
fn invalid_utf8() {
    let mut input = line(0, "").into_bytes();
    input.extend_from_slice(b"{\"a\":\"\xff\"}\n");
    let e = validate_err(&input);
    check(&e, ErrorCode::InvalidUtf8, Some(2), None);
    assert_eq!(e.column, Some(7));
}

#[test]
fn unexpected_bom() {
    let input = format!("\u{feff}{}", line(0, ""));
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::UnexpectedBom,
        Some(1),
        None,
    );
}

#[test]
fn blank_line() {
    let input = format!("{}\r\n{}", line(0, ""), line(1, ""));
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::BlankLine,
        Some(2),
        None,
    );
}

#[test]
fn invalid_json() {
    let input = format!("{}{{\"a\":NaN}}\n", line(0, ""));
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::InvalidJson,
        Some(2),
        None,
    );
    // A torn last line.
    let torn = &line(0, "")[..20];
    check(
        &validate_err(torn.as_bytes()),
        ErrorCode::InvalidJson,
        Some(1),
        None,
    );
}

#[test]
fn duplicate_key() {
    let e = validate_err(b"{\"a\":1,\"b\":2,\"a\":3}\n");
    check(&e, ErrorCode::DuplicateKey, Some(1), None);
    assert_eq!(e.column, Some(14), "located at the second occurrence");
}

#[test]
fn lone_surrogate() {
    check(
        &validate_err(b"{\"a\":\"\\udc00\"}\n"),
        ErrorCode::LoneSurrogate,
        Some(1),
        None,
    );
}

#[test]
fn number_out_of_range() {
    check(
        &validate_err(b"{\"a\":1e309}\n"),
        ErrorCode::NumberOutOfRange,
        Some(1),
        None,
    );
    let big = format!("{{\"a\":{}}}\n", "1".repeat(4301));
    check(
        &validate_err(big.as_bytes()),
        ErrorCode::NumberOutOfRange,
        Some(1),
        None,
    );
}

#[test]
fn nesting_too_deep() {
    let deep = format!("{}{}\n", "[".repeat(200_000), "]".repeat(200_000));
    check(
        &validate_err(deep.as_bytes()),
        ErrorCode::NestingTooDeep,
        Some(1),
        None,
    );
}

#[test]
fn malformed_event() {
    let input = format!("{}{}", line(0, ""), line(1, ",\"parent_event_id\":null"));
    let e = validate_err(input.as_bytes());
    check(&e, ErrorCode::MalformedEvent, Some(2), Some(1));
    assert_eq!(e.event_id.as_deref(), Some("e1"));
    check(
        &validate_err(b"[]\n"),
        ErrorCode::MalformedEvent,
        Some(1),
        None,
    );
}

#[test]
fn profile_violation() {
    // A core-valid event that lacks every Trace 0.1 field.
    let e = err_of(validate(line(0, "").as_bytes(), JournalProfile::Trace01));
    check(&e, ErrorCode::ProfileViolation, Some(1), Some(0));
    assert!(validate(line(0, "").as_bytes(), JournalProfile::Core).is_ok());
}

#[test]
fn invalid_payload() {
    let input = "{\"event_id\":\"e0\",\"session_id\":\"s\",\"sequence\":0,\"type\":\"session.stop\",\"payload\":{\"reason\":null},\"provenance\":{\"run_id\":\"r\"}}\n";
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::InvalidPayload,
        Some(1),
        Some(0),
    );
}

#[test]
fn empty_journal() {
    check(&validate_err(b""), ErrorCode::EmptyJournal, None, None);
}

#[test]
fn sequence_gap() {
    let input = format!("{}{}", line(0, ""), line(2, ""));
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::SequenceGap,
        Some(2),
        Some(2),
    );
}

#[test]
fn mixed_session() {
    let input = format!("{}{}", line(0, ""), line(1, "").replace("\"s\"", "\"s2\""));
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::MixedSession,
        Some(2),
        Some(1),
    );
}

#[test]
fn mixed_run() {
    let input = format!("{}{}", line(0, ""), line(1, "").replace("\"r\"", "\"r2\""));
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::MixedRun,
        Some(2),
        Some(1),
    );
}

#[test]
fn duplicate_event_id() {
    let input = format!("{}{}", line(0, ""), line(1, "").replace("\"e1\"", "\"e0\""));
    check(
        &validate_err(input.as_bytes()),
        ErrorCode::DuplicateEventId,
        Some(2),
        Some(1),
    );
}

#[test]
fn unknown_parent() {
    for parent in ["e1", "e2", "nope"] {
        let input = format!(
            "{}{}{}",
            line(0, ""),
            line(1, &format!(",\"parent_event_id\":\"{parent}\"")),
            line(2, "")
        );
        check(
            &validate_err(input.as_bytes()),
            ErrorCode::UnknownParent,
            Some(2),
            Some(1),
        );
    }
}

#[test]
fn sequence_out_of_range() {
    let input = format!("{}{}", line(0, ""), line(1, ""));
    for until in [-1, 2, i64::MAX] {
        let e = err_of(replay(input.as_bytes(), JournalProfile::Core, Some(until)));
        check(&e, ErrorCode::SequenceOutOfRange, None, Some(until));
        let e = err_of(execute(
            &Operation::Fingerprint { until: Some(until) },
            input.as_bytes(),
            journal_conformance::ops::Profile::Core,
        ));
        check(&e, ErrorCode::SequenceOutOfRange, None, Some(until));
    }
    assert!(replay(input.as_bytes(), JournalProfile::Core, Some(1)).is_ok());
}

#[test]
fn invalid_branch_id() {
    let input = line(0, "");
    for id in ["", " ", "\u{1c}", "\u{3000}\t"] {
        let e = err_of(branch(input.as_bytes(), JournalProfile::Core, 0, id));
        check(&e, ErrorCode::InvalidBranchId, None, None);
    }
    for id in ["\u{200b}", "\u{feff}", " x "] {
        assert_eq!(
            branch(input.as_bytes(), JournalProfile::Core, 0, id)
                .unwrap()
                .branch_id,
            id
        );
    }
}

mod tree_codes {
    use super::check;
    use journal_conformance::json::Value;
    use journal_conformance::tree::Tree;
    use journal_conformance::ErrorCode;

    fn load_err(text: &str) -> journal_conformance::Error {
        Tree::load(text.as_bytes()).unwrap_err()
    }

    const E1: &str = "{\"id\":\"e1\",\"parent_id\":null,\"message\":\"m\",\"timestamp\":1}";

    #[test]
    fn malformed_entry() {
        check(
            &load_err(&format!(
                "{E1}\n\n{{\"id\":\"e2\",\"message\":1,\"timestamp\":1.5}}"
            )),
            ErrorCode::MalformedEntry,
            Some(3),
            None,
        );
    }

    #[test]
    fn duplicate_entry_id() {
        check(
            &load_err(&format!("{E1}\n{E1}")),
            ErrorCode::DuplicateEntryId,
            Some(2),
            None,
        );
    }

    #[test]
    fn unknown_parent_in_trees() {
        let e = load_err("{\"id\":\"e1\",\"parent_id\":\"e1\",\"message\":0,\"timestamp\":0}");
        check(&e, ErrorCode::UnknownParent, Some(1), None);
        assert!(
            e.message.contains("\"e1\""),
            "names entry and parent: {}",
            e.message
        );
    }

    #[test]
    fn empty_session() {
        check(
            &Tree::new().checkpoint("x").unwrap_err(),
            ErrorCode::EmptySession,
            None,
            None,
        );
    }

    #[test]
    fn unknown_entry() {
        check(
            &Tree::load(E1.as_bytes()).unwrap().seek("e2").unwrap_err(),
            ErrorCode::UnknownEntry,
            None,
            None,
        );
    }

    #[test]
    fn unknown_checkpoint() {
        let mut t = Tree::load(E1.as_bytes()).unwrap();
        check(
            &t.seek_checkpoint("x").unwrap_err(),
            ErrorCode::UnknownCheckpoint,
            None,
            None,
        );
        t.checkpoint("x").unwrap();
        t.seek_checkpoint("x").unwrap();
    }

    #[test]
    fn history_diverged() {
        let mut t = Tree::load(E1.as_bytes()).unwrap();
        let e = t.append_new(&[Value::from("other")], 1).unwrap_err();
        check(&e, ErrorCode::HistoryDiverged, None, None);
        assert_eq!(e.index, Some(0));
        let e = t.append_new(&[], 1).unwrap_err();
        assert_eq!(e.index, Some(0));
        assert_eq!(t.entries().len(), 1, "nothing appended on failure");
        assert_eq!(
            t.append_new(&[Value::from("m"), Value::from("n")], 1)
                .unwrap(),
            1
        );
    }

    #[test]
    fn id_space_exhausted() {
        let mut t = Tree::load(b"{\"id\":\"e18446744073709551615\",\"message\":0,\"timestamp\":0}")
            .unwrap();
        assert_eq!(t.next_id(), None);
        check(
            &t.append(Value::Null, 0).unwrap_err(),
            ErrorCode::IdSpaceExhausted,
            None,
            None,
        );
    }
}

mod store_codes {
    use super::{check, line};
    use journal_conformance::error::ReadError;
    use journal_conformance::event::JournalProfile;
    use journal_conformance::store::Store;
    use journal_conformance::ErrorCode;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("jc-codes-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn conflicting_duplicate() {
        let d = dir("dup");
        let (mut st, _) = Store::open(&d.join("j"), JournalProfile::Core).unwrap();
        st.append(line(0, "").trim_end().as_bytes()).unwrap();
        let changed = line(0, ",\"x\":1");
        match st.append(changed.trim_end().as_bytes()) {
            Err(ReadError::Invalid(e)) => {
                check(&e, ErrorCode::ConflictingDuplicate, Some(2), Some(0))
            }
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn locked() {
        let d = dir("lock");
        let _first = Store::open(&d.join("j"), JournalProfile::Core).unwrap();
        match Store::open(&d.join("j"), JournalProfile::Core) {
            Err(ReadError::Invalid(e)) => check(&e, ErrorCode::Locked, None, None),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("second writer admitted"),
        }
        std::fs::remove_dir_all(d).unwrap();
    }
}
