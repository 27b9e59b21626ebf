//! The JSONL wire format (SPEC.md section "Wire format", rules `W-*`).
//!
//! This module owns how a byte stream becomes lines and each line a JSON value:
//! split on `\n` only, a final newline optional, no BOM, no blank lines, UTF-8 only.
//! It streams: one line is held in memory at a time.

use std::io::BufRead;

use crate::error::{Error, ErrorCode};
use crate::json::{self, Value};

/// One physical line of a JSONL stream, without its `\n`.
#[derive(Debug)]
pub struct Line {
    /// 1-based physical line number (`W-LINE-2`).
    pub number: u64,
    /// The line's bytes, without the terminating `\n` (a `\r` before it is kept).
    pub bytes: Vec<u8>,
    /// Whether the line was terminated by `\n` (only the last line may lack it).
    pub terminated: bool,
}

/// Reads lines split on `\n` only (`W-LINE-1`): never on `\r`, U+2028, U+0085 or any
/// other character that some languages' "lines" split on. The text after the last
/// `\n` is a line only if it is non-empty (`W-LINE-3`).
pub struct LineReader<R> {
    inner: R,
    number: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            number: 0,
            buf: Vec::new(),
        }
    }

    /// The next line, reusing an internal buffer; `Ok(None)` at end of input.
    pub fn next_line(&mut self) -> std::io::Result<Option<(u64, &[u8], bool)>> {
        self.buf.clear();
        let n = self.inner.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        let terminated = self.buf.last() == Some(&b'\n');
        if terminated {
            self.buf.pop();
        }
        Ok(Some((self.number, &self.buf, terminated)))
    }
}

impl<R: BufRead> Iterator for LineReader<R> {
    type Item = std::io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_line() {
            Ok(Some((number, bytes, terminated))) => Some(Ok(Line {
                number,
                bytes: bytes.to_vec(),
                terminated,
            })),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Turn one line's bytes into a JSON value, applying the wire rules in SPEC order:
/// `W-BOM-1` (`unexpected_bom`), `W-UTF8-1` (`invalid_utf8`), `W-BLANK-1`
/// (`blank_line`), then the JSON rules `C-*`. The error carries the line number,
/// column and an excerpt.
pub fn parse_line(number: u64, bytes: &[u8]) -> Result<Value, Error> {
    let located = |e: Error| e.at_line(number).with_excerpt(bytes);
    if bytes.starts_with(BOM) {
        return Err(located(
            Error::new(
                ErrorCode::UnexpectedBom,
                "line starts with a UTF-8 byte order mark",
            )
            .at_column(1),
        ));
    }
    let text = json::utf8(bytes).map_err(located)?;
    if text.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
        return Err(located(
            Error::new(ErrorCode::BlankLine, "blank line (no JSON value)").at_column(1),
        ));
    }
    json::parse(text).map_err(located)
}
