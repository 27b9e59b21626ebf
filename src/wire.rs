//! The JSONL wire format (SPEC.md section "Wire format", rules `W-*`).
//!
//! This module owns how a byte stream becomes lines and each line a JSON value:
//! split on `\n` only, a final newline optional, no BOM, no blank lines, UTF-8 only.
//! It streams: one line is held in memory at a time, and a line is bounded
//! ([`DEFAULT_MAX_LINE_BYTES`], an implementation limit of SPEC.md 16.5, not a
//! conformance rule): an over-long line is an I/O-class error raised before more than
//! the limit is buffered.

use std::io::{self, BufRead, Read};

use crate::error::{Error, ErrorCode};
use crate::json::{self, Value};

/// The longest line (bytes before its `\n`, a `\r` included) a reader accepts unless
/// told otherwise (`--max-line-bytes`): 64 MiB. SPEC.md 16.5: an implementation limit,
/// not a conformance rule.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// The error for a line longer than `max` bytes (an I/O-class error: exit status 2).
pub fn line_too_long(number: u64, max: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("line {number} is longer than {max} bytes; --max-line-bytes raises the limit"),
    )
}

/// Reads lines split on `\n` only (`W-LINE-1`): never on `\r`, U+2028, U+0085 or any
/// other character that some languages' "lines" split on. The text after the last
/// `\n` is a line only if it is non-empty (`W-LINE-3`). A line longer than the limit
/// ([`DEFAULT_MAX_LINE_BYTES`] unless [`LineReader::with_max_line_bytes`]) is an error
/// ([`line_too_long`]) once `max` bytes are buffered, never more.
pub struct LineReader<R> {
    inner: R,
    number: u64,
    buf: Vec<u8>,
    max: usize,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader::with_max_line_bytes(inner, DEFAULT_MAX_LINE_BYTES)
    }

    /// A reader whose lines may be at most `max` bytes long (without the `\n`).
    pub fn with_max_line_bytes(inner: R, max: usize) -> Self {
        LineReader {
            inner,
            number: 0,
            buf: Vec::new(),
            max: max.max(1),
        }
    }

    /// The source (to see what it has buffered, for group commit).
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The next line, reusing an internal buffer; `Ok(None)` at end of input.
    pub fn next_line(&mut self) -> std::io::Result<Option<(u64, &[u8], bool)>> {
        self.buf.clear();
        // At most `max` bytes of the line, then look at the next byte without taking it.
        let n = (&mut self.inner)
            .take(self.max as u64)
            .read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        let mut terminated = self.buf.last() == Some(&b'\n');
        if terminated {
            self.buf.pop();
        } else if self.buf.len() == self.max {
            match self.inner.fill_buf()?.first() {
                None => {}
                Some(b'\n') => {
                    self.inner.consume(1);
                    terminated = true;
                }
                Some(_) => return Err(line_too_long(self.number, self.max)),
            }
        }
        Ok(Some((self.number, &self.buf, terminated)))
    }
}

/// The whole input, byte for byte, read through a [`LineReader`] bounded by `max`: for
/// the readers that need the file in memory (`tree show`, `tree apply`, the
/// `yoagent-0.26` dialect), so that a line over the limit stops reading there too.
pub fn read_bounded(inner: impl BufRead, max: usize) -> io::Result<Vec<u8>> {
    let mut lines = LineReader::with_max_line_bytes(inner, max);
    let mut out = Vec::new();
    while let Some((_, bytes, terminated)) = lines.next_line()? {
        out.extend_from_slice(bytes);
        if terminated {
            out.push(b'\n');
        }
    }
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Result<Vec<(Vec<u8>, bool)>, String> {
        let mut r = LineReader::with_max_line_bytes(input, max);
        let mut out = Vec::new();
        while let Some((_, b, t)) = r.next_line().map_err(|e| e.to_string())? {
            out.push((b.to_vec(), t));
        }
        Ok(out)
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_read_terminated_or_not() {
        assert_eq!(
            lines(b"abcd\nxy\nabcd", 4).unwrap(),
            vec![
                (b"abcd".to_vec(), true),
                (b"xy".to_vec(), true),
                (b"abcd".to_vec(), false)
            ]
        );
        // \r counts: it is part of the line's bytes (W-CR-1 keeps it).
        assert_eq!(
            lines(b"abc\r\n", 4).unwrap(),
            vec![(b"abc\r".to_vec(), true)]
        );
    }

    #[test]
    fn a_longer_line_is_an_error_naming_its_number() {
        let e = lines(b"ab\nabcde\n", 4).unwrap_err();
        assert_eq!(
            e,
            "line 2 is longer than 4 bytes; --max-line-bytes raises the limit"
        );
        assert!(lines(b"abc\r\n", 3).is_err());
    }

    /// `read_bounded` gives back the input byte for byte (a last line without `\n`,
    /// empty lines, `\r`), and the error of a line over the limit.
    #[test]
    fn read_bounded_is_the_input_or_the_line_error() {
        for input in [
            &b""[..],
            b"\n",
            b"a",
            b"a\n",
            b"a\n\n",
            b"\n\nb",
            b"ab\r\ncd\r\n",
            b"abcd\nabcd",
        ] {
            assert_eq!(read_bounded(input, 4).unwrap(), input, "{input:?}");
        }
        let e = read_bounded(&b"abcd\nabcde\n"[..], 4).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string().starts_with("line 2 is longer than 4 bytes"),
            "{e}"
        );
    }

    /// The reader never buffers more than the limit of an endless line.
    #[test]
    fn an_endless_line_stops_at_the_limit() {
        struct Endless(u64);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                buf.fill(b'a');
                self.0 += buf.len() as u64;
                Ok(buf.len())
            }
        }
        let mut src = io::BufReader::with_capacity(64, Endless(0));
        let mut r = LineReader::with_max_line_bytes(&mut src, 1000);
        let e = r.next_line().unwrap_err();
        assert_eq!(e.to_string(), line_too_long(1, 1000).to_string());
        assert!(r.buf.capacity() < 2048, "buffered {}", r.buf.capacity());
        drop(r);
        assert!(
            src.get_ref().0 <= 1000 + 64,
            "read {} bytes",
            src.get_ref().0
        );
    }
}
