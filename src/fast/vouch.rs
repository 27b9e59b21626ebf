//! Messages the `yoagent-0.26` fast path can vouch for without yoagent's types: a
//! conservative acceptor, read straight from serde_json's tokens (no buffering, no
//! string copied), of the plain forms of yoagent's `Message`:
//!
//! * `user`: exactly `role`, `content`, `timestamp`;
//! * `assistant`: `role`, `content`, `stopReason` (one of yoagent's six), `model`,
//!   `provider`, `usage`, `timestamp`, and optionally `errorMessage` as a string;
//! * `toolResult`: exactly `role`, `toolCallId`, `toolName`, `content`, `isError`,
//!   `timestamp`;
//!
//! where `content` is an array of `{"type":"text","text":...}` blocks (those two
//! members, nothing else), `usage` has `input` and `output` and optionally `cacheRead`,
//! `cacheWrite`, `totalTokens` (the camelCase spellings only), and every count and
//! timestamp is a `u64`. Every member appears once; any other member, alias, `null`,
//! content type or duplicate is declined.
//!
//! Why it is right: each such object is a `Message` for yoagent's serde derivation
//! (`AgentMessage` tries `Message` first, so it loads as `Llm`), by the types in
//! `tree::yoagent`: the tag selects the variant, every required field is present with
//! its type, and the strings and numbers are read by the same serde_json tokenizer
//! and the same primitive visitors (`String`, `u64`, `bool`). The reverse need not hold:
//! a declined message is read by yoagent's own types. `tests/fast_oracle.rs` checks that
//! every vouched message of the corpus and of their mutations is an `AgentMessage`.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// A message vouched for (see the module's text); deserializing anything else fails.
pub struct Vouched;

/// An entry of a session file with its message vouched for: yoagent's `SessionEntry`
/// with the same fields and attributes, but `Vouched` for `message`.
#[derive(Deserialize)]
pub struct VouchedEntry {
    pub id: String,
    pub parent_id: Option<String>,
    #[allow(dead_code)]
    message: Vouched,
    #[allow(dead_code)]
    timestamp: u64,
    #[serde(default)]
    pub label: Option<String>,
}

fn decline<E: de::Error>() -> E {
    E::custom("not vouched for")
}

/// A string, matched against `names` without being copied; its position, or a
/// decline.
struct OneOf(&'static [&'static str]);

impl<'de> de::DeserializeSeed<'de> for OneOf {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for OneOf {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("one of the vouched-for names")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<usize, E> {
        self.0.iter().position(|n| *n == s).ok_or_else(decline)
    }
}

/// Any string (borrowed or unescaped), not kept.
struct AnyStr;

impl<'de> Deserialize<'de> for AnyStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AnyStr, D::Error> {
        d.deserialize_str(AnyStr)
    }
}

impl Visitor<'_> for AnyStr {
    type Value = AnyStr;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<AnyStr, E> {
        Ok(AnyStr)
    }
}

/// The members of an object, each once, by their position in `names`: calls `value`
/// for each and returns the set seen as bits.
fn members<'de, A: MapAccess<'de>>(
    mut map: A,
    names: &'static [&'static str],
    mut value: impl FnMut(usize, &mut A) -> Result<(), A::Error>,
) -> Result<u32, A::Error> {
    let mut seen = 0u32;
    while let Some(k) = map.next_key_seed(OneOf(names))? {
        if seen & (1 << k) != 0 {
            return Err(decline());
        }
        seen |= 1 << k;
        value(k, &mut map)?;
    }
    Ok(seen)
}

const TEXT_BLOCK: &[&str] = &["type", "text"];

/// `{"type":"text","text":...}`.
struct TextBlock;

impl<'de> Deserialize<'de> for TextBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TextBlock, D::Error> {
        d.deserialize_map(TextBlock)
    }
}

impl<'de> Visitor<'de> for TextBlock {
    type Value = TextBlock;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a text block")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<TextBlock, A::Error> {
        let seen = members(map, TEXT_BLOCK, |k, m| match k {
            0 => m.next_value_seed(OneOf(&["text"])).map(|_| ()),
            _ => m.next_value::<AnyStr>().map(|_| ()),
        })?;
        if seen == 0b11 {
            Ok(TextBlock)
        } else {
            Err(decline())
        }
    }
}

/// An array of text blocks.
struct TextBlocks;

impl<'de> Deserialize<'de> for TextBlocks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TextBlocks, D::Error> {
        d.deserialize_seq(TextBlocks)
    }
}

impl<'de> Visitor<'de> for TextBlocks {
    type Value = TextBlocks;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of text blocks")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TextBlocks, A::Error> {
        while seq.next_element::<TextBlock>()?.is_some() {}
        Ok(TextBlocks)
    }
}

const USAGE: &[&str] = &["input", "output", "cacheRead", "cacheWrite", "totalTokens"];

/// yoagent's `Usage` in its camelCase spelling.
struct Usage;

impl<'de> Deserialize<'de> for Usage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Usage, D::Error> {
        d.deserialize_map(Usage)
    }
}

impl<'de> Visitor<'de> for Usage {
    type Value = Usage;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a usage object")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Usage, A::Error> {
        let seen = members(map, USAGE, |_, m| m.next_value::<u64>().map(|_| ()))?;
        if seen & 0b11 == 0b11 {
            Ok(Usage)
        } else {
            Err(decline())
        }
    }
}

const MESSAGE: &[&str] = &[
    "role",         // 0
    "content",      // 1
    "timestamp",    // 2
    "stopReason",   // 3
    "model",        // 4
    "provider",     // 5
    "usage",        // 6
    "errorMessage", // 7
    "toolCallId",   // 8
    "toolName",     // 9
    "isError",      // 10
];

const ROLES: &[&str] = &["user", "assistant", "toolResult"];
const STOP_REASONS: &[&str] = &["stop", "length", "toolUse", "error", "aborted", "refusal"];

impl<'de> Deserialize<'de> for Vouched {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Vouched, D::Error> {
        d.deserialize_map(Vouched)
    }
}

impl<'de> Visitor<'de> for Vouched {
    type Value = Vouched;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message in a vouched-for form")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vouched, A::Error> {
        let mut role = usize::MAX;
        let seen = members(map, MESSAGE, |k, m| {
            match k {
                0 => role = m.next_value_seed(OneOf(ROLES))?,
                1 => m.next_value::<TextBlocks>().map(|_| ())?,
                2 => m.next_value::<u64>().map(|_| ())?,
                3 => m.next_value_seed(OneOf(STOP_REASONS)).map(|_| ())?,
                4 | 5 | 7 | 8 | 9 => m.next_value::<AnyStr>().map(|_| ())?,
                6 => m.next_value::<Usage>().map(|_| ())?,
                _ => m.next_value::<bool>().map(|_| ())?,
            }
            Ok(())
        })?;
        let bits = |ks: &[usize]| ks.iter().fold(0u32, |b, k| b | 1 << k);
        let ok = match role {
            0 => seen == bits(&[0, 1, 2]),
            1 => {
                let required = bits(&[0, 1, 2, 3, 4, 5, 6]);
                seen == required || seen == required | bits(&[7])
            }
            2 => seen == bits(&[0, 8, 9, 1, 10, 2]),
            _ => false,
        };
        if ok {
            Ok(Vouched)
        } else {
            Err(decline())
        }
    }
}
