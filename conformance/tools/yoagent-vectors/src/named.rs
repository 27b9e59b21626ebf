//! Hand-chosen inputs, one or more per way a port of yoagent 0.26 can differ from it
//! (issue 19, "What was seen" point 3), and the whitespace table; every expected value is
//! still the real crate's answer (`crate::expect`).

use serde_json::{json, Value};

use crate::gen::{whitespace_code_points, WS_POSITIONS};
use crate::{append, append_new, case, custom, save_load, seek_cp, user, Case};

const USER: &str = r#"{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}"#;
const ASSISTANT: &str = r#"{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3},"timestamp":2}"#;

/// An entry line with `message` written verbatim.
fn raw(id: &str, parent: Option<&str>, message: &str) -> String {
    format!(
        "{{\"id\":{},\"parent_id\":{},\"message\":{message},\"timestamp\":1}}",
        json!(id),
        json!(parent)
    )
}

/// An assistant message with `usage` written verbatim.
fn assistant_usage(usage: &str) -> String {
    format!(
        r#"{{"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p","usage":{usage},"timestamp":2}}"#
    )
}

fn tool_call(block_members: &str) -> String {
    format!(
        r#"{{"role":"assistant","content":[{{"type":"toolCall",{block_members}}}],"stopReason":"toolUse","model":"m","provider":"p","usage":{{"input":1,"output":2}},"timestamp":2}}"#
    )
}

fn cust(data: &str) -> String {
    format!(r#"{{"role":"extension","kind":"k","data":{data}}}"#)
}

/// `case(...)` loaded, inspected and saved (`tree_apply` with no steps).
fn saved(name: &str, desc: &str, rules: &[&'static str], tag: &'static str, input: String) -> Case {
    case(name, desc, rules, input)
        .and_apply(vec![])
        .tags(&[tag])
}

const SAVE: &[&str] = &["T-YO-SAVE-1"];
const MSG: &[&str] = &["T-YO-MSG-1"];
const LOAD: &[&str] = &["T-YO-LOAD-1"];
const NEXT: &[&str] = &["T-YO-NEXT-1"];
const AN: &[&str] = &["T-YO-APPENDNEW-1"];

/// The custom message of `cust(..)` with data `{"n": n}`, as a step's JSON.
fn data_is(n: Value) -> Value {
    custom("k", json!({ "n": n }))
}

pub fn category_cases() -> Vec<Case> {
    let file_n = |lit: &str| raw("e1", None, &cust(&format!("{{\"n\":{lit}}}")));
    let mut v = vec![
        // Member order inside serde_json Values on save: sorted (serde_json without
        // preserve_order), not as written.
        saved("save-sorts-custom-data-members", "Custom data members are saved sorted by key (serde_json's Map is a BTreeMap), at every level, not in the order written.", SAVE, "member-order",
              raw("e1", None, &cust(r#"{"zeta":1,"alpha":{"y":1,"b":2,"B":3},"Mid":[{"2":2,"10":10}],"_":null}"#))),
        saved("save-sorts-tool-arguments-members", "Tool-call arguments are saved with their members sorted, not in the order the model wrote them.", SAVE, "member-order",
              raw("e1", None, &tool_call(r#""id":"c1","name":"bash","arguments":{"timeout":30,"command":"ls","env":{"PATH":"/bin","HOME":"/root"}}"#))),
        saved("save-sorts-provider-metadata-members", "providerMetadata members are saved sorted.", &["T-YO-SAVE-1", "T-YO-MSG-1"], "member-order",
              raw("e1", None, &tool_call(r#""id":"c1","name":"bash","arguments":{},"providerMetadata":{"z":1,"a":{"d":1,"c":2}}"#))),
        saved("save-struct-order-not-sorted", "Struct members are saved in yoagent's declaration order (stopReason before model before usage; input, output, cacheRead...), neither as written nor sorted.", SAVE, "member-order",
              raw("e1", None, r#"{"usage":{"totalTokens":3,"output":2,"input":1},"timestamp":2,"provider":"p","model":"m","stopReason":"stop","content":[{"text":"x","type":"text"}],"role":"assistant"}"#)),
        // Integer vs float in append_new (Value's PartialEq).
        case("append-new-integer-differs-from-float", "append_new compares serde_json Values: the path's integer 1 is not the history's float 1.0.", AN, file_n("1"))
            .apply(vec![append_new(vec![data_is(json!(1.0)), user("next", 2)], 5)]).tags(&["int-vs-float"]),
        case("append-new-float-differs-from-integer", "The path's float 1.0 is not the history's integer 1.", AN, file_n("1.0"))
            .apply(vec![append_new(vec![data_is(json!(1)), user("next", 2)], 5)]).tags(&["int-vs-float"]),
        case("append-new-float-spellings-equal", "1E+2 in the file and 100.0 in the history are the same f64: equal, the rest is appended.", AN, file_n("1E+2"))
            .apply(vec![append_new(vec![data_is(json!(100.0)), user("next", 2)], 5)]).tags(&["int-vs-float", "numbers"]),
        case("append-new-big-integer-is-a-float", "18446744073709551616 (over u64) is read as the f64 1.8446744073709552e19: equal to that float.", AN, file_n("18446744073709551616"))
            .apply(vec![append_new(vec![data_is(json!(18446744073709551616.0)), user("next", 2)], 5)]).tags(&["int-vs-float", "numbers"]),
        case("append-new-u64-max-is-an-integer", "18446744073709551615 is a u64: it differs from the float of the same value.", AN, file_n("18446744073709551615"))
            .apply(vec![append_new(vec![data_is(json!(18446744073709551615.0)), user("next", 2)], 5),
                        append_new(vec![data_is(json!(18446744073709551615u64)), user("next", 2)], 6)]).tags(&["int-vs-float", "numbers"]),
        case("append-new-negative-integer-vs-float", "-1 (an i64) differs from -1.0.", AN, file_n("-1"))
            .apply(vec![append_new(vec![data_is(json!(-1.0))], 5), append_new(vec![data_is(json!(-1))], 6)]).tags(&["int-vs-float"]),
        // Repeated members and both spellings of an alias.
        case("message-repeated-member", "A member repeated inside a message (timestamp twice) is a serde error: the message is no AgentMessage.", MSG,
             raw("e1", None, r#"{"role":"user","content":[],"timestamp":1,"timestamp":2}"#)).tags(&["repeated-member"]),
        case("message-repeated-role", "The tag member repeated inside a message (role twice).", MSG,
             raw("e1", None, r#"{"role":"user","role":"user","content":[],"timestamp":1}"#)).and_apply(vec![]).tags(&["repeated-member"]),
        case("content-repeated-member", "A member repeated inside a content block (text twice).", MSG,
             raw("e1", None, r#"{"role":"user","content":[{"type":"text","text":"a","text":"b"}],"timestamp":1}"#)).tags(&["repeated-member"]),
        case("content-repeated-type", "The block tag repeated (type twice).", MSG,
             raw("e1", None, r#"{"role":"user","content":[{"type":"text","type":"text","text":"a"}],"timestamp":1}"#)).and_apply(vec![]).tags(&["repeated-member"]),
        case("usage-repeated-member", "A member repeated inside usage (input twice).", MSG,
             raw("e1", None, &assistant_usage(r#"{"input":1,"input":2,"output":3}"#))).tags(&["repeated-member"]),
        case("custom-repeated-member", "A member repeated inside a custom message (kind twice).", MSG,
             raw("e1", None, r#"{"role":"extension","kind":"a","kind":"b","data":1}"#)).and_apply(vec![]).tags(&["repeated-member"]),
        case("alias-both-error-message", "errorMessage and its alias error_message both present: one field given twice.", MSG,
             raw("e1", None, r#"{"role":"assistant","content":[],"stopReason":"error","model":"m","provider":"p","usage":{"input":1,"output":2},"timestamp":2,"errorMessage":"a","error_message":"b"}"#)).and_apply(vec![]).tags(&["alias"]),
        case("alias-both-cache-read", "cacheRead and cache_read both present.", MSG,
             raw("e1", None, &assistant_usage(r#"{"input":1,"output":2,"cacheRead":3,"cache_read":4}"#))).and_apply(vec![]).tags(&["alias"]),
        case("alias-both-cache-write", "cacheWrite and cache_write both present (snake first).", MSG,
             raw("e1", None, &assistant_usage(r#"{"input":1,"output":2,"cache_write":4,"cacheWrite":3}"#))).and_apply(vec![]).tags(&["alias"]),
        case("alias-both-total-tokens", "totalTokens and total_tokens both present.", MSG,
             raw("e1", None, &assistant_usage(r#"{"input":1,"output":2,"totalTokens":3,"total_tokens":3}"#))).and_apply(vec![]).tags(&["alias"]),
        case("alias-both-redacted-protocol", "redactedProtocol and redacted_protocol both present.", MSG,
             raw("e1", None, r#"{"role":"assistant","content":[{"type":"thinking","thinking":"","redacted":"x","redactedProtocol":"anthropic_messages","redacted_protocol":"google_vertex"}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2},"timestamp":2}"#)).and_apply(vec![]).tags(&["alias"]),
        case("alias-both-provider-metadata", "providerMetadata and provider_metadata both present.", MSG,
             raw("e1", None, &tool_call(r#""id":"c1","name":"bash","arguments":{},"providerMetadata":{"a":1},"provider_metadata":{"b":2}"#))).and_apply(vec![]).tags(&["alias", "provider-metadata"]),
        saved("alias-snake-spellings-saved-camel", "Every snake_case alias alone loads and is saved in camelCase.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "alias",
              [raw("e1", None, r#"{"role":"assistant","content":[{"type":"thinking","thinking":"","redacted":"x","redacted_protocol":"google_vertex"},{"type":"toolCall","id":"c","name":"n","arguments":1,"provider_metadata":{"sig":"s"}}],"stopReason":"error","model":"m","provider":"p","usage":{"input":1,"output":2,"cache_read":3,"cache_write":4,"total_tokens":10},"timestamp":2,"error_message":"boom"}"#)].join("\n")),
        // Unknown members, by where they sit.
        saved("unknown-members-at-every-level", "Unknown members at the entry, message, content block and usage are all ignored and not saved.", &["T-YO-LOAD-1", "T-YO-MSG-1", "T-YO-SAVE-1"], "unknown-members",
              r#"{"x":1,"id":"e1","parent_id":null,"message":{"meta":{"a":[1]},"role":"assistant","content":[{"type":"text","text":"t","cache_control":{"type":"ephemeral"}}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2,"reasoning":9},"timestamp":2},"timestamp":1,"y":null}"#.into()),
        saved("unknown-member-in-custom-message", "An unknown member beside role, kind and data is ignored and not saved.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "unknown-members",
              raw("e1", None, r#"{"role":"extension","kind":"k","data":{"keep":1},"extra":"dropped"}"#)),
    ];
    let huge = format!("1{}", "0".repeat(400));
    for (site, what, val) in [
        ("entry", "lone-surrogate", r#""\ud800""#),
        ("message", "lone-surrogate", r#""\ud800""#),
        ("content", "lone-surrogate", r#""\ud800""#),
        ("entry", "out-of-range-number", "1e400"),
        ("message", "out-of-range-number", "1e400"),
        ("usage", "out-of-range-number", "1e400"),
        ("entry", "huge-integer", huge.as_str()),
        ("message", "huge-integer", huge.as_str()),
    ] {
        let holding = match what {
            "lone-surrogate" => "a lone surrogate escape",
            "out-of-range-number" => "the number 1e400 (out of f64 range)",
            _ => "a 401-digit integer",
        };
        let input = match site {
            "entry" => format!(
                r#"{{"id":"e1","parent_id":null,"x":{val},"message":{USER},"timestamp":1}}"#
            ),
            "message" => raw(
                "e1",
                None,
                &format!(r#"{{"role":"user","x":{val},"content":[],"timestamp":1}}"#),
            ),
            "content" => raw(
                "e1",
                None,
                &format!(
                    r#"{{"role":"user","content":[{{"type":"text","x":{val},"text":"t"}}],"timestamp":1}}"#
                ),
            ),
            _ => raw(
                "e1",
                None,
                &assistant_usage(&format!(r#"{{"input":1,"x":{val},"output":2}}"#)),
            ),
        };
        v.push(case(&format!("unknown-{site}-member-{what}"),
                    &format!("An unknown {site} member holding {holding}: serde_json skips an ignored entry member without reading it as a value, but inside a message (an internally tagged, untagged enum) every member is buffered as a value first, so there it is an error."),
                    &["T-YO-LOAD-1", "T-YO-MSG-1"], input).and_apply(vec![]).tags(&["unknown-members"]));
    }
    v.extend([
        // Which variant wins.
        saved("variant-user-with-custom-members", "A user message that also has kind and data: Llm is tried first, so it is a user message (kind and data dropped on save).", &["T-YO-MSG-1", "T-YO-SAVE-1"], "variant",
              raw("e1", None, r#"{"role":"user","content":[],"timestamp":1,"kind":"k","data":{"a":1}}"#)),
        saved("variant-assistant-without-usage-is-custom", "An assistant message without usage but with kind and data is not an Llm message, so it is a custom message of role \"assistant\" (content, model... dropped).", &["T-YO-MSG-1", "T-YO-SAVE-1"], "variant",
              raw("e1", None, r#"{"role":"assistant","content":[{"type":"text","text":"t"}],"stopReason":"stop","model":"m","provider":"p","timestamp":2,"kind":"k","data":[1]}"#)),
        saved("variant-user-without-timestamp-is-custom", "A user message without its timestamp but with kind and data is a custom message of role \"user\".", &["T-YO-MSG-1", "T-YO-SAVE-1"], "variant",
              raw("e1", None, r#"{"role":"user","content":[],"kind":"k","data":null}"#)),
        saved("variant-extension-with-user-members", "An extension message with content and timestamp too stays custom; the extra members are dropped.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "variant",
              raw("e1", None, r#"{"role":"extension","kind":"k","data":1,"content":[],"timestamp":1}"#)),
        saved("variant-tool-result-with-assistant-members", "A tool result with assistant members too is a tool result.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "variant",
              raw("e1", None, r#"{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":false,"timestamp":1,"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2}}"#)),
        case("variant-neither", "Members of no variant in full (a user message without timestamp, no kind): no AgentMessage.", MSG,
             raw("e1", None, r#"{"role":"user","content":[],"data":1}"#)).tags(&["variant"]),
        // Required fields without a default.
        case("tool-call-without-arguments", "A toolCall without arguments: a serde_json Value field has no default, so the message is rejected.", MSG,
             raw("e1", None, &tool_call(r#""id":"c1","name":"bash""#))).tags(&["required"]),
        saved("tool-call-arguments-null", "arguments null is a Value and is kept.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "required",
              raw("e1", None, &tool_call(r#""id":"c1","name":"bash","arguments":null"#))),
        case("custom-without-data", "A custom message without data is rejected (data has no default).", MSG,
             raw("e1", None, r#"{"role":"extension","kind":"k"}"#)).tags(&["required"]),
        saved("custom-data-null", "data null is a Value and is kept.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "required",
              raw("e1", None, r#"{"role":"extension","kind":"k","data":null}"#)),
        saved("optional-members-absent-or-null", "Option fields without serde(default) still read absent as none: a thinking block without signature, an assistant errorMessage null.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "required",
              raw("e1", None, r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t"}],"stopReason":"stop","model":"m","provider":"p","usage":{"input":1,"output":2},"timestamp":2,"errorMessage":null}"#)),
        case("usage-without-input", "usage.input has no default: rejected.", MSG, raw("e1", None, &assistant_usage(r#"{"output":2}"#))).tags(&["required"]),
        // Number spellings on save.
        saved("save-number-negative-zero", "-0 is read as the f64 -0.0 and saved as -0.0; 0 stays 0.", SAVE, "numbers", raw("e1", None, &cust("[-0,-0.0,0,0.0,-0e5]"))),
        saved("save-number-underflow", "1e-400 underflows to 0.0; 5e-324 and 3e-324 are the smallest subnormal.", SAVE, "numbers", raw("e1", None, &cust("[1e-400,-1e-400,5e-324,3e-324,2e-324]"))),
        saved("save-number-exponents", "1e21, 1e20, 1E+2, 1e+0, 2.50 and integers beyond i64/u64 range are saved as serde_json writes their f64; 9007199254740993 (in u64 range) stays exact.", SAVE, "numbers",
              raw("e1", None, &cust("[1e21,1e20,1E+2,1e+0,2.50,123456789012345678901234567890,100000000000000000000,9007199254740993]"))),
        saved("save-number-serde-rounding", "Long decimals that serde_json's default float parser (no float_roundtrip) rounds to a neighbour of the correctly rounded double: saved as serde_json read them.", SAVE, "numbers",
              raw("e1", None, &cust(&format!("[{}]", crate::gen::misrounded_literals(4).join(","))))),
        case("save-load-float-drifts", "A double serde_json read from a long decimal, saved with its shortest digits, is read back by serde_json's parser as a neighbouring double: each save_load can change the saved digits.", &["T-YO-SAVE-1"],
             raw("e1", None, &cust(&format!("[{}]", crate::gen::drifting_literals(2).join(",")))))
            .and_apply(vec![]).and_apply(vec![save_load()]).and_apply(vec![save_load(), save_load()]).tags(&["numbers"]),
        case("usage-exponent-rejected", "A usage counter spelled 1E+2 is a float to serde_json: not a u64.", MSG, raw("e1", None, &assistant_usage(r#"{"input":1E+2,"output":2}"#))).tags(&["numbers"]),
        case("message-timestamp-negative-zero", "A message timestamp -0 is a float to serde_json: not a u64.", MSG, raw("e1", None, r#"{"role":"user","content":[],"timestamp":-0}"#)).tags(&["numbers"]),
        // Escapes.
        saved("escapes-saved-decoded", "\\/, \\u00e9, \\u00E9 and a surrogate pair are decoded and saved raw; controls are saved as serde_json escapes them.", &["T-YO-LOAD-1", "T-YO-SAVE-1"], "escapes",
              raw("e1", None, r#"{"role":"user","content":[{"type":"text","text":"a\/b \u00e9 \u00E9 \ud83d\ude00 \u0000\u001f\u007f \b\f"}],"timestamp":1}"#).replace("\"e1\"", r#""\u00e9\/1""#)),
        case("escape-id-collides", "The id \\u0065\\u0031 is e1: a duplicate of the first entry.", &["T-YO-TREE-1", "T-YO-LOAD-1"],
             [raw("e1", None, USER), r#"{"id":"\u0065\u0031","parent_id":null,"message":"#.to_owned() + USER + r#","timestamp":1}"#].join("\n")).tags(&["escapes"]),
        case("escape-id-counts", "The id \\u00657 is e7: the counter is 7.", NEXT,
             format!(r#"{{"id":"\u00657","parent_id":null,"message":{USER},"timestamp":1}}"#)).and_apply(vec![append(user("x", 1), 9)]).tags(&["escapes"]),
        case("escape-parent-resolves", "A parent spelled \\u0065\\u0031 is e1.", &["T-YO-LOAD-1", "T-PATH-1"],
             [raw("e1", None, USER), format!(r#"{{"id":"e2","parent_id":"\u0065\u0031","message":{ASSISTANT},"timestamp":1}}"#)].join("\n")).tags(&["escapes"]),
        case("escape-label-seeks", "A label spelled \\u0063p is cp.", &["T-SEEKCP-1"],
             format!(r#"{{"id":"e1","parent_id":null,"message":{USER},"timestamp":1,"label":"\u0063p"}}"#)).apply(vec![seek_cp("cp"), append(user("x", 1), 2)]).tags(&["escapes"]),
        saved("escape-member-names", "Member names spelled with escapes (\\u0069d, t\\u0065xt) are the fields they spell.", &["T-YO-LOAD-1", "T-YO-SAVE-1"], "escapes",
              r#"{"\u0069d":"e1","parent_id":null,"message":{"role":"user","content":[{"type":"text","t\u0065xt":"x"}],"timestamp":1},"timestamp":1}"#.to_string()),
        case("escape-lone-surrogate-in-id", "A lone surrogate in an id is rejected.", LOAD,
             format!(r#"{{"id":"e\udc001","parent_id":null,"message":{USER},"timestamp":1}}"#)).tags(&["escapes"]),
        // Id counter spellings.
        case("counter-leading-zeros", "e0000007 counts as 7: next e8.", NEXT, raw("e0000007", None, USER)).and_apply(vec![append(user("x", 1), 2)]).tags(&["counter"]),
        case("counter-plus-sign", "e+5 counts as 5 (u64::from_str takes a leading +): next e6.", NEXT, raw("e+5", None, USER)).and_apply(vec![append(user("x", 1), 2)]).tags(&["counter"]),
        case("counter-non-ascii-digits", "Non-ASCII digits (Arabic-Indic three, fullwidth one, superscript zero) do not count.", NEXT,
             [raw("e\u{663}", None, USER), raw("e\u{ff11}", Some("e\u{663}"), USER), raw("e\u{2070}", Some("e\u{ff11}"), USER)].join("\n")).tags(&["counter"]),
        case("counter-over-u64", "e18446744073709551616 and longer do not fit a u64 and do not count.", NEXT,
             [raw("e18446744073709551616", None, USER), raw("e99999999999999999999999", None, USER), raw("e3", None, USER)].join("\n")).tags(&["counter"]),
        case("counter-zero-forms", "e0, e00 and e+0 count as 0; e-1, E5, e 1, e1.0 and e1e2 do not count.", NEXT,
             [raw("e0", None, USER), raw("e00", None, USER), raw("e+0", None, USER), raw("e-1", None, USER), raw("E5", None, USER), raw("e 1", None, USER), raw("e1.0", None, USER), raw("e1e2", None, USER)].join("\n")).tags(&["counter"]),
        case("counter-padded-id-not-reused", "e01 reads as 1, so appends name e2 and e3 and the id e1 is never given (e01 is not e1).", NEXT,
             raw("e01", None, USER)).apply(vec![append(user("x", 1), 2), append(user("y", 2), 3), save_load()]).tags(&["counter"]),
        // Whitespace trimmed by str::trim.
        case("trim-vertical-tab", "U+000B around a line is trimmed (Unicode White_Space).", LOAD, format!("\u{b}{}\u{b}", raw("e1", None, USER))).tags(&["whitespace"]),
        case("trim-form-feed", "U+000C around a line is trimmed.", LOAD, format!("\u{c}{}\u{c}\n\u{c}", raw("e1", None, USER))).tags(&["whitespace"]),
        case("no-trim-zero-width-space", "U+200B is not White_Space: the line is not JSON to serde_json.", LOAD, format!("\u{200b}{}", raw("e1", None, USER))).tags(&["whitespace"]),
        case("no-trim-information-separator", "U+001F (Python's isspace says yes) is not White_Space to Rust.", LOAD, format!("{}\u{1f}", raw("e1", None, USER))).tags(&["whitespace"]),
        case("no-trim-mongolian-vowel-separator", "U+180E is no longer White_Space.", LOAD, format!("{}\u{180e}", raw("e1", None, USER))).tags(&["whitespace"]),
        case("whitespace-between-tokens", "Between tokens serde_json allows only space, tab, LF and CR: a VT between tokens is an error even though trim removes it at the ends.", LOAD,
             raw("e1", None, USER).replace(",\"timestamp\":1}", ",\u{b}\"timestamp\":1}")).tags(&["whitespace"]),
    ]);
    // Array-form entries of every length 0..=6.
    let elems = ["\"e1\"", "null", USER, "1", "\"lbl\"", "7"];
    for len in 0..=6 {
        v.push(case(&format!("array-entry-length-{len}"), &format!("An entry written as an array of {len} elements (serde reads a struct from a sequence in field order)."), LOAD,
                    format!("[{}]", elems[..len].join(","))).and_apply(vec![]).tags(&["array-entry"]));
    }
    v.push(
        case(
            "array-entry-label-null",
            "An array entry whose fifth element is null: no label.",
            LOAD,
            format!("[\"e1\",null,{USER},1,null]"),
        )
        .and_apply(vec![])
        .tags(&["array-entry"]),
    );
    v.extend([
        // providerMetadata.
        saved("provider-metadata-kept", "providerMetadata (a Gemini thought signature) is kept and saved after arguments.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "provider-metadata",
              raw("e1", None, &tool_call(r#""providerMetadata":{"thoughtSignature":"c2ln"},"id":"c1","name":"bash","arguments":{"command":"ls"}"#))),
        saved("provider-metadata-null-dropped", "providerMetadata null is None: not saved.", &["T-YO-MSG-1", "T-YO-SAVE-1"], "provider-metadata",
              raw("e1", None, &tool_call(r#""id":"c1","name":"bash","arguments":{},"providerMetadata":null"#))),
        saved("provider-metadata-any-value", "providerMetadata may be any JSON value (a number, an array).", &["T-YO-MSG-1", "T-YO-SAVE-1"], "provider-metadata",
              [raw("e1", None, &tool_call(r#""id":"c1","name":"bash","arguments":{},"providerMetadata":1E+2"#)),
               raw("e2", Some("e1"), &tool_call(r#""id":"c2","name":"bash","arguments":{},"provider_metadata":[1,"x"]"#))].join("\n")),
        case("append-new-provider-metadata", "append_new compares providerMetadata too.", AN,
             raw("e1", None, &tool_call(r#""id":"c1","name":"bash","arguments":{},"providerMetadata":{"s":1}"#)))
            .apply(vec![append_new(vec![serde_json::from_str(&tool_call(r#""id":"c1","name":"bash","arguments":{},"providerMetadata":{"s":2}"#)).unwrap()], 5)])
            .tags(&["provider-metadata"]),
        // T-YO-NEXT-1: append has no depth check.
        case("append-too-deep-to-reload", "A step message 127 levels deep is appended (append has no depth check); its saved line is 128 deep, so save_load fails with malformed_entry and the tree keeps the line.", &["T-YO-NEXT-1", "T-YO-SAVE-1"], "")
            .apply(vec![append(custom("deep", deep_value(126)), 1), save_load()]).tags(&["deep"]),
        case("append-deeper-than-serde-reads", "A step message 201 levels deep (deeper than serde_json reads from text) is appended all the same; save_load fails.", &["T-YO-NEXT-1", "T-YO-SAVE-1"], "")
            .apply(vec![append(custom("deep", deep_value(199)), 1), save_load()]).tags(&["deep"]),
    ]);
    v
}

/// `[[...[0]...]]`, `n` arrays.
fn deep_value(n: usize) -> Value {
    let mut v = json!(0);
    for _ in 0..n {
        v = json!([v]);
    }
    v
}

fn cp_name(c: char) -> &'static str {
    match c as u32 {
        0x00 => "NUL",
        0x09 => "TAB",
        0x0a => "LF",
        0x0b => "VT",
        0x0c => "FF",
        0x0d => "CR",
        0x1c..=0x1f => "information separator",
        0x20 => "SPACE",
        0x85 => "NEL",
        0xa0 => "NO-BREAK SPACE",
        0x1680 => "OGHAM SPACE MARK",
        0x180e => "MONGOLIAN VOWEL SEPARATOR",
        0x2000..=0x200a => "a space of U+2000..U+200A",
        0x200b => "ZERO WIDTH SPACE",
        0x2028 => "LINE SEPARATOR",
        0x2029 => "PARAGRAPH SEPARATOR",
        0x202f => "NARROW NO-BREAK SPACE",
        0x205f => "MEDIUM MATHEMATICAL SPACE",
        0x3000 => "IDEOGRAPHIC SPACE",
        0xfeff => "ZERO WIDTH NO-BREAK SPACE (BOM)",
        _ => "a C0 control",
    }
}

/// The whitespace table: every code point of [`whitespace_code_points`] at every
/// position of [`WS_POSITIONS`] in the second entry of a two-entry file.
pub fn whitespace_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for c in whitespace_code_points() {
        for pos in WS_POSITIONS {
            let mut s = crate::gen::Sess::default();
            let m1: crate::jtext::J =
                crate::gen::j_of(&serde_json::from_str::<Value>(USER).unwrap());
            let m2 = crate::gen::j_of(&serde_json::from_str::<Value>(ASSISTANT).unwrap());
            s.ents
                .push(crate::gen::ent(crate::gen::entry("e1", None, m1, 1)));
            s.ents
                .push(crate::gen::ent(crate::gen::entry("e2", Some("e1"), m2, 2)));
            crate::gen::place_whitespace(&mut s, 1, c, pos);
            let input = s.render();
            let where_ = match *pos {
                "line" => "as a line of its own",
                "start" => "at the start of a line",
                "end" => "at the end of a line",
                "between" => "between every two tokens of a line",
                _ => "raw inside a string",
            };
            let mut k = case(
                &format!("ws-{:04x}-{pos}", c as u32),
                &format!("U+{:04X} ({}) {where_}: str::trim removes exactly Unicode White_Space at a line's ends; serde_json allows only space, tab, LF and CR between tokens and no raw control inside a string.", c as u32, cp_name(c)),
                &["T-YO-LOAD-1"],
                input.clone(),
            )
            .tags(&["whitespace"]);
            if crate::expect_opt(&json!({"op":"tree_inspect"}), input.as_bytes())
                .is_some_and(|e| e.get("result").is_some())
            {
                k = k.and_apply(vec![]);
                k.rules.push("T-YO-SAVE-1");
            }
            out.push(k);
        }
    }
    out
}
