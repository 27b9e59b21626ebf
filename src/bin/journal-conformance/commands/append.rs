//! `journal-conformance append FILE [EVENTS] [--batch N]`: append events durably to the
//! store (SPEC.md 16.1: rules `S-ACK-1`, `S-ACK-2`, `S-VALID-1`, `S-DUP-1`, `S-BATCH-1`,
//! `S-WRITER-1`, `S-FAULT-1`), printing one acknowledgement line per event on stdout
//! only once the event is on disk.
//!
//! Opening the store recovers a torn tail first (SPEC.md 16.2, `S-RECOVER-1`, reported on
//! stderr) and refuses a journal that is not a regular file (`S-FILE-1`). EVENTS (default
//! `-`, `X-STDIN-1`) is read by the bounded line reader (`--max-line-bytes`, SPEC.md
//! 16.5); a rejected event is an `{"error":...}` line (`O-ERR-1`) and exit status 1.

use std::io::{self, BufReader, Read, Write};
use std::path::PathBuf;

use crate::io::{diagnostic, display_name, report, LineLimit};
use crate::io::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use journal_conformance::canonical;
use journal_conformance::error::ReadError;
use journal_conformance::event::JournalProfile;
use journal_conformance::json::Value;

/// Arguments of `append`.
#[derive(clap::Args, Debug)]
pub struct AppendArgs {
    pub file: PathBuf,
    #[arg(default_value = "-")]
    pub events: PathBuf,
    /// Group commit: sync once per this many events.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    #[arg(long, default_value = "core")]
    pub profile: JournalProfile,
    #[command(flatten)]
    pub limit: LineLimit,
}

/// Run `append`; returns the exit status.
pub fn run(args: AppendArgs) -> i32 {
    let AppendArgs {
        file,
        events,
        batch,
        profile,
        limit,
    } = args;
    run_append(&file, &events, batch.max(1), profile, limit.get())
}

/// `journal-conformance append`: stream events in, acknowledge each once durable.
///
/// Group commit (`--batch N`, S-BATCH-1): a batch is the lines the input has READY, up
/// to N: once the input's buffer is drained (reading on could block, waiting for a
/// producer that waits for its acknowledgements), what was read is committed and
/// acknowledged. Diagnostics name the journal line the event would have had and the
/// input line it came from.
fn run_append(
    file: &std::path::Path,
    events: &std::path::Path,
    batch: usize,
    profile: JournalProfile,
    max_line_bytes: usize,
) -> i32 {
    let name = display_name(file);
    let (mut store, rec) =
        match journal_conformance::store::Store::open_bounded(file, profile, max_line_bytes) {
            Ok(x) => x,
            Err(e) => return report(&name, e),
        };
    if let Some(t) = &rec.torn {
        eprintln!(
            "{name}: recovered: moved a torn tail of {} bytes at offset {} to {} ({})",
            t.bytes.len(),
            t.offset,
            t.moved_to
                .as_ref()
                .map_or("?".into(), |p| p.display().to_string()),
            t.reason
        );
    }
    let source: Box<dyn Read> = if events.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        match std::fs::File::open(events) {
            Ok(f) => Box::new(f),
            Err(e) => return report(&display_name(events), ReadError::Io(e)),
        }
    };
    let input_name = display_name(events);
    let mut lines = journal_conformance::wire::LineReader::with_max_line_bytes(
        BufReader::with_capacity(1 << 16, source),
        max_line_bytes,
    );
    let mut out = io::stdout().lock();
    let mut status = EXIT_OK;
    let emit = |v: Value, out: &mut io::StdoutLock| -> io::Result<()> {
        let mut t = canonical::to_string(&v);
        t.push('\n');
        out.write_all(t.as_bytes())?;
        out.flush()
    };
    loop {
        // (input line number, bytes)
        let mut pending: Vec<(u64, Vec<u8>)> = Vec::with_capacity(batch.min(1024));
        while pending.len() < batch {
            match lines.next_line() {
                Ok(Some((n, bytes, _))) => pending.push((n, bytes.to_vec())),
                Ok(None) => break,
                Err(e) => {
                    eprintln!("error: {input_name}: {e}");
                    return EXIT_USAGE;
                }
            }
            if lines.get_ref().buffer().is_empty() {
                break; // nothing more is ready: commit what we have
            }
        }
        if pending.is_empty() {
            return status;
        }
        let refs: Vec<&[u8]> = pending.iter().map(|(_, b)| b.as_slice()).collect();
        let mut handled = 0;
        while handled < refs.len() {
            match store.append_batch(&refs[handled..]) {
                Ok((acks, err)) => {
                    handled += acks.len();
                    for a in acks {
                        if emit(Value::object([("ack", a.to_json())]), &mut out).is_err() {
                            return EXIT_USAGE;
                        }
                    }
                    if let Some(e) = err {
                        let from = pending[handled].0;
                        if e.code == journal_conformance::ErrorCode::TooManyValues {
                            // An implementation limit (SPEC.md 16.5): I/O-class, exit 2.
                            eprintln!(
                                "error: {input_name}: line {from}: {}: {} (nothing after the last acknowledgement was kept)",
                                e.code, e.message
                            );
                            return EXIT_USAGE;
                        }
                        // `e.line` is the journal line the event would have had.
                        let d = diagnostic(&name, &e);
                        let (head, rest) = d.split_at(d.find('\n').unwrap_or(d.len()));
                        eprintln!("{head} (from {input_name} line {from}){rest}");
                        if emit(Value::object([("error", e.to_json())]), &mut out).is_err() {
                            return EXIT_USAGE;
                        }
                        status = EXIT_INVALID;
                        handled += 1;
                    }
                }
                Err(e) => {
                    eprintln!(
                        "error: {name}: {e} (nothing after the last acknowledgement was kept)"
                    );
                    return EXIT_USAGE;
                }
            }
        }
    }
}
