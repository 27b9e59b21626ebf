//! The adapter protocol's JSON Schemas (schemas/protocol-1/) against real traffic: the
//! requests the runner builds for one check of every operation in the corpus, the
//! reference adapter's (`serve`) replies to them and to malformed requests, checked by
//! Python's `jsonschema` as an external validator (installed by .ci/run).

use std::io::Write;
use std::process::{Command, Stdio};

use journal_conformance::adapter::protocol::Request;
use journal_conformance::adapter::serve;
use journal_conformance::canonical;
use journal_conformance::runner::load_corpus;

#[test]
fn protocol_traffic_matches_the_schemas() {
    // One check per operation (and per error/result kind) from the corpus.
    let mut requests = vec![Request::Start.to_json()];
    let mut seen = std::collections::BTreeSet::new();
    let mut id = 0;
    for case in load_corpus(None).unwrap() {
        for ch in &case.checks {
            let key = (
                ch.op.name(),
                matches!(
                    ch.expect,
                    journal_conformance::verdict::Expect::Error { .. }
                ),
                case.profile.as_str(),
            );
            if seen.insert(key) {
                id += 1;
                requests.push(
                    Request::Run {
                        id,
                        op: &ch.op,
                        profile: case.profile,
                        input: &case.input,
                    }
                    .to_json(),
                );
            }
        }
    }
    assert!(seen.len() >= 10, "{seen:?}");
    requests.push(Request::Stop.to_json());
    let mut session = String::new();
    for r in &requests {
        session.push_str(&canonical::to_string(r));
        session.push('\n');
    }
    // Malformed requests get an `invalid_request` reply (A-REQ-1) before the stop.
    let bad =
        "not json\n{\"cmd\":\"run\",\"id\":99,\"op\":{\"op\":\"nope\"}}\n{\"cmd\":\"dance\"}\n";
    let session = session.replacen(
        "{\"cmd\":\"stop\"}",
        &format!("{bad}{{\"cmd\":\"stop\"}}"),
        1,
    );
    let mut replies = Vec::new();
    serve(session.as_bytes(), &mut replies).unwrap();
    let replies = String::from_utf8(replies).unwrap();
    assert_eq!(
        replies.lines().count(),
        requests.len() - 2 + 3 + 1,
        "one reply per request:\n{replies}"
    );

    // Validate with Python's jsonschema: requests against start/run/stop, the first
    // reply against handshake, the others against reply.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/protocol-1");
    let script = r#"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit("python3 -c 'import jsonschema' failed: pip install jsonschema (.ci/run does)")
d = sys.argv[1]
S = {n: json.load(open(f"{d}/{n}.schema.json")) for n in ["start", "run", "stop", "handshake", "reply"]}
req, rep = sys.stdin.read().split("\n===\n")
req = [json.loads(l) for l in req.splitlines()]
rep = [json.loads(l) for l in rep.splitlines()]
bad = 0
def check(v, name):
    global bad
    errs = list(jsonschema.Draft202012Validator(S[name]).iter_errors(v))
    if errs:
        bad += 1
        print(name, json.dumps(v)[:300], "->", errs[0].message[:300])
for r in req:
    check(r, {"start": "start", "run": "run", "stop": "stop"}[r["cmd"]])
check(rep[0], "handshake")
for r in rep[1:]:
    check(r, "reply")
print("checked", len(req), "requests and", len(rep), "replies")
sys.exit(1 if bad else 0)
"#;
    let mut child = Command::new("python3")
        .args(["-c", script, dir])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 is required (the external schema validator)");
    let input = format!(
        "{}\n===\n{}",
        requests
            .iter()
            .map(canonical::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        replies.trim_end()
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "schema violations:\n{text}");
    assert!(text.contains("checked"), "{text}");
}
