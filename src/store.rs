//! The durable journal store (SPEC.md section "Durable store and checkpoints", rules
//! `S-*` and `K-*`).
//!
//! This module owns appending with durable acknowledgements (write, then `fdatasync`,
//! then acknowledge), idempotent retries by event id (the exercise E table), group
//! commit, the single-writer lock, recovery of a torn tail (moved aside, never deleted),
//! and checkpoints that let replay read only the tail (exercise F), with the reasons a
//! checkpoint is ignored ([`IgnoreReason`], `K-IGNORE-1`). Every event is validated
//! incrementally in O(1) expected time; memory is the id index plus one 32-byte digest
//! per event. `store_apply`'s steps (`S-OPS-1`) are [`StoreStep`].

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode, ReadError};
use crate::event::{self, Event, JournalProfile};
use crate::fingerprint::Sha256State;
use crate::journal::{self, Checker, PrefixIds};
use crate::json::{self, Value};
use crate::replay::{Reducer, ReplayState};
use crate::{canonical, fsutil, wire};

/// The reducer version written into checkpoints (`K-RECORD-1`).
pub const REDUCER_VERSION: &str = "journal-conformance/replay-1";
/// The checkpoint format version.
pub const CHECKPOINT_VERSION: i64 = 1;

/// The file operations the store needs, so tests can inject faults (`S-FAULT-1`).
pub trait StoreFile: Send {
    /// Write all of `buf` at the end of the file.
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()>;
    /// Make written data and the file length durable (`fdatasync`).
    fn sync_data(&mut self) -> io::Result<()>;
    /// Cut the file to `len` bytes and continue writing there.
    fn truncate(&mut self, len: u64) -> io::Result<()>;
}

impl StoreFile for File {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        Write::write_all(self, buf)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        File::sync_data(self)
    }
    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.set_len(len)?;
        self.seek(SeekFrom::Start(len))?;
        Ok(())
    }
}

/// An acknowledgement (`S-ACK-2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ack {
    pub event_id: String,
    pub sequence: u64,
    pub duplicate: bool,
}

impl Ack {
    pub fn to_json(&self) -> Value {
        Value::object([
            ("event_id", Value::from(self.event_id.as_str())),
            ("sequence", Value::from_u64(self.sequence)),
            ("duplicate", Value::Bool(self.duplicate)),
        ])
    }
}

/// Why a store operation failed: the input was refused (a located conformance error,
/// exit status 1) or the system failed (exit status 2).
pub type StoreError = ReadError;

/// A torn tail found when opening (`S-TORN-1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Torn {
    /// Byte offset where the torn tail starts (the acknowledged length).
    pub offset: u64,
    pub bytes: Vec<u8>,
    /// 1-based line number of the torn line.
    pub line: u64,
    pub reason: String,
    /// Where the bytes were moved (`None` for a dry run).
    pub moved_to: Option<PathBuf>,
}

/// What opening found and did (`S-RECOVER-1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    pub events: u64,
    pub torn: Option<Torn>,
}

impl Recovery {
    pub fn to_json(&self) -> Value {
        let torn = match &self.torn {
            None => Value::Null,
            Some(t) => Value::object([
                ("offset", Value::from_u64(t.offset)),
                ("length", Value::from_u64(t.bytes.len() as u64)),
                ("line", Value::from_u64(t.line)),
                ("reason", Value::from(t.reason.as_str())),
                (
                    "moved_to",
                    t.moved_to
                        .as_ref()
                        .map_or(Value::Null, |p| Value::from(p.display().to_string())),
                ),
            ]),
        };
        Value::object([("events", Value::from_u64(self.events)), ("torn", torn)])
    }
}

/// The in-memory state rebuilt from a journal: checker, digests, reducer, length.
struct State {
    checker: Checker,
    /// SHA-256 of each event's canonical text, by sequence (`S-DUP-1`).
    digests: Vec<[u8; 32]>,
    reducer: Reducer,
    /// Acknowledged length in bytes.
    end: u64,
    last_event_id: Option<String>,
}

impl State {
    fn new() -> State {
        State {
            checker: Checker::new(),
            digests: Vec::new(),
            reducer: Reducer::new(),
            end: 0,
            last_event_id: None,
        }
    }

    fn accept(&mut self, ev: &Event, line_len: u64) {
        // One canonical text serves the duplicate digest and the fingerprint.
        let mut canon = Vec::new();
        canonical::write(&ev.value, &mut canon);
        self.digests.push(Sha256::digest(&canon).into());
        self.reducer.apply_canonical(ev, &canon);
        self.end += line_len;
        self.last_event_id = Some(ev.event_id.clone());
    }
}

fn digest_of(v: &Value) -> [u8; 32] {
    let mut buf = Vec::new();
    canonical::write(v, &mut buf);
    Sha256::digest(&buf).into()
}

/// Is this error a wire or JSON error (the line does not parse, `S-TORN-1`)?
fn unparsable(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::UnexpectedBom
            | ErrorCode::InvalidUtf8
            | ErrorCode::BlankLine
            | ErrorCode::InvalidJson
            | ErrorCode::DuplicateKey
            | ErrorCode::LoneSurrogate
            | ErrorCode::NumberOutOfRange
            | ErrorCode::NestingTooDeep
    )
}

/// Read a journal, rebuilding the state and finding a torn tail (nothing is changed).
fn scan(
    source: impl BufRead,
    profile: JournalProfile,
    max_line_bytes: usize,
) -> Result<(State, Option<Torn>), StoreError> {
    let mut lines = wire::LineReader::with_max_line_bytes(source, max_line_bytes);
    let mut st = State::new();
    // A line that does not parse is torn only if it is the last one.
    let mut pending: Option<(u64, Vec<u8>, Error)> = None;
    while let Some((number, bytes, terminated)) = lines.next_line()? {
        if let Some((_, _, e)) = pending.take() {
            // A bad line that is not the last one: refuse (never truncate).
            return Err(e.into());
        }
        if !terminated {
            let torn = Torn {
                offset: st.end,
                bytes: bytes.to_vec(),
                line: number,
                reason: "unterminated last line (no final newline)".into(),
                moved_to: None,
            };
            return Ok((st, Some(torn)));
        }
        match journal::next_event(&mut st.checker, profile, number, bytes) {
            Ok(ev) => st.accept(&ev, bytes.len() as u64 + 1),
            Err(e) if unparsable(e.code) => pending = Some((number, bytes.to_vec(), e)),
            Err(e) => return Err(e.into()),
        }
    }
    let torn = pending.map(|(line, mut bytes, e)| {
        bytes.push(b'\n');
        Torn {
            offset: st.end,
            bytes,
            line,
            reason: format!("last line does not parse: {e}"),
            moved_to: None,
        }
    });
    Ok((st, torn))
}

/// Refuse a journal that exists and is not a regular file (a FIFO, a device, a
/// directory, a socket), before opening it: reading a FIFO blocks until a writer comes,
/// a device such as `/dev/zero` or `/dev/full` never ends or never fills (S-FILE-1).
/// A symlink is followed: it is its target that must be a regular file.
fn refuse_special(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(not_regular(&m)),
        _ => Ok(()),
    }
}

/// The error for a journal that is not a regular file (the caller's report names it).
fn not_regular(m: &std::fs::Metadata) -> io::Error {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    let what = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "not a regular file but {what} (a journal store reads and writes regular files only)"
        ),
    )
}

/// Open a journal for reading after [`refuse_special`], checking the opened handle too
/// (the path may have changed in between).
fn open_regular(path: &Path) -> io::Result<File> {
    refuse_special(path)?;
    let f = File::open(path)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(not_regular(&m));
    }
    Ok(f)
}

/// The directory whose entries hold the journal's data: that of the file a symlink
/// finally points to, not the link's (S-ACK-1's directory sync, S-RECOVER-1's torn
/// file). `path` may not exist yet (its link target, if any, is resolved as far as it
/// exists).
pub fn journal_dir(path: &Path) -> io::Result<PathBuf> {
    let real = match std::fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A dangling link: follow it by hand; a plain new file: its own directory.
            match std::fs::read_link(path) {
                Ok(target) => {
                    let target = if target.is_absolute() {
                        target
                    } else {
                        path.parent().unwrap_or(Path::new("")).join(target)
                    };
                    return journal_dir(&target);
                }
                Err(_) => path.to_owned(),
            }
        }
        Err(e) => return Err(e),
    };
    let dir = match real.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    // The file may not exist yet; its directory does (or creating it fails anyway).
    Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// `recover` without `--apply`: what opening would do (`S-RECOVER-2`).
pub fn inspect_recovery(path: &Path, profile: JournalProfile) -> Result<Recovery, StoreError> {
    inspect_recovery_bounded(path, profile, wire::DEFAULT_MAX_LINE_BYTES)
}

/// [`inspect_recovery`] with lines of at most `max_line_bytes`.
pub fn inspect_recovery_bounded(
    path: &Path,
    profile: JournalProfile,
    max_line_bytes: usize,
) -> Result<Recovery, StoreError> {
    let f = match open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Recovery::default()),
        Err(e) => return Err(e.into()),
    };
    let (st, torn) = scan(
        BufReader::with_capacity(1 << 16, f),
        profile,
        max_line_bytes,
    )?;
    Ok(Recovery {
        events: st.checker.count(),
        torn,
    })
}

/// A journal store open for appending.
pub struct Store {
    path: PathBuf,
    profile: JournalProfile,
    file: Box<dyn StoreFile>,
    /// The handle that holds the exclusive lock (`S-WRITER-1`).
    _lock: File,
    st: State,
    poisoned: bool,
    max_line_bytes: usize,
}

/// The first `NAME.torn-K` free in `dir`, NAME the journal's (the link target's) name.
fn first_free_torn_path(path: &Path, dir: &Path) -> PathBuf {
    let name = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    (1..)
        .map(|k| dir.join(format!("{name}.torn-{k}")))
        .find(|p| !p.exists())
        .expect("an unused name")
}

impl Store {
    /// Open (creating if needed) with the real file system.
    pub fn open(path: &Path, profile: JournalProfile) -> Result<(Store, Recovery), StoreError> {
        Store::open_with(path, profile, |f| Box::new(f))
    }

    /// [`Store::open`] with lines of at most `max_line_bytes` (reading the journal and
    /// in every later re-read).
    pub fn open_bounded(
        path: &Path,
        profile: JournalProfile,
        max_line_bytes: usize,
    ) -> Result<(Store, Recovery), StoreError> {
        Store::open_impl(path, profile, max_line_bytes, |f| Box::new(f))
    }

    /// Open, wrapping the write handle (fault injection in tests).
    pub fn open_with(
        path: &Path,
        profile: JournalProfile,
        wrap: impl FnOnce(File) -> Box<dyn StoreFile>,
    ) -> Result<(Store, Recovery), StoreError> {
        Store::open_impl(path, profile, wire::DEFAULT_MAX_LINE_BYTES, wrap)
    }

    fn open_impl(
        path: &Path,
        profile: JournalProfile,
        max_line_bytes: usize,
        wrap: impl FnOnce(File) -> Box<dyn StoreFile>,
    ) -> Result<(Store, Recovery), StoreError> {
        // S-FILE-1: before anything is opened (opening a FIFO for reading would block).
        refuse_special(path)?;
        let existed = path.exists();
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        try_lock_with_grace(&lock, path)?;
        let m = lock.metadata()?;
        if !m.is_file() {
            return Err(not_regular(&m).into());
        }
        // The directory of the file itself (a symlink's target's), S-ACK-1, S-RECOVER-1.
        let dir = journal_dir(path)?;
        if !existed {
            // S-ACK-1: the new file's directory entry must be durable too.
            fsutil::sync_dir(&dir)?;
        }
        let (st, torn) = scan(
            BufReader::with_capacity(1 << 16, open_regular(path)?),
            profile,
            max_line_bytes,
        )?;
        let mut write = OpenOptions::new().write(true).open(path)?;
        let torn = match torn {
            None => None,
            Some(mut t) => {
                // S-RECOVER-1: move aside (write + sync + dir sync), then truncate + sync.
                let aside = first_free_torn_path(path, &dir);
                let mut f = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&aside)?;
                let moved = Write::write_all(&mut f, &t.bytes)
                    .and_then(|_| f.sync_all())
                    .and_then(|_| fsutil::sync_dir(&dir));
                if let Err(e) = moved {
                    // A full disk (or any failure) must not leave an empty or partial
                    // `.torn-K` behind: the next recovery would skip to `.torn-K+1` and a
                    // reader would take the empty file for the torn bytes.
                    drop(f);
                    let _ = std::fs::remove_file(&aside);
                    let _ = fsutil::sync_dir(&dir);
                    return Err(e.into());
                }
                write.set_len(t.offset)?;
                write.sync_all()?;
                t.moved_to = Some(aside);
                Some(t)
            }
        };
        // S-RECOVER-1: lines a crashed writer wrote but never synced become durable
        // before an identical retry of them is acknowledged as a duplicate.
        write.sync_data()?;
        write.seek(SeekFrom::Start(st.end))?;
        let recovery = Recovery {
            events: st.checker.count(),
            torn,
        };
        Ok((
            Store {
                path: path.to_owned(),
                profile,
                file: wrap(write),
                _lock: lock,
                st,
                poisoned: false,
                max_line_bytes,
            },
            recovery,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Events in the journal.
    pub fn len(&self) -> u64 {
        self.st.checker.count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Acknowledged length in bytes.
    pub fn end(&self) -> u64 {
        self.st.end
    }

    /// The projection of the whole journal (kept up to date as events are appended).
    pub fn state(&self) -> ReplayState {
        self.st.reducer.state()
    }

    /// Check one line as the next event: `Ok(Ok(event))` to write, `Ok(Err(ack))` for
    /// an identical retry, `Err` for a rejection (`S-VALID-1`, `S-DUP-1`).
    fn prepare(&mut self, line: &[u8]) -> Result<Result<Event, Ack>, Error> {
        let number = self.len() + 1;
        if line.contains(&b'\n') {
            return Err(Error::new(
                ErrorCode::InvalidJson,
                "an event line must not contain a newline",
            )
            .at_line(number)
            .with_excerpt(line));
        }
        let value = wire::parse_line(number, line)?;
        let ev = event::from_value(value, self.profile)
            .map_err(|e| e.at_line(number).with_excerpt(line))?;
        // S-DUP-1: after J-ORDER-1 steps 1-4 (R-TYPE-1 included), before J-SEQ-1.
        event::check_payload(&ev).map_err(|e| {
            e.at_line(number)
                .with_sequence(ev.sequence_i64())
                .with_event_id(Some(&ev.event_id))
                .with_excerpt(line)
        })?;
        if let Some(seq) = self.st.checker.sequence_of(&ev.event_id) {
            return if self.st.digests[seq as usize] == digest_of(&ev.value) {
                Ok(Err(Ack {
                    event_id: ev.event_id,
                    sequence: seq,
                    duplicate: true,
                }))
            } else {
                Err(Error::new(
                    ErrorCode::ConflictingDuplicate,
                    format!(
                        "event_id {:?} was appended at sequence {seq} with different content",
                        ev.event_id
                    ),
                )
                .at_line(number)
                .with_sequence(ev.sequence_i64())
                .with_event_id(Some(&ev.event_id)))
            };
        }
        // Check without committing: a write failure must leave the checker unchanged.
        self.st
            .checker
            .verify(&ev)
            .map_err(|e| e.at_line(number).with_excerpt(line))?;
        Ok(Ok(ev))
    }

    fn write_durably(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.poisoned {
            return Err(io::Error::other(
                "the store failed to restore its journal after an I/O error; reopen it",
            ));
        }
        let result = self
            .file
            .write_all(bytes)
            .and_then(|_| self.file.sync_data());
        if let Err(e) = result {
            // S-FAULT-1: cut back to the acknowledged length; if even that fails,
            // refuse further appends until the store is reopened (which recovers).
            if self
                .file
                .truncate(self.st.end)
                .and_then(|_| self.file.sync_data())
                .is_err()
            {
                self.poisoned = true;
            }
            return Err(e);
        }
        Ok(())
    }

    /// Append one event line (without its `\n`); returns the acknowledgement only once
    /// the line is durable (`S-ACK-1`).
    pub fn append(&mut self, line: &[u8]) -> Result<Ack, StoreError> {
        let ev = match self.prepare(line)? {
            Ok(ev) => ev,
            Err(ack) => return Ok(ack),
        };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        self.write_durably(&bytes)?;
        Ok(self.commit(&ev, bytes.len() as u64))
    }

    fn commit(&mut self, ev: &Event, len: u64) -> Ack {
        self.st.checker.check(ev).expect("checked by prepare");
        self.st.accept(ev, len);
        Ack {
            event_id: ev.event_id.clone(),
            sequence: self.len() - 1,
            duplicate: false,
        }
    }

    /// Group commit (`S-BATCH-1`): one sync for all accepted lines. Returns the acks of
    /// the lines handled and, if a line was rejected, its error.
    pub fn append_batch(
        &mut self,
        lines: &[&[u8]],
    ) -> Result<(Vec<Ack>, Option<Error>), io::Error> {
        // Stage events against a scratch copy of the checker state, so a failed write
        // leaves the store exactly as it was.
        let mut acks: Vec<Option<Ack>> = Vec::new();
        let mut bytes = Vec::new();
        let mut error = None;
        let saved_end = self.st.end;
        for line in lines {
            match self.prepare(line) {
                Ok(Ok(ev)) => {
                    bytes.extend_from_slice(line);
                    bytes.push(b'\n');
                    // Commit to memory now so later lines see it; undone on I/O failure.
                    let ack = self.commit(&ev, line.len() as u64 + 1);
                    acks.push(Some(ack));
                }
                Ok(Err(ack)) => acks.push(Some(ack)),
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        if !bytes.is_empty() {
            // The file is at `saved_end`; self.st.end already moved: restore for the
            // fault path, which truncates to the acknowledged length.
            let new_end = self.st.end;
            self.st.end = saved_end;
            if let Err(e) = self.write_durably(&bytes) {
                self.rollback();
                return Err(e);
            }
            self.st.end = new_end;
        }
        Ok((acks.into_iter().flatten().collect(), error))
    }

    /// Undo the in-memory commits of a failed group commit.
    fn rollback(&mut self) {
        // Rebuild from the file: simple and obviously right; the fault path is cold.
        if let Ok(f) = File::open(&self.path) {
            if let Ok((st, None)) = scan(BufReader::new(f), self.profile, self.max_line_bytes) {
                self.st = st;
                return;
            }
        }
        self.poisoned = true;
    }

    /// Write a checkpoint of the whole journal to `ck` (`K-RECORD-1`, `K-WRITE-1`); an
    /// empty journal has none (`empty_journal`, `J-EMPTY-1`).
    pub fn checkpoint(&self, ck: &Path) -> Result<Checkpoint, StoreError> {
        write_checkpoint(ck, &self.st)
    }
}

/// What a checkpoint file says (`K-RECORD-1`).
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub event_count: u64,
    pub source_event_id: String,
    pub source_offset: u64,
    pub source_fingerprint: String,
    pub projection: Value,
    pub hash_state: Sha256State,
    pub index_file: String,
    pub index_sha256: String,
}

impl Checkpoint {
    pub fn to_json(&self) -> Value {
        Value::object([
            ("checkpoint_version", Value::from_i64(CHECKPOINT_VERSION)),
            ("reducer_version", Value::from(REDUCER_VERSION)),
            ("event_count", Value::from_u64(self.event_count)),
            (
                "source_sequence",
                Value::from_i64(self.event_count as i64 - 1),
            ),
            (
                "source_event_id",
                Value::from(self.source_event_id.as_str()),
            ),
            ("source_offset", Value::from_u64(self.source_offset)),
            (
                "source_fingerprint",
                Value::from(self.source_fingerprint.as_str()),
            ),
            ("projection", self.projection.clone()),
            ("hash_state", self.hash_state.to_json()),
            (
                "id_index",
                Value::object([
                    ("file", Value::from(self.index_file.as_str())),
                    ("count", Value::from_u64(self.event_count)),
                    ("sha256", Value::from(self.index_sha256.as_str())),
                ]),
            ),
        ])
    }

    /// Read a checkpoint; `Err(reason)` when it must be ignored (`K-IGNORE-1`).
    pub fn from_json(mut v: Value) -> Result<Checkpoint, IgnoreReason> {
        const MEMBERS: &[&str] = &[
            "checkpoint_version",
            "reducer_version",
            "event_count",
            "source_sequence",
            "source_event_id",
            "source_offset",
            "source_fingerprint",
            "projection",
            "hash_state",
            "id_index",
        ];
        let m = v.as_object().ok_or(IgnoreReason::NotAnObject)?;
        if m.len() != MEMBERS.len() || !MEMBERS.iter().all(|k| v.get(k).is_some()) {
            return Err(IgnoreReason::WrongMembers);
        }
        if v.get("checkpoint_version").and_then(Value::as_i64) != Some(CHECKPOINT_VERSION) {
            return Err(IgnoreReason::UnknownVersion);
        }
        if v.get("reducer_version").and_then(Value::as_str) != Some(REDUCER_VERSION) {
            return Err(IgnoreReason::OtherReducer(canonical::to_string(
                v.get("reducer_version").unwrap(),
            )));
        }
        let u = |k: &'static str| -> Result<u64, IgnoreReason> {
            v.get(k)
                .and_then(Value::as_i64)
                .filter(|n| *n >= 0)
                .map(|n| n as u64)
                .ok_or(IgnoreReason::BadMember(k))
        };
        let s = |x: Option<&Value>, k: &'static str| -> Result<String, IgnoreReason> {
            x.and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or(IgnoreReason::BadMember(k))
        };
        let event_count = u("event_count")?;
        if event_count == 0
            || v.get("source_sequence").and_then(Value::as_i64) != Some(event_count as i64 - 1)
        {
            return Err(IgnoreReason::BadMember("source_sequence"));
        }
        let index = v.get("id_index").unwrap();
        if index.get("count").and_then(Value::as_i64) != Some(event_count as i64) {
            return Err(IgnoreReason::IndexCountDiffers);
        }
        let source_event_id = s(v.get("source_event_id"), "source_event_id")?;
        let source_offset = u("source_offset")?;
        let source_fingerprint = s(v.get("source_fingerprint"), "source_fingerprint")?;
        let hash_state = Sha256State::from_json(v.get("hash_state").unwrap())
            .ok_or(IgnoreReason::BadMember("hash_state"))?;
        let index_file = s(index.get("file"), "id_index.file")?;
        let index_sha256 = s(index.get("sha256"), "id_index.sha256")?;
        // Move the projection out rather than copy it: it holds every message.
        let projection = match &mut v {
            Value::Object(m) => {
                let i = m
                    .iter()
                    .position(|(k, _)| k == "projection")
                    .expect("checked above");
                m.remove(i).1
            }
            _ => unreachable!("checked above"),
        };
        if projection.get("applied_sequences").is_some() {
            return Err(IgnoreReason::ProjectionHasSequences);
        }
        Ok(Checkpoint {
            event_count,
            source_event_id,
            source_offset,
            source_fingerprint,
            projection,
            hash_state,
            index_file,
            index_sha256,
        })
    }
}

fn index_path(ck: &Path, name: &str) -> PathBuf {
    ck.parent().unwrap_or(Path::new("")).join(name)
}

/// An empty journal is the input's fault (`empty_journal`), never an I/O error: it once
/// was one of kind `InvalidInput`, so the CLI's `checkpoint` exited 2 for it and any real
/// `EINVAL` from the file system would have been answered as an empty journal.
fn write_checkpoint(ck: &Path, st: &State) -> Result<Checkpoint, StoreError> {
    let n = st.checker.count();
    if n == 0 {
        return Err(ReadError::Invalid(Error::new(
            ErrorCode::EmptyJournal,
            "an empty journal has nothing to checkpoint",
        )));
    }
    let mut digests: Vec<[u8; 32]> = st
        .checker
        .ids()
        .map(|id| Sha256::digest(id.as_bytes()).into())
        .collect();
    digests.sort_unstable();
    let index_bytes: Vec<u8> = digests.concat();
    let index_file = format!(
        "{}.ids",
        ck.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    fsutil::write_atomic(&index_path(ck, &index_file), &index_bytes)?;
    let (projection, hash_state) = st.reducer.snapshot();
    let mut projection_json = projection.to_json();
    if let Value::Object(m) = &mut projection_json {
        m.retain(|(k, _)| k != "applied_sequences");
    }
    let c = Checkpoint {
        event_count: n,
        source_event_id: st.last_event_id.clone().unwrap_or_default(),
        source_offset: st.end,
        source_fingerprint: projection.fingerprint.clone(),
        projection: projection_json,
        hash_state,
        index_file,
        index_sha256: crate::fingerprint::sha256_hex(&index_bytes),
    };
    let mut text = canonical::to_string(&c.to_json());
    text.push('\n');
    fsutil::write_atomic(ck, text.as_bytes())?;
    Ok(c)
}

/// Write a checkpoint of the journal at `path` without holding it open for appends
/// (`journal-conformance checkpoint`). The journal must be valid and have no torn tail.
pub fn checkpoint_file(
    path: &Path,
    ck: &Path,
    profile: JournalProfile,
) -> Result<Checkpoint, StoreError> {
    checkpoint_file_bounded(path, ck, profile, wire::DEFAULT_MAX_LINE_BYTES)
}

/// [`checkpoint_file`] with lines of at most `max_line_bytes`.
pub fn checkpoint_file_bounded(
    path: &Path,
    ck: &Path,
    profile: JournalProfile,
    max_line_bytes: usize,
) -> Result<Checkpoint, StoreError> {
    let (st, torn) = scan(
        BufReader::with_capacity(1 << 16, open_regular(path)?),
        profile,
        max_line_bytes,
    )?;
    if let Some(t) = torn {
        return Err(Error::new(
            ErrorCode::InvalidJson,
            format!(
                "the journal has a torn tail ({}); run `recover --apply` first",
                t.reason
            ),
        )
        .at_line(t.line)
        .into());
    }
    write_checkpoint(ck, &st)
}

/// The sorted id-digest index of a checkpoint, searched on disk (`K-REPLAY-1`).
#[derive(Debug)]
struct IdIndex {
    file: std::cell::RefCell<File>,
    count: u64,
}

impl PrefixIds for IdIndex {
    fn contains(&self, id: &str) -> bool {
        let want: [u8; 32] = Sha256::digest(id.as_bytes()).into();
        let mut f = self.file.borrow_mut();
        let (mut lo, mut hi) = (0u64, self.count);
        let mut rec = [0u8; 32];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if f.seek(SeekFrom::Start(mid * 32))
                .and_then(|_| f.read_exact(&mut rec))
                .is_err()
            {
                return false;
            }
            match rec.cmp(&want) {
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        false
    }
}

/// How a replay from a checkpoint went.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckpointUse {
    /// The checkpoint was used; this many tail events were read.
    Used { tail_events: u64 },
    /// The checkpoint was ignored for this reason (`K-IGNORE-1`); the replay read
    /// the whole journal.
    Ignored(IgnoreReason),
}

/// Why a checkpoint is ignored (`K-IGNORE-1`): the replay then reads the whole journal
/// from event zero, and `replay --from-checkpoint` prints the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IgnoreReason {
    /// The checkpoint file could not be read (the I/O error's text).
    #[error("checkpoint: {0}")]
    Unreadable(String),
    #[error("checkpoint is not UTF-8")]
    NotUtf8,
    #[error("checkpoint does not parse: {0}")]
    NotJson(Error),
    #[error("not a JSON object")]
    NotAnObject,
    #[error("wrong members")]
    WrongMembers,
    #[error("unknown checkpoint_version")]
    UnknownVersion,
    /// Another reducer wrote it (its `reducer_version`, as canonical JSON).
    #[error("reducer_version {0} is not {REDUCER_VERSION:?}")]
    OtherReducer(String),
    #[error("bad `{0}`")]
    BadMember(&'static str),
    #[error("id_index count differs from event_count")]
    IndexCountDiffers,
    #[error("projection must not carry applied_sequences")]
    ProjectionHasSequences,
    #[error("the checkpoint contradicts itself (fingerprints differ)")]
    Contradicts,
    #[error("bad projection")]
    BadProjection,
    /// The journal could not be opened (the I/O error's text).
    #[error("journal: {0}")]
    JournalUnreadable(String),
    /// Reading the journal or the id index failed (the I/O error's text).
    #[error("{0}")]
    Io(String),
    #[error("the journal is shorter than source_offset")]
    JournalTooShort,
    #[error("the byte before source_offset is not a newline")]
    NoNewlineBeforeOffset,
    #[error("the line before source_offset is not an event: {0}")]
    SourceNotAnEvent(Error),
    #[error("the line before source_offset is not the checkpoint's source event")]
    OtherSourceEvent,
    #[error("id index {path}: {error}")]
    IndexUnreadable { path: String, error: String },
    #[error("the id index has the wrong length")]
    IndexLength,
    #[error("the id index does not match its digest")]
    IndexDigest,
}

/// Check that a checkpoint fits the journal; returns the index on success.
fn validate_checkpoint(
    path: &Path,
    c: &Checkpoint,
    ck: &Path,
    profile: JournalProfile,
) -> Result<IdIndex, IgnoreReason> {
    let io = |e: io::Error| IgnoreReason::Io(e.to_string());
    let mut f = File::open(path).map_err(|e| IgnoreReason::JournalUnreadable(e.to_string()))?;
    let len = f.metadata().map_err(io)?.len();
    if len < c.source_offset || c.source_offset == 0 {
        return Err(IgnoreReason::JournalTooShort);
    }
    // Find the start of the line that ends at source_offset.
    let end = c.source_offset;
    let mut start = end - 1;
    let mut last = [0u8; 1];
    f.seek(SeekFrom::Start(end - 1))
        .and_then(|_| f.read_exact(&mut last))
        .map_err(io)?;
    if last[0] != b'\n' {
        return Err(IgnoreReason::NoNewlineBeforeOffset);
    }
    let mut chunk = vec![0u8; 4096];
    'outer: while start > 0 {
        let from = start.saturating_sub(chunk.len() as u64);
        let n = (start - from) as usize;
        f.seek(SeekFrom::Start(from))
            .and_then(|_| f.read_exact(&mut chunk[..n]))
            .map_err(io)?;
        for i in (0..n).rev() {
            if chunk[i] == b'\n' {
                start = from + i as u64 + 1;
                break 'outer;
            }
        }
        start = from;
    }
    let mut line = vec![0u8; (end - 1 - start) as usize];
    f.seek(SeekFrom::Start(start))
        .and_then(|_| f.read_exact(&mut line))
        .map_err(io)?;
    let ev = wire::parse_line(c.event_count, &line)
        .and_then(|v| event::from_value(v, profile))
        .map_err(IgnoreReason::SourceNotAnEvent)?;
    if ev.sequence != (c.event_count - 1).to_string() || ev.event_id != c.source_event_id {
        return Err(IgnoreReason::OtherSourceEvent);
    }
    let ipath = index_path(ck, &c.index_file);
    let file = File::open(&ipath).map_err(|e| IgnoreReason::IndexUnreadable {
        path: ipath.display().to_string(),
        error: e.to_string(),
    })?;
    if file.metadata().map_err(io)?.len() != c.event_count * 32 {
        return Err(IgnoreReason::IndexLength);
    }
    Ok(IdIndex {
        file: std::cell::RefCell::new(file),
        count: c.event_count,
    })
}

/// Replay the journal at `path` using the checkpoint `ck` (`K-REPLAY-1`), or from
/// event zero when the checkpoint must be ignored (`K-IGNORE-1`).
pub fn replay_from_checkpoint(
    path: &Path,
    ck: &Path,
    profile: JournalProfile,
) -> Result<(ReplayState, CheckpointUse), StoreError> {
    replay_from_checkpoint_bounded(path, ck, profile, wire::DEFAULT_MAX_LINE_BYTES)
}

/// [`replay_from_checkpoint`] with lines of at most `max_line_bytes`.
pub fn replay_from_checkpoint_bounded(
    path: &Path,
    ck: &Path,
    profile: JournalProfile,
    max_line_bytes: usize,
) -> Result<(ReplayState, CheckpointUse), StoreError> {
    refuse_special(path)?;
    let attempt = (|| -> Result<(Checkpoint, IdIndex, Reducer), IgnoreReason> {
        let text = std::fs::read(ck).map_err(|e| IgnoreReason::Unreadable(e.to_string()))?;
        let text = std::str::from_utf8(&text).map_err(|_| IgnoreReason::NotUtf8)?;
        let v =
            json::parse_with_max_depth(text, json::MAX_DEPTH + 2).map_err(IgnoreReason::NotJson)?;
        let mut c = Checkpoint::from_json(v)?;
        // K-IGNORE-1: a checkpoint must agree with itself.
        let mut finished = c.hash_state.clone();
        finished.update(b"]");
        if crate::fingerprint::hex(&finished.digest()) != c.source_fingerprint
            || c.projection.get("fingerprint").and_then(Value::as_str)
                != Some(c.source_fingerprint.as_str())
        {
            return Err(IgnoreReason::Contradicts);
        }
        let index = validate_checkpoint(path, &c, ck, profile)?;
        let projection = std::mem::replace(&mut c.projection, Value::Null);
        let reducer = Reducer::restore(projection, c.event_count, c.hash_state.clone())
            .ok_or(IgnoreReason::BadProjection)?;
        Ok((c, index, reducer))
    })();
    let (c, index, mut reducer) = match attempt {
        Ok(x) => x,
        Err(reason) => {
            let f = BufReader::with_capacity(1 << 16, File::open(path)?);
            return Ok((
                crate::replay::replay_bounded(f, profile, None, max_line_bytes)?,
                CheckpointUse::Ignored(reason),
            ));
        }
    };
    let (session_id, run_id) = reducer.identity();
    let mut checker = Checker::resume(
        c.event_count,
        session_id.to_owned(),
        run_id.to_owned(),
        Box::new(index),
    );
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(c.source_offset))?;
    let mut lines =
        wire::LineReader::with_max_line_bytes(BufReader::with_capacity(1 << 16, f), max_line_bytes);
    let mut tail = 0;
    while let Some((n, bytes, _)) = lines.next_line()? {
        let ev = match journal::next_event(&mut checker, profile, c.event_count + n, bytes) {
            Ok(ev) => ev,
            Err(e) => {
                // K-IGNORE-1: a verdict that rests on the id index (`duplicate_event_id`,
                // `unknown_parent`) is only given once the index is verified against its
                // digest. Every tail error is, which is simpler and allowed: a pass over
                // the index, paid only here, on the error path, and an error that does
                // not rest on the index is the same from event zero (the prefix is
                // valid), so a spoiled index changes no answer.
                let ipath = index_path(ck, &c.index_file);
                let ok = std::fs::read(&ipath)
                    .is_ok_and(|b| crate::fingerprint::sha256_hex(&b) == c.index_sha256);
                if !ok {
                    let f = BufReader::with_capacity(1 << 16, File::open(path)?);
                    return Ok((
                        crate::replay::replay_bounded(f, profile, None, max_line_bytes)?,
                        CheckpointUse::Ignored(IgnoreReason::IndexDigest),
                    ));
                }
                return Err(e.into());
            }
        };
        reducer.apply(&ev);
        tail += 1;
    }
    Ok((
        reducer.into_state(),
        CheckpointUse::Used { tail_events: tail },
    ))
}

/// A `store_apply` step that is not well formed (a malformed request, `A-REQ-1`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreStepError {
    #[error("a step must be an object")]
    NotAnObject,
    #[error("a step needs a string `step`")]
    NoName,
    #[error("unknown step {0:?}")]
    Unknown(String),
    #[error("step {step:?} has no field {field:?}")]
    UnknownField { step: String, field: String },
    #[error("append needs a string `line`")]
    NeedsLine,
    #[error("append_batch needs an array `lines`")]
    NeedsLines,
    #[error("`lines` must hold strings")]
    LinesNotStrings,
}

/// The operations' request reader (`ops::Operation::from_json`) still speaks `String`.
impl From<StoreStepError> for String {
    fn from(e: StoreStepError) -> String {
        e.to_string()
    }
}

/// One step of `store_apply` (`S-OPS-1`).
#[derive(Clone, Debug, PartialEq)]
pub enum StoreStep {
    Append { line: String },
    AppendBatch { lines: Vec<String> },
    Restart,
    Checkpoint,
    Replay,
    ReplayFromCheckpoint,
}

impl StoreStep {
    /// Read a step's JSON spelling (`S-OPS-1`); unknown members are an error.
    pub fn from_json(v: &Value) -> Result<StoreStep, StoreStepError> {
        let members = v.as_object().ok_or(StoreStepError::NotAnObject)?;
        let step = v
            .get("step")
            .and_then(Value::as_str)
            .ok_or(StoreStepError::NoName)?;
        let allowed: &[&str] = match step {
            "append" => &["step", "line"],
            "append_batch" => &["step", "lines"],
            "restart" | "checkpoint" | "replay" | "replay_from_checkpoint" => &["step"],
            other => return Err(StoreStepError::Unknown(other.to_owned())),
        };
        if let Some((k, _)) = members.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(StoreStepError::UnknownField {
                step: step.to_owned(),
                field: k.clone(),
            });
        }
        Ok(match step {
            "append" => StoreStep::Append {
                line: v
                    .get("line")
                    .and_then(Value::as_str)
                    .ok_or(StoreStepError::NeedsLine)?
                    .to_owned(),
            },
            "append_batch" => StoreStep::AppendBatch {
                lines: v
                    .get("lines")
                    .and_then(Value::as_array)
                    .ok_or(StoreStepError::NeedsLines)?
                    .iter()
                    .map(|l| {
                        l.as_str()
                            .map(str::to_owned)
                            .ok_or(StoreStepError::LinesNotStrings)
                    })
                    .collect::<Result<_, _>>()?,
            },
            "restart" => StoreStep::Restart,
            "checkpoint" => StoreStep::Checkpoint,
            "replay" => StoreStep::Replay,
            "replay_from_checkpoint" => StoreStep::ReplayFromCheckpoint,
            // Refused above already; a name is never read as some other step.
            other => return Err(StoreStepError::Unknown(other.to_owned())),
        })
    }

    pub fn to_json(&self) -> Value {
        let step = |name: &str| ("step".to_owned(), Value::from(name));
        Value::Object(match self {
            StoreStep::Append { line } => {
                vec![step("append"), ("line".into(), Value::from(line.as_str()))]
            }
            StoreStep::AppendBatch { lines } => vec![
                step("append_batch"),
                (
                    "lines".into(),
                    Value::Array(lines.iter().map(|l| Value::from(l.as_str())).collect()),
                ),
            ],
            StoreStep::Restart => vec![step("restart")],
            StoreStep::Checkpoint => vec![step("checkpoint")],
            StoreStep::Replay => vec![step("replay")],
            StoreStep::ReplayFromCheckpoint => vec![step("replay_from_checkpoint")],
        })
    }
}

/// A step's error as `store_apply` reports it: code and line only, so results compare
/// exactly (`S-OPS-1`).
fn step_error(e: &Error) -> Value {
    Value::object([(
        "error",
        Value::object([
            ("code", Value::from(e.code.as_str())),
            ("line", e.line.map_or(Value::Null, Value::from_u64)),
        ]),
    )])
}

fn recovered(r: &Recovery, out: &mut Vec<Value>) {
    if let Some(t) = &r.torn {
        out.push(Value::object([
            ("offset", Value::from_u64(t.offset)),
            (
                "torn",
                Value::from(String::from_utf8_lossy(&t.bytes).into_owned()),
            ),
        ]));
    }
}

/// `store_apply` (`S-OPS-1`): the reference runs the steps on a scratch file.
pub fn apply_steps(
    input: &[u8],
    steps: &[StoreStep],
    profile: JournalProfile,
) -> Result<Value, StoreError> {
    // A scratch directory in the temporary directory, removed on drop.
    let dir = tempfile::Builder::new().prefix("jc-store-").tempdir()?;
    let path = dir.path().join("journal.jsonl");
    let ck = dir.path().join("journal.checkpoint.json");
    std::fs::write(&path, input)?;
    let mut recoveries = Vec::new();
    let (mut store, rec) = Store::open(&path, profile)?;
    recovered(&rec, &mut recoveries);
    let mut results = Vec::with_capacity(steps.len());
    // A checkpoint these steps wrote describes the journal exactly (K-RECORD-1), and the
    // store only ever appends whole events after it: replaying from it must use it
    // (K-REPLAY-1). Falling back to event zero would answer the same ReplayState and hide
    // the defect, so the reference reports it as an internal error instead.
    let mut wrote_checkpoint = false;
    let state_or_error = |r: Result<ReplayState, StoreError>| -> Result<Value, StoreError> {
        match r {
            Ok(s) => Ok(s.to_json()),
            Err(ReadError::Invalid(e)) => Ok(step_error(&e)),
            Err(e) => Err(e),
        }
    };
    for step in steps {
        results.push(match step {
            StoreStep::Append { line } => match store.append(line.as_bytes()) {
                Ok(ack) => ack.to_json(),
                Err(ReadError::Invalid(e)) => step_error(&e),
                Err(e) => return Err(e),
            },
            StoreStep::AppendBatch { lines } => {
                let refs: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
                let (acks, err) = store.append_batch(&refs)?;
                let mut items: Vec<Value> = acks.iter().map(Ack::to_json).collect();
                if let Some(e) = err {
                    items.push(step_error(&e));
                }
                Value::Array(items)
            }
            StoreStep::Restart => {
                drop(store);
                let (s, rec) = Store::open(&path, profile)?;
                recovered(&rec, &mut recoveries);
                store = s;
                Value::Null
            }
            StoreStep::Checkpoint => match store.checkpoint(&ck) {
                Ok(c) => {
                    wrote_checkpoint = true;
                    Value::object([
                        ("event_count", Value::from_u64(c.event_count)),
                        ("source_fingerprint", Value::from(c.source_fingerprint)),
                    ])
                }
                Err(ReadError::Invalid(e)) => step_error(&e),
                Err(e) => return Err(e),
            },
            StoreStep::Replay => state_or_error(
                File::open(&path)
                    .map_err(ReadError::from)
                    .and_then(|f| crate::replay::replay(BufReader::new(f), profile, None)),
            )?,
            StoreStep::ReplayFromCheckpoint => state_or_error(
                replay_from_checkpoint(&path, &ck, profile).and_then(|(s, used)| {
                    if let (true, CheckpointUse::Ignored(why)) = (wrote_checkpoint, used) {
                        return Err(ReadError::Io(io::Error::other(format!(
                            "the store's own checkpoint was ignored ({why}): it does not fit \
                                 the journal it was written for (K-RECORD-1, K-REPLAY-1)"
                        ))));
                    }
                    Ok(s)
                }),
            )?,
        });
    }
    drop(store);
    let journal = std::fs::read(&path)?;
    Ok(Value::object([
        ("recovered", Value::Array(recoveries)),
        ("results", Value::Array(results)),
        (
            "journal",
            Value::from(String::from_utf8_lossy(&journal).into_owned()),
        ),
    ]))
}

/// How many times a store retries a held lock, [`LOCK_RETRY_PAUSE`] apart, before it
/// reports `locked` (S-WRITER-1): a grace of at least 250 ms.
///
/// An `flock` belongs to the open file description, and a child process shares every
/// description of its parent from `fork` until `exec` closes the close-on-exec ones. So
/// a program that drops a store on one thread while another thread spawns a process
/// can find its own, already released, lock still held for that instant (CI saw it: a
/// test reopened a journal while a sibling test started a subprocess). The grace period
/// outlasts that window; a real second writer still gets `locked`, just this much later.
/// Counted in retries, not read from a clock, the grace only grows on a loaded machine,
/// where that window does too.
pub const LOCK_RETRIES: u32 = 50;

/// The pause between two tries of a held lock (see [`LOCK_RETRIES`]).
pub const LOCK_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(5);

/// S-WRITER-1: take the exclusive lock, retrying [`LOCK_RETRIES`] times.
fn try_lock_with_grace(lock: &File, path: &Path) -> Result<(), StoreError> {
    let mut retries = LOCK_RETRIES;
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if retries > 0 => {
                retries -= 1;
                std::thread::sleep(LOCK_RETRY_PAUSE);
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::new(
                    ErrorCode::Locked,
                    format!("{} is held by another writer", path.display()),
                )
                .into())
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e.into()),
        }
    }
}
