//! The checked fast path for `tree inspect` and `tree validate` in the `yoagent-0.26`
//! dialect (rules `T-YO-LOAD-1`, `T-YO-MSG-1`, `T-YO-TREE-1`, `T-YO-NEXT-1` and the
//! `tree_inspect` view of `T-OPS-1`): the session's shape (ids, parents, labels, the
//! id counter) without its messages.
//!
//! How it is fast: the input is cut into chunks of whole lines and each chunk is read
//! on its own thread. An entry whose message is in one of the plain forms `vouch.rs`
//! vouches for is read without building the message; every other line is read with
//! yoagent's own `SessionEntry` type (the same serde derivation [`Session::load`] uses,
//! so what such a line is and why it is rejected cannot differ) and its message dropped
//! there; the calling thread then runs the tree checks
//! in file order over ids it borrows, one hash table, no copy per entry. The view is
//! `inspect_view`, the text [`Session::inspect`] uses.
//!
//! Why it is right: a chunk stops at its first unreadable line, and the ordered pass
//! takes every entry before the first unreadable line of the file (the tree errors among
//! them come first, as in a sequential load), then that line's error. So the result is
//! [`Session::load`]'s followed by [`Session::inspect`]: the same value, or the same
//! code, line, excerpt and message. `tests/fast_oracle.rs` and the `tree` fuzz target
//! compare the two on the corpus, generated sessions and their mutations.

use std::collections::HashMap;

use super::vouch::VouchedEntry;
use crate::error::Error;
use crate::json::Value;
use crate::tree::yoagent::{
    duplicate_id, id_seq, inspect_view, unknown_parent, unreadable_entry, utf8_text, Session,
    SessionEntry,
};
use crate::tree::{Entry, Tree};

/// Below this many bytes the input is read on the calling thread.
const PARALLEL_BYTES: usize = 1 << 20;

/// A loaded session's shape: what `tree_inspect` and `tree validate` answer.
#[derive(Debug)]
pub struct SessionShape {
    ids: Vec<String>,
    parents: Vec<Option<usize>>,
    labels: Vec<(usize, String)>,
    next_seq: u64,
}

/// One entry of a chunk: its line (in the chunk, from 0), the line's text, and what
/// the shape keeps.
struct Read<'a> {
    line: usize,
    raw: &'a str,
    id: String,
    parent: Option<String>,
    label: Option<String>,
}

/// A chunk read: its entries up to its first unreadable line, that line's error, and
/// the number of line breaks it holds (meaningful only when it has no error).
struct Chunk<'a> {
    entries: Vec<Read<'a>>,
    error: Option<(usize, &'a str, serde_json::Error)>,
    breaks: usize,
}

fn read_chunk(text: &str) -> Chunk<'_> {
    let mut entries = Vec::new();
    let mut breaks = 0;
    for (line, raw) in text.split('\n').enumerate() {
        breaks = line;
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        // A message vouched for is a yoagent message (vouch.rs); any other line is read
        // by yoagent's own `SessionEntry`, which gives its exact error.
        if let Ok(e) = serde_json::from_str::<VouchedEntry>(t) {
            entries.push(Read {
                line,
                raw,
                id: e.id,
                parent: e.parent_id,
                label: e.label,
            });
            continue;
        }
        match serde_json::from_str::<SessionEntry>(t) {
            Ok(e) => entries.push(Read {
                line,
                raw,
                id: e.id,
                parent: e.parent_id,
                label: e.label,
            }),
            Err(e) => {
                return Chunk {
                    entries,
                    error: Some((line, raw, e)),
                    breaks,
                }
            }
        }
    }
    Chunk {
        entries,
        error: None,
        breaks,
    }
}

/// `text` cut into about `n` chunks, each ending just after a line break (the last at
/// the end of the input), so that they share the work: chunk `k` ends at the first line
/// break at or after byte `len * k / n` (or where the one before it ends, if later), so
/// none is longer than `len / n + 1` bytes and the line that crosses its end. Fewer when the
/// text has too few line breaks.
pub fn cut(text: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(n);
    let mut from = 0;
    for k in 1..n {
        let at = (text.len() * k / n).max(from);
        match text.as_bytes()[at..].iter().position(|&b| b == b'\n') {
            Some(p) => {
                out.push(&text[from..at + p + 1]);
                from = at + p + 1;
            }
            None => break,
        }
    }
    out.push(&text[from..]);
    out
}

/// How many chunks [`load_shape`] cuts a `len`-byte input into with `threads` readers:
/// one (the calling thread) below 1 MiB (`PARALLEL_BYTES`) or with fewer than two
/// threads, else one per thread. Speed only: every cut loads the same session.
pub fn chunk_count(len: usize, threads: usize) -> usize {
    if len >= PARALLEL_BYTES {
        threads.max(1)
    } else {
        1
    }
}

/// Load `bytes` as [`Session::load`] does, keeping only the shape; `threads` readers
/// (the calling thread alone for 0 or 1, or for a small input: [`chunk_count`]).
pub fn load_shape(bytes: &[u8], threads: usize) -> Result<SessionShape, Error> {
    load_shape_chunked(bytes, chunk_count(bytes.len(), threads))
}

/// [`load_shape`] with the input cut into about `chunks` chunks, whatever its size, each
/// read on its own thread (the tests use it to cut small inputs).
pub fn load_shape_chunked(bytes: &[u8], chunks: usize) -> Result<SessionShape, Error> {
    let text = utf8_text(bytes)?;
    let parts = cut(text, chunks.max(1));
    let read: Vec<Chunk> = if parts.len() == 1 {
        vec![read_chunk(parts[0])]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = parts
                .iter()
                .map(|&p| s.spawn(move || read_chunk(p)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a chunk reader does not panic"))
                .collect()
        })
    };
    let n: usize = read.iter().map(|c| c.entries.len()).sum();
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(n);
    let mut parents = Vec::with_capacity(n);
    let mut next_seq = 0;
    let mut base = 0;
    for c in &read {
        for e in &c.entries {
            let located = |err: Error| {
                err.at_line((base + e.line) as u64 + 1)
                    .with_excerpt(e.raw.as_bytes())
            };
            if index.contains_key(e.id.as_str()) {
                return Err(located(duplicate_id(&e.id)));
            }
            // The parent is looked up before the entry's own id is in the index: an
            // entry cannot be its own parent.
            parents.push(match &e.parent {
                None => None,
                Some(p) => Some(
                    *index
                        .get(p.as_str())
                        .ok_or_else(|| located(unknown_parent(&e.id, p)))?,
                ),
            });
            index.insert(e.id.as_str(), parents.len() - 1);
            if let Some(k) = id_seq(&e.id) {
                next_seq = u64::max(next_seq, k);
            }
        }
        if let Some((line, raw, err)) = &c.error {
            return Err(unreadable_entry(err)
                .at_line((base + line) as u64 + 1)
                .with_excerpt(raw.as_bytes()));
        }
        base += c.breaks;
    }
    drop(index);
    let mut ids = Vec::with_capacity(n);
    let mut labels = Vec::new();
    for (i, e) in read.into_iter().flat_map(|c| c.entries).enumerate() {
        ids.push(e.id);
        if let Some(l) = e.label {
            labels.push((i, l));
        }
    }
    Ok(SessionShape {
        ids,
        parents,
        labels,
        next_seq,
    })
}

impl SessionShape {
    pub fn entry_count(&self) -> usize {
        self.ids.len()
    }

    /// [`Session::inspect`] of the loaded session. After a load ids are unique, so each
    /// entry is its id's first occurrence, and the head is the last entry.
    pub fn inspect(&self) -> Value {
        let n = self.ids.len();
        inspect_view(
            n,
            |i| self.ids[i].as_str(),
            |i| i,
            &self.parents,
            self.labels.iter().map(|(i, l)| (*i, l.as_str())),
            self.ids.last().map(String::as_str),
            n.checked_sub(1),
            format!("e{}", self.next_seq.wrapping_add(1)),
        )
    }
}

impl SessionShape {
    /// The shape as a generic [`Tree`] whose messages are empty (for a drawing).
    pub fn to_generic(&self) -> Tree {
        let mut t = Tree::new();
        let mut labels = self.labels.iter().peekable();
        for (i, id) in self.ids.iter().enumerate() {
            let label = labels.next_if(|(at, _)| *at == i).map(|(_, l)| l.clone());
            t.push_loaded(
                Entry {
                    id: id.clone(),
                    parent_id: self.parents[i].map(|p| self.ids[p].clone()),
                    message: String::new(),
                    timestamp: 0,
                    label,
                },
                self.parents[i],
            );
        }
        t.set_head(self.ids.len().checked_sub(1), self.next_seq);
        t
    }
}

/// The oracle this path is checked against: [`Session::load`], then its view.
pub fn inspect_oracle(bytes: &[u8]) -> Result<Value, Error> {
    Session::load(bytes).map(|s| s.inspect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_end_after_line_breaks_and_cover_the_input() {
        let text = "a\nbb\n\nccc\nd";
        for n in 1..8 {
            let parts = cut(text, n);
            assert_eq!(parts.concat(), text, "{n}");
            for p in &parts[..parts.len() - 1] {
                assert!(p.ends_with('\n'), "{n}: {p:?}");
            }
        }
        assert_eq!(cut("abc", 3), vec!["abc"]);
    }
}
