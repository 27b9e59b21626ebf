//! JSON *text* built by hand, so that the generator controls what serde_json's `Value`
//! cannot hold: member order, repeated members, the spelling of numbers and strings
//! (escapes), and whitespace between tokens.

/// A string token: its decoded text, and optionally the exact characters written
/// between the quotes (escapes and all). Without `raw` it is written as serde_json
/// writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct S {
    pub text: String,
    pub raw: Option<String>,
}

impl S {
    pub fn plain(text: &str) -> S {
        S {
            text: text.to_owned(),
            raw: None,
        }
    }

    pub fn spelled(text: &str, raw: &str) -> S {
        S {
            text: text.to_owned(),
            raw: Some(raw.to_owned()),
        }
    }
}

/// A JSON text in the making.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    /// A number, `true`, `false` or `null` exactly as written (any spelling, even one
    /// that is not JSON).
    Lit(String),
    Str(S),
    Arr(Vec<J>),
    Obj(Vec<(S, J)>),
}

pub fn str_(s: &str) -> J {
    J::Str(S::plain(s))
}

pub fn num(n: impl std::fmt::Display) -> J {
    J::Lit(n.to_string())
}

pub fn lit(s: &str) -> J {
    J::Lit(s.to_owned())
}

pub fn obj(members: Vec<(&str, J)>) -> J {
    J::Obj(members.into_iter().map(|(k, v)| (S::plain(k), v)).collect())
}

impl J {
    pub fn members_mut(&mut self) -> Option<&mut Vec<(S, J)>> {
        match self {
            J::Obj(m) => Some(m),
            _ => None,
        }
    }

    pub fn members(&self) -> Option<&Vec<(S, J)>> {
        match self {
            J::Obj(m) => Some(m),
            _ => None,
        }
    }

    /// The first member called `key` (by its decoded name).
    pub fn get(&self, key: &str) -> Option<&J> {
        self.members()?
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut J> {
        self.members_mut()?
            .iter_mut()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| v)
    }

    /// Remove every member called `key`; whether there was one.
    pub fn remove(&mut self, key: &str) -> bool {
        match self.members_mut() {
            Some(m) => {
                let n = m.len();
                m.retain(|(k, _)| k.text != key);
                m.len() != n
            }
            None => false,
        }
    }

    /// Set `key` (the first occurrence), or append it.
    pub fn set(&mut self, key: &str, v: J) {
        if let Some(slot) = self.get_mut(key) {
            *slot = v;
        } else if let Some(m) = self.members_mut() {
            m.push((S::plain(key), v));
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(&s.text),
            _ => None,
        }
    }
}

/// serde_json's own string escaping (`"`, `\`, the short escapes, other controls as
/// `\u00xx`).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Every character as a `\uXXXX` escape (surrogate pairs above the BMP).
pub fn escape_all(s: &str) -> String {
    let mut out = String::new();
    for u in s.encode_utf16() {
        out.push_str(&format!("\\u{u:04x}"));
    }
    out
}

/// Write `j`; `gap` goes between every two tokens (after `[`, `{`, `,`, `:` and before
/// `]`, `}`, `,`, `:`), empty for none.
pub fn write(j: &J, gap: &str, out: &mut String) {
    match j {
        J::Lit(s) => out.push_str(s),
        J::Str(s) => write_str(s, out),
        J::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(gap);
                if i > 0 {
                    out.push(',');
                    out.push_str(gap);
                }
                write(item, gap, out);
            }
            out.push_str(gap);
            out.push(']');
        }
        J::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                out.push_str(gap);
                if i > 0 {
                    out.push(',');
                    out.push_str(gap);
                }
                write_str(k, out);
                out.push_str(gap);
                out.push(':');
                out.push_str(gap);
                write(v, gap, out);
            }
            out.push_str(gap);
            out.push('}');
        }
    }
}

pub fn write_str(s: &S, out: &mut String) {
    out.push('"');
    match &s.raw {
        Some(r) => out.push_str(r),
        None => out.push_str(&escape(&s.text)),
    }
    out.push('"');
}

pub fn to_text(j: &J) -> String {
    let mut out = String::new();
    write(j, "", &mut out);
    out
}

/// A serde_json value as a `J` (members in the value's order, numbers and strings as
/// serde_json writes them).
pub fn from_value(v: &serde_json::Value) -> J {
    match v {
        serde_json::Value::Array(a) => J::Arr(a.iter().map(from_value).collect()),
        serde_json::Value::Object(m) => J::Obj(
            m.iter()
                .map(|(k, v)| (S::plain(k), from_value(v)))
                .collect(),
        ),
        serde_json::Value::String(s) => str_(s),
        other => J::Lit(other.to_string()),
    }
}
