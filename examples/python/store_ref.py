"""store_ref: the durable store and checkpoints (SPEC.md section 16).

Written from SPEC.md alone (not from the Rust reference), standard library
only, Python 3.8+, POSIX (it needs fcntl.flock and fdatasync/fsync).  It
reuses journal_ref's per-line checks (sections 2 to 6), canonical writer
and reducer.  Rule ids in the comments refer to SPEC.md.

Public API:

    Store.open(path, profile="core")     -> Store       (S-WRITER-1, S-RECOVER-1)
    Store.recovered                      -> [Recovery]  (what the open moved aside)
    Store.append(line)                   -> ack dict    (S-ACK-1/2, S-VALID-1, S-DUP-1, S-FAULT-1)
    Store.append_batch(lines)            -> (acks, JournalError or None)   (S-BATCH-1)
    Store.checkpoint()                   -> checkpoint record (K-RECORD-1, K-WRITE-1)
    Store.replay()                       -> ReplayState from event zero
    Store.replay_from_checkpoint()       -> (ReplayState, CheckpointUse)  (K-REPLAY-1, K-IGNORE-1)
    Store.close()
    scan(path, profile)                  -> what opening would do, changing nothing (S-RECOVER-2)
    replay_from_checkpoint(journal_path, checkpoint_path, profile)
                                         -> (ReplayState, CheckpointUse), no store, no lock
    load_checkpoint(checkpoint_path, journal_fd, journal_length)
                                         -> (record, Sha256, id index); raises CheckpointIgnored
    Sha256                               -> pure-Python SHA-256 with an exportable state
    store_apply(data, steps, profile)    -> S-OPS-1 result dict
                                            (raises JournalError if the open fails)
    run_operation(op_object, data, profile) -> ("result", value) | ("error", error_dict)

Errors about events are journal_ref.JournalError (codes of section 10 plus
`conflicting_duplicate` and `locked`).  A failed write or sync raises
StoreFault (an OSError); nothing is acknowledged then (S-FAULT-1).
"""

import errno
import fcntl
import hashlib
import io
import os
import re
import shutil
import struct
import tempfile

import journal_ref as jr

__all__ = [
    "Store", "StoreFault", "Recovery", "CheckpointUse", "CheckpointIgnored", "Sha256",
    "CHECKPOINT_VERSION", "REDUCER_VERSION", "OPERATIONS", "STEPS",
    "scan", "replay_from_checkpoint", "load_checkpoint", "checkpoint_path_for",
    "store_apply", "run_operation",
]

OPERATIONS = ("store_apply",)
CHECKPOINT_VERSION = 1
# K-RECORD-1: "an implementation uses its own string and changes it whenever
# its projection would change".
REDUCER_VERSION = "journal-ref-python/replay-1"
DIGEST_SIZE = 32
# A checkpoint nests an event's payload two levels deeper than the event does
# (checkpoint > projection > tool_results > payload), so reading it back with
# C-DEPTH-1's 128 would refuse (and so ignore) a checkpoint of a valid journal.
CHECKPOINT_MAX_DEPTH = jr.MAX_DEPTH + 2
_CHUNK = 1 << 16


# ---------------------------------------------------------------------------
# SHA-256 in pure Python, with an exportable state (K-RECORD-1 hash_state).
# hashlib's objects cannot export or import their state, so the resumable
# fingerprint needs its own compression function.  FIPS 180-4.
# ---------------------------------------------------------------------------

_K = (
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
)
_H0 = (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
_M32 = 0xFFFFFFFF
_BLOCK = struct.Struct(">16I")
_MAX_LENGTH = (1 << 61) - 1          # the message length in bits must fit 64 bits
_HEX_WORD = re.compile(r"[0-9a-f]{8}")
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _compress(state, block, offset=0):
    """One SHA-256 compression of the 64 bytes of `block` at `offset`."""
    w = list(_BLOCK.unpack_from(block, offset))
    append = w.append
    for t in range(16, 64):
        x = w[t - 15]
        y = w[t - 2]
        append((w[t - 16] + w[t - 7]
                + (((x >> 7) | (x << 25)) ^ ((x >> 18) | (x << 14)) ^ (x >> 3))
                + (((y >> 17) | (y << 15)) ^ ((y >> 19) | (y << 13)) ^ (y >> 10))) & _M32)
    a, b, c, d, e, f, g, h = state
    for t in range(64):
        t1 = (h + _K[t] + w[t] + (g ^ (e & (f ^ g)))
              + ((((e >> 6) | (e << 26)) ^ ((e >> 11) | (e << 21)) ^ ((e >> 25) | (e << 7)))
                 & _M32))
        t2 = ((((a >> 2) | (a << 30)) ^ ((a >> 13) | (a << 19)) ^ ((a >> 22) | (a << 10))) & _M32) \
            + ((a & b) | (c & (a | b)))
        h = g
        g = f
        f = e
        e = (d + t1) & _M32
        d = c
        c = b
        b = a
        a = (t1 + t2) & _M32
    return ((state[0] + a) & _M32, (state[1] + b) & _M32, (state[2] + c) & _M32,
            (state[3] + d) & _M32, (state[4] + e) & _M32, (state[5] + f) & _M32,
            (state[6] + g) & _M32, (state[7] + h) & _M32)


class Sha256(object):
    """SHA-256 whose intermediate state can be exported and resumed.

    `state()` is K-RECORD-1's hash_state: {"h": [8 lowercase 8-digit hex
    words], "pending": hex of the bytes of the incomplete 64-byte block,
    "length": bytes hashed}.  `Sha256.from_state(d)` resumes it.  The digest
    equals hashlib.sha256's for the same bytes, however they were split.
    """

    __slots__ = ("_h", "_pending", "_length")

    def __init__(self, data=b""):
        self._h = _H0
        self._pending = b""
        self._length = 0
        if data:
            self.update(data)

    def update(self, data):
        data = bytes(data)
        if self._length + len(data) > _MAX_LENGTH:
            raise OverflowError("SHA-256 input longer than 2^61-1 bytes")
        self._length += len(data)
        h = self._h
        pos = 0
        if self._pending:
            need = 64 - len(self._pending)
            if len(data) < need:
                self._pending += data
                return
            h = _compress(h, self._pending + data[:need])
            pos = need
        end = len(data) - (len(data) - pos) % 64
        for off in range(pos, end, 64):
            h = _compress(h, data, off)
        self._h = h
        self._pending = data[end:]

    def copy(self):
        other = Sha256.__new__(Sha256)
        other._h = self._h
        other._pending = self._pending
        other._length = self._length
        return other

    @property
    def length(self):
        return self._length

    def digest(self):
        bits = self._length * 8
        tail = (self._pending + b"\x80" + b"\x00" * ((55 - self._length) % 64)
                + struct.pack(">Q", bits))
        h = self._h
        for off in range(0, len(tail), 64):
            h = _compress(h, tail, off)
        return struct.pack(">8I", *h)

    def hexdigest(self):
        return self.digest().hex()

    def state(self):
        return {"h": ["%08x" % word for word in self._h],
                "pending": self._pending.hex(),
                "length": self._length}

    @classmethod
    def from_state(cls, state):
        """Resume an exported state; ValueError if it is not one."""
        if type(state) is not dict or set(state) != {"h", "pending", "length"}:
            raise ValueError("hash_state must have exactly h, pending, length")
        words, pending, length = state["h"], state["pending"], state["length"]
        if type(words) is not list or len(words) != 8 or not all(
                type(w) is str and _HEX_WORD.fullmatch(w) for w in words):
            raise ValueError("hash_state.h must be 8 lowercase 8-digit hex words")
        if type(pending) is not str or not _HEX.fullmatch(pending) or len(pending) >= 128:
            raise ValueError("hash_state.pending must be lowercase hex of fewer than 64 bytes")
        if type(length) is not int or not 0 <= length <= _MAX_LENGTH \
                or length % 64 != len(pending) // 2:
            raise ValueError("hash_state.length does not agree with pending")
        obj = cls.__new__(cls)
        obj._h = tuple(int(w, 16) for w in words)
        obj._pending = bytes.fromhex(pending)
        obj._length = length
        return obj


# ---------------------------------------------------------------------------
# Small file-system helpers.  _pwrite, _datasync and _fsync are module-level
# so that tests can inject faults (S-FAULT-1).
# ---------------------------------------------------------------------------

def _pwrite(fd, data, offset):
    return os.pwrite(fd, data, offset)


_datasync = getattr(os, "fdatasync", os.fsync)   # S-ACK-1: fdatasync (or fsync)
_fsync = os.fsync


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _pread_exact(fd, size, offset):
    out = bytearray()
    while len(out) < size:
        chunk = os.pread(fd, size - len(out), offset + len(out))
        if not chunk:
            break
        out += chunk
    return bytes(out)


class _RangeReader(io.RawIOBase):
    """A raw stream over bytes [start, end) of a file descriptor (pread, so
    the descriptor's own offset is never used or moved)."""

    def __init__(self, fd, start, end):
        io.RawIOBase.__init__(self)
        self._fd = fd
        self._pos = start
        self._end = end

    def readable(self):
        return True

    def readinto(self, buf):
        size = min(len(buf), self._end - self._pos)
        if size <= 0:
            return 0
        data = os.pread(self._fd, size, self._pos)
        buf[:len(data)] = data
        self._pos += len(data)
        return len(data)


def _lines(fd, start, end):
    """Yield (offset, raw_without_lf, terminated) for the lines of bytes
    [start, end) of fd, split on 0x0A only (W-LINE-1, W-LINE-3)."""
    reader = io.BufferedReader(_RangeReader(fd, start, end), _CHUNK)
    offset = start
    while True:
        chunk = reader.readline()
        if not chunk:
            return
        terminated = chunk.endswith(b"\n")
        yield offset, (chunk[:-1] if terminated else chunk), terminated
        offset += len(chunk)


def _file_size(fd):
    return os.fstat(fd).st_size


def _id_digest(event_id):
    return hashlib.sha256(event_id.encode("utf-8")).digest()


def _canon_digest(event):
    return hashlib.sha256(jr.canonical_text(event).encode("utf-8")).digest()


def checkpoint_path_for(journal_path):
    """Where a store keeps the latest checkpoint of `journal_path`."""
    return journal_path + ".checkpoint"


def _index_name_for(journal_path, count):
    return os.path.basename(journal_path) + ".ids-%d" % count


# ---------------------------------------------------------------------------
# Section 5 for the next line of a journal whose prefix is summarised by the
# running state (index, first ids, a lookup of earlier event ids).
# ---------------------------------------------------------------------------

def _check_invariants(v, lineno, index, session_id, run_id, known):
    """J-ORDER-1 step 5: J-SEQ-1, J-SESSION-1, J-RUN-1, J-ID-1, J-PARENT-1.
    `session_id`/`run_id` are None before the first event; `known(id)` says
    whether an earlier event has that id."""
    if v["sequence"] != index:
        raise jr.event_error("sequence_gap", "expected sequence %d, found %d"
                             % (index, v["sequence"]), lineno, v)
    if session_id is not None and v["session_id"] != session_id:
        raise jr.event_error("mixed_session", "session_id %r differs from the first event's %r"
                             % (v["session_id"], session_id), lineno, v)
    if run_id is not None and v["provenance"]["run_id"] != run_id:
        raise jr.event_error("mixed_run", "provenance.run_id %r differs from the first event's %r"
                             % (v["provenance"]["run_id"], run_id), lineno, v)
    if known(v["event_id"]):
        raise jr.event_error("duplicate_event_id", "event_id %r used before"
                             % (v["event_id"],), lineno, v)
    parent = v.get("parent_event_id")
    if parent is not None and not known(parent):
        raise jr.event_error("unknown_parent", "parent_event_id %r is not an earlier event"
                             % (parent,), lineno, v)


class _Known(object):
    """What the store keeps per event: its sequence (for the original ack)
    and the SHA-256 of its canonical text (S-DUP-1)."""

    __slots__ = ("sequence", "digest")

    def __init__(self, sequence, digest):
        self.sequence = sequence
        self.digest = digest


class _Pending(_Known):
    """An event accepted by a batch but not yet written and synced."""

    __slots__ = ("id", "line", "session_id", "run_id")

    def __init__(self, event_id, sequence, digest, line, v):
        _Known.__init__(self, sequence, digest)
        self.id = event_id
        self.line = line
        self.session_id = v["session_id"]
        self.run_id = v["provenance"]["run_id"]


# ---------------------------------------------------------------------------
# 16.2 opening and recovery
# ---------------------------------------------------------------------------

class Recovery(object):
    """A torn tail that was (or would be) moved aside (S-RECOVER-1)."""

    def __init__(self, offset, data, reason, path=None):
        self.offset = offset          # where the torn tail started
        self.data = data              # its bytes
        self.reason = reason          # "unterminated" or the code of the failed rule
        self.path = path              # <journal>.torn-<k>, once moved

    @property
    def length(self):
        return len(self.data)

    def to_json(self):
        return {"offset": self.offset, "length": self.length, "reason": self.reason,
                "path": self.path}

    def __repr__(self):
        return "Recovery(%r)" % (self.to_json(),)


class _ScanState(object):
    def __init__(self):
        self.count = 0
        self.good_length = 0
        self.session_id = None
        self.run_id = None
        self.last_event_id = None
        self.ids = {}                 # event_id -> _Known
        self.torn = None              # Recovery or None


def _scan_fd(fd, profile):
    """Read the journal once, checking every line (S-RECOVER-1).  Returns a
    _ScanState; raises the JournalError of a bad line that is not a torn
    tail (S-TORN-1)."""
    st = _ScanState()
    size = _file_size(fd)
    lines = _lines(fd, 0, size)
    nxt = next(lines, None)
    lineno = 0
    while nxt is not None:
        offset, raw, terminated = nxt
        nxt = next(lines, None)
        last = nxt is None
        lineno += 1
        if last and not terminated:
            # S-TORN-1: bytes after the last \n were never acknowledged (an
            # append writes its line and \n in one write), even when they
            # happen to parse.
            st.torn = Recovery(offset, raw, "unterminated")
            break
        try:
            v = jr.parse_line(raw, lineno)
        except jr.JournalError as exc:
            if last:
                # S-TORN-1: a \n-terminated last line that breaks section 2 or 3.
                st.torn = Recovery(offset, raw + b"\n", exc.code)
                break
            raise
        jr.check_event(v, lineno, profile)
        _check_invariants(v, lineno, st.count, st.session_id, st.run_id, st.ids.__contains__)
        if st.count == 0:
            st.session_id = v["session_id"]
            st.run_id = v["provenance"]["run_id"]
        st.ids[v["event_id"]] = _Known(st.count, _canon_digest(v))
        st.last_event_id = v["event_id"]
        st.count += 1
        st.good_length = offset + len(raw) + 1
    return st


def scan(path, profile="core"):
    """S-RECOVER-2: what opening `path` would do, changing nothing.  Returns
    {"event_count", "length", "recovery"} (recovery None or the torn tail's
    offset, length, reason); raises the JournalError an open would fail with."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = _scan_fd(fd, profile)
    finally:
        os.close(fd)
    return {"event_count": st.count, "length": st.good_length,
            "recovery": None if st.torn is None else st.torn.to_json()}


def _move_aside(journal_path, fd, torn):
    """S-RECOVER-1: copy the torn bytes to <journal>.torn-<k> (smallest
    unused k >= 1), sync it, sync the directory, then truncate the journal
    to the end of its last good line and sync it."""
    k = 1
    while True:
        target = "%s.torn-%d" % (journal_path, k)
        try:
            tfd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                          | getattr(os, "O_CLOEXEC", 0), 0o644)
            break
        except FileExistsError:
            k += 1
    try:
        _write_all(tfd, torn.data)
        os.fsync(tfd)
    finally:
        os.close(tfd)
    _fsync_dir(os.path.dirname(os.path.abspath(journal_path)))
    os.ftruncate(fd, torn.offset)
    os.fsync(fd)
    torn.path = target


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------

class StoreFault(OSError):
    """A write or sync failed (S-FAULT-1): nothing was acknowledged."""


class CheckpointUse(object):
    """How a replay from a checkpoint went: `used` (bool), `reason` (why the
    checkpoint was ignored, K-IGNORE-1, or None), `event_count` (events the
    checkpoint covered, 0 when ignored), `path`."""

    def __init__(self, used, reason=None, event_count=0, path=None):
        self.used = used
        self.reason = reason
        self.event_count = event_count
        self.path = path

    def __repr__(self):
        return "CheckpointUse(used=%r, reason=%r, event_count=%r)" % (
            self.used, self.reason, self.event_count)


class Store(object):
    """An open store: the exclusive lock, the acknowledged length, and the
    duplicate table (event_id -> original sequence + canonical digest)."""

    def __init__(self, path, fd, profile, st, recovered):
        self.path = path
        self.profile = profile
        self._fd = fd
        self.length = st.good_length       # the acknowledged (durable) length
        self.count = st.count
        self._session_id = st.session_id
        self._run_id = st.run_id
        self._ids = st.ids
        self.last_event_id = st.last_event_id
        self.recovered = recovered
        self._broken = None                # S-FAULT-1: set when a truncate-back failed

    # ---- opening
    @classmethod
    def open(cls, path, profile="core"):
        """Open (creating if needed) a store on `path`: the exclusive lock
        (S-WRITER-1, `locked` if another holds it), a directory sync when the
        file was created (S-ACK-1), one checking pass with torn-tail recovery
        (S-RECOVER-1)."""
        if profile not in jr.PROFILES:
            raise jr.OperationError("unknown profile %r" % (profile,))
        flags = os.O_RDWR | getattr(os, "O_CLOEXEC", 0)
        created = False
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
            created = True
        except FileExistsError:
            fd = os.open(path, flags)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise jr.JournalError("locked", "%s is locked by another writer" % path)
                raise
            if created:
                _fsync_dir(os.path.dirname(os.path.abspath(path)))
            st = _scan_fd(fd, profile)
            recovered = []
            if st.torn is not None:
                _move_aside(path, fd, st.torn)
                recovered.append(st.torn)
            elif _file_size(fd):
                # Lines written by a writer that died between its write and
                # its sync are readable but maybe not durable; a retry of one
                # of them is acknowledged as a duplicate (S-DUP-1), which
                # promises durability (S-ACK-1).  One sync settles it.
                os.fsync(fd)
        except BaseException:
            os.close(fd)                   # also releases the lock
            raise
        return cls(path, fd, profile, st, recovered)

    def close(self):
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _check_open(self):
        if self._fd is None:
            raise ValueError("the store is closed")

    # ---- appending
    def _prepare(self, line, index, pending):
        """S-VALID-1 and S-DUP-1 for `line` as the event at `index` (line
        index+1).  `pending` holds the events accepted earlier in the same
        batch.  Returns (ack, known or None): known is None for a duplicate."""
        lineno = index + 1
        if type(line) is str:
            line = line.encode("utf-8")
        line = bytes(line)
        nl = line.find(b"\n")
        if nl >= 0:
            # S-VALID-1: a single line; the store writes it as given.
            raise jr.JournalError("invalid_json", "an appended line must not contain \\n",
                                  line=lineno, column=nl + 1)
        v = jr.parse_line(line, lineno)                       # J-ORDER-1 step 1
        jr.check_event(v, lineno, self.profile)               # steps 2-4
        event_id = v["event_id"]
        digest = _canon_digest(v)
        known = self._ids.get(event_id)
        if known is None:
            known = pending.get(event_id)
        if known is not None:                                 # S-DUP-1, before J-SEQ-1
            if known.digest != digest:
                raise jr.event_error("conflicting_duplicate",
                                     "event_id %r is already in the journal (sequence %d) "
                                     "with a different canonical text" % (event_id, known.sequence),
                                     lineno, v)
            return {"event_id": event_id, "sequence": known.sequence, "duplicate": True}, None
        session_id, run_id = self._session_id, self._run_id
        if session_id is None and pending:
            first = next(iter(pending.values()))
            session_id, run_id = first.session_id, first.run_id
        _check_invariants(v, lineno, index, session_id, run_id,
                          lambda i: i in self._ids or i in pending)  # step 5
        new = _Pending(event_id, index, digest, line + b"\n", v)
        return {"event_id": event_id, "sequence": index, "duplicate": False}, new

    def _commit(self, accepted):
        """Write the accepted lines in one write, sync once, then make them
        part of the journal (S-ACK-1, S-BATCH-1); on any failure truncate
        back to the acknowledged length (S-FAULT-1) and raise StoreFault."""
        data = b"".join(k.line for k in accepted)
        try:
            n = _pwrite(self._fd, data, self.length)
            if n != len(data):
                raise OSError(errno.EIO, "short write: %d of %d bytes" % (n, len(data)))
            _datasync(self._fd)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, self.length)
                _fsync(self._fd)
            except OSError as exc2:
                self._broken = exc2
                raise StoreFault(exc.errno or errno.EIO,
                                 "append failed (%s) and so did truncating back (%s): "
                                 "the store refuses appends until reopened" % (exc, exc2))
            raise StoreFault(exc.errno or errno.EIO,
                             "append failed, nothing acknowledged: %s" % exc)
        for k in accepted:
            self._ids[k.id] = _Known(k.sequence, k.digest)
        if self.count == 0 and accepted:
            self._session_id = accepted[0].session_id
            self._run_id = accepted[0].run_id
        self.count += len(accepted)
        self.length += len(data)
        if accepted:
            self.last_event_id = accepted[-1].id

    def _check_writable(self):
        self._check_open()
        if self._broken is not None:
            raise StoreFault(errno.EIO, "a failed append could not be rolled back (%s); "
                             "reopen the store" % (self._broken,))

    def append(self, line):
        """Append one line (str or bytes, without \\n).  Returns the ack
        {"event_id", "sequence", "duplicate"} once the line is durable.
        Raises JournalError (rejected: nothing written) or StoreFault."""
        acks, error = self.append_batch([line])
        if error is not None:
            raise error
        return acks[0]

    def append_batch(self, lines):
        """S-BATCH-1: handle the lines in order as single appends would,
        write the accepted ones, sync once, then acknowledge them all.
        Returns (acks, error): error is the JournalError of the first
        rejected line (later lines are not handled), or None."""
        self._check_writable()
        acks = []
        accepted = []
        pending = {}
        error = None
        for line in lines:
            try:
                ack, new = self._prepare(line, self.count + len(accepted), pending)
            except jr.JournalError as exc:
                error = exc
                break
            if new is not None:
                accepted.append(new)
                pending[new.id] = new
            acks.append(ack)
        if accepted:
            self._commit(accepted)
        return acks, error

    # ---- replay
    def contents(self):
        """The acknowledged bytes of the journal."""
        self._check_open()
        return _pread_exact(self._fd, self.length, 0)

    def replay(self):
        """The ReplayState from event zero (section 6); empty_journal when
        nothing was appended."""
        self._check_open()
        return jr.op_replay(_RangeReader(self._fd, 0, self.length), self.profile)

    @property
    def checkpoint_path(self):
        return checkpoint_path_for(self.path)

    def replay_from_checkpoint(self):
        """K-REPLAY-1 from the latest checkpoint, or from event zero when
        there is none or it must be ignored (K-IGNORE-1).  Returns
        (ReplayState, CheckpointUse)."""
        self._check_open()
        state, use, _ = _replay_fd(self._fd, self.length, self.checkpoint_path,
                                   os.path.dirname(os.path.abspath(self.path)), self.profile)
        return state, use

    # ---- checkpoints
    def checkpoint(self):
        """K-RECORD-1 / K-WRITE-1: write a checkpoint of every event in the
        journal next to it; returns the record.  The projection and hash
        state come from a replay from the previous checkpoint (K-REPLAY-1),
        so a checkpoint costs the events since the last one."""
        self._check_open()
        if self.count == 0:
            raise jr.JournalError("empty_journal", "the journal has no event to checkpoint")
        directory = os.path.dirname(os.path.abspath(self.path))
        state, use, run = _replay_fd(self._fd, self.length, self.checkpoint_path,
                                     directory, self.profile)
        assert run.count == self.count and run.offset == self.length
        index = b"".join(sorted(_id_digest(i) for i in self._ids))
        index_name = _index_name_for(self.path, self.count)
        record = {
            "checkpoint_version": CHECKPOINT_VERSION,
            "reducer_version": REDUCER_VERSION,
            "event_count": self.count,
            "source_sequence": self.count - 1,
            "source_event_id": run.last_event_id,
            "source_offset": self.length,
            "source_fingerprint": state["fingerprint"],
            "projection": state,
            "hash_state": run.sha.state(),
            "id_index": {"file": index_name, "count": self.count,
                         "sha256": hashlib.sha256(index).hexdigest()},
        }
        old_index = use.index_file if use.used else None
        _write_atomic(os.path.join(directory, index_name), index, directory)
        _write_atomic(self.checkpoint_path,
                      (jr.canonical_text(record) + "\n").encode("utf-8"), directory)
        if old_index and old_index != index_name:
            try:                     # the old checkpoint is gone; so is its use
                os.unlink(os.path.join(directory, old_index))
            except OSError:
                pass
        return record


_tmp_counter = [0]


def _write_atomic(path, data, directory):
    """K-WRITE-1: a temporary file in the same directory, synced, renamed
    over `path`, then the directory synced."""
    _tmp_counter[0] += 1
    tmp = os.path.join(directory, ".%s.tmp-%d-%d" % (os.path.basename(path), os.getpid(),
                                                     _tmp_counter[0]))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


# ---------------------------------------------------------------------------
# 16.3 checkpoints: loading (K-IGNORE-1) and replay (K-REPLAY-1)
# ---------------------------------------------------------------------------

class CheckpointIgnored(Exception):
    """The checkpoint must be ignored (K-IGNORE-1); str() is the reason."""


_RECORD_MEMBERS = frozenset([
    "checkpoint_version", "reducer_version", "event_count", "source_sequence",
    "source_event_id", "source_offset", "source_fingerprint", "projection",
    "hash_state", "id_index"])
_PROJECTION_MEMBERS = frozenset([
    "session_id", "run_id", "applied_sequences", "user_messages",
    "assistant_messages", "tool_results", "stop_reason", "fingerprint"])


def _is_int(v):
    return type(v) is int


def _is_str_list(v):
    return type(v) is list and all(type(x) is str for x in v)


def _check_record(rec):
    """The members and types of K-RECORD-1 (K-IGNORE-1's first clause), and
    the consistency they imply; returns the resumed Sha256."""
    if type(rec) is not dict:
        raise CheckpointIgnored("the checkpoint is not a JSON object")
    if set(rec) != _RECORD_MEMBERS:
        missing = sorted(_RECORD_MEMBERS - set(rec))
        extra = sorted(set(rec) - _RECORD_MEMBERS)
        raise CheckpointIgnored("wrong members (missing %s, unknown %s)" % (missing, extra))
    if not _is_int(rec["checkpoint_version"]):
        raise CheckpointIgnored("checkpoint_version is not an integer")
    if type(rec["reducer_version"]) is not str:
        raise CheckpointIgnored("reducer_version is not a string")
    n = rec["event_count"]
    if not _is_int(n) or n < 1:
        raise CheckpointIgnored("event_count is not a positive integer")
    if rec["source_sequence"] != n - 1 or not _is_int(rec["source_sequence"]):
        raise CheckpointIgnored("source_sequence is not event_count - 1")
    if type(rec["source_event_id"]) is not str or not rec["source_event_id"]:
        raise CheckpointIgnored("source_event_id is not a non-empty string")
    if not _is_int(rec["source_offset"]) or rec["source_offset"] < 1:
        raise CheckpointIgnored("source_offset is not a positive integer")
    fp = rec["source_fingerprint"]
    if type(fp) is not str or not _HEX64.fullmatch(fp):
        raise CheckpointIgnored("source_fingerprint is not 64 lowercase hex digits")
    p = rec["projection"]
    if type(p) is not dict or set(p) != _PROJECTION_MEMBERS:
        raise CheckpointIgnored("projection does not have the ReplayState members")
    if not (type(p["session_id"]) is str and type(p["run_id"]) is str
            and type(p["applied_sequences"]) is list
            and _is_str_list(p["user_messages"]) and _is_str_list(p["assistant_messages"])
            and type(p["tool_results"]) is list
            and all(type(x) is dict for x in p["tool_results"])
            and (p["stop_reason"] is None or type(p["stop_reason"]) is str)
            and type(p["fingerprint"]) is str):
        raise CheckpointIgnored("projection has a member of the wrong type")
    seqs = p["applied_sequences"]
    if len(seqs) != n or not all(type(s) is int and s == i for i, s in enumerate(seqs)):
        raise CheckpointIgnored("projection.applied_sequences is not 0..event_count-1")
    if p["fingerprint"] != fp:
        raise CheckpointIgnored("projection.fingerprint differs from source_fingerprint")
    idx = rec["id_index"]
    if type(idx) is not dict or set(idx) != {"file", "count", "sha256"}:
        raise CheckpointIgnored("id_index does not have exactly file, count, sha256")
    name = idx["file"]
    if type(name) is not str or not name or name in (".", "..") or "/" in name or "\x00" in name:
        raise CheckpointIgnored("id_index.file is not a plain file name")
    if not _is_int(idx["count"]) or idx["count"] != n:
        raise CheckpointIgnored("id_index.count is not event_count")
    if type(idx["sha256"]) is not str or not _HEX64.fullmatch(idx["sha256"]):
        raise CheckpointIgnored("id_index.sha256 is not 64 lowercase hex digits")
    try:
        sha = Sha256.from_state(rec["hash_state"])
    except ValueError as exc:
        raise CheckpointIgnored(str(exc))
    # The state must be that of "[" + n canonical events: closing it with "]"
    # gives the fingerprint.  (Two compressions; it catches a state that
    # does not belong to the record.)
    final = sha.copy()
    final.update(b"]")
    if final.hexdigest() != fp:
        raise CheckpointIgnored("hash_state does not give source_fingerprint")
    return sha


def _line_ending_at(fd, offset):
    """The bytes of the line whose \\n is the byte before `offset`."""
    end = offset - 1
    start = end
    while start > 0:
        step = min(_CHUNK, start)
        chunk = os.pread(fd, step, start - step)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            start = start - step + nl + 1
            break
        start -= step
    return _pread_exact(fd, end - start, start)


class _IdIndex(object):
    """The sorted id-digest file of a checkpoint, searched on disk."""

    def __init__(self, fd, count):
        self._fd = fd
        self._count = count

    def __contains__(self, event_id):
        key = _id_digest(event_id)
        lo, hi = 0, self._count
        while lo < hi:
            mid = (lo + hi) // 2
            d = _pread_exact(self._fd, DIGEST_SIZE, mid * DIGEST_SIZE)
            if d == key:
                return True
            if d < key:
                lo = mid + 1
            else:
                hi = mid
        return False

    def close(self):
        os.close(self._fd)


def load_checkpoint(checkpoint_path, journal_fd, journal_length, directory=None,
                    profile="core"):
    """Read a checkpoint and check it against the journal (K-IGNORE-1).
    Returns (record, resumed Sha256, open _IdIndex); raises CheckpointIgnored(reason)."""
    if directory is None:
        directory = os.path.dirname(os.path.abspath(checkpoint_path))
    try:
        with open(checkpoint_path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise CheckpointIgnored("no checkpoint")
    except OSError as exc:
        raise CheckpointIgnored("the checkpoint cannot be read: %s" % exc)
    try:
        rec = jr.parse_text(data, CHECKPOINT_MAX_DEPTH)
    except jr.JournalError as exc:
        raise CheckpointIgnored("the checkpoint does not parse: %s" % exc.code)
    sha = _check_record(rec)
    if rec["checkpoint_version"] != CHECKPOINT_VERSION:
        raise CheckpointIgnored("checkpoint_version %r is not %d" % (rec["checkpoint_version"],
                                                             CHECKPOINT_VERSION))
    if rec["reducer_version"] != REDUCER_VERSION:
        raise CheckpointIgnored("reducer_version %r is not %r"
                                % (rec["reducer_version"], REDUCER_VERSION))
    offset = rec["source_offset"]
    if journal_length < offset:
        raise CheckpointIgnored("the journal (%d bytes) is shorter than source_offset %d"
                      % (journal_length, offset))
    if os.pread(journal_fd, 1, offset - 1) != b"\n":
        raise CheckpointIgnored("the byte before source_offset is not \\n")
    last = _line_ending_at(journal_fd, offset)
    try:
        v = jr.parse_line(last, rec["event_count"])
        jr.check_event(v, rec["event_count"], profile)
    except jr.JournalError as exc:
        raise CheckpointIgnored("the line ending at source_offset is not an event (%s)" % exc.code)
    if not (v["sequence"] == rec["source_sequence"]
            and v["event_id"] == rec["source_event_id"]):
        raise CheckpointIgnored("the line ending at source_offset is not event %r with sequence %d"
                      % (rec["source_event_id"], rec["source_sequence"]))
    idx = rec["id_index"]
    try:
        ifd = os.open(os.path.join(directory, idx["file"]),
                      os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        raise CheckpointIgnored("the id index %s is missing" % idx["file"])
    try:
        if _file_size(ifd) != DIGEST_SIZE * idx["count"]:
            raise CheckpointIgnored("the id index has the wrong length")
        h = hashlib.sha256()
        for _, chunk in _chunks(ifd, _file_size(ifd)):
            h.update(chunk)
        if h.hexdigest() != idx["sha256"]:
            raise CheckpointIgnored("the id index has the wrong digest")
    except BaseException:
        os.close(ifd)
        raise
    return rec, sha, _IdIndex(ifd, idx["count"])


def _chunks(fd, size):
    off = 0
    while off < size:
        chunk = os.pread(fd, min(_CHUNK, size - off), off)
        if not chunk:
            return
        yield off, chunk
        off += len(chunk)


class _Run(object):
    """Where a replay ended: events, bytes, the last id, the SHA-256 state
    after "[" and the canonical events (before "]")."""

    def __init__(self, count, offset, last_event_id, sha):
        self.count = count
        self.offset = offset
        self.last_event_id = last_event_id
        self.sha = sha


def _replay_fd(fd, length, checkpoint_path, directory, profile):
    """K-REPLAY-1 over bytes [0, length) of fd; K-IGNORE-1 falls back to a
    replay from event zero.  Returns (ReplayState, CheckpointUse, _Run)."""
    index = None
    try:
        rec, sha, index = load_checkpoint(checkpoint_path, fd, length, directory, profile)
    except CheckpointIgnored as exc:
        use = CheckpointUse(False, str(exc), 0, checkpoint_path)
        use.index_file = None
        state, run = _fold(fd, 0, length, profile, None, Sha256(), 0, None, None)
        return state, use, run
    try:
        use = CheckpointUse(True, None, rec["event_count"], checkpoint_path)
        use.index_file = rec["id_index"]["file"]
        proj = rec["projection"]
        state = dict(proj)
        for key in ("applied_sequences", "user_messages", "assistant_messages", "tool_results"):
            state[key] = list(proj[key])
        del state["fingerprint"]
        state, run = _fold(fd, rec["source_offset"], length, profile, state, sha,
                           rec["event_count"], index, rec["source_event_id"])
        return state, use, run
    finally:
        index.close()


def _fold(fd, start, end, profile, state, sha, count, prefix_ids, last_event_id):
    """Check and fold the lines of bytes [start, end) as events count, count+1,
    ... of a journal (every rule of sections 2 to 6; line numbers continue
    from count+1).  `prefix_ids` answers `in` for the ids of events
    0..count-1 (None when count is 0).  Returns (ReplayState, _Run)."""
    tail_ids = set()

    def known(event_id):
        return event_id in tail_ids or (prefix_ids is not None and event_id in prefix_ids)

    session_id = state["session_id"] if state else None
    run_id = state["run_id"] if state else None
    lineno = count
    offset = start
    for offset_, raw, terminated in _lines(fd, start, end):
        lineno += 1
        v = jr.parse_line(raw, lineno)
        jr.check_event(v, lineno, profile)
        _check_invariants(v, lineno, count, session_id, run_id, known)
        if state is None:
            state = jr.new_replay_state(v)
            session_id, run_id = state["session_id"], state["run_id"]
        tail_ids.add(v["event_id"])
        sha.update(b"," if count else b"[")
        sha.update(jr.canonical_text(v).encode("utf-8"))
        jr.reduce_event(state, v)
        last_event_id = v["event_id"]
        count += 1
        offset = offset_ + len(raw) + (1 if terminated else 0)
    if state is None:
        raise jr.JournalError("empty_journal", "the journal has no events")
    final = sha.copy()
    final.update(b"]")
    state["fingerprint"] = final.hexdigest()
    return state, _Run(count, offset, last_event_id, sha)


def replay_from_checkpoint(journal_path, checkpoint_path=None, profile="core"):
    """K-REPLAY-1 on a journal file without opening a store (no lock, the
    file is only read).  Returns (ReplayState, CheckpointUse)."""
    if checkpoint_path is None:
        checkpoint_path = checkpoint_path_for(journal_path)
    fd = os.open(journal_path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        state, use, _ = _replay_fd(fd, _file_size(fd), checkpoint_path,
                                   os.path.dirname(os.path.abspath(checkpoint_path)), profile)
    finally:
        os.close(fd)
    return state, use


# ---------------------------------------------------------------------------
# 16.4 store operations as data (S-OPS-1)
# ---------------------------------------------------------------------------

# step name -> its members besides "step"
STEPS = {
    "append": ("line",),
    "append_batch": ("lines",),
    "restart": (),
    "checkpoint": (),
    "replay": (),
    "replay_from_checkpoint": (),
}


def _check_steps(steps):
    """Shape of the `steps` array; OperationError (not a store error) if bad."""
    if type(steps) is not list:
        raise jr.OperationError("store_apply: steps must be an array")
    for i, step in enumerate(steps):
        if type(step) is not dict or type(step.get("step")) is not str:
            raise jr.OperationError("steps[%d]: a step is an object with a string member 'step'"
                                    % i)
        name = step["step"]
        if name not in STEPS:
            raise jr.OperationError("steps[%d]: unknown step %r" % (i, name))
        for m in STEPS[name]:
            if m not in step:
                raise jr.OperationError("steps[%d]: %s needs member %r" % (i, name, m))
        for m in step:
            if m != "step" and m not in STEPS[name]:
                raise jr.OperationError("steps[%d]: %s does not take member %r" % (i, name, m))
        if "line" in step and type(step["line"]) is not str:
            raise jr.OperationError("steps[%d]: line must be a string" % i)
        if "lines" in step and not _is_str_list(step["lines"]):
            raise jr.OperationError("steps[%d]: lines must be an array of strings" % i)


def _step_error(exc):
    # S-OPS-1: step errors carry only code and line, so results compare exactly.
    return {"error": {"code": exc.code, "line": exc.line}}


def _text(data):
    return bytes(data).decode("utf-8", errors="replace")


def _recovery_json(r):
    return {"offset": r.offset, "torn": _text(r.data)}


def store_apply(data, steps, profile="core", directory=None):
    """S-OPS-1: write `data` to a fresh file in a fresh temporary directory,
    open a store on it, apply the steps, and return {"recovered", "results",
    "journal"}.  Raises JournalError when the (first) open fails."""
    _check_steps(steps)
    tmpdir = tempfile.mkdtemp(prefix="store-apply-", dir=directory)
    try:
        path = os.path.join(tmpdir, "journal.jsonl")
        with open(path, "wb") as f:
            f.write(bytes(data))
        recovered = []
        store = Store.open(path, profile)
        try:
            recovered.extend(_recovery_json(r) for r in store.recovered)
            results = []
            for step in steps:
                name = step["step"]
                try:
                    if name == "append":
                        results.append(store.append(step["line"]))
                    elif name == "append_batch":
                        acks, error = store.append_batch(step["lines"])
                        if error is not None:
                            acks.append(_step_error(error))
                        results.append(acks)
                    elif name == "restart":
                        store.close()
                        store = Store.open(path, profile)
                        recovered.extend(_recovery_json(r) for r in store.recovered)
                        results.append(None)
                    elif name == "checkpoint":
                        rec = store.checkpoint()
                        results.append({"event_count": rec["event_count"],
                                        "source_fingerprint": rec["source_fingerprint"]})
                    elif name == "replay":
                        results.append(store.replay())
                    else:
                        results.append(store.replay_from_checkpoint()[0])
                except jr.JournalError as exc:
                    results.append(_step_error(exc))
            journal = store.contents()
        finally:
            store.close()
        with open(path, "rb") as f:
            on_disk = f.read()
        assert on_disk == journal, "the journal file differs from the acknowledged bytes"
        return {"recovered": recovered, "results": results, "journal": _text(journal)}
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def run_operation(op, data, profile="core"):
    """Run a store operation object (S-OPS-1) on input bytes.  Returns
    ("result", value) or ("error", error object); raises
    journal_ref.OperationError if the operation object is malformed."""
    if type(op) is not dict or op.get("op") != "store_apply":
        raise jr.OperationError("not a store operation: %r" % (op,))
    if "steps" not in op:
        raise jr.OperationError("store_apply needs member 'steps'")
    for member in op:
        if member not in ("op", "steps"):
            raise jr.OperationError("store_apply does not take member %r" % (member,))
    if profile not in jr.PROFILES:
        raise jr.OperationError("unknown profile %r" % (profile,))
    _check_steps(op["steps"])
    try:
        return "result", store_apply(data, op["steps"], profile)
    except jr.JournalError as exc:
        return "error", exc.to_json()
