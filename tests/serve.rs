//! `journal-conformance serve` (the reference speaking protocol 1), in process.

use journal_conformance::adapter::serve;
use journal_conformance::json::{self, Value};

fn replies(session: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    serve(session, &mut out).unwrap();
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| json::parse_bytes(l).unwrap())
        .collect()
}

/// A-REQ-1: a line that is not JSON is answered `{"id":null,"error":{"code":"invalid_request"}}`
/// (the reply had no `id` member; flagged by the `protocol` fuzz target's A-REQ-1 check).
#[test]
fn unreadable_request_is_answered_with_id_null() {
    let r = replies(b"not json\n{\"cmd\":\"stop\"}\n");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].get("id"), Some(&Value::Null));
    let code = r[0].get("error").and_then(|e| e.get("code"));
    assert_eq!(code.and_then(Value::as_str), Some("invalid_request"));
}

/// A-REQ-1: an unknown cmd and a malformed run echo the request's id.
#[test]
fn bad_requests_echo_their_id() {
    let r = replies(b"{\"cmd\":\"nope\",\"id\":\"x\"}\n{\"cmd\":\"run\",\"id\":7}\n");
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].get("id").and_then(Value::as_str), Some("x"));
    assert_eq!(r[1].get("id").and_then(Value::as_i64), Some(7));
    for reply in &r {
        let code = reply.get("error").and_then(|e| e.get("code"));
        assert_eq!(code.and_then(Value::as_str), Some("invalid_request"));
    }
}
