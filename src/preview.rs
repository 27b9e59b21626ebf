//! Input bytes made printable (SPEC.md 12, "Looking at one case"): [`escape`] shows
//! invisible, control, format and invalid bytes so they can be seen (a raw U+0085 or
//! U+2028, a BOM, a `\r`, a NUL, a byte that is not UTF-8), and [`Preview`] is a case's
//! input as explanations, reports and `show` give it: its size and an escaped beginning.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use crate::json::Value;

/// How many input bytes a preview shows (the total size is always given).
pub const PREVIEW_BYTES: usize = 300;

/// Whether `c` is shown as itself. Everything that would print as nothing or as
/// blank space other than U+0020 is escaped: controls (Cc: C0, DEL, C1 such as U+0085),
/// format characters (Cf: U+FEFF, bidi controls, zero-width joiners, soft hyphen),
/// line and paragraph separators (U+2028, U+2029), spaces other than U+0020 (U+00A0,
/// U+3000, ...), private-use and unassigned code points.
pub fn shown_as_is(c: char) -> bool {
    c == ' '
        || !matches!(
            c.general_category(),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
                | GeneralCategory::SpaceSeparator
                | GeneralCategory::PrivateUse
                | GeneralCategory::Unassigned
                | GeneralCategory::Surrogate
        )
}

/// Escape at most about `max` bytes of `bytes` for display; returns the text and how
/// many bytes it covers (a character cut by `max` is shown whole).
///
/// `\n` stays a line break. Every other invisible character is written `\u{HEX}`
/// (Rust's notation: `\u{d}` for a raw `\r`, `\u{9}` for a tab, `\u{0}` for NUL,
/// `\u{85}`, `\u{2028}`, `\u{feff}`), and a byte that is not part of well-formed UTF-8
/// is written `\xHH`. Neither notation is a JSON escape (JSON writes `\r`, `\u000d`),
/// so a raw character never looks like an escaped one. Printable characters, non-ASCII
/// letters included, are shown as they are.
pub fn escape(bytes: &[u8], max: usize) -> (String, usize) {
    let mut out = String::new();
    let mut used = 0;
    'chunks: for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if used >= max {
                break 'chunks;
            }
            used += c.len_utf8();
            if c == '\n' || shown_as_is(c) {
                out.push(c);
            } else {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        }
        for b in chunk.invalid() {
            if used >= max {
                break 'chunks;
            }
            used += 1;
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    (out, used)
}

/// The byte offset of the first difference between two texts: the first index where
/// they differ, or the shorter one's length when it is a prefix of the other; `None` when
/// they are equal.
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    Some(
        a.iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len())),
    )
}

/// The stretch of `text` around byte `at`: from about `before` bytes before it to about
/// `after` bytes after it, both ends moved outward to character boundaries. Returns the
/// start offset and the stretch.
pub fn window(text: &str, at: usize, before: usize, after: usize) -> (usize, &str) {
    let at = at.min(text.len());
    let mut start = at.saturating_sub(before);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = at.saturating_add(after).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, &text[start..end])
}

/// A case's input as shown in explanations and reports: its size and an escaped
/// preview of its first [`PREVIEW_BYTES`] bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Preview {
    /// The total size in bytes.
    pub size: usize,
    /// How many bytes `text` shows.
    pub shown: usize,
    /// [`escape`]d text; ends with `…` when the input is longer than what it shows.
    pub text: String,
    /// Whether the input's last byte is `\n`.
    pub final_newline: bool,
}

impl Preview {
    pub fn of(bytes: &[u8]) -> Preview {
        Preview::with_limit(bytes, PREVIEW_BYTES)
    }

    /// A preview of about `max` bytes.
    pub fn with_limit(bytes: &[u8], max: usize) -> Preview {
        let (mut text, shown) = escape(bytes, max);
        if shown < bytes.len() {
            text.push('…');
        }
        Preview {
            size: bytes.len(),
            shown,
            text,
            final_newline: bytes.last() == Some(&b'\n'),
        }
    }

    /// The report's `input` member: `{"size":N,"preview":TEXT}`.
    pub fn to_json(&self) -> Value {
        Value::object([
            ("size", Value::from_u64(self.size as u64)),
            ("preview", Value::from(self.text.as_str())),
        ])
    }

    /// One line saying what the preview shows: size, how much is shown, the ending.
    pub fn summary(&self) -> String {
        if self.size == 0 {
            return "0 bytes: empty".into();
        }
        let mut s = format!("{} bytes", self.size);
        if self.shown < self.size {
            s.push_str(&format!(", the first {} shown", self.shown));
        }
        s.push_str(if self.final_newline {
            ", ends with a newline"
        } else {
            ", NO final newline"
        });
        s
    }

    /// The preview as indented lines, each starting with `| ` so that leading and
    /// trailing spaces can be seen.
    pub fn render(&self, indent: &str) -> String {
        let mut out = format!("{indent}input ({}):\n", self.summary());
        let body = self.text.strip_suffix('\n').unwrap_or(&self.text);
        if self.size > 0 {
            for line in body.split('\n') {
                out.push_str(&format!("{indent}  | {line}\n"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(b: &[u8]) -> String {
        escape(b, 10_000).0
    }

    #[test]
    fn invisible_characters_are_escaped() {
        for (raw, shown) in [
            ("a\u{85}b", "a\\u{85}b"),
            ("a\u{2028}b", "a\\u{2028}b"),
            ("a\u{2029}b", "a\\u{2029}b"),
            ("\u{feff}{}", "\\u{feff}{}"),
            ("{}\r\n", "{}\\u{d}\n"),
            ("a\tb", "a\\u{9}b"),
            ("a\0b", "a\\u{0}b"),
            ("\u{1}\u{1b}\u{1f}\u{7f}", "\\u{1}\\u{1b}\\u{1f}\\u{7f}"),
            ("\u{80}\u{9f}", "\\u{80}\\u{9f}"),
            // Bidi and other format characters (Cf).
            ("\u{202e}abc\u{202c}", "\\u{202e}abc\\u{202c}"),
            (
                "\u{200b}\u{200d}\u{2066}\u{ad}",
                "\\u{200b}\\u{200d}\\u{2066}\\u{ad}",
            ),
            // Spaces other than U+0020 look like one.
            ("a\u{a0}b\u{3000}c", "a\\u{a0}b\\u{3000}c"),
            ("\u{e000}", "\\u{e000}"),
        ] {
            assert_eq!(esc(raw.as_bytes()), shown, "{raw:?}");
        }
    }

    #[test]
    fn first_differences_and_windows() {
        assert_eq!(first_difference(b"{\"a\":1.0}", b"{\"a\":1}"), Some(6));
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(first_difference(b"ab", b"abc"), Some(2));
        assert_eq!(first_difference(b"", b"x"), Some(0));
        let t = "0123456789";
        assert_eq!(window(t, 5, 2, 3), (3, "34567"));
        assert_eq!(window(t, 1, 4, 100), (0, t));
        assert_eq!(window(t, 10, 2, 2), (8, "89"));
        // "é" is 2 bytes (1..3): a cut inside it moves outward.
        let t = "aébc";
        assert_eq!(window(t, 3, 1, 0), (1, "é"));
        assert_eq!(window(t, 0, 0, 2), (0, "aé"));
    }

    #[test]
    fn invalid_utf8_bytes_are_shown_as_hex() {
        assert_eq!(esc(b"a\xffb"), "a\\xffb");
        assert_eq!(esc(b"\xc3"), "\\xc3"); // truncated sequence
        assert_eq!(esc(b"\xed\xa0\x80"), "\\xed\\xa0\\x80"); // encoded surrogate
        assert_eq!(esc(b"\xc0\xaf"), "\\xc0\\xaf"); // overlong
    }

    #[test]
    fn printable_text_stays_as_is() {
        for s in [
            "{\"a\":\"b c\"}",
            "héllo wörld",
            "日本語",
            "Ελληνικά",
            "emoji 🎉",
            "\\u0085 is a JSON escape",
            "\\r\\n",
        ] {
            assert_eq!(esc(s.as_bytes()), s);
        }
        assert_eq!(esc(b"a\nb\n"), "a\nb\n");
    }

    #[test]
    fn a_raw_nel_does_not_look_like_a_valid_line() {
        let line = "{\"content\":\"a\u{85}b\"}\n";
        let p = Preview::of(line.as_bytes());
        assert!(p.text.contains("\\u{85}"), "{}", p.text);
        assert_ne!(p.text, line);
        assert!(p.render("").contains("| {\"content\":\"a\\u{85}b\"}"));
    }

    #[test]
    fn previews_give_size_shown_bytes_and_ending() {
        let big = "x".repeat(1000);
        let p = Preview::of(big.as_bytes());
        assert_eq!((p.size, p.shown), (1000, PREVIEW_BYTES));
        assert!(p.text.ends_with('…'));
        assert_eq!(
            p.summary(),
            "1000 bytes, the first 300 shown, NO final newline"
        );
        assert_eq!(
            Preview::of(b"{}\n").summary(),
            "3 bytes, ends with a newline"
        );
        assert_eq!(Preview::of(b"").summary(), "0 bytes: empty");
        // A multi-byte character at the cut is shown whole, not as invalid bytes.
        let s = format!("{}é", "x".repeat(PREVIEW_BYTES - 1));
        let p = Preview::of(s.as_bytes());
        assert!(p.text.ends_with('é'), "{}", p.text);
        assert_eq!(
            p.to_json(),
            Value::object([
                ("size", Value::from_u64(PREVIEW_BYTES as u64 + 1)),
                ("preview", Value::from(p.text.as_str()))
            ])
        );
    }
}
