//! A generator of yoagent 0.26 session files and step sequences: real message types with
//! random content, plus one or more *features* (unknown members at each level, repeated
//! members, aliases, member orders, number spellings, escapes, whitespace, id spellings,
//! array-form entries, variant mixes, missing required fields, steps). Nothing here
//! decides what is right: every expectation is what the real yoagent crate answers
//! (`crate::expect`, through `yoagent_adapter`).
//!
//! Deterministic: the same seed gives the same cases (splitmix64, no hash-ordered
//! collections).

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::jtext::{escape_all, from_value, lit, num, obj, str_, to_text, write, J, S};

// ---------------------------------------------------------------------------
// Randomness
// ---------------------------------------------------------------------------

/// splitmix64: tiny, and its stream never changes with a dependency's version.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
    pub fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

// ---------------------------------------------------------------------------
// Pools
// ---------------------------------------------------------------------------

const WORDS: &[&str] = &[
    "hi",
    "draft a plan",
    "ls -la",
    "a.txt\nb.txt",
    "héllo wörld",
    "日本語",
    "\u{1f600}",
    "tab\there",
    "say \"q\"",
    "back\\slash",
    "",
    "line\u{2028}sep",
    "nul\u{0}byte",
    "unit\u{1f}sep",
    "del\u{7f}",
    "nbsp\u{a0}",
    "  padded  ",
    "/path/to/file.rs",
    "<b>&amp;</b>",
];

const KEYS: &[&str] = &[
    "command", "path", "a", "b", "z", "Z", "é", "日", "10", "2", "_", "aa", "ab", "timeout", "",
];

/// Number spellings serde_json reads (in f64 range).
pub const NUMS: &[&str] = &[
    "0",
    "1",
    "-1",
    "42",
    "-0",
    "1.0",
    "-0.0",
    "0.5",
    "1e2",
    "1E+2",
    "1e-2",
    "1e21",
    "1e-400",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "1.7976931348623157e308",
    "5e-324",
    "3e-324",
    "0.1",
    "9007199254740993",
    "100000000000000000000",
    "2.50",
    "1e+0",
    "0e0",
];

/// Number spellings serde_json rejects, or that are out of f64 range.
const BAD_NUMS: &[&str] = &[
    "1e400", "-1e400", "01", "1.", ".5", "+1", "NaN", "Infinity", "-", "0x10", "1e", "1_000",
];

/// Spellings for a u64 field (timestamps, usage counters).
const U64S: &[&str] = &[
    "0",
    "1",
    "18446744073709551615",
    "18446744073709551616",
    "-0",
    "-1",
    "1.0",
    "1e2",
    "1E+2",
    "0.0",
    "01",
    "+1",
    "\"1\"",
    "null",
    "true",
    "1e400",
    "100000000000000000000000",
];

/// Id spellings for the counter (T-YO-NEXT-1).
const IDS: &[&str] = &[
    "e0000007",
    "e+5",
    "e\u{663}",
    "e\u{ff11}",
    "e18446744073709551616",
    "e99999999999999999999999",
    "e18446744073709551614",
    "e0",
    "e00",
    "e+0",
    "e",
    "E5",
    "e-1",
    "e 1",
    "e1.0",
    "e1e2",
    "x",
    "",
    "ｅ5",
    "e\u{2070}",
];

const PROTOCOLS: &[&str] = &[
    "\"anthropic_messages\"",
    "\"open_ai_completions\"",
    "\"openai_completions\"",
    "\"open_ai_responses\"",
    "\"azure_open_ai_responses\"",
    "\"google_generative_ai\"",
    "\"google_vertex\"",
    "\"bedrock_converse_stream\"",
    "\"AnthropicMessages\"",
    "\"future_api\"",
    "null",
    "1",
    "{}",
    "[\"anthropic_messages\"]",
];

const STOPS: &[&str] = &["stop", "length", "toolUse", "error", "aborted", "refusal"];

/// The code points a mainstream trim/strip/isspace/`\s`/TrimSpace/is_whitespace treats
/// specially: every C0 control and U+0020 (Java's `trim()` strips all of them), U+0085,
/// U+00A0, U+1680, U+180E, U+2000..U+200A, U+200B, U+2028, U+2029, U+202F, U+205F,
/// U+3000, U+FEFF.
pub fn whitespace_code_points() -> Vec<char> {
    let mut v: Vec<char> = (0u32..=0x20).filter_map(char::from_u32).collect();
    v.extend(
        [
            0x85u32, 0xa0, 0x1680, 0x180e, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
            0x2007, 0x2008, 0x2009, 0x200a, 0x200b, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
        ]
        .iter()
        .filter_map(|&c| char::from_u32(c)),
    );
    v
}

/// Decimal literals that serde_json's default float parser (no `float_roundtrip`)
/// rounds to another double than a correctly rounded parser (Rust's `str::parse`)
/// does, found by a fixed search.
pub fn misrounded_literals(n: usize) -> Vec<String> {
    let mut rng = Rng::new(0x5eed_f10a7);
    let mut out = Vec::new();
    let mut tries = 0u64;
    while out.len() < n && tries < 2_000_000 {
        tries += 1;
        let digits = 16 + rng.below(10);
        let mut s: String = (0..digits)
            .map(|i| {
                let d = rng.below(10) as u8 + if i == 0 { 1 } else { 0 };
                (b'0' + d.min(9)) as char
            })
            .collect();
        s.insert(1, '.');
        let exp = rng.below(600) as i64 - 300;
        let lit = format!("{s}e{exp}");
        let exact: f64 = match lit.parse() {
            Ok(f) => f,
            Err(_) => continue,
        };
        if !exact.is_finite() || exact == 0.0 {
            continue;
        }
        if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(&lit) {
            if n.as_f64().is_some_and(|f| f.to_bits() != exact.to_bits()) {
                out.push(lit);
            }
        }
    }
    out
}

/// Of [`misrounded_literals`], those whose double serde_json writes with digits that
/// serde_json then reads as yet another double: saving and loading such a number
/// changes it.
pub fn drifting_literals(n: usize) -> Vec<String> {
    misrounded_literals(200)
        .into_iter()
        .filter(|lit| {
            let x: Value = serde_json::from_str(lit).unwrap();
            let y: Value = serde_json::from_str(&x.to_string()).unwrap();
            x != y
        })
        .take(n)
        .collect()
}

fn text(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("{} {}", rng.pick(WORDS), rng.pick(WORDS)),
        1 => format!("message {}", rng.below(1000)),
        _ => rng.pick(WORDS).to_string(),
    }
}

fn ts(rng: &mut Rng) -> u64 {
    match rng.below(6) {
        0 => 0,
        1 => 1_700_000_000_000 + rng.below(1_000_000) as u64,
        2 => u64::MAX,
        _ => rng.below(100_000) as u64,
    }
}

fn value(rng: &mut Rng, depth: usize) -> J {
    match rng.below(if depth == 0 { 4 } else { 7 }) {
        0 => lit(rng.pick(NUMS)),
        1 => str_(&text(rng)),
        2 => lit(rng.pick(&["true", "false", "null"])),
        3 => num(rng.below(1000)),
        4 | 5 => {
            let mut keys: Vec<&str> = (0..rng.below(4)).map(|_| rng.pick(KEYS)).collect();
            keys.sort_unstable();
            keys.dedup();
            rng.shuffle(&mut keys);
            obj(keys
                .into_iter()
                .map(|k| (k, value(rng, depth - 1)))
                .collect())
        }
        _ => J::Arr((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
    }
}

// ---------------------------------------------------------------------------
// Messages (yoagent's own shapes, members in its struct order)
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Kind {
    User,
    Assistant,
    ToolResult,
    Custom,
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Block {
    Text,
    Image,
    Thinking,
    ToolCall,
}

pub fn block(rng: &mut Rng, b: Block) -> J {
    match b {
        Block::Text => obj(vec![("type", str_("text")), ("text", str_(&text(rng)))]),
        Block::Image => obj(vec![
            ("type", str_("image")),
            ("data", str_(rng.pick(&["iVBORw0KGgo=", "", "R0lGOD=="]))),
            ("mimeType", str_(rng.pick(&["image/png", "image/gif"]))),
        ]),
        Block::Thinking => {
            let mut m = vec![("type", str_("thinking")), ("thinking", str_(&text(rng)))];
            if rng.one_in(2) {
                m.push(("signature", str_(&format!("sig-{}", rng.below(99)))));
            }
            if rng.one_in(3) {
                m.push(("redacted", str_("EmwKAhgB")));
                m.push(("redactedProtocol", lit(rng.pick(&PROTOCOLS[..8]))));
            }
            obj(m)
        }
        Block::ToolCall => {
            let mut args = value(rng, 2);
            if !matches!(args, J::Obj(_)) && rng.one_in(2) {
                args = obj(vec![("command", str_("ls")), ("timeout", num(30))]);
            }
            let mut m = vec![
                ("type", str_("toolCall")),
                ("id", str_(&format!("call_{}", rng.below(99)))),
                ("name", str_(rng.pick(&["bash", "read_file", "édit"]))),
                ("arguments", args),
            ];
            if rng.one_in(4) {
                m.push(("providerMetadata", value(rng, 2)));
            }
            obj(m)
        }
    }
}

fn blocks(rng: &mut Rng, kinds: &[Block]) -> J {
    J::Arr(
        (0..rng.below(3))
            .map(|_| {
                let b = rng.pick(kinds);
                block(rng, b)
            })
            .collect(),
    )
}

pub fn usage(rng: &mut Rng) -> J {
    let mut m = vec![
        ("input", num(rng.below(500))),
        ("output", num(rng.below(500))),
    ];
    for k in ["cacheRead", "cacheWrite", "totalTokens"] {
        if !rng.one_in(4) {
            m.push((k, num(rng.below(900))));
        }
    }
    obj(m)
}

pub fn message(rng: &mut Rng, kind: Kind) -> J {
    match kind {
        Kind::User => obj(vec![
            ("role", str_("user")),
            (
                "content",
                blocks(rng, &[Block::Text, Block::Text, Block::Image]),
            ),
            ("timestamp", num(ts(rng))),
        ]),
        Kind::Assistant => {
            let stop = rng.pick(STOPS);
            let mut m = vec![
                ("role", str_("assistant")),
                (
                    "content",
                    blocks(rng, &[Block::Text, Block::Thinking, Block::ToolCall]),
                ),
                ("stopReason", str_(stop)),
                ("model", str_(rng.pick(&["claude-sonnet-5", "gpt-5", ""]))),
                ("provider", str_(rng.pick(&["anthropic", "openai"]))),
                ("usage", usage(rng)),
                ("timestamp", num(ts(rng))),
            ];
            if stop == "error" || rng.one_in(5) {
                m.push(("errorMessage", str_(&text(rng))));
            }
            obj(m)
        }
        Kind::ToolResult => obj(vec![
            ("role", str_("toolResult")),
            ("toolCallId", str_(&format!("call_{}", rng.below(99)))),
            ("toolName", str_("bash")),
            ("content", blocks(rng, &[Block::Text, Block::Image])),
            ("isError", lit(rng.pick(&["true", "false"]))),
            ("timestamp", num(ts(rng))),
        ]),
        Kind::Custom => obj(vec![
            (
                "role",
                str_(rng.pick(&["extension", "extension", "note", "system"])),
            ),
            ("kind", str_(rng.pick(&["note", "ui", "compaction", ""]))),
            ("data", value(rng, 3)),
        ]),
    }
}

fn any_kind(rng: &mut Rng) -> Kind {
    rng.pick(&[
        Kind::User,
        Kind::User,
        Kind::Assistant,
        Kind::Assistant,
        Kind::ToolResult,
        Kind::Custom,
    ])
}

// ---------------------------------------------------------------------------
// Sessions as text
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub struct Ent {
    pub j: J,
    /// Text before and after the entry's JSON on its line.
    pub pre: String,
    pub post: String,
    /// Between every two tokens of the entry.
    pub gap: String,
    /// Lines (each without its `\n`) before this entry's line.
    pub before: Vec<String>,
    /// What ends this entry's line (`\n`, `\r\n`, or `\r` to join the next entry).
    pub end: String,
}

#[derive(Clone, Debug, Default)]
pub struct Sess {
    pub ents: Vec<Ent>,
    /// After the last entry.
    pub tail: String,
}

impl Sess {
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (i, e) in self.ents.iter().enumerate() {
            for b in &e.before {
                out.push_str(b);
                out.push('\n');
            }
            out.push_str(&e.pre);
            write(&e.j, &e.gap, &mut out);
            out.push_str(&e.post);
            if i + 1 < self.ents.len() {
                out.push_str(&e.end);
            }
        }
        out.push_str(&self.tail);
        out
    }

    pub fn ids(&self) -> Vec<String> {
        self.ents
            .iter()
            .filter_map(|e| e.j.get("id").and_then(J::as_str).map(str::to_owned))
            .collect()
    }
}

pub fn entry(id: &str, parent: Option<&str>, message: J, timestamp: u64) -> J {
    obj(vec![
        ("id", str_(id)),
        ("parent_id", parent.map_or(lit("null"), str_)),
        ("message", message),
        ("timestamp", num(timestamp)),
    ])
}

pub fn ent(j: J) -> Ent {
    Ent {
        j,
        pre: String::new(),
        post: String::new(),
        gap: String::new(),
        before: vec![],
        end: "\n".into(),
    }
}

/// A valid random session of `n` entries e1..en (parents earlier entries).
pub fn session(rng: &mut Rng, n: usize) -> Sess {
    let mut ents = Vec::new();
    for i in 1..=n {
        let parent = if i == 1 || rng.one_in(6) {
            None
        } else if rng.one_in(3) {
            Some(format!("e{}", 1 + rng.below(i - 1)))
        } else {
            Some(format!("e{}", i - 1))
        };
        let kind = any_kind(rng);
        let mut j = entry(
            &format!("e{i}"),
            parent.as_deref(),
            message(rng, kind),
            ts(rng),
        );
        if rng.one_in(5) {
            j.set("label", str_(rng.pick(&["cp", "draft", "v1"])));
        }
        ents.push(ent(j));
    }
    Sess {
        ents,
        tail: String::new(),
    }
}

// ---------------------------------------------------------------------------
// Features
// ---------------------------------------------------------------------------

pub struct Ctx<'a> {
    pub rng: &'a mut Rng,
    pub sess: Sess,
    /// Literals serde_json rounds differently from a correct parser.
    pub misrounded: &'a [String],
    /// Steps to run (tree_apply), as JSON; `None` for no steps feature (the case still
    /// gets `tree_apply` with no steps, observing the save).
    pub steps: Vec<Value>,
    /// Set by features whose steps need the loaded session (append_new).
    pub history_variant: Option<String>,
    /// Entries a feature has changed.
    pub touched: Vec<bool>,
    /// Bytes that are not UTF-8, to put into the rendered text.
    pub bad_bytes: Option<&'static [u8]>,
}

impl Ctx<'_> {
    /// A random entry, preferring one no feature has changed yet (so that a later
    /// feature does not undo an earlier one).
    fn pick_entry(&mut self) -> usize {
        self.touched.resize(self.sess.ents.len(), false);
        let fresh: Vec<usize> = (0..self.sess.ents.len())
            .filter(|&i| !self.touched[i])
            .collect();
        let i = if fresh.is_empty() {
            self.rng.below(self.sess.ents.len())
        } else {
            self.rng.pick(&fresh)
        };
        self.touched[i] = true;
        i
    }

    /// Replace a random entry's message by a fresh one of `kind`; the entry index.
    fn force(&mut self, kind: Kind) -> usize {
        let i = self.pick_entry();
        let m = message(self.rng, kind);
        self.sess.ents[i].j.set("message", m);
        i
    }

    /// A random entry's message holding a block of type `b`; (entry, block index).
    fn force_block(&mut self, b: Block) -> (usize, usize) {
        let kind = match b {
            Block::Text | Block::Image => self.rng.pick(&[Kind::User, Kind::ToolResult]),
            Block::Thinking | Block::ToolCall => Kind::Assistant,
        };
        let i = self.force(kind);
        let blk = block(self.rng, b);
        let content = match msg(&mut self.sess, i).get_mut("content") {
            Some(J::Arr(a)) => a,
            _ => unreachable!("fresh messages have content"),
        };
        let at = self.rng.below(content.len() + 1);
        content.insert(at, blk);
        (i, at)
    }

    /// A `serde_json::Value` site: custom `data`, tool `arguments` or
    /// `providerMetadata`; returns its label and a mutable reference.
    fn value_site(&mut self) -> (&'static str, &mut J) {
        match self.rng.below(3) {
            0 => {
                let i = self.force(Kind::Custom);
                ("data", msg(&mut self.sess, i).get_mut("data").unwrap())
            }
            1 => {
                let (i, at) = self.force_block(Block::ToolCall);
                (
                    "arguments",
                    block_mut(&mut self.sess, i, at)
                        .get_mut("arguments")
                        .unwrap(),
                )
            }
            _ => {
                let (i, at) = self.force_block(Block::ToolCall);
                let b = block_mut(&mut self.sess, i, at);
                b.set("providerMetadata", obj(vec![]));
                ("providerMetadata", b.get_mut("providerMetadata").unwrap())
            }
        }
    }
}

fn msg(sess: &mut Sess, i: usize) -> &mut J {
    sess.ents[i].j.get_mut("message").expect("a message")
}

fn block_mut(sess: &mut Sess, i: usize, at: usize) -> &mut J {
    match msg(sess, i).get_mut("content") {
        Some(J::Arr(a)) => &mut a[at],
        _ => unreachable!("a block the generator put there"),
    }
}

/// A member name to add that the type at that place does not know.
fn unknown_key(rng: &mut Rng, level: &str) -> &'static str {
    match level {
        "entry" => rng.pick(&[
            "extra",
            "meta",
            "ID",
            "Id",
            "parentId",
            "labels",
            "_",
            "timestamp_ms",
            "é",
            "session",
        ]),
        "message" => rng.pick(&["meta", "Role", "id", "cache", "ts", "_", "stop_reason"]),
        "content" => rng.pick(&["cache_control", "Type", "index", "citations", "_"]),
        _ => rng.pick(&["reasoning", "cached", "input_tokens", "Input", "_"]),
    }
}

/// A value an ignored member might carry; some are JSON that serde_json accepts only
/// in some places (numbers out of range, lone surrogates).
fn odd_value(rng: &mut Rng) -> (&'static str, J) {
    match rng.below(6) {
        0 => ("lone-surrogate", J::Str(S::spelled("?", "\\ud800"))),
        1 => ("number-1e400", lit("1e400")),
        2 => ("integer-400-digits", lit(&format!("1{}", "0".repeat(400)))),
        3 => ("invalid-escape", J::Str(S::spelled("?", "\\x41"))),
        4 => ("nested", value(rng, 3)),
        _ => ("raw-control", J::Str(S::spelled("?", "a\u{1}b"))),
    }
}

fn insert_random(rng: &mut Rng, j: &mut J, key: &str, v: J) {
    if let Some(m) = j.members_mut() {
        let at = rng.below(m.len() + 1);
        m.insert(at, (S::plain(key), v));
    }
}

/// Repeat a member of `j` (with the same value or another one); the member's name.
fn repeat_member(rng: &mut Rng, j: &mut J, keys: &[&str]) -> Option<String> {
    let present: Vec<String> = j
        .members()?
        .iter()
        .map(|(k, _)| k.text.clone())
        .filter(|k| keys.is_empty() || keys.contains(&k.as_str()))
        .collect();
    if present.is_empty() {
        return None;
    }
    let k = rng.pick(&present).clone();
    let same = rng.one_in(2);
    let v = if same {
        j.get(&k).cloned().unwrap()
    } else {
        let old = j.get(&k).cloned().unwrap();
        match old {
            J::Str(_) => str_(&format!("other {}", rng.below(9))),
            J::Lit(ref l) if l.parse::<u64>().is_ok() => num(rng.below(50)),
            _ => old,
        }
    };
    insert_random(rng, j, &k, v);
    Some(format!("{k}:{}", if same { "same" } else { "other" }))
}

fn shuffle_members(rng: &mut Rng, j: &mut J) -> bool {
    match j.members_mut() {
        Some(m) if m.len() > 1 => {
            let before: Vec<String> = m.iter().map(|(k, _)| k.text.clone()).collect();
            for _ in 0..4 {
                rng.shuffle(m);
                if m.iter().map(|(k, _)| &k.text).ne(before.iter()) {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

/// The feature families; each applies one feature to the context and returns its label
/// (`None` when it could not apply).
/// A feature: applied to the context, its label (`None` when it could not apply).
pub type Feature = fn(&mut Ctx) -> Option<String>;

pub const FAMILIES: &[(&str, Feature)] = &[
    ("entry-unknown-member", f_entry_unknown),
    ("unknown-odd-value", f_unknown_odd),
    ("entry-order", f_entry_order),
    ("entry-repeat", f_entry_repeat),
    ("entry-missing", f_entry_missing),
    ("entry-array", f_entry_array),
    ("entry-label", f_entry_label),
    ("entry-timestamp", f_entry_timestamp),
    ("entry-parent", f_entry_parent),
    ("entry-id", f_entry_id),
    ("id-escape", f_id_escape),
    ("key-escape", f_key_escape),
    ("message-unknown-member", f_message_unknown),
    ("message-order", f_message_order),
    ("message-repeat", f_message_repeat),
    ("message-missing", f_message_missing),
    ("message-alias", f_message_alias),
    ("message-variant", f_message_variant),
    ("message-role", f_message_role),
    ("message-timestamp", f_message_timestamp),
    ("message-type", f_message_type),
    ("content-unknown-member", f_content_unknown),
    ("content-order", f_content_order),
    ("content-repeat", f_content_repeat),
    ("content-missing", f_content_missing),
    ("content-type", f_content_type),
    ("content-alias", f_content_alias),
    ("redacted-protocol", f_redacted_protocol),
    ("provider-metadata", f_provider_metadata),
    ("usage-unknown-member", f_usage_unknown),
    ("usage-alias", f_usage_alias),
    ("usage-missing", f_usage_missing),
    ("usage-number", f_usage_number),
    ("usage-repeat", f_usage_repeat),
    ("value-order", f_value_order),
    ("value-repeat-key", f_value_repeat),
    ("value-number", f_value_number),
    ("value-bad-number", f_value_bad_number),
    ("value-deep", f_value_deep),
    ("string-escape", f_string_escape),
    ("lines", f_lines),
    ("whitespace", f_whitespace),
    ("steps", f_steps),
    ("append-new", f_append_new),
    ("deep-step", f_deep_step),
    ("invalid-utf8", f_invalid_utf8),
];

fn f_entry_unknown(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let k = unknown_key(c.rng, "entry");
    let v = value(c.rng, 2);
    insert_random(c.rng, &mut c.sess.ents[i].j, k, v);
    Some("entry-unknown-member".into())
}

fn f_unknown_odd(c: &mut Ctx) -> Option<String> {
    let (kind, v) = odd_value(c.rng);
    let site = c
        .rng
        .pick(&["entry", "message", "content", "usage", "custom"]);
    let target: &mut J = match site {
        "entry" => {
            let i = c.pick_entry();
            &mut c.sess.ents[i].j
        }
        "message" => {
            let kind = any_kind(c.rng);
            let i = c.force(kind);
            msg(&mut c.sess, i)
        }
        "content" => {
            let b = c.rng.pick(&[Block::Text, Block::ToolCall]);
            let (i, at) = c.force_block(b);
            block_mut(&mut c.sess, i, at)
        }
        "usage" => {
            let i = c.force(Kind::Assistant);
            msg(&mut c.sess, i).get_mut("usage").unwrap()
        }
        _ => {
            let i = c.force(Kind::Custom);
            msg(&mut c.sess, i)
        }
    };
    let k = unknown_key(c.rng, site);
    insert_random(c.rng, target, k, v);
    Some(format!("unknown-odd:{site}:{kind}"))
}

fn f_entry_order(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    shuffle_members(c.rng, &mut c.sess.ents[i].j).then(|| "entry-order".into())
}

fn f_entry_repeat(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    repeat_member(c.rng, &mut c.sess.ents[i].j, &[]).map(|k| format!("entry-repeat:{k}"))
}

fn f_entry_missing(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let k = c.rng.pick(&["id", "parent_id", "message", "timestamp"]);
    c.sess.ents[i]
        .j
        .remove(k)
        .then(|| format!("entry-missing:{k}"))
}

fn f_entry_array(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let e = &c.sess.ents[i].j;
    let label = match e.get("label") {
        Some(l) => l.clone(),
        None => {
            if c.rng.one_in(2) {
                lit("null")
            } else {
                str_("arr")
            }
        }
    };
    let full = vec![
        e.get("id").cloned().unwrap_or(str_("e9")),
        e.get("parent_id").cloned().unwrap_or(lit("null")),
        e.get("message").cloned().unwrap(),
        e.get("timestamp").cloned().unwrap_or(num(1)),
        label,
        num(7),
    ];
    let len = c.rng.below(7);
    c.sess.ents[i].j = J::Arr(full.into_iter().take(len).collect());
    Some(format!("entry-array:{len}"))
}

fn f_entry_label(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let (k, v) = match c.rng.below(6) {
        0 => ("null", lit("null")),
        1 => ("empty", str_("")),
        2 => ("number", num(1)),
        3 => ("escaped", J::Str(S::spelled("cp", "\\u0063p"))),
        4 => ("unicode", str_("début\u{2028}")),
        _ => {
            // The same label on every entry: seek_checkpoint picks the latest.
            for e in &mut c.sess.ents {
                e.j.set("label", str_("same"));
            }
            return Some("entry-label:repeated".into());
        }
    };
    c.sess.ents[i].j.set("label", v);
    Some(format!("entry-label:{k}"))
}

fn f_entry_timestamp(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let sp = c.rng.pick(U64S);
    c.sess.ents[i].j.set("timestamp", lit(sp));
    Some(format!("entry-timestamp:{sp}"))
}

fn f_entry_parent(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let ids = c.sess.ids();
    let kind = c.rng.pick(&[
        "absent", "null", "dangling", "forward", "self", "escaped", "number", "empty",
    ]);
    let e = &mut c.sess.ents[i].j;
    match kind {
        "absent" => {
            e.remove("parent_id");
        }
        "null" => e.set("parent_id", lit("null")),
        "dangling" => e.set("parent_id", str_("zz")),
        "forward" => {
            let later = ids.get(i + 1)?.clone();
            e.set("parent_id", str_(&later));
        }
        "self" => {
            let own = ids.get(i)?.clone();
            e.set("parent_id", str_(&own));
        }
        "escaped" => {
            let earlier = ids.get(i.checked_sub(1)?)?.clone();
            e.set(
                "parent_id",
                J::Str(S::spelled(&earlier, &escape_all(&earlier))),
            );
        }
        "number" => e.set("parent_id", num(1)),
        _ => e.set("parent_id", str_("")),
    }
    Some(format!("entry-parent:{kind}"))
}

fn f_entry_id(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let sp = c.rng.pick(IDS);
    let old = c.sess.ids().get(i)?.clone();
    c.sess.ents[i].j.set("id", str_(sp));
    for e in &mut c.sess.ents {
        if e.j.get("parent_id").and_then(J::as_str) == Some(old.as_str()) {
            e.j.set("parent_id", str_(sp));
        }
    }
    Some(format!("entry-id:{}", escape_all(sp)))
}

fn f_id_escape(c: &mut Ctx) -> Option<String> {
    let ids = c.sess.ids();
    let i = c.pick_entry();
    if c.rng.one_in(2) && ids.len() > 1 {
        // Spell another entry's id with escapes: the same id, so a duplicate.
        let j = (i + 1 + c.rng.below(ids.len() - 1)) % ids.len();
        let target = ids[j].clone();
        // `\u0065` spells only a leading `e`; any other id (an empty one
        // too) is spelled with every character escaped.
        let raw = match (c.rng.one_in(2), target.strip_prefix('e')) {
            (false, Some(rest)) => format!("\\u0065{rest}"),
            _ => escape_all(&target),
        };
        c.sess.ents[i]
            .j
            .set("id", J::Str(S::spelled(&target, &raw)));
        Some("id-escape:collides".into())
    } else {
        // Its own id, escaped: the same entry, referenced plainly by its children.
        let own = ids.get(i)?.clone();
        let raw = escape_all(&own);
        c.sess.ents[i].j.set("id", J::Str(S::spelled(&own, &raw)));
        Some("id-escape:own".into())
    }
}

fn f_key_escape(c: &mut Ctx) -> Option<String> {
    let i = c.pick_entry();
    let at_message = c.rng.one_in(2);
    let j = if at_message {
        msg(&mut c.sess, i)
    } else {
        &mut c.sess.ents[i].j
    };
    let m = j.members_mut()?;
    let k = c.rng.below(m.len());
    let name = m[k].0.text.clone();
    m[k].0 = S::spelled(&name, &escape_all(&name));
    Some(format!(
        "key-escape:{}",
        if at_message { "message" } else { "entry" }
    ))
}

fn f_message_unknown(c: &mut Ctx) -> Option<String> {
    let kind = any_kind(c.rng);
    let i = c.force(kind);
    let k = unknown_key(c.rng, "message");
    let v = value(c.rng, 2);
    insert_random(c.rng, msg(&mut c.sess, i), k, v);
    Some(format!("message-unknown-member:{kind:?}"))
}

fn f_message_order(c: &mut Ctx) -> Option<String> {
    let kind = any_kind(c.rng);
    let i = c.force(kind);
    shuffle_members(c.rng, msg(&mut c.sess, i)).then(|| format!("message-order:{kind:?}"))
}

fn f_message_repeat(c: &mut Ctx) -> Option<String> {
    let kind = any_kind(c.rng);
    let i = c.force(kind);
    repeat_member(c.rng, msg(&mut c.sess, i), &[]).map(|k| format!("message-repeat:{kind:?}:{k}"))
}

fn f_message_missing(c: &mut Ctx) -> Option<String> {
    let kind = any_kind(c.rng);
    let i = c.force(kind);
    let keys: Vec<String> = msg(&mut c.sess, i)
        .members()?
        .iter()
        .map(|(k, _)| k.text.clone())
        .collect();
    let k = c.rng.pick(&keys).clone();
    msg(&mut c.sess, i).remove(&k);
    Some(format!("message-missing:{kind:?}:{k}"))
}

fn f_message_alias(c: &mut Ctx) -> Option<String> {
    let i = c.force(Kind::Assistant);
    let m = msg(&mut c.sess, i);
    m.remove("errorMessage");
    let how = c.rng.pick(&["snake", "both", "both-reversed"]);
    match how {
        "snake" => m.set("error_message", str_("boom")),
        "both" => {
            m.set("errorMessage", str_("boom"));
            m.set("error_message", str_("bang"));
        }
        _ => {
            m.set("error_message", str_("bang"));
            m.set("errorMessage", str_("boom"));
        }
    }
    Some(format!("message-alias:errorMessage:{how}"))
}

fn f_message_variant(c: &mut Ctx) -> Option<String> {
    let mix = c.rng.pick(&[
        "user+custom",
        "custom+user",
        "assistant-no-usage+custom",
        "toolResult+assistant",
        "user-no-timestamp+custom",
        "custom-role-user",
        "custom-role-assistant",
        "assistant+toolResult-role",
        "custom-no-kind",
    ]);
    let data = value(c.rng, 2);
    match mix {
        "user+custom" => {
            let i = c.force(Kind::User);
            let m = msg(&mut c.sess, i);
            m.set("kind", str_("note"));
            m.set("data", data);
        }
        "custom+user" => {
            let i = c.force(Kind::Custom);
            let m = msg(&mut c.sess, i);
            m.set("content", J::Arr(vec![]));
            m.set("timestamp", num(1));
        }
        "assistant-no-usage+custom" => {
            let i = c.force(Kind::Assistant);
            let m = msg(&mut c.sess, i);
            m.remove("usage");
            m.set("kind", str_("k"));
            m.set("data", data);
        }
        "toolResult+assistant" => {
            let i = c.force(Kind::ToolResult);
            let m = msg(&mut c.sess, i);
            m.set("stopReason", str_("stop"));
            m.set("model", str_("m"));
        }
        "user-no-timestamp+custom" => {
            let i = c.force(Kind::User);
            let m = msg(&mut c.sess, i);
            m.remove("timestamp");
            m.set("kind", str_("k"));
            m.set("data", data);
        }
        "custom-role-user" => {
            let i = c.force(Kind::Custom);
            msg(&mut c.sess, i).set("role", str_("user"));
        }
        "custom-role-assistant" => {
            let i = c.force(Kind::Custom);
            msg(&mut c.sess, i).set("role", str_("assistant"));
        }
        "assistant+toolResult-role" => {
            let i = c.force(Kind::Assistant);
            msg(&mut c.sess, i).set("role", str_("toolResult"));
        }
        _ => {
            let i = c.force(Kind::Custom);
            msg(&mut c.sess, i).remove("kind");
        }
    }
    Some(format!("message-variant:{mix}"))
}

fn f_message_role(c: &mut Ctx) -> Option<String> {
    let kind = any_kind(c.rng);
    let i = c.force(kind);
    let r = c.rng.pick(&[
        "system",
        "User",
        "",
        "absent",
        "number",
        "escaped",
        "tool_result",
    ]);
    let m = msg(&mut c.sess, i);
    match r {
        "absent" => {
            m.remove("role");
        }
        "number" => m.set("role", num(1)),
        "escaped" => {
            let cur = m
                .get("role")
                .and_then(J::as_str)
                .unwrap_or("user")
                .to_owned();
            m.set("role", J::Str(S::spelled(&cur, &escape_all(&cur))));
        }
        r => m.set("role", str_(r)),
    }
    Some(format!("message-role:{kind:?}:{r}"))
}

fn f_message_timestamp(c: &mut Ctx) -> Option<String> {
    let kind = c.rng.pick(&[Kind::User, Kind::Assistant, Kind::ToolResult]);
    let i = c.force(kind);
    let sp = c.rng.pick(U64S);
    msg(&mut c.sess, i).set("timestamp", lit(sp));
    Some(format!("message-timestamp:{sp}"))
}

fn f_message_type(c: &mut Ctx) -> Option<String> {
    let x = c.rng.pick(&[
        "content-string",
        "content-null",
        "content-object",
        "isError-0",
        "isError-string",
        "stopReason-end_turn",
        "stopReason-tool_use",
        "stopReason-ToolUse",
        "stopReason-null",
        "model-null",
        "errorMessage-null",
        "errorMessage-number",
        "kind-number",
        "data-null",
        "usage-null",
        "usage-array",
    ]);
    match x {
        "content-string" | "content-null" | "content-object" => {
            let kind = c.rng.pick(&[Kind::User, Kind::Assistant, Kind::ToolResult]);
            let i = c.force(kind);
            let v = match x {
                "content-string" => str_("text"),
                "content-null" => lit("null"),
                _ => obj(vec![("type", str_("text")), ("text", str_("t"))]),
            };
            msg(&mut c.sess, i).set("content", v);
        }
        "isError-0" | "isError-string" => {
            let i = c.force(Kind::ToolResult);
            let v = if x == "isError-0" {
                num(0)
            } else {
                str_("false")
            };
            msg(&mut c.sess, i).set("isError", v);
        }
        "kind-number" | "data-null" => {
            let i = c.force(Kind::Custom);
            if x == "kind-number" {
                msg(&mut c.sess, i).set("kind", num(3));
            } else {
                msg(&mut c.sess, i).set("data", lit("null"));
            }
        }
        _ => {
            let i = c.force(Kind::Assistant);
            let m = msg(&mut c.sess, i);
            match x {
                "stopReason-end_turn" => m.set("stopReason", str_("end_turn")),
                "stopReason-tool_use" => m.set("stopReason", str_("tool_use")),
                "stopReason-ToolUse" => m.set("stopReason", str_("ToolUse")),
                "stopReason-null" => m.set("stopReason", lit("null")),
                "model-null" => m.set("model", lit("null")),
                "errorMessage-null" => m.set("errorMessage", lit("null")),
                "errorMessage-number" => m.set("errorMessage", num(5)),
                "usage-null" => m.set("usage", lit("null")),
                _ => m.set("usage", J::Arr(vec![num(1), num(2), num(3)])),
            }
        }
    }
    Some(format!("message-type:{x}"))
}

fn any_block(rng: &mut Rng) -> Block {
    rng.pick(&[Block::Text, Block::Image, Block::Thinking, Block::ToolCall])
}

fn f_content_unknown(c: &mut Ctx) -> Option<String> {
    let b = any_block(c.rng);
    let (i, at) = c.force_block(b);
    let k = unknown_key(c.rng, "content");
    let v = value(c.rng, 2);
    insert_random(c.rng, block_mut(&mut c.sess, i, at), k, v);
    Some(format!("content-unknown-member:{b:?}"))
}

fn f_content_order(c: &mut Ctx) -> Option<String> {
    let b = any_block(c.rng);
    let (i, at) = c.force_block(b);
    shuffle_members(c.rng, block_mut(&mut c.sess, i, at)).then(|| format!("content-order:{b:?}"))
}

fn f_content_repeat(c: &mut Ctx) -> Option<String> {
    let b = any_block(c.rng);
    let (i, at) = c.force_block(b);
    let k = repeat_member(c.rng, block_mut(&mut c.sess, i, at), &[])?;
    Some(format!("content-repeat:{b:?}:{k}"))
}

fn f_content_missing(c: &mut Ctx) -> Option<String> {
    let b = any_block(c.rng);
    let (i, at) = c.force_block(b);
    let keys: Vec<String> = block_mut(&mut c.sess, i, at)
        .members()?
        .iter()
        .map(|(k, _)| k.text.clone())
        .collect();
    let k = c.rng.pick(&keys).clone();
    block_mut(&mut c.sess, i, at).remove(&k);
    Some(format!("content-missing:{b:?}:{k}"))
}

fn f_content_type(c: &mut Ctx) -> Option<String> {
    let b = any_block(c.rng);
    let (i, at) = c.force_block(b);
    let t = c.rng.pick(&[
        "Text",
        "audio",
        "absent",
        "number",
        "tool_call",
        "image",
        "text",
        "escaped",
    ]);
    let blk = block_mut(&mut c.sess, i, at);
    match t {
        "absent" => {
            blk.remove("type");
        }
        "number" => blk.set("type", num(0)),
        "escaped" => {
            let cur = blk
                .get("type")
                .and_then(J::as_str)
                .unwrap_or("text")
                .to_owned();
            blk.set("type", J::Str(S::spelled(&cur, &escape_all(&cur))));
        }
        t => blk.set("type", str_(t)),
    }
    Some(format!("content-type:{b:?}:{t}"))
}

fn f_content_alias(c: &mut Ctx) -> Option<String> {
    let (camel, snake, b) = if c.rng.one_in(2) {
        ("redactedProtocol", "redacted_protocol", Block::Thinking)
    } else {
        ("providerMetadata", "provider_metadata", Block::ToolCall)
    };
    let (i, at) = c.force_block(b);
    let how = c.rng.pick(&["snake", "both", "both-reversed"]);
    let v1 = if b == Block::Thinking {
        lit("\"anthropic_messages\"")
    } else {
        obj(vec![("z", num(1)), ("a", num(2))])
    };
    let v2 = if b == Block::Thinking {
        lit("\"google_vertex\"")
    } else {
        obj(vec![("sig", str_("x"))])
    };
    let blk = block_mut(&mut c.sess, i, at);
    blk.remove(camel);
    if b == Block::Thinking {
        blk.set("redacted", str_("EmwK"));
    }
    match how {
        "snake" => blk.set(snake, v1),
        "both" => {
            blk.set(camel, v1);
            blk.set(snake, v2);
        }
        _ => {
            blk.set(snake, v2);
            blk.set(camel, v1);
        }
    }
    Some(format!("content-alias:{camel}:{how}"))
}

fn f_redacted_protocol(c: &mut Ctx) -> Option<String> {
    let (i, at) = c.force_block(Block::Thinking);
    let p = c.rng.pick(PROTOCOLS);
    let with_data = c.rng.one_in(2);
    let blk = block_mut(&mut c.sess, i, at);
    blk.set("redactedProtocol", lit(p));
    if with_data {
        blk.set("redacted", str_("EmwK"));
    } else {
        blk.remove("redacted");
    }
    Some(format!("redacted-protocol:{p}:{with_data}"))
}

fn f_provider_metadata(c: &mut Ctx) -> Option<String> {
    let (i, at) = c.force_block(Block::ToolCall);
    let (k, v) = match c.rng.below(6) {
        0 => (
            "object",
            obj(vec![
                ("thoughtSignature", str_("c2ln")),
                ("b", num(1)),
                ("a", lit("1.0")),
            ]),
        ),
        1 => ("null", lit("null")),
        2 => ("array", J::Arr(vec![num(1), str_("x")])),
        3 => ("string", str_("sig")),
        4 => ("number", lit("1E+2")),
        _ => ("empty-object", obj(vec![])),
    };
    block_mut(&mut c.sess, i, at).set("providerMetadata", v);
    Some(format!("provider-metadata:{k}"))
}

fn f_usage_unknown(c: &mut Ctx) -> Option<String> {
    let i = c.force(Kind::Assistant);
    let k = unknown_key(c.rng, "usage");
    let v = value(c.rng, 1);
    let u = msg(&mut c.sess, i).get_mut("usage")?;
    insert_random(c.rng, u, k, v);
    Some("usage-unknown-member".into())
}

fn f_usage_alias(c: &mut Ctx) -> Option<String> {
    let i = c.force(Kind::Assistant);
    let (camel, snake) = c.rng.pick(&[
        ("cacheRead", "cache_read"),
        ("cacheWrite", "cache_write"),
        ("totalTokens", "total_tokens"),
    ]);
    let how = c.rng.pick(&["snake", "both", "both-reversed"]);
    let u = msg(&mut c.sess, i).get_mut("usage")?;
    u.remove(camel);
    match how {
        "snake" => u.set(snake, num(7)),
        "both" => {
            u.set(camel, num(7));
            u.set(snake, num(8));
        }
        _ => {
            u.set(snake, num(8));
            u.set(camel, num(7));
        }
    }
    Some(format!("usage-alias:{camel}:{how}"))
}

fn f_usage_missing(c: &mut Ctx) -> Option<String> {
    let i = c.force(Kind::Assistant);
    let k = c
        .rng
        .pick(&["input", "output", "cacheRead", "cacheWrite", "totalTokens"]);
    let u = msg(&mut c.sess, i).get_mut("usage")?;
    u.remove(k);
    Some(format!("usage-missing:{k}"))
}

fn f_usage_number(c: &mut Ctx) -> Option<String> {
    let i = c.force(Kind::Assistant);
    let k = c.rng.pick(&["input", "output", "cacheRead", "totalTokens"]);
    let sp = c.rng.pick(U64S);
    let u = msg(&mut c.sess, i).get_mut("usage")?;
    u.set(k, lit(sp));
    Some(format!("usage-number:{sp}"))
}

fn f_usage_repeat(c: &mut Ctx) -> Option<String> {
    let i = c.force(Kind::Assistant);
    let u = msg(&mut c.sess, i).get_mut("usage")?;
    repeat_member(c.rng, u, &[]).map(|k| format!("usage-repeat:{k}"))
}

fn f_value_order(c: &mut Ctx) -> Option<String> {
    let inner = obj(vec![
        ("y", num(1)),
        ("b", lit("2.0")),
        ("é", str_("x")),
        ("B", num(3)),
    ]);
    let v = obj(vec![
        ("zeta", num(1)),
        ("alpha", inner),
        (
            "Mid",
            J::Arr(vec![obj(vec![("2", num(2)), ("10", num(10))])]),
        ),
        ("_", lit("null")),
    ]);
    let (site, slot) = c.value_site();
    *slot = v;
    Some(format!("value-order:{site}"))
}

fn f_value_repeat(c: &mut Ctx) -> Option<String> {
    let last_first = c.rng.one_in(2);
    let v = if last_first {
        obj(vec![("a", num(1)), ("b", num(0)), ("a", num(2))])
    } else {
        obj(vec![("k", obj(vec![("x", num(1)), ("x", str_("two"))]))])
    };
    let (site, slot) = c.value_site();
    *slot = v;
    Some(format!("value-repeat-key:{site}"))
}

fn f_value_number(c: &mut Ctx) -> Option<String> {
    let (label, sp) = if c.rng.one_in(3) && !c.misrounded.is_empty() {
        ("misrounded".to_owned(), c.rng.pick(c.misrounded).clone())
    } else {
        let sp = c.rng.pick(NUMS);
        (sp.to_owned(), sp.to_owned())
    };
    let wrap = c.rng.below(3);
    let v = match wrap {
        0 => lit(&sp),
        1 => J::Arr(vec![lit(&sp)]),
        _ => obj(vec![("n", lit(&sp))]),
    };
    let (site, slot) = c.value_site();
    *slot = v;
    let _ = site;
    Some(format!("value-number:{label}"))
}

fn f_value_bad_number(c: &mut Ctx) -> Option<String> {
    let sp = c.rng.pick(BAD_NUMS);
    let (site, slot) = c.value_site();
    *slot = J::Arr(vec![lit(sp)]);
    Some(format!("value-bad-number:{site}:{sp}"))
}

/// Nest `v` in `n` arrays.
pub fn nest(n: usize, v: J) -> J {
    (0..n).fold(v, |acc, _| J::Arr(vec![acc]))
}

fn f_value_deep(c: &mut Ctx) -> Option<String> {
    // Custom data at line depth 3: `n` arrays give a line `2 + n` deep.
    let line_depth = c.rng.pick(&[126usize, 127, 128, 129]);
    let i = c.force(Kind::Custom);
    msg(&mut c.sess, i).set("data", nest(line_depth - 2, num(0)));
    Some(format!("value-deep:{line_depth}"))
}

fn f_string_escape(c: &mut Ctx) -> Option<String> {
    let (kind, text, raw) = c.rng.pick(&[
        ("solidus", "a/b", "a\\/b"),
        ("e-acute", "é", "\\u00e9"),
        ("upper-hex", "é", "\\u00E9"),
        ("pair", "\u{1f600}", "\\ud83d\\ude00"),
        ("lone-high", "?", "\\ud800"),
        ("lone-low", "?", "\\udc00"),
        ("reversed-pair", "?", "\\ude00\\ud83d"),
        ("short-escapes", "\u{8}\u{c}\n\r\t", "\\b\\f\\n\\r\\t"),
        ("nul", "\u{0}", "\\u0000"),
        ("invalid-escape", "?", "\\x41"),
        ("short-hex", "?", "\\u12"),
        ("raw-control", "?", "a\u{1}b"),
        ("raw-tab", "?", "a\tb"),
        ("raw-newline-escape-none", "?", "a\\\u{a}b"),
        ("raw-del", "a\u{7f}b", "a\u{7f}b"),
        ("raw-u2028", "a\u{2028}b", "a\u{2028}b"),
        ("quote", "\"", "\\\""),
        ("u0065", "e", "\\u0065"),
    ]);
    let site = c.rng.pick(&["text", "label", "model", "data-key", "kind"]);
    let s = J::Str(S::spelled(text, raw));
    match site {
        "text" => {
            let (i, at) = c.force_block(Block::Text);
            block_mut(&mut c.sess, i, at).set("text", s);
        }
        "label" => {
            let i = c.pick_entry();
            c.sess.ents[i].j.set("label", s);
        }
        "model" => {
            let i = c.force(Kind::Assistant);
            msg(&mut c.sess, i).set("model", s);
        }
        "data-key" => {
            let i = c.force(Kind::Custom);
            msg(&mut c.sess, i).set("data", J::Obj(vec![(S::spelled(text, raw), num(1))]));
        }
        _ => {
            let i = c.force(Kind::Custom);
            msg(&mut c.sess, i).set("kind", s);
        }
    }
    Some(format!("string-escape:{kind}:{site}"))
}

fn f_lines(c: &mut Ctx) -> Option<String> {
    let kind = c.rng.pick(&[
        "crlf",
        "blank-between",
        "spaces-line",
        "trailing-newline",
        "leading-blank",
        "lone-cr-join",
        "double-cr",
        "tabs-around",
        "empty-file",
        "blank-only",
    ]);
    let n = c.sess.ents.len();
    match kind {
        "crlf" => {
            for e in &mut c.sess.ents {
                e.end = "\r\n".into();
            }
            c.sess.tail = "\r\n".into();
        }
        "blank-between" => {
            let i = c.pick_entry();
            c.sess.ents[i].before = vec![String::new(), String::new()];
        }
        "spaces-line" => {
            let i = c.pick_entry();
            c.sess.ents[i].before = vec!["   \t ".into()];
        }
        "trailing-newline" => c.sess.tail = "\n".into(),
        "leading-blank" => c.sess.ents[0].before = vec![String::new()],
        "lone-cr-join" => {
            if n < 2 {
                return None;
            }
            let i = c.rng.below(n - 1);
            c.sess.ents[i].end = "\r".into();
        }
        "double-cr" => {
            for e in &mut c.sess.ents {
                e.end = "\r\r\n".into();
            }
        }
        "tabs-around" => {
            let i = c.pick_entry();
            c.sess.ents[i].pre = "\t ".into();
            c.sess.ents[i].post = " \t".into();
        }
        "empty-file" => {
            c.sess.ents.clear();
        }
        _ => {
            c.sess.ents.clear();
            c.sess.tail = "\n \n\t\r\n".into();
        }
    }
    Some(format!("lines:{kind}"))
}

pub const WS_POSITIONS: &[&str] = &["line", "start", "end", "between", "string"];

/// Put `ws` at `pos` in entry `i` of `sess` (see [`WS_POSITIONS`]).
pub fn place_whitespace(sess: &mut Sess, i: usize, ws: char, pos: &str) -> bool {
    let w = ws.to_string();
    let e = &mut sess.ents[i];
    match pos {
        "line" => e.before.push(w),
        "start" => e.pre.insert_str(0, &w),
        "end" => e.post.push_str(&w),
        "between" => e.gap = w,
        _ => {
            // Inside a string: the first text block's text, or the custom kind.
            let Some(m) = e.j.get_mut("message").filter(|m| m.members().is_some()) else {
                return false;
            };
            if let Some(J::Arr(blocks)) = m.get_mut("content") {
                blocks.insert(
                    0,
                    J::Obj(vec![
                        (S::plain("type"), str_("text")),
                        (S::plain("text"), J::Str(S::spelled("", &format!("a{w}b")))),
                    ]),
                );
            } else {
                m.set("kind", J::Str(S::spelled("", &format!("a{w}b"))));
            }
        }
    }
    true
}

fn f_whitespace(c: &mut Ctx) -> Option<String> {
    let cps = whitespace_code_points();
    let ws = c.rng.pick(&cps);
    let pos = c.rng.pick(WS_POSITIONS);
    if c.sess.ents.is_empty() {
        return None;
    }
    let i = c.pick_entry();
    // The label names the position only: whitespace.json has every code point at every
    // position; here the answer tells the code points apart.
    place_whitespace(&mut c.sess, i, ws, pos).then(|| format!("ws:{pos}"))
}

/// A valid step message (as yoagent would accept it), as a JSON value.
fn step_message(rng: &mut Rng) -> Value {
    let kind = any_kind(rng);
    serde_json::from_str(&to_text(&message(rng, kind))).expect("generated messages are JSON")
}

fn step_ts(rng: &mut Rng) -> Value {
    json!(match rng.below(4) {
        0 => 0,
        1 => u64::MAX,
        _ => rng.below(1 << 20) as u64,
    })
}

fn f_steps(c: &mut Ctx) -> Option<String> {
    let ids = c.sess.ids();
    let mut names = BTreeSet::new();
    for _ in 0..1 + c.rng.below(5) {
        let s = match c.rng.below(8) {
            0 | 1 => {
                names.insert("append");
                json!({"step":"append","message":step_message(c.rng),"timestamp":step_ts(c.rng)})
            }
            2 => {
                names.insert("seek");
                let id = if !ids.is_empty() && !c.rng.one_in(3) {
                    c.rng.pick(&ids).clone()
                } else {
                    c.rng.pick(&["e99", "E1", "e01", "", "e1 "]).to_string()
                };
                json!({"step":"seek","id":id})
            }
            3 => {
                names.insert("checkpoint");
                json!({"step":"checkpoint","label":c.rng.pick(&["cp", "draft", "", "日本"])})
            }
            4 => {
                names.insert("seek_checkpoint");
                json!({"step":"seek_checkpoint","label":c.rng.pick(&["cp", "draft", "v1", "same", "nope"])})
            }
            5 => {
                names.insert("save_load");
                json!({"step":"save_load"})
            }
            _ => {
                names.insert("append_new");
                let h: Vec<Value> = (0..c.rng.below(3)).map(|_| step_message(c.rng)).collect();
                json!({"step":"append_new","history":h,"timestamp":step_ts(c.rng)})
            }
        };
        c.steps.push(s);
    }
    let _ = names;
    Some("steps".into())
}

fn f_deep_step(c: &mut Ctx) -> Option<String> {
    // A custom message whose data is `n` nested arrays is n + 1 levels deep; its saved
    // line n + 2 (serde_json reads at most 127).
    let n = c.rng.pick(&[125usize, 126, 127, 200, 240]);
    let mut data = json!(0);
    for _ in 0..n {
        data = json!([data]);
    }
    let m = json!({"role":"extension","kind":"deep","data":data});
    let how = if c.rng.one_in(2) {
        c.steps
            .push(json!({"step":"append","message":m,"timestamp":1}));
        "append"
    } else {
        c.steps
            .push(json!({"step":"append_new","history":[m],"timestamp":1}));
        "append_new"
    };
    if c.rng.one_in(2) {
        c.steps.push(json!({"step":"save_load"}));
    }
    Some(format!("deep-step:{how}:{}", n + 1))
}

fn f_invalid_utf8(c: &mut Ctx) -> Option<String> {
    let (kind, bytes): (&str, &'static [u8]) = c.rng.pick(&[
        ("ff", &b"\xff"[..]),
        ("continuation", &b"\x80"[..]),
        ("overlong-slash", &b"\xc0\xaf"[..]),
        ("surrogate", &b"\xed\xa0\x80"[..]),
        ("truncated", &b"\xe2\x82"[..]),
        ("above-max", &b"\xf4\x90\x80\x80"[..]),
    ]);
    c.bad_bytes = Some(bytes);
    Some(format!("invalid-utf8:{kind}"))
}

fn f_append_new(c: &mut Ctx) -> Option<String> {
    let v = c.rng.pick(&[
        "extend",
        "equal",
        "shorter",
        "differs",
        "int-vs-float",
        "float-vs-int",
        "float-respelled",
        "neg-zero",
        "unknown-member",
        "alias",
        "key-order",
        "repeated-key-last",
        "repeated-key-first",
        "usage-default",
        "error-message-absent-vs-null",
        "big-integer",
    ]);
    if c.sess.ents.is_empty() {
        return None;
    }
    // Some variants need a number or a member in the head's message (the last entry).
    let head = c.sess.ents.len() - 1;
    c.touched.resize(c.sess.ents.len(), false);
    c.touched[head] = true;
    let data = match v {
        "int-vs-float" => Some(obj(vec![("n", num(1))])),
        "float-vs-int" => Some(obj(vec![("n", lit("1.0"))])),
        "float-respelled" => Some(obj(vec![("n", lit("1E+2"))])),
        "neg-zero" => Some(obj(vec![("n", lit("-0.0"))])),
        "key-order" => Some(obj(vec![("z", num(1)), ("a", num(2))])),
        "repeated-key-last" | "repeated-key-first" => Some(obj(vec![("a", num(1)), ("a", num(2))])),
        "big-integer" => Some(obj(vec![("n", lit("18446744073709551616"))])),
        _ => None,
    };
    if let Some(d) = data {
        let m = message(c.rng, Kind::Custom);
        c.sess.ents[head].j.set("message", m);
        c.sess.ents[head]
            .j
            .get_mut("message")
            .unwrap()
            .set("data", d);
    }
    if matches!(
        v,
        "alias" | "usage-default" | "error-message-absent-vs-null"
    ) {
        let mut m = message(c.rng, Kind::Assistant);
        if v == "usage-default" {
            m.set("usage", obj(vec![("input", num(1)), ("output", num(2))]));
        }
        if v == "alias" {
            m.set("errorMessage", str_("boom"));
        }
        m.remove(if v == "error-message-absent-vs-null" {
            "errorMessage"
        } else {
            "_"
        });
        c.sess.ents[head].j.set("message", m);
    }
    // The head must be the last entry with its whole chain as the path: make the file
    // a chain.
    for i in 1..c.sess.ents.len() {
        let parent = c.sess.ents[i - 1].j.get("id").cloned();
        if let Some(p) = parent {
            c.sess.ents[i].j.set("parent_id", p);
        }
    }
    c.history_variant = Some(v.to_owned());
    Some(format!("append-new:{v}"))
}

/// The `append_new` step of `variant`, built from the path messages of the loaded
/// session as yoagent itself serialises them (`None` when the file does not load).
pub fn append_new_step(rng: &mut Rng, input: &str, variant: &str) -> Option<Value> {
    let s = yoagent::Session::from_jsonl(input).ok()?;
    let mut path: Vec<Value> = s
        .path_messages()
        .iter()
        .map(|m| serde_json::to_value(m).expect("messages serialise"))
        .collect();
    let set_n = |path: &mut Vec<Value>, n: Value| {
        if let Some(last) = path.last_mut() {
            last["data"]["n"] = n;
        }
    };
    match variant {
        "extend" => path.push(step_message(rng)),
        "equal" => {}
        "shorter" => {
            path.pop();
        }
        "differs" => {
            let i = rng.below(path.len().max(1));
            if i < path.len() {
                path[i] = step_message(rng);
            } else {
                path.push(step_message(rng));
            }
        }
        "int-vs-float" => set_n(&mut path, json!(1.0)),
        "float-vs-int" => set_n(&mut path, json!(1)),
        "float-respelled" => set_n(&mut path, json!(100.0)),
        "neg-zero" => set_n(&mut path, json!(0.0)),
        "big-integer" => set_n(&mut path, json!(18446744073709551616.0)),
        "unknown-member" => {
            if let Some(Value::Object(m)) = path.last_mut() {
                m.insert("meta".into(), json!({"x": 1}));
            }
        }
        "alias" => {
            if let Some(Value::Object(m)) = path.last_mut() {
                if let Some(e) = m.remove("errorMessage") {
                    m.insert("error_message".into(), e);
                }
            }
        }
        "key-order" => {}
        "repeated-key-last" => set_n(&mut path, Value::Null),
        "repeated-key-first" => {
            if let Some(last) = path.last_mut() {
                last["data"]["a"] = json!(1);
            }
        }
        "usage-default" => {
            if let Some(last) = path.last_mut() {
                last["usage"]["cacheRead"] = json!(0);
            }
        }
        "error-message-absent-vs-null" => {
            if let Some(Value::Object(m)) = path.last_mut() {
                m.insert("errorMessage".into(), Value::Null);
            }
        }
        _ => {}
    }
    if variant == "repeated-key-last" {
        // `set_n` above added an `n`; drop it again (the history is the path as is).
        if let Some(Value::Object(d)) = path.last_mut().and_then(|m| m.get_mut("data")) {
            d.remove("n");
        }
    }
    if rng.one_in(2) {
        path.push(step_message(rng));
    }
    Some(json!({"step":"append_new","history":path,"timestamp":step_ts(rng)}))
}

// ---------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------

/// A generated case before its expectations: the input text, the steps and the
/// features that built it.
pub struct Candidate {
    pub input: Vec<u8>,
    pub steps: Vec<Value>,
    pub features: Vec<String>,
}

/// Build one candidate: a random session, the feature family `first` (when given) and
/// `extra` further random families.
pub fn candidate(
    rng: &mut Rng,
    misrounded: &[String],
    first: Option<usize>,
    extra: usize,
) -> Candidate {
    let mut fams: Vec<usize> = first.into_iter().collect();
    for _ in 0..extra {
        fams.push(rng.below(FAMILIES.len()));
    }
    // append-new first (it rewrites the head's message and makes the file a chain),
    // the features that change an entry's structure or its line last, so that no
    // feature undoes another.
    let rank = |f: &usize| match FAMILIES[*f].0 {
        "append-new" => 0,
        "entry-array" | "entry-missing" | "entry-repeat" | "entry-order" | "key-escape"
        | "lines" | "whitespace" | "steps" => 2,
        _ => 1,
    };
    fams.sort_by_key(rank);
    let n = (1 + rng.below(3)).max(fams.len() + 1);
    let sess = session(rng, n);
    let mut ctx = Ctx {
        rng,
        sess,
        misrounded,
        steps: vec![],
        history_variant: None,
        touched: vec![],
        bad_bytes: None,
    };
    let mut features = Vec::new();
    for f in fams {
        if ctx.sess.ents.is_empty() && FAMILIES[f].0 != "steps" {
            continue;
        }
        if let Some(label) = (FAMILIES[f].1)(&mut ctx) {
            features.push(label);
        }
    }
    if ctx.sess.ents.is_empty() {
        // An emptied file (lines:empty-file, lines:blank-only) voids the features that
        // changed its entries.
        features.retain(|f| {
            ["lines:", "steps", "deep-step", "invalid-utf8"]
                .iter()
                .any(|p| f.starts_with(p))
        });
    }
    let text = ctx.sess.render();
    let mut steps = std::mem::take(&mut ctx.steps);
    if let Some(v) = ctx.history_variant.take() {
        if let Some(s) = append_new_step(ctx.rng, &text, &v) {
            steps.insert(0, s);
            if ctx.rng.one_in(2) {
                steps.push(json!({"step":"save_load"}));
            }
        }
    }
    let mut input = text.into_bytes();
    if let Some(bad) = ctx.bad_bytes {
        let text = std::str::from_utf8(&input).expect("rendered text is UTF-8");
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let at = ctx.rng.pick(&cuts);
        input.splice(at..at, bad.iter().copied());
    }
    features.sort();
    features.dedup();
    Candidate {
        input,
        steps,
        features,
    }
}

/// Reuse `jtext::from_value` for callers that build J from serde values.
pub fn j_of(v: &Value) -> J {
    from_value(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling `f_id_escape` writes decodes to the id it claims, whatever the
    /// ids are: an empty one, a non-ASCII one, one without a leading `e` (a CI run
    /// once panicked here on an empty id, with a seed from the commit's tree hash).
    #[test]
    fn id_escape_spells_the_id_it_claims() {
        for seed in 0..400 {
            let mut rng = Rng::new(seed);
            let mut sess = session(&mut rng, 3);
            for (e, id) in sess.ents.iter_mut().zip(["", "é1", "x"]) {
                e.j.set("id", str_(id));
            }
            let mut c = Ctx {
                rng: &mut rng,
                sess,
                misrounded: &[],
                steps: vec![],
                history_variant: None,
                touched: vec![],
                bad_bytes: None,
            };
            f_id_escape(&mut c);
            for e in &c.sess.ents {
                if let Some(J::Str(S {
                    text,
                    raw: Some(raw),
                })) = e.j.get("id")
                {
                    let decoded: String = serde_json::from_str(&format!("\"{raw}\"")).unwrap();
                    assert_eq!(&decoded, text, "seed {seed}: {raw:?}");
                }
            }
        }
    }

    /// Every feature family, alone and with others, builds a candidate without
    /// panicking, over many seeds.
    #[test]
    fn every_family_builds_candidates() {
        let mis = misrounded_literals(6);
        for seed in 0..3000u64 {
            let mut rng = Rng::new(seed);
            let first = (seed as usize) % FAMILIES.len();
            let extra = rng.below(4);
            candidate(&mut rng, &mis, Some(first), extra);
        }
    }
}
