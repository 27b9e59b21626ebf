//! Gate path 20: what the reference's messages say. SPEC.md never compares messages
//! between implementations (O-ERR-1), but the kit's own are what its users read: an
//! error names the place and says what is wrong (the README's promise of a located
//! diagnostic), and SPEC.md 4.2 says a `profile_violation`'s message names the JSON
//! Pointer of the field. So the corpus cannot catch a reference that words an error
//! `found ` instead of `found integer`, or lists no operation in a usage error; this
//! path does. Every expected fragment is derived here from the input: the type of the
//! value planted at the place (named as `json::Value::kind`'s doc names JSON's types:
//! null, boolean, integer, float, string, array, object), the pointer of that place, the
//! literal that is not JSON (`NaN`, `Infinity`, RFC 8259 section 6), the character found
//! where a value was due, the operations SPEC.md section 9 lists.

use std::path::Path;

use super::{fail_fast, run, BIN};

/// One input and the fragments its diagnostic must hold.
struct Row {
    /// What the input plants.
    what: &'static str,
    input: String,
    fragments: Vec<String>,
}

fn row(what: &'static str, input: impl Into<String>, fragments: &[&str]) -> Row {
    Row {
        what,
        input: input.into(),
        fragments: fragments.iter().map(|f| f.to_string()).collect(),
    }
}

/// Run `args` then the file holding each row's input; each must exit 1 with a diagnostic
/// that holds the row's fragments.
fn check(dir: &Path, args: &[&str], rows: &[Row]) {
    let file = dir.join("input");
    let file = file.to_str().unwrap();
    let mut wrong = Vec::new();
    for r in rows {
        std::fs::write(file, &r.input).unwrap();
        let mut argv = args.to_vec();
        argv.push(file);
        let out = run(&argv);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let missing: Vec<&String> = r
            .fragments
            .iter()
            .filter(|f| !stderr.contains(f.as_str()))
            .collect();
        if out.status.code() != Some(1) || !missing.is_empty() {
            wrong.push(format!(
                "{} ({args:?}): exit {:?}, missing {missing:?} in:\n{stderr}",
                r.what,
                out.status.code()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A `canonical` document that is not JSON: the literals JSON lacks are named, and
/// anything else is the character found (a word that only starts like one of them is
/// not called it).
#[test]
fn a_document_error_says_what_was_found() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        row(
            "NaN",
            "NaN",
            &[":1:1: error[invalid_json]", "NaN is not JSON"],
        ),
        row(
            "Infinity in an array",
            "[Infinity]",
            &[":1:2: error[invalid_json]", "Infinity is not JSON"],
        ),
        row(
            "Python's None",
            "[None]",
            &[":1:2: error[invalid_json]", "unexpected character 'N'"],
        ),
        row(
            "Inf, not Infinity",
            "[1,Inf]",
            &[":1:4: error[invalid_json]", "unexpected character 'I'"],
        ),
    ];
    check(dir.path(), &["canonical"], &rows);
}

/// A core envelope member of the wrong type (E-OBJ-1 .. E-PAYLOAD-1, `malformed_event`):
/// the message names the member and the type found, one row per JSON type.
#[test]
fn an_envelope_error_names_the_member_and_the_type_found() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let start = r#"{"event_id":"e0","session_id":"s","#;
    let rows = [
        row("an array line", "[]\n", &["an event must be a JSON object, found array"]),
        row(
            "event_id null",
            "{\"event_id\":null}\n",
            &["`event_id`", "found null"],
        ),
        row(
            "event_id true",
            "{\"event_id\":true}\n",
            &["`event_id`", "found boolean"],
        ),
        row(
            "event_id 5",
            "{\"event_id\":5}\n",
            &["`event_id`", "found integer"],
        ),
        row(
            "sequence 1.5",
            format!("{start}\"sequence\":1.5}}\n"),
            &["`sequence`", "found float"],
        ),
        row(
            "sequence {}",
            format!("{start}\"sequence\":{{}}}}\n"),
            &["`sequence`", "found object"],
        ),
        row(
            "payload \"x\"",
            format!("{start}\"sequence\":0,\"type\":\"t\",\"payload\":\"x\"}}\n"),
            &["`payload`", "found string"],
        ),
        // SPEC.md J-SEQ-1: the message gives the expected and the found sequence.
        row(
            "sequence 3 first",
            format!(
                "{start}\"sequence\":3,\"type\":\"t\",\"payload\":{{}},\"provenance\":{{\"run_id\":\"r\"}}}}\n"
            ),
            &["error[sequence_gap]: expected sequence 0, found 3"],
        ),
    ];
    check(dir.path(), &["validate"], &rows);
}

/// A Trace 0.1 field of the wrong type (P-TRACE-*, `profile_violation`): SPEC.md 4.2's
/// JSON Pointer of the field, and the type found. Each row changes one member of an
/// event the profile accepts (checked first, so a row cannot fail for another reason).
#[test]
fn a_profile_violation_names_the_pointer_and_the_type_found() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let valid = concat!(
        r#"{"trace_version":"0.1.0","event_id":"e0","session_id":"s","sequence":0,"#,
        r#""timestamp":"2026-12-01T00:00:00Z","type":"session.start","#,
        r#""actor":{"kind":"harness","id":"h"},"payload":{},"#,
        r#""provenance":{"run_id":"r","agent_id":"a","snapshot_id":"n","surface":"cli","#,
        r#""harness_mode":"fake","model":"m"},"#,
        r#""redaction":{"status":"clean","fields":[]},"duration_ms":1}"#
    );
    let file = dir.path().join("valid.jsonl");
    std::fs::write(&file, format!("{valid}\n")).unwrap();
    let out = run(&["validate", "--profile", "trace-0.1", file.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the unchanged event: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let with = |from: &str, to: &str| {
        assert!(valid.contains(from), "{from}");
        format!("{}\n", valid.replacen(from, to, 1))
    };
    let rows = [
        row(
            "actor.kind 7",
            with(r#""kind":"harness""#, r#""kind":7"#),
            &["/actor/kind", "must be a string, found integer"],
        ),
        row(
            "actor []",
            with(r#""actor":{"kind":"harness","id":"h"}"#, r#""actor":[]"#),
            &["/actor:", "must be an object, found array"],
        ),
        row(
            "redaction.fields \"x\"",
            with(r#""fields":[]"#, r#""fields":"x""#),
            &["/redaction/fields", "must be an array, found string"],
        ),
        row(
            "duration_ms \"5\"",
            with(r#""duration_ms":1"#, r#""duration_ms":"5""#),
            &["/duration_ms", "must be a number, found string"],
        ),
        row(
            "duration_ms null",
            with(r#""duration_ms":1"#, r#""duration_ms":null"#),
            &["/duration_ms", "must be a number, found null"],
        ),
    ];
    check(dir.path(), &["validate", "--profile", "trace-0.1"], &rows);
}

/// A tree entry of the wrong type (T-ENTRY-1, `malformed_entry`).
#[test]
fn a_tree_entry_error_names_the_member_and_the_type_found() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        row(
            "id true",
            "{\"id\":true,\"message\":1}\n",
            &["`id`", "found boolean"],
        ),
        row(
            "parent_id 3",
            "{\"id\":\"a\",\"parent_id\":3,\"message\":1}\n",
            &["`parent_id`", "found integer"],
        ),
        // SPEC.md T-ID-1: the message names the id; T-PARENT-1: the entry and the parent.
        row(
            "id a twice",
            concat!(
                "{\"id\":\"a\",\"message\":1,\"timestamp\":1}\n",
                "{\"id\":\"a\",\"message\":2,\"timestamp\":2}\n"
            ),
            &[":2: error[duplicate_entry_id]", "\"a\""],
        ),
        row(
            "parent zz",
            concat!(
                "{\"id\":\"a\",\"message\":1,\"timestamp\":1}\n",
                "{\"id\":\"b\",\"parent_id\":\"zz\",\"message\":2,\"timestamp\":2}\n"
            ),
            &[":2: error[unknown_parent]", "\"b\"", "\"zz\""],
        ),
    ];
    check(dir.path(), &["tree", "validate"], &rows);
}

/// A usage error lists the choices: an unknown name in `fuzz --ops` is answered with
/// every operation SPEC.md section 9 defines, and the run exits 2 before it starts.
#[test]
fn an_unknown_operation_lists_every_operation() {
    let Some(_running) = fail_fast() else { return };
    let serve = format!("{BIN} serve");
    let out = run(&[
        "fuzz",
        "--adapter",
        &serve,
        "--ops",
        "validate,bogus",
        "--runs",
        "1",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("\"bogus\""), "{stderr}");
    for op in [
        "validate",
        "replay",
        "fingerprint",
        "branch",
        "canonical",
        "tree_inspect",
        "tree_apply",
        "store_apply",
    ] {
        assert!(
            stderr.contains(&format!("{op},")) || stderr.contains(&format!("{op})")),
            "{op} is not listed: {stderr}"
        );
    }
}

/// A vector file with a malformed `store_apply` step (`test --corpus DIR`, a user's own
/// corpus) is refused with exit 2, naming the case, the check and what is wrong with the
/// step.
#[test]
fn a_malformed_store_step_in_a_users_corpus_is_named() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let vector = |step: &str| {
        format!(
            r#"{{"cases":[{{"name":"bad-step","description":"x","rules":["S-OPS-1"],"input":"","checks":[{{"op":{{"op":"store_apply","steps":[{step}]}},"expect":{{"result":{{}}}}}}]}}]}}"#
        )
    };
    for (step, says) in [
        (r#"{"step":"bogus"}"#, "\"bogus\""),
        (r#"{"step":"append"}"#, "`line`"),
        (r#"{"step":"append","line":"x","at":1}"#, "\"at\""),
    ] {
        std::fs::write(dir.path().join("bad.json"), vector(step)).unwrap();
        let out = run(&["test", "--corpus", dir.path().to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{step}: {stderr}");
        assert!(
            stderr.contains("bad/bad-step: check #0") && stderr.contains(says),
            "{step}: {says} not in {stderr}"
        );
    }
}
