//! The fast path (`journal_conformance::fast`, what the CLI and `serve` run) against
//! the oracle (the `Value`-based reference SPEC.md describes), with
//! `fast::differences`: same results byte for byte, same errors (code, message, line,
//! column, sequence, event id), for validate, fingerprint, replay and branch, run
//! sequentially and with worker threads over tiny blocks.
//!
//! Inputs: generated valid and malformed journals (`src/generate`), every corpus
//! vector's input, the golden traces, and those inputs mutated (bytes flipped,
//! inserted, deleted, lines swapped or cut).

use journal_conformance::event::JournalProfile;
use journal_conformance::fast;
use journal_conformance::generate::{any_malformed_journal, valid_journal, GenConfig};
use journal_conformance::golden::GOLDEN;
use journal_conformance::ops::OpKind;
use journal_conformance::vectors;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn agree(input: &[u8], profile: JournalProfile) -> Result<(), String> {
    let d = fast::differences(input, profile);
    if d.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "input {:?} ({})\n{}",
            String::from_utf8_lossy(input),
            profile.as_str(),
            d.join("\n")
        ))
    }
}

fn both_profiles(input: &[u8]) -> Result<(), String> {
    agree(input, JournalProfile::Core)?;
    agree(input, JournalProfile::Trace01)
}

/// Deterministic mutations of `input`: each a small, typical corruption.
fn mutations(input: &[u8], seed: u64) -> Vec<Vec<u8>> {
    let mut x = seed | 1;
    let mut rnd = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n.max(1) as u64) as usize
    };
    let mut out = Vec::new();
    if input.is_empty() {
        return out;
    }
    const BYTES: &[u8] = b"\n\r \"\\{}[],:0-.e\x00\x1f\xff\xc3u";
    for _ in 0..4 {
        let mut m = input.to_vec();
        let at = rnd(m.len());
        match rnd(5) {
            0 => m[at] = BYTES[rnd(BYTES.len())],
            1 => m.insert(at, BYTES[rnd(BYTES.len())]),
            2 => {
                m.remove(at);
            }
            3 => m.truncate(at),
            _ => {
                // Duplicate a line (ids and sequences clash) or swap two.
                let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
                let (i, j) = (rnd(lines.len()), rnd(lines.len()));
                if rnd(2) == 0 {
                    lines.insert(j, lines[i]);
                } else {
                    lines.swap(i, j);
                }
                m = lines.join(&b'\n');
            }
        }
        out.push(m);
    }
    out
}

#[test]
fn corpus_inputs_and_their_mutations() {
    let cases = vectors::load_embedded().expect("embedded corpus");
    assert!(cases.len() > 100, "the corpus is embedded");
    let mut failures = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        if let Err(e) = agree(&case.input, case.profile.journal()) {
            failures.push(format!("{}: {e}", case.id));
        }
        // Every input once; mutations of the journals only (the cases with a journal
        // operation: 1,785 of 4,657). Tree files and canonical documents are not what the fast
        // path reads, and their mutations cost most of this test's time (183 s in a debug
        // build); the fast_oracle fuzz target mutates arbitrary bytes.
        let journal = case.checks.iter().any(|c| {
            matches!(
                c.op.kind(),
                OpKind::Validate | OpKind::Replay | OpKind::Fingerprint | OpKind::Branch
            )
        });
        if !journal {
            continue;
        }
        for m in mutations(&case.input, n as u64 + 1) {
            if let Err(e) = agree(&m, case.profile.journal()) {
                failures.push(format!("{} (mutated): {e}", case.id));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn golden_traces_and_their_mutations() {
    for g in GOLDEN {
        both_profiles(g.journal).unwrap();
        for seed in 1..30 {
            for m in mutations(g.journal, seed) {
                both_profiles(&m).unwrap_or_else(|e| panic!("{} (mutated): {e}", g.name));
            }
        }
    }
}

#[test]
fn hand_picked_edge_cases() {
    let ev = |seq: u32, id: &str, extra: &str| {
        format!(
            r#"{{"event_id":"{id}","session_id":"s","sequence":{seq},"type":"user.message","payload":{{"content":"hi"}},"provenance":{{"run_id":"r"}}{extra}}}"#
        )
    };
    let inputs = [
        String::new(),
        "\n".into(),
        format!("{}\n\n{}", ev(0, "a", ""), ev(1, "b", "")),
        format!("{}\r\n{}", ev(0, "a", ""), ev(1, "b", "")),
        format!("\u{feff}{}", ev(0, "a", "")),
        format!("{}\n{}", ev(0, "a", ""), ev(1, "a", "")),
        format!("{}\n{}", ev(0, "a", ""), ev(2, "b", "")),
        format!("{}\n{}", ev(0, "a", ""), ev(1, "b", r#","parent_event_id":"b""#)),
        format!("{}\n{}", ev(0, "a", ""), ev(1, "b", r#","parent_event_id":"c""#)),
        format!("{}\n{}", ev(0, "a", ""), ev(1, "b", r#","parent_event_id":"a""#)),
        ev(0, "a\\u00e9\\ud83d\\ude00", r#","x":"\ud800""#),
        ev(0, "a", r#","x":"\ud83d\ude00\u0041\/\b\f\n\r\t\"\\""#),
        ev(0, "a", r#","x":{"b":1,"a":2,"\u0061b":3,"é":-0,"z":[1.5e300,-0.0,1E2,0.1]}"#),
        ev(0, "a", r#","x":{"a":1,"\u0061":2}"#),
        ev(0, "a", r#","x":1e400"#),
        ev(0, "a", r#","sequence":0"#),
        ev(0, "a", &format!(r#","x":{}"#, "[".repeat(130))),
        ev(0, "a", &format!(r#","x":{}{}"#, "[".repeat(127), "]".repeat(127))),
        ev(0, "a", &format!(r#","x":{}"#, "9".repeat(4301))),
        ev(0, "a", &format!(r#","x":{}"#, "9".repeat(4300))),
        r#"{"event_id":"a","session_id":"s","sequence":-0,"type":"session.stop","payload":{},"provenance":{"run_id":"r"}}"#.into(),
        r#"{"event_id":"a","session_id":"s","sequence":18446744073709551616,"type":"x","payload":{},"provenance":{"run_id":"r"}}"#.into(),
        r#"{"event_id":"a","session_id":"s","sequence":0,"type":"model.response","payload":{"final":true},"provenance":{"run_id":"r"}}"#.into(),
        r#"{"event_id":"a","session_id":"s","sequence":0,"type":"model.response","payload":{"content":7},"provenance":{"run_id":"r"}}"#.into(),
        r#"{"event_id":"a","session_id":"s","sequence":0,"type":"tool.result","payload":{"z":1,"a":{"y":[],"b":"\u00e9"}},"provenance":{"run_id":"r"}}"#.into(),
        "  [1, 2]  ".into(),
        "{\"a\":1} x".into(),
        "nul".into(),
        "\"\\u12\"".into(),
    ];
    for input in inputs {
        both_profiles(input.as_bytes()).unwrap();
    }
}

#[test]
fn generated_journals() {
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 64,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::XorShift),
    );
    for profile in [JournalProfile::Core, JournalProfile::Trace01] {
        let cfg = GenConfig::with_profile(profile);
        runner
            .run(&valid_journal(&cfg), |j| {
                agree(&j.bytes(), profile).map_err(TestCaseError::fail)?;
                for m in mutations(&j.bytes(), j.bytes().len() as u64) {
                    agree(&m, profile).map_err(TestCaseError::fail)?;
                }
                Ok(())
            })
            .unwrap();
        runner
            .run(&any_malformed_journal(&cfg), |m| {
                agree(&m.bytes, m.profile).map_err(TestCaseError::fail)
            })
            .unwrap();
    }
}

/// The canonical-line fast path (`Tape::canonical`: a line already in canonical form is
/// hashed and projected from its own bytes): generated journals with every line, or every
/// other line, rewritten in canonical form (sorted keys, no whitespace, the writer's
/// escapes and numbers), and their mutations, against the oracle.
#[test]
fn canonical_lines() {
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 64,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::XorShift),
    );
    for profile in [JournalProfile::Core, JournalProfile::Trace01] {
        let cfg = GenConfig::with_profile(profile);
        runner
            .run(&valid_journal(&cfg), |j| {
                for every in [1, 2] {
                    let input = fast::canonical_lines(&j.bytes(), every);
                    agree(&input, profile).map_err(TestCaseError::fail)?;
                    for m in mutations(&input, input.len() as u64) {
                        agree(&m, profile).map_err(TestCaseError::fail)?;
                    }
                }
                Ok(())
            })
            .unwrap();
    }
}

/// The line bound (CONTRACTS "Line length bound"): an over-long line is an I/O error
/// naming it, lines before it are still checked first, and a line of exactly the
/// limit passes; the same sequentially and with threads.
#[test]
fn line_bound() {
    let ev = |seq: u32| {
        format!(
            r#"{{"event_id":"e{seq}","session_id":"s","sequence":{seq},"type":"x","payload":{{}},"provenance":{{"run_id":"r"}}}}"#
        )
    };
    let (a, b) = (ev(0), ev(1));
    let limit = a.len().max(b.len());
    for threads in [0, 2] {
        let opts = fast::Options {
            max_line_bytes: limit,
            threads,
            block_bytes: 7,
            ..fast::Options::new(JournalProfile::Core)
        };
        let ok = format!("{a}\n{b}\n");
        assert_eq!(fast::validate(ok.as_bytes(), &opts).unwrap(), 2);
        let long = format!("{a}\n{b}\n{} \n", ev(2));
        match fast::validate(long.as_bytes(), &opts) {
            Err(journal_conformance::error::ReadError::Io(e)) => assert_eq!(
                e.to_string(),
                format!("line 3 is longer than {limit} bytes; --max-line-bytes raises the limit")
            ),
            other => panic!("{other:?}"),
        }
        // Unterminated at the end of input: still bounded.
        let tail = format!("{a}\n{}", "x".repeat(limit + 1));
        assert!(matches!(
            fast::validate(tail.as_bytes(), &opts),
            Err(journal_conformance::error::ReadError::Io(_))
        ));
        // An invalid earlier line wins over a later long line.
        let earlier = format!("{a}\n{a}\n{}\n", "x".repeat(limit * 3));
        match fast::validate(earlier.as_bytes(), &opts) {
            Err(journal_conformance::error::ReadError::Invalid(e)) => {
                assert_eq!(e.line, Some(2), "{e:?}")
            }
            other => panic!("{other:?}"),
        }
    }
}

/// The value budget (`json::MAX_VALUES`, SPEC.md 16.5): a line of exactly the budget is
/// read, one more value is an I/O-class error at that value's column, and the fast path
/// (sequential and parallel) agrees with the oracle on it: same error, same place. (Not
/// through `agree`, whose every `until` and branch point would parse the line dozens of
/// times: too slow in a debug build.)
#[test]
fn value_budget() {
    use journal_conformance::error::ReadError;
    use journal_conformance::json::MAX_VALUES;
    let first = r#"{"event_id":"e0","session_id":"s","sequence":0,"type":"x","payload":{},"provenance":{"run_id":"r"}}"#;
    // Nine values before the array's elements: the event, event_id, session_id,
    // sequence, type, provenance, run_id, payload and the array.
    // A tool result, so that a replay projects the whole line's payload: the one line of a
    // journal the fast path declines and the oracle reads is the line at the budget (the
    // tape counts every value too), which `slow` then projects in the fast path's terms.
    let prefix = r#"{"event_id":"e1","session_id":"s","sequence":1,"type":"tool.result","provenance":{"run_id":"r"},"payload":{"a":["#;
    let line = |elements: usize| {
        let mut l = prefix.to_owned();
        l.push_str(&"0,".repeat(elements - 1));
        l.push_str("0]}}");
        format!("{first}\n{l}\n")
    };
    let show = |r: Result<u64, ReadError>| match r {
        Ok(n) => format!("ok {n}"),
        Err(ReadError::Invalid(e)) => format!("invalid {e:?}"),
        Err(ReadError::Io(e)) => format!("io: {e}"),
    };
    // The last element is the value past the budget: its 1-based column.
    let column = prefix.len() + 2 * (MAX_VALUES - 9) + 1;
    for (elements, want) in [
        (MAX_VALUES - 9, "ok 2".to_owned()),
        (
            MAX_VALUES - 8,
            format!(
                "io: line 2, column {column}: too_many_values: more than {MAX_VALUES} values in one JSON text (an implementation limit, SPEC.md 16.5)"
            ),
        ),
    ] {
        let input = line(elements);
        let oracle = show(journal_conformance::journal::validate(
            input.as_bytes(),
            JournalProfile::Core,
        ));
        assert_eq!(oracle, want);
        for threads in [0, 2] {
            let opts = fast::Options {
                threads,
                block_bytes: 4096,
                ..fast::Options::new(JournalProfile::Core)
            };
            let fast = show(fast::validate(input.as_bytes(), &opts));
            assert_eq!(fast, want, "fast validate, {threads} threads");
            let fp = show(fast::fingerprint(input.as_bytes(), &opts, None).map(|_| 2));
            assert_eq!(fp, want, "fast fingerprint, {threads} threads");
            let replayed = fast::replay(input.as_bytes(), &opts, None).map(|p| {
                let mut text = Vec::new();
                p.write_json(&mut text).expect("writing to memory");
                text
            });
            let oracle = journal_conformance::replay::replay(input.as_bytes(), JournalProfile::Core, None)
                .map(|s| journal_conformance::canonical::to_string(&s.to_json()).into_bytes());
            match (&replayed, &oracle) {
                (Ok(f), Ok(o)) => assert!(f == o, "fast replay differs from the oracle's, {threads} threads"),
                _ => assert_eq!(
                    show(replayed.map(|_| 2)),
                    show(oracle.map(|_| 2)),
                    "fast replay, {threads} threads"
                ),
            }
        }
    }
}

/// The `yoagent-0.26` dialect's shape-only load (`fast::yoagent`, what `tree inspect`,
/// `tree validate` and `serve` run) against the session load and its view, cut into 1 to
/// 5 chunks read on their own threads: the same view, or the same error (code, line,
/// excerpt, message). Inputs: every tree vector's input, its mutations, and pairs of
/// them joined (two defects in one file, on either side of a cut).
#[test]
fn yoagent_shapes_agree_with_the_session_load() {
    use journal_conformance::fast::yoagent::{inspect_oracle, load_shape_chunked};
    let cases = vectors::load_embedded().expect("embedded corpus");
    let trees: Vec<&[u8]> = cases
        .iter()
        .filter(|c| {
            c.checks
                .iter()
                .any(|k| matches!(k.op.kind(), OpKind::TreeInspect | OpKind::TreeApply))
        })
        .map(|c| c.input.as_slice())
        .collect();
    assert!(trees.len() > 1000, "{} tree inputs", trees.len());
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (n, t) in trees.iter().enumerate() {
        inputs.push(t.to_vec());
        inputs.extend(mutations(t, n as u64 + 1));
        let other = trees[(n * 7919 + 13) % trees.len()];
        inputs.push([*t, b"\n", other].concat());
    }
    let (mut failures, mut errors) = (Vec::new(), 0);
    for input in &inputs {
        let want = inspect_oracle(input);
        errors += want.is_err() as usize;
        for k in 1..=5 {
            let got = load_shape_chunked(input, k).map(|s| s.inspect());
            if got != want {
                failures.push(format!(
                    "{:?} in {k} chunks:\n  fast   {got:?}\n  oracle {want:?}",
                    String::from_utf8_lossy(input)
                ));
            }
        }
    }
    assert!(
        errors > 1000 && errors < inputs.len() - 500,
        "{errors} of {}",
        inputs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `fast::vouch`: a line whose message the fast path vouches for is one yoagent's own
/// `SessionEntry` reads, with the same id, parent and label (the property the fast
/// load rests on). Lines: every line of every tree vector's input and of its
/// mutations, and hand-made respellings at the acceptor's edges.
#[test]
fn vouched_entries_are_yoagent_entries() {
    use journal_conformance::fast::vouch::{Vouched, VouchedEntry};
    let vouches = |m: &str| serde_json::from_str::<Vouched>(m).is_ok();
    use journal_conformance::tree::yoagent::SessionEntry;
    let cases = vectors::load_embedded().expect("embedded corpus");
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for (n, c) in cases.iter().enumerate() {
        if !c
            .checks
            .iter()
            .any(|k| matches!(k.op.kind(), OpKind::TreeInspect | OpKind::TreeApply))
        {
            continue;
        }
        for input in std::iter::once(c.input.clone()).chain(mutations(&c.input, n as u64 + 1)) {
            lines.extend(input.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        }
    }
    let user = r#"{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":5}"#;
    let assistant = r#"{"role":"assistant","content":[{"type":"text","text":"a"}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3},"timestamp":6}"#;
    let tool = r#"{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":false,"timestamp":7}"#;
    let edges = [
        user,
        assistant,
        tool,
        r#"{ "role" : "user" , "content" : [ ] , "timestamp" : 0 }"#,
        r#"{"\u0072ole":"user","content":[],"timestamp":5}"#,
        r#"{"role":"us\u0065r","content":[],"timestamp":5}"#,
        r#"{"role":"user","content":[{"type":"text","text":"\ud800"}],"timestamp":5}"#,
        r#"{"role":"user","content":[{"type":"text","text":"\ud83d\ude00 \n"}],"timestamp":5}"#,
        r#"{"role":"user","content":[],"timestamp":-0}"#,
        r#"{"role":"user","content":[],"timestamp":-1}"#,
        r#"{"role":"user","content":[],"timestamp":5.0}"#,
        r#"{"role":"user","content":[],"timestamp":1e2}"#,
        r#"{"role":"user","content":[],"timestamp":18446744073709551615}"#,
        r#"{"role":"user","content":[],"timestamp":18446744073709551616}"#,
        r#"{"role":"user","content":[],"timestamp":05}"#,
        r#"{"role":"user","role":"user","content":[],"timestamp":5}"#,
        r#"{"role":"user","content":[],"content":[],"timestamp":5}"#,
        r#"{"role":"user","content":[{"type":"text","text":"a","text":"b"}],"timestamp":5}"#,
        r#"{"role":"user","content":[{"type":"text"}],"timestamp":5}"#,
        r#"{"role":"user","content":[{"type":"text","text":null}],"timestamp":5}"#,
        r#"{"role":"user","content":[{"type":"image","text":"a"}],"timestamp":5}"#,
        r#"{"role":"user","content":[{"type":"text","text":"a","extra":1}],"timestamp":5}"#,
        r#"{"role":"user","content":{},"timestamp":5}"#,
        r#"{"role":"user","content":[],"timestamp":5,"kind":"k"}"#,
        r#"{"role":"user","content":[]}"#,
        r#"{"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2},"timestamp":6,"errorMessage":"e"}"#,
        r#"{"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2},"timestamp":6,"errorMessage":null}"#,
        r#"{"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1},"timestamp":6}"#,
        r#"{"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2,"cache_read":1},"timestamp":6}"#,
        r#"{"role":"assistant","content":[],"stopReason":"Stop","model":"m","provider":"p","usage":{"input":1,"output":2},"timestamp":6}"#,
        r#"{"role":"assistant","content":[],"stopReason":"stop","model":1,"provider":"p","usage":{"input":1,"output":2},"timestamp":6}"#,
        r#"{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":0,"timestamp":7}"#,
        r#"{"role":"custom","kind":"k","data":{}}"#,
        r#"[]"#,
        r#""user""#,
        r#"null"#,
        r#"{}"#,
    ];
    for m in edges {
        for parent in ["null", r#""e1""#, r#""""#] {
            for tail in [
                "",
                r#","label":"L""#,
                r#","label":null"#,
                r#","label":"L","label":"M""#,
                r#","x":1"#,
            ] {
                lines.push(
                    format!(
                        r#"{{"id":"e2","parent_id":{parent},"message":{m},"timestamp":1{tail}}}"#
                    )
                    .into_bytes(),
                );
                lines.push(
                    format!(r#"{{"message":{m},"timestamp":1,"id":"e\u0032"{tail}}}"#).into_bytes(),
                );
            }
        }
        lines.push(
            format!(r#"{{"id":"e2","message":{m},"message":{m},"timestamp":1}}"#).into_bytes(),
        );
        lines.push(format!(r#"{{"id":"e2","parent_id":null,"message":{m}}}"#).into_bytes());
    }
    let mut vouched = 0;
    let mut failures = Vec::new();
    for l in &lines {
        let Ok(t) = std::str::from_utf8(l) else {
            continue;
        };
        let t = t.trim();
        let Ok(v) = serde_json::from_str::<VouchedEntry>(t) else {
            continue;
        };
        vouched += 1;
        match serde_json::from_str::<SessionEntry>(t) {
            Ok(e)
                if (e.id.as_str(), e.parent_id.as_deref(), e.label.as_deref())
                    == (v.id.as_str(), v.parent_id.as_deref(), v.label.as_deref()) => {}
            other => failures.push(format!("{t}\n  yoagent: {other:?}")),
        }
    }
    assert!(
        failures.is_empty(),
        "vouched for, but not yoagent's:\n{}",
        failures.join("\n")
    );
    assert!(
        vouched > 2000,
        "only {vouched} of {} lines vouched for",
        lines.len()
    );
    // The plain forms are vouched for (what makes the path fast); a sample of the forms
    // it leaves to yoagent's types.
    for m in [user, assistant, tool] {
        assert!(vouches(m), "{m}");
    }
    for m in [edges[10], edges[15], edges[21], edges[26], edges[28]] {
        assert!(!vouches(m), "{m}");
    }
}
