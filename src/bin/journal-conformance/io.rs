//! What every command reads and writes (SPEC.md section 11, rules `X-*`): FILE or `-`
//! (stdin), results as canonical JSON on stdout, human diagnostics naming the place and
//! the code, `--max-line-bytes`, and the exit status contract: 0 ok, 1 invalid input or
//! non-conformant, 2 usage or internal error.

use std::io::{self, BufRead, BufReader, Write};

use journal_conformance::canonical;
use journal_conformance::error::Error;
use journal_conformance::error::ReadError;
use journal_conformance::json::Value;

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: invalid input or non-conformant implementation.
pub const EXIT_INVALID: i32 = 1;
/// Exit status: usage or internal error.
pub const EXIT_USAGE: i32 = 2;

/// `--max-line-bytes N` (SPEC.md 16.5): the longest line a command reads.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct LineLimit {
    /// Longest line accepted, in bytes (an implementation limit, SPEC.md 16.5); a longer
    /// line is an I/O error (exit 2) naming the file and line.
    #[arg(long = "max-line-bytes", value_name = "N",
          default_value_t = journal_conformance::wire::DEFAULT_MAX_LINE_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_line_bytes: u64,
}

impl LineLimit {
    pub fn get(self) -> usize {
        usize::try_from(self.max_line_bytes).unwrap_or(usize::MAX)
    }
}

/// Open FILE, or stdin for `-`.
pub fn open_input(path: &std::path::Path) -> io::Result<Box<dyn BufRead + Send>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(BufReader::with_capacity(1 << 16, io::stdin())))
    } else {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(path)?,
        )))
    }
}

pub fn display_name(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// A human diagnostic: `FILE:LINE:COL: error[code]: message`, then the line.
pub fn diagnostic(file: &str, e: &Error) -> String {
    let mut place = file.to_owned();
    if let Some(l) = e.line {
        place.push_str(&format!(":{l}"));
        if let Some(c) = e.column {
            place.push_str(&format!(":{c}"));
        }
    }
    let mut s = format!("{place}: error[{}]: {}", e.code, e.message);
    let mut ctx = Vec::new();
    if let Some(seq) = e.sequence {
        ctx.push(format!("sequence {seq}"));
    }
    if let Some(id) = &e.event_id {
        ctx.push(format!("event_id {id:?}"));
    }
    if !ctx.is_empty() {
        s.push_str(&format!(" ({})", ctx.join(", ")));
    }
    if let Some(x) = &e.excerpt {
        s.push_str(&format!("\n  | {x}"));
    }
    s
}

pub fn print_json(v: &Value) -> i32 {
    let mut out = io::stdout().lock();
    let mut text = canonical::to_string(v);
    text.push('\n');
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: writing output: {e}");
            EXIT_USAGE
        }
    }
}

/// Standard output without its line buffering, for output of one line of megabytes:
/// `Stdout` searches every write for a newline to flush at, and the projection's
/// arrays are written as they are held (`fast::Projection::write_json`). Anything
/// `Stdout` holds is flushed first.
fn raw_stdout() -> Box<dyn Write> {
    let _ = io::stdout().flush();
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(io::stdout().lock())
}

/// Stream the replay projection's canonical JSON and a newline (as `print_json` would).
pub fn print_projection(p: &journal_conformance::fast::Projection) -> i32 {
    let mut out = io::BufWriter::with_capacity(1 << 16, raw_stdout());
    match p
        .write_json(&mut out)
        .and_then(|_| out.write_all(b"\n"))
        .and_then(|_| out.flush())
    {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: writing output: {e}");
            EXIT_USAGE
        }
    }
}

/// Report a failed read: a located diagnostic (exit 1) or an I/O error (exit 2).
pub fn report(file: &str, e: ReadError) -> i32 {
    match e {
        // An implementation limit (SPEC.md 16.5) is an I/O-class error, however it came.
        ReadError::Invalid(e) if e.code == journal_conformance::ErrorCode::TooManyValues => {
            eprintln!(
                "error: {file}: {}",
                journal_conformance::error::limit_text(&e)
            );
            EXIT_USAGE
        }
        ReadError::Invalid(e) => {
            eprintln!("{}", diagnostic(file, &e));
            EXIT_INVALID
        }
        ReadError::Io(e) => {
            eprintln!("error: {file}: {e}");
            EXIT_USAGE
        }
    }
}
