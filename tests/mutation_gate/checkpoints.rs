//! Gate path 4: checkpoint restore, which no protocol operation reaches: a checkpoint of
//! each journal's first half must restore to the vector's ReplayState (K-REPLAY-1), and
//! every way K-IGNORE-1 lists of spoiling it must be ignored with a note.

use super::*;

/// A whole-journal replay check of a journal of at least two lines, with the cut after the
/// first half of its lines: what a checkpoint of the prefix must answer (K-REPLAY-1).
struct Restorable<'a> {
    case: &'a Case,
    expect: &'a Expect,
    profile: &'static str,
    /// The byte length of the prefix (the end of its last line).
    cut: usize,
    /// The end of the prefix's line before its last, when it has two or more.
    before_cut: Option<usize>,
    /// The number of lines after the cut.
    tail_lines: usize,
}

fn restorable(cases: &[Case]) -> Vec<Restorable<'_>> {
    let mut out = Vec::new();
    for case in cases {
        let Some(profile) = journal_profile(case.profile) else {
            continue;
        };
        for check in &case.checks {
            let Operation::Replay { until: None } = &check.op else {
                continue;
            };
            let ends: Vec<usize> = case
                .input
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1)
                .collect();
            if ends.len() < 2 {
                continue;
            }
            let half = ends.len() / 2;
            let cut = ends[half - 1];
            let before_cut = half.checked_sub(2).map(|i| ends[i]);
            let tail_lines = case.input[cut..].split(|b| *b == b'\n').count()
                - usize::from(case.input.ends_with(b"\n"));
            out.push(Restorable {
                case,
                expect: &check.expect,
                profile,
                cut,
                before_cut,
                tail_lines,
            });
        }
    }
    out
}

/// The files of one checkpoint replay: the whole journal, its prefix, the checkpoint.
struct CheckpointFiles {
    full: std::path::PathBuf,
    ck: std::path::PathBuf,
}

impl CheckpointFiles {
    /// Write the journal and its prefix, and `checkpoint` the prefix; `None` when the kit
    /// calls the prefix invalid (a torn stream's rules, say): nothing to restore.
    fn make(dir: &Path, r: &Restorable) -> Option<CheckpointFiles> {
        let full = dir.join("j.jsonl");
        let prefix = dir.join("p.jsonl");
        let ck = dir.join("p.ck.json");
        std::fs::write(&full, &r.case.input).unwrap();
        std::fs::write(&prefix, &r.case.input[..r.cut]).unwrap();
        let _ = std::fs::remove_file(&ck);
        let made = run(&[
            "checkpoint",
            "--profile",
            r.profile,
            "--out",
            ck.to_str().unwrap(),
            prefix.to_str().unwrap(),
        ]);
        (made.status.code() == Some(0)).then_some(CheckpointFiles { full, ck })
    }

    fn replay(&self, profile: &str, ck: &Path) -> Output {
        run(&[
            "replay",
            "--profile",
            profile,
            "--from-checkpoint",
            ck.to_str().unwrap(),
            self.full.to_str().unwrap(),
        ])
    }
}

/// `checkpoint` of the first half of a journal's lines, then `replay --from-checkpoint` of
/// the whole journal, must give the corpus's whole-journal replay (restore, then the tail):
/// its ReplayState, with the note that the checkpoint was used and how many tail events
/// were read (the lines after the cut), or its error (line numbers continue from the
/// prefix; `duplicate_event_id` and `unknown_parent` consult the id index).
#[test]
fn replay_from_a_checkpoint_answers_the_corpus() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cases = cli_cases();
    let (mut checked, mut errors) = (0, 0);
    let mut wrong = Vec::new();
    for r in restorable(&cases) {
        let Some(files) = CheckpointFiles::make(dir.path(), &r) else {
            continue;
        };
        let out = files.replay(r.profile, &files.ck);
        checked += 1;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let full = files.full.to_str().unwrap();
        let ok = match r.expect {
            Expect::Result { .. } => {
                let got = json::parse(String::from_utf8_lossy(&out.stdout).trim_end());
                out.status.code() == Some(0)
                    && stderr.trim_end()
                        == format!("checkpoint used: {} tail events replayed", r.tail_lines)
                    && got
                        .as_ref()
                        .is_ok_and(|v| judge(r.expect, &Answer::Result(v.clone())).is_none())
            }
            _ => {
                errors += 1;
                let answer = command_answer(&out, full, |stdout| {
                    Answer::Result(Value::from(stdout.to_owned()))
                });
                judge(r.expect, &answer).is_none()
            }
        };
        if !ok {
            wrong.push(format!(
                "{}: exit {:?}, stderr {stderr:?}, stdout {:?}",
                r.case.id,
                out.status.code(),
                String::from_utf8_lossy(&out.stdout)
            ));
        }
    }
    assert_all_right("checkpoint replays", checked, 50, &wrong);
    assert!(
        errors > 10,
        "only {errors} checkpoint replays end in an error"
    );
}

/// A copy of `v` with the member at `path` set to `new`, or removed when `new` is `None`.
fn with_member(v: &Value, path: &[&str], new: Option<Value>) -> Value {
    let Value::Object(members) = v else {
        panic!("not an object: {v:?}")
    };
    let mut members = members.clone();
    let (key, rest) = path.split_first().unwrap();
    let at = members.iter().position(|(k, _)| k == key);
    match (rest.is_empty(), at, new) {
        (true, Some(i), Some(n)) => members[i].1 = n,
        (true, Some(i), None) => {
            members.remove(i);
        }
        (true, None, Some(n)) => members.push((key.to_string(), n)),
        (false, Some(i), new) => members[i].1 = with_member(&members[i].1, rest, new),
        (_, at, new) => panic!("{path:?}: at {at:?}, {new:?}"),
    }
    Value::Object(members)
}

/// One way a checkpoint can fail to fit its journal, each of K-IGNORE-1's list.
struct Tamper {
    what: &'static str,
    /// The checkpoint file's new bytes (`None`: no file at all).
    checkpoint: Option<Vec<u8>>,
    /// The id index's new bytes (`None`: no index file at all).
    index: Option<Vec<u8>>,
}

fn sorted_digests<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<u8> {
    use sha2::Digest;
    let mut d: Vec<[u8; 32]> = ids.map(|id| sha2::Sha256::digest(id).into()).collect();
    d.sort_unstable();
    d.concat()
}

/// K-IGNORE-1's list applied to a good checkpoint `ck` of `r`'s prefix with index `index`.
fn tampers(r: &Restorable, ck: &Value, index: &[u8]) -> Vec<Tamper> {
    let text = |v: Value| {
        let mut t = journal_conformance::canonical::to_string(&v);
        t.push('\n');
        Some(t.into_bytes())
    };
    let member = |path: &[&str], new: Option<Value>| text(with_member(ck, path, new));
    let n = ck.get("event_count").and_then(Value::as_i64).unwrap();
    let offset = ck.get("source_offset").and_then(Value::as_i64).unwrap();
    let fp = ck
        .get("source_fingerprint")
        .and_then(Value::as_str)
        .unwrap();
    let other_fp = Value::from(format!("sha256:{}", "0".repeat(64)));
    let h0 = ck.get("hash_state").and_then(|h| h.get("h")).unwrap();
    let mut h = h0.as_array().unwrap().to_vec();
    h[0] = Value::from(if h[0].as_str() == Some("00000000") {
        "00000001"
    } else {
        "00000000"
    });
    let ids: Vec<String> = r.case.input[r.cut..]
        .split(|b| *b == b'\n')
        .filter_map(|l| json::parse(std::str::from_utf8(l).ok()?).ok())
        .filter_map(|v| v.get("event_id").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let good_index = Some(index.to_vec());
    let t = |what, checkpoint, index| Tamper {
        what,
        checkpoint,
        index,
    };
    let mut all = vec![
        t("the checkpoint file is missing", None, good_index.clone()),
        t("not UTF-8", Some(b"\xff\n".to_vec()), good_index.clone()),
        t("not JSON", Some(b"{\n".to_vec()), good_index.clone()),
        t("not an object", Some(b"[]\n".to_vec()), good_index.clone()),
        t(
            "a member missing",
            member(&["source_sequence"], None),
            good_index.clone(),
        ),
        t(
            "a member more",
            member(&["extra"], Some(Value::Null)),
            good_index.clone(),
        ),
        t(
            "another checkpoint_version",
            member(&["checkpoint_version"], Some(Value::from_i64(2))),
            good_index.clone(),
        ),
        t(
            "another reducer_version",
            member(&["reducer_version"], Some(Value::from("another/1"))),
            good_index.clone(),
        ),
        t(
            "event_count of the wrong type",
            member(&["event_count"], Some(Value::from(n.to_string()))),
            good_index.clone(),
        ),
        t(
            "source_sequence is not event_count - 1",
            member(&["source_sequence"], Some(Value::from_i64(n))),
            good_index.clone(),
        ),
        t(
            "id_index.count is not event_count",
            member(&["id_index", "count"], Some(Value::from_i64(n + 1))),
            good_index.clone(),
        ),
        t(
            "source_event_id of the wrong type",
            member(&["source_event_id"], Some(Value::from_i64(0))),
            good_index.clone(),
        ),
        t(
            "source_event_id is not the source event's",
            member(
                &["source_event_id"],
                Some(Value::from("not-the-source-event")),
            ),
            good_index.clone(),
        ),
        t(
            "source_offset of the wrong type",
            member(&["source_offset"], Some(Value::from(offset.to_string()))),
            good_index.clone(),
        ),
        t(
            "source_offset past the journal's end",
            member(
                &["source_offset"],
                Some(Value::from_i64(r.case.input.len() as i64 + 1)),
            ),
            good_index.clone(),
        ),
        t(
            "source_offset 0",
            member(&["source_offset"], Some(Value::from_i64(0))),
            good_index.clone(),
        ),
        t(
            "the byte before source_offset is not a newline",
            member(&["source_offset"], Some(Value::from_i64(offset - 1))),
            good_index.clone(),
        ),
        t(
            "source_fingerprint is not the projection's",
            member(&["source_fingerprint"], Some(other_fp.clone())),
            good_index.clone(),
        ),
        t(
            "projection.fingerprint is not source_fingerprint",
            member(&["projection", "fingerprint"], Some(other_fp)),
            good_index.clone(),
        ),
        t(
            "the finished hash_state is not source_fingerprint",
            member(&["hash_state", "h"], Some(Value::Array(h))),
            good_index.clone(),
        ),
        t(
            "hash_state of the wrong type",
            member(&["hash_state"], Some(Value::Null)),
            good_index.clone(),
        ),
        t(
            "the projection carries applied_sequences",
            member(
                &["projection", "applied_sequences"],
                Some(Value::Array((0..n).map(Value::from_i64).collect())),
            ),
            good_index.clone(),
        ),
        t(
            "the projection is not a ReplayState",
            text(with_member(
                ck,
                &["projection"],
                Some(Value::object([("fingerprint", Value::from(fp))])),
            )),
            good_index.clone(),
        ),
        t(
            "the checkpoint nests deeper than 130",
            member(
                &["projection", "tool_results"],
                Some(Value::Array(vec![
                    (0..140).fold(Value::Null, |v, _| Value::Array(vec![v]))
                ])),
            ),
            good_index.clone(),
        ),
        t(
            "the id index is missing",
            Some(text(ck.clone()).unwrap()),
            None,
        ),
        t(
            "id_index.file names no file",
            member(
                &["id_index", "file"],
                Some(Value::from("no-such-index.ids")),
            ),
            good_index.clone(),
        ),
        t(
            "the id index is a digest short",
            text(ck.clone()),
            Some(index[..index.len() - 32].to_vec()),
        ),
    ];
    if let Some(before) = r.before_cut {
        all.push(t(
            "source_offset ends the line before the source event",
            member(&["source_offset"], Some(Value::from_i64(before as i64))),
            good_index.clone(),
        ));
    }
    if let Some(first) = ids.first() {
        // The index claims the first tail event's id for the prefix: the duplicate it
        // implies rests on the index, whose sha256 no longer matches (K-IGNORE-1).
        let claimed: Vec<String> = std::iter::once(first.clone())
            .chain((1..n).map(|i| format!("not-an-id-{i}")))
            .collect();
        all.push(t(
            "the id index does not match its sha256",
            text(ck.clone()),
            Some(sorted_digests(claimed.iter().map(String::as_str))),
        ));
    }
    all
}

/// K-IGNORE-1: a checkpoint that does not fit its journal in any of the listed ways is
/// ignored with a note, and the replay from event zero gives the corpus's ReplayState. On
/// every fourth restorable valid journal (each tamper is one more process).
#[test]
fn a_checkpoint_that_does_not_fit_is_ignored() {
    let Some(_running) = fail_fast() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cases = cli_cases();
    let mut checked = 0;
    let mut wrong = Vec::new();
    let valid = restorable(&cases)
        .into_iter()
        .filter(|r| matches!(r.expect, Expect::Result { .. }));
    for r in valid.step_by(4) {
        let Some(files) = CheckpointFiles::make(dir.path(), &r) else {
            continue;
        };
        let good = json::parse(&std::fs::read_to_string(&files.ck).unwrap()).unwrap();
        let index_name = good.get("id_index").and_then(|i| i.get("file"));
        let index_file = dir.path().join(index_name.and_then(Value::as_str).unwrap());
        let index = std::fs::read(&index_file).unwrap();
        for tamper in tampers(&r, &good, &index) {
            let ck = dir.path().join("t.ck.json");
            let _ = std::fs::remove_file(&ck);
            if let Some(bytes) = &tamper.checkpoint {
                // The tampered checkpoint names the good one's index file; keep it there.
                std::fs::write(&ck, bytes).unwrap();
            }
            let _ = std::fs::remove_file(&index_file);
            if let Some(bytes) = &tamper.index {
                std::fs::write(&index_file, bytes).unwrap();
            }
            let out = files.replay(r.profile, &ck);
            std::fs::write(&index_file, &index).unwrap();
            checked += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            let got = json::parse(String::from_utf8_lossy(&out.stdout).trim_end());
            let ok = out.status.code() == Some(0)
                && stderr.starts_with("checkpoint ignored (")
                && stderr.ends_with("); replayed from event zero\n")
                && stderr.lines().count() == 1
                && got
                    .as_ref()
                    .is_ok_and(|v| judge(r.expect, &Answer::Result(v.clone())).is_none());
            if !ok {
                wrong.push(format!(
                    "{} ({}): exit {:?}, stderr {stderr:?}",
                    r.case.id,
                    tamper.what,
                    out.status.code(),
                ));
            }
        }
    }
    assert_all_right("tampered checkpoints", checked, 200, &wrong);
}
