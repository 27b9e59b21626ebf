//! The adapter protocol's JSON Schemas (schemas/protocol-1/) against real traffic: the
//! requests the runner builds for one check of every operation in the corpus, the
//! reference adapter's (`serve`) replies to them and to malformed requests, checked by
//! the `jsonschema` crate as an external validator (a dev-dependency).

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

    // Validate with the `jsonschema` crate (an external validator, draft 2020-12):
    // requests against start/run/stop, the first reply against handshake, the others
    // against reply.
    let v = Validators::load();
    let mut bad = Vec::new();
    for r in &requests {
        let r = parse(&canonical::to_string(r));
        let name = r["cmd"].as_str().unwrap().to_string();
        bad.extend(v.errors(&name, &r));
    }
    let mut replies = replies.lines().map(parse);
    bad.extend(v.errors("handshake", &replies.next().unwrap()));
    let mut n = 1;
    for r in replies {
        n += 1;
        bad.extend(v.errors("reply", &r));
    }
    assert!(bad.is_empty(), "schema violations:\n{}", bad.join("\n"));
    assert_eq!(n, requests.len() - 2 + 3 + 1);
}

/// The validator reads the schemas and rejects what they forbid (so the test above can
/// fail): one message per schema that breaks one of its rules, beside one it accepts.
#[test]
fn the_validator_rejects_what_the_schemas_forbid() {
    let v = Validators::load();
    let ok = [
        ("start", r#"{"cmd":"start","protocol":1}"#),
        ("stop", r#"{"cmd":"stop"}"#),
        (
            "run",
            r#"{"cmd":"run","id":1,"op":{"op":"replay","until":2},"profile":"core","input_base64":"e30="}"#,
        ),
        (
            "handshake",
            r#"{"protocol":1,"implementation":{"name":"x","version":"1","language":"rust"},"operations":["validate"],"profiles":["core"]}"#,
        ),
        (
            "reply",
            r#"{"id":1,"error":{"code":"sequence_gap","line":3}}"#,
        ),
    ];
    for (name, doc) in ok {
        assert_eq!(v.errors(name, &parse(doc)), Vec::<String>::new(), "{doc}");
    }
    let bad = [
        ("start", r#"{"cmd":"start","protocol":2}"#),
        ("stop", r#"{"cmd":"stop","now":true}"#),
        (
            "run",
            r#"{"cmd":"run","id":0,"op":{"op":"replay","until":2},"profile":"core","input_base64":"e30="}"#,
        ),
        (
            "run",
            r#"{"cmd":"run","id":1,"op":{"op":"replay","until":"2"},"profile":"core","input_base64":"e30="}"#,
        ),
        (
            "run",
            r#"{"cmd":"run","id":1,"op":{"op":"replay"},"profile":"core","input_base64":"e30=!"}"#,
        ),
        (
            "run",
            r#"{"cmd":"run","id":1,"op":{"op":"store_apply","steps":[{"step":"append"}]},"profile":"core","input_base64":""}"#,
        ),
        (
            "handshake",
            r#"{"protocol":1,"implementation":{"name":"x","version":"1","language":"rust"},"operations":["dance"],"profiles":["core"]}"#,
        ),
        (
            "handshake",
            r#"{"protocol":1,"implementation":{"name":"","version":"1","language":"rust"},"operations":[],"profiles":[]}"#,
        ),
        ("reply", r#"{"id":1,"result":{},"error":{"code":"x"}}"#),
        ("reply", r#"{"id":1,"error":{"code":"Sequence-Gap"}}"#),
        ("reply", r#"{"id":1,"error":{"code":"x","line":0}}"#),
        ("reply", r#"{"id":1}"#),
    ];
    for (name, doc) in bad {
        assert!(
            !v.errors(name, &parse(doc)).is_empty(),
            "{name} accepted {doc}"
        );
    }
}

fn parse(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// schemas/protocol-1/NAME.schema.json, compiled once each.
struct Validators(Vec<(&'static str, jsonschema::Validator)>);

impl Validators {
    fn load() -> Validators {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schemas/protocol-1");
        let names = ["start", "run", "stop", "handshake", "reply"];
        Validators(
            names
                .iter()
                .map(|&n| {
                    let path = format!("{dir}/{n}.schema.json");
                    let schema = parse(&std::fs::read_to_string(&path).unwrap());
                    assert_eq!(
                        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                        "{path}"
                    );
                    let v = jsonschema::draft202012::new(&schema)
                        .unwrap_or_else(|e| panic!("{path}: {e}"));
                    (n, v)
                })
                .collect(),
        )
    }

    /// Every violation of schema `name` by `doc`, one line each (empty: valid).
    fn errors(&self, name: &str, doc: &serde_json::Value) -> Vec<String> {
        let (_, v) = self.0.iter().find(|(n, _)| *n == name).unwrap();
        let text: String = doc.to_string().chars().take(300).collect();
        v.iter_errors(doc)
            .map(|e| format!("{name}: {text} -> {e} at {}", e.instance_path()))
            .collect()
    }
}
