//! `journal-conformance serve`: the reference speaking protocol 1 on stdin/stdout, its
//! journal operations on the checked fast path (`crate::fast`), so a run against `serve`
//! exercises it.

use std::io::{BufRead, Write};

use super::protocol::{decode_request, handshake, Incoming, Response};
use super::reference::{fast_answer, Reference};
use super::Implementation;
use crate::json::Value;

/// `journal-conformance serve`: the reference speaking protocol 1 on stdin/stdout, one
/// reply line per request line until `stop` or the end of the input.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let reference = Reference::default();
    let mut write = |v: Value| -> std::io::Result<()> {
        let mut line = crate::canonical::to_string(&v).into_bytes();
        line.push(b'\n');
        output.write_all(&line)?;
        output.flush()
    };
    let mut lines = crate::wire::LineReader::new(input);
    while let Some((_, bytes, _)) = lines.next_line()? {
        let (id, response) = match decode_request(bytes) {
            Incoming::Stop => return Ok(()),
            Incoming::Start { .. } => {
                write(handshake(reference.info()))?;
                continue;
            }
            Incoming::Run {
                id,
                op,
                profile,
                input,
            } => match fast_answer(&op, profile, &input) {
                Ok(a) => (id, Response::Answer(a)),
                Err(message) => (
                    id,
                    Response::Failed {
                        code: "internal_error",
                        message,
                    },
                ),
            },
            Incoming::Unsupported { id } => (id, Response::Unsupported),
            // A-REQ-1: `{"id":ID_OR_NULL,...}`; an unreadable line has no id.
            Incoming::Invalid { id, message } => (
                id,
                Response::Failed {
                    code: "invalid_request",
                    message,
                },
            ),
        };
        write(response.to_json(id))?;
    }
    Ok(())
}
