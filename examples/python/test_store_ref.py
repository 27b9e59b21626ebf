"""Tests for store_ref (SPEC.md section 16) and its adapter wiring.

Run:  python3 -m unittest discover -s examples/python

Every expected value below was derived by hand from SPEC.md section 16 (the
rule ids name the rule each case relies on); none comes from the Rust
reference or the conformance vectors.  Canonical texts are written out by
hand (section 3.2) and fingerprints are hashlib.sha256 over those texts
(F-FP-1), so they do not depend on the code under test.
"""

import base64
import errno
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import journal_ref as jr  # noqa: E402
import store_ref as sr  # noqa: E402

# The events used throughout, as appended (spelled freely) and as their
# canonical texts (section 3.2: keys sorted, no whitespace, 15e-1 -> 1.5,
# \u00e9 -> raw é).
L = [
    '{"event_id":"e0","session_id":"s","sequence":0,"type":"session.start",'
    '"payload":{},"provenance":{"run_id":"r"}}',
    '{"event_id":"e1","session_id":"s","sequence":1,"type":"user.message",'
    '"payload":{"content":"h\\u00e9"},"provenance":{"run_id":"r"},"parent_event_id":"e0"}',
    '{"sequence":2,"event_id":"e2","session_id":"s","type":"model.response",'
    '"payload":{"final":true,"accumulated":"hi there"},"provenance":{"run_id":"r"},'
    '"parent_event_id":"e1"}',
    '{"event_id":"e3", "session_id":"s", "sequence":3, "type":"tool.result", '
    '"payload":{"ok":true,"n":15e-1}, "provenance":{"run_id":"r"}}',
    '{"event_id":"e4","session_id":"s","sequence":4,"type":"session.stop",'
    '"payload":{"reason":"done"},"provenance":{"run_id":"r"}}',
]
C = [
    '{"event_id":"e0","payload":{},"provenance":{"run_id":"r"},"sequence":0,'
    '"session_id":"s","type":"session.start"}',
    '{"event_id":"e1","parent_event_id":"e0","payload":{"content":"hé"},'
    '"provenance":{"run_id":"r"},"sequence":1,"session_id":"s","type":"user.message"}',
    '{"event_id":"e2","parent_event_id":"e1","payload":{"accumulated":"hi there","final":true},'
    '"provenance":{"run_id":"r"},"sequence":2,"session_id":"s","type":"model.response"}',
    '{"event_id":"e3","payload":{"n":1.5,"ok":true},"provenance":{"run_id":"r"},'
    '"sequence":3,"session_id":"s","type":"tool.result"}',
    '{"event_id":"e4","payload":{"reason":"done"},"provenance":{"run_id":"r"},'
    '"sequence":4,"session_id":"s","type":"session.stop"}',
]


def fp(n):
    """F-FP-1 of events 0..n-1, from the hand-written canonical texts."""
    return hashlib.sha256(("[" + ",".join(C[:n]) + "]").encode("utf-8")).hexdigest()


def state(n):
    """The ReplayState of events 0..n-1 (section 6), by hand."""
    return {
        "session_id": "s",
        "run_id": "r",
        "applied_sequences": list(range(n)),
        "user_messages": ["hé"] if n > 1 else [],                      # R-USER-1
        "assistant_messages": ["hi there"] if n > 2 else [],           # R-STREAM-1 final
        "tool_results": [{"ok": True, "n": 1.5}] if n > 3 else [],      # R-TOOL-1
        "stop_reason": "done" if n > 4 else None,                      # R-STOP-1
        "fingerprint": fp(n),
    }


def ack(i, duplicate=False):
    return {"event_id": "e%d" % i, "sequence": i, "duplicate": duplicate}


def journal_bytes(n):
    return "".join(line + "\n" for line in L[:n]).encode("utf-8")


def ev(seq, event_id=None, **members):
    """A compact core event line (its own canonical text when members are)."""
    e = {"event_id": event_id or "e%d" % seq, "session_id": "s", "sequence": seq,
         "type": "session.start", "payload": {}, "provenance": {"run_id": "r"}}
    e.update(members)
    return json.dumps(e, separators=(",", ":"), ensure_ascii=False)


class Base(unittest.TestCase):

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="store-test-")
        self.dir = self._tmp.name
        self.path = os.path.join(self.dir, "j.jsonl")
        self.stores = []

    def tearDown(self):
        for s in self.stores:
            s.close()
        self._tmp.cleanup()

    def open(self, path=None, profile="core"):
        s = sr.Store.open(path or self.path, profile)
        self.stores.append(s)
        return s

    def write(self, data, path=None):
        with open(path or self.path, "wb") as f:
            f.write(data)

    def read(self, path=None):
        with open(path or self.path, "rb") as f:
            return f.read()

    def files(self):
        return sorted(os.listdir(self.dir))

    def assertJournalError(self, code, line, fn, *args):
        with self.assertRaises(jr.JournalError) as cm:
            fn(*args)
        self.assertEqual((cm.exception.code, cm.exception.line), (code, line), cm.exception)
        return cm.exception


# ---------------------------------------------------------------------------

class HandTextTest(unittest.TestCase):

    def test_hand_canonical_texts_agree_with_the_writer(self):
        # A guard on the fixtures: the hand-written C are the canonical texts of L.
        for line, canon in zip(L, C):
            self.assertEqual(jr.canonical_text(jr.parse_text(line.encode("utf-8"))), canon)

    def test_hand_states_agree_with_a_full_replay(self):
        for n in range(1, 6):
            self.assertEqual(jr.op_replay(journal_bytes(n)), state(n))


class Sha256Test(unittest.TestCase):

    def test_known_digests(self):
        # FIPS 180-2 appendix B examples.
        self.assertEqual(sr.Sha256(b"abc").hexdigest(),
                         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        self.assertEqual(sr.Sha256().hexdigest(),
                         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        self.assertEqual(
            sr.Sha256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hexdigest(),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")

    def test_equals_hashlib_on_every_length_up_to_300(self):
        rnd = random.Random(16)
        for n in range(301):
            data = bytes(rnd.getrandbits(8) for _ in range(n))
            self.assertEqual(sr.Sha256(data).hexdigest(), hashlib.sha256(data).hexdigest(), n)

    def test_equals_hashlib_under_random_splits_and_resumed_states(self):
        rnd = random.Random(61)
        for trial in range(150):
            data = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 700)))
            h = sr.Sha256()
            pos = 0
            while pos < len(data):
                step = rnd.choice((1, 3, 55, 56, 63, 64, 65, 127, 128, 200))
                h.update(data[pos:pos + step])
                pos += step
                if rnd.random() < 0.5:                 # export and resume (K-RECORD-1)
                    st = json.loads(json.dumps(h.state()))
                    self.assertEqual(st["length"], pos if pos < len(data) else len(data))
                    self.assertEqual(bytes.fromhex(st["pending"]),
                                     data[:min(pos, len(data))][-(st["length"] % 64):]
                                     if st["length"] % 64 else b"")
                    h = sr.Sha256.from_state(st)
            self.assertEqual(h.hexdigest(), hashlib.sha256(data).hexdigest(), trial)
            self.assertEqual(h.digest(), hashlib.sha256(data).digest())

    def test_state_format(self):
        st = sr.Sha256(b"[").state()
        self.assertEqual(st, {"h": ["6a09e667", "bb67ae85", "3c6ef372", "a54ff53a",
                                    "510e527f", "9b05688c", "1f83d9ab", "5be0cd19"],
                              "pending": "5b", "length": 1})
        st = sr.Sha256(b"x" * 64).state()
        self.assertEqual((st["pending"], st["length"]), ("", 64))
        self.assertNotEqual(st["h"][0], "6a09e667")
        for w in st["h"]:
            self.assertRegex(w, r"^[0-9a-f]{8}$")

    def test_copy_does_not_share(self):
        h = sr.Sha256(b"abc")
        g = h.copy()
        g.update(b"def")
        self.assertEqual(h.hexdigest(), hashlib.sha256(b"abc").hexdigest())
        self.assertEqual(g.hexdigest(), hashlib.sha256(b"abcdef").hexdigest())

    def test_from_state_rejects(self):
        good = sr.Sha256(b"ab").state()
        bad = [
            None, [], {}, dict(good, extra=1),
            dict(good, h=good["h"][:7]), dict(good, h=good["h"][:7] + ["ABCDEF01"]),
            dict(good, h=good["h"][:7] + ["1234567"]), dict(good, h=good["h"][:7] + [1]),
            dict(good, pending="616"), dict(good, pending="6G62"), dict(good, pending=1),
            dict(good, pending="00" * 64), dict(good, length=3), dict(good, length=-2),
            dict(good, length=2.0), dict(good, length=True), dict(good, length="2"),
        ]
        for st in bad:
            with self.assertRaises(ValueError, msg=repr(st)):
                sr.Sha256.from_state(st)


# ---------------------------------------------------------------------------

class AppendTest(Base):

    def test_fresh_append_and_ack(self):
        # S-ACK-2, S-VALID-1: the lines are written exactly as given, each + \n.
        s = self.open()
        for i in range(5):
            self.assertEqual(s.append(L[i]), ack(i))
        self.assertEqual(self.read(), journal_bytes(5))
        self.assertEqual((s.count, s.length), (5, len(journal_bytes(5))))
        self.assertEqual(s.replay(), state(5))

    def test_bytes_and_str_lines(self):
        s = self.open()
        self.assertEqual(s.append(L[0].encode("utf-8")), ack(0))
        self.assertEqual(s.append(L[1]), ack(1))
        self.assertEqual(self.read(), journal_bytes(2))

    def test_line_is_kept_as_given(self):
        # S-VALID-1: never re-encoded; whitespace, key order, escapes and a
        # trailing CR (W-CR-1) stay.
        line = '  {"type":"session.start","sequence":0,"event_id":"\\u0065\\/0","session_id":"s",' \
               '"payload":{},"provenance":{"run_id":"r"}}\t\r'
        s = self.open()
        self.assertEqual(s.append(line), {"event_id": "e/0", "sequence": 0, "duplicate": False})
        self.assertEqual(self.read(), line.encode("utf-8") + b"\n")

    def test_every_journal_rule_applies_to_the_next_line(self):
        # S-VALID-1: same codes, line = the line number the event would have.
        s = self.open()
        s.append(L[0])
        s.append(L[1])
        cases = [
            ("", "blank_line"),                                           # W-BLANK-1
            (" \t\r", "blank_line"),
            ("\ufeff" + ev(2), "unexpected_bom"),                         # W-BOM-1
            ("{oops", "invalid_json"),                                    # C-SYNTAX-1
            ('{"a":1,"a":2}', "duplicate_key"),                           # C-KEY-2
            ('{"a":"\\ud800"}', "lone_surrogate"),                        # C-STR-3
            ('{"a":1e400}', "number_out_of_range"),                       # C-NUM-6
            ("[" * 129 + "]" * 129, "nesting_too_deep"),                  # C-DEPTH-1
            ("[]", "malformed_event"),                                    # E-ENV-1
            (ev(2, payload=[]), "malformed_event"),
            (ev(2, type="user.message", payload={"content": None}), "invalid_payload"),  # R-TYPE-1
            (ev(3), "sequence_gap"),                                      # J-SEQ-1
            (ev(1, "e9"), "sequence_gap"),
            (ev(2, session_id="other"), "mixed_session"),                 # J-SESSION-1
            (ev(2, provenance={"run_id": "other"}), "mixed_run"),         # J-RUN-1
            (ev(2, parent_event_id="nope"), "unknown_parent"),            # J-PARENT-1
            (ev(2, parent_event_id="e2"), "unknown_parent"),              # self reference
        ]
        before = self.read()
        for line, code in cases:
            err = self.assertJournalError(code, 3, s.append, line)
            self.assertEqual(self.read(), before, line)          # a rejected event writes nothing
        self.assertIsNone(err.column)
        self.assertEqual((err.sequence, err.event_id), (2, "e2"))
        self.assertEqual(s.append(ev(2, parent_event_id="e0")), ack(2))

    def test_invalid_utf8(self):
        s = self.open()
        self.assertJournalError("invalid_utf8", 1, s.append, b'{"a":"\xff"}')
        self.assertEqual(self.read(), b"")

    def test_newline_in_the_line(self):
        # S-VALID-1: a line containing \n is invalid_json, even a trailing one
        # (which JSON alone would take as whitespace), and two events in one.
        s = self.open()
        for line in (L[0] + "\n", L[0] + "\n" + L[1], "\n" + L[0], "\n",
                     "\ufeff" + L[0] + "\n"):     # reading: the \n check comes first
            err = self.assertJournalError("invalid_json", 1, s.append, line)
            self.assertEqual(err.column, line.encode("utf-8").index(b"\n") + 1)  # bytes
        self.assertEqual(self.read(), b"")
        self.assertEqual(s.append(L[0]), ack(0))

    def test_first_event_fixes_session_and_run(self):
        s = self.open()
        s.append(ev(0, session_id="a", provenance={"run_id": "b"}))
        self.assertJournalError("mixed_session", 2, s.append, ev(1))
        self.assertEqual(s.append(ev(1, session_id="a", provenance={"run_id": "b"})), ack(1))

    def test_trace_profile(self):
        # Section 4 applies too: under trace-0.1 a core-only event is a violation.
        s = self.open(profile="trace-0.1")
        self.assertJournalError("profile_violation", 1, s.append, L[0])
        with open(os.path.join(HERE, "..", "..", "golden", "s07-session-replay.golden.jsonl"),
                  "rb") as f:
            golden = f.read().split(b"\n")
        self.assertEqual(s.append(golden[0])["sequence"], 0)


class DuplicateTest(Base):
    """S-DUP-1, exercise E, row by row."""

    def setUp(self):
        Base.setUp(self)
        self.s = self.open()
        for i in range(3):
            self.s.append(L[i])
        self.before = self.read()

    def test_new_id_is_appended(self):
        self.assertEqual(self.s.append(L[3]), ack(3))

    def test_identical_retry(self):
        self.assertEqual(self.s.append(L[2]), ack(2, True))
        self.assertEqual(self.read(), self.before)
        self.assertEqual(self.s.count, 3)

    def test_respelled_retry(self):
        # Same canonical text, other spelling: key order, whitespace, escapes
        # (F-FP-2), an integer written -0 (C-NUM-2 is 0).
        respelled = ('{ "provenance" : { "run_id" : "r" } , "parent_event_id":"\\u0065\\u0030",'
                     '"payload":{"content":"hé"},"type":"user.message","sequence":1,'
                     '"session_id":"s","event_id":"e1"}\r')
        self.assertEqual(self.s.append(respelled), ack(1, True))
        self.assertEqual(self.s.append(L[0].replace('"sequence":0', '"sequence":-0')), ack(0, True))
        self.assertEqual(self.read(), self.before)

    def test_old_event_retried_late(self):
        # The original ack (sequence 0), although the next sequence is 3: the
        # lookup comes before J-SEQ-1.
        self.assertEqual(self.s.append(L[0]), ack(0, True))

    def test_conflicting_retry(self):
        for line in (L[1].replace("h\\u00e9", "hi"),                     # another value
                     L[0].replace("{}", '{"x":null}'),                    # an added member
                     L[2].replace("true", "1"),                           # a changed type
                     ev(2, "e1"),                                         # the id, new event
                     ):
            err = self.assertJournalError("conflicting_duplicate", 4, self.s.append, line)
            self.assertEqual(err.event_id, line and json.loads(line)["event_id"])
        self.assertEqual(self.read(), self.before)
        self.assertEqual(self.s.append(L[3]), ack(3))

    def test_int_versus_float_conflicts(self):
        # C-NUM-1: 1 and 1.0 canonicalise differently.
        s = self.s
        s.append(ev(3, payload={"n": 1}))
        self.assertJournalError("conflicting_duplicate", 5, s.append, ev(3, payload={"n": 1.0}))
        self.assertEqual(s.append(ev(3, payload={"n": 1})), ack(3, True))

    def test_retry_after_restart(self):
        self.s.close()
        s = self.open()
        self.assertEqual(s.append(L[1]), ack(1, True))
        self.assertJournalError("conflicting_duplicate", 4, s.append, ev(1))
        self.assertEqual(s.append(L[3]), ack(3))

    def test_lookup_comes_after_the_envelope_and_payload_rules(self):
        # Reading of S-DUP-1: "before the sequence rule" -- after J-ORDER-1
        # steps 1 to 4.  A retry that changes a value AND breaks R-TYPE-1 is
        # invalid_payload, not conflicting_duplicate.
        self.assertJournalError("invalid_payload", 4, self.s.append,
                                L[1].replace('"h\\u00e9"', "null"))
        self.assertJournalError("malformed_event", 4, self.s.append,
                                L[1].replace('"run_id":"r"', '"run_id":""'))


class BatchTest(Base):
    """S-BATCH-1."""

    def counting(self):
        calls = {"sync": 0, "write": 0}
        real_sync, real_write = sr._datasync, sr._pwrite

        def sync(fd):
            calls["sync"] += 1
            return real_sync(fd)

        def write(fd, data, off):
            calls["write"] += 1
            return real_write(fd, data, off)
        return calls, mock.patch.multiple(sr, _datasync=sync, _pwrite=write)

    def test_batch_syncs_once(self):
        s = self.open()
        calls, patch = self.counting()
        with patch:
            acks, error = s.append_batch(L[:4])
        self.assertIsNone(error)
        self.assertEqual(acks, [ack(0), ack(1), ack(2), ack(3)])
        self.assertEqual(calls, {"sync": 1, "write": 1})
        self.assertEqual(self.read(), journal_bytes(4))

    def test_duplicates_inside_a_batch(self):
        # A retry of a line earlier in the same batch is its duplicate.
        s = self.open()
        s.append(L[0])
        acks, error = s.append_batch([L[1], L[0], L[1], L[2]])
        self.assertIsNone(error)
        self.assertEqual(acks, [ack(1), ack(0, True), ack(1, True), ack(2)])
        self.assertEqual(self.read(), journal_bytes(3))
        acks, error = s.append_batch([L[1].replace("h\\u00e9", "x")])
        self.assertEqual(acks, [])
        self.assertEqual((error.code, error.line), ("conflicting_duplicate", 4))

    def test_first_rejected_line_stops_the_batch(self):
        s = self.open()
        acks, error = s.append_batch([L[0], L[1], ev(5), L[2], "{bad"])
        self.assertEqual(acks, [ack(0), ack(1)])
        self.assertEqual((error.code, error.line), ("sequence_gap", 3))
        self.assertEqual(self.read(), journal_bytes(2))   # L[2] was not handled
        self.assertEqual(s.append(L[2]), ack(2))

    def test_batch_of_duplicates_writes_and_syncs_nothing(self):
        s = self.open()
        s.append_batch(L[:2])
        calls, patch = self.counting()
        with patch:
            acks, error = s.append_batch([L[0], L[1]])
        self.assertEqual((acks, error), ([ack(0, True), ack(1, True)], None))
        self.assertEqual(calls, {"sync": 0, "write": 0})

    def test_empty_batch(self):
        s = self.open()
        self.assertEqual(s.append_batch([]), ([], None))
        self.assertEqual(self.read(), b"")


# ---------------------------------------------------------------------------

class OpenTest(Base):

    def test_create_syncs_the_directory(self):
        # S-ACK-1: a created journal's directory is synced before any ack.
        seen = []
        real = sr._fsync_dir
        with mock.patch.object(sr, "_fsync_dir", side_effect=lambda p: (seen.append(p), real(p))):
            s = self.open()
            self.assertEqual(seen, [self.dir])
            s.close()
            self.open()
            self.assertEqual(seen, [self.dir])            # not again for an existing file
        self.assertEqual(self.read(), b"")

    def test_lock(self):
        # S-WRITER-1: a second writer's open fails with `locked`, writes nothing.
        s = self.open()
        s.append(L[0])
        for _ in range(2):
            self.assertJournalError("locked", None, sr.Store.open, self.path)
        self.assertEqual(self.read(), journal_bytes(1))
        s.append(L[1])
        s.close()
        self.assertEqual(self.open().count, 2)

    def test_lock_across_processes(self):
        self.open()
        code = ("import sys; sys.path.insert(0, %r); import store_ref, journal_ref\n"
                "try:\n    store_ref.Store.open(%r)\nexcept journal_ref.JournalError as e:\n"
                "    print(e.code)\n" % (HERE, self.path))
        out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, check=True)
        self.assertEqual(out.stdout.strip(), b"locked")

    def test_existing_valid_journal(self):
        self.write(journal_bytes(3))
        s = self.open()
        self.assertEqual((s.count, s.length, s.recovered), (3, len(journal_bytes(3)), []))
        self.assertEqual(s.append(L[3]), ack(3))

    def test_crlf_journal(self):
        data = b"".join(x.encode("utf-8") + b"\r\n" for x in L[:2])
        self.write(data)
        s = self.open()
        self.assertEqual(s.recovered, [])
        self.assertEqual(s.append(L[2]), ack(2))
        self.assertEqual(self.read(), data + L[2].encode("utf-8") + b"\n")

    def test_bad_line_in_the_middle_fails_the_open(self):
        # S-RECOVER-1: anything but a torn tail fails the open and changes nothing.
        cases = [
            (journal_bytes(1) + b"{oops\n" + journal_bytes(3)[len(journal_bytes(1)):],
             "invalid_json", 2),
            (journal_bytes(1) + b"\n" + L[1].encode() + b"\n", "blank_line", 2),
            # a complete last line that parses but breaks a rule
            (journal_bytes(2) + ev(3).encode() + b"\n", "sequence_gap", 3),
            (journal_bytes(2) + ev(2, "e1").encode() + b"\n", "duplicate_event_id", 3),
            (journal_bytes(1) + b"[1]\n", "malformed_event", 2),
            # a bad terminated line before an unterminated torn last line: the
            # torn tail is only the last line, so the open fails.
            (journal_bytes(1) + b"{oops\n" + b'{"event_id":', "invalid_json", 2),
        ]
        for data, code, line in cases:
            self.write(data)
            self.assertJournalError(code, line, sr.Store.open, self.path)
            self.assertEqual(self.read(), data)
            self.assertEqual(self.files(), ["j.jsonl"])
            # the lock was released
            fd = os.open(self.path, os.O_RDONLY)
            try:
                import fcntl
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            finally:
                os.close(fd)

    def test_unknown_profile(self):
        with self.assertRaises(jr.OperationError):
            sr.Store.open(self.path, "strict")
        self.assertEqual(self.files(), [])


class TornTest(Base):
    """S-TORN-1, S-RECOVER-1."""

    def recover(self, good, torn, reason):
        self.write(good + torn)
        s = self.open()
        self.assertEqual(len(s.recovered), 1)
        r = s.recovered[0]
        self.assertEqual((r.offset, r.length, r.data, r.reason),
                         (len(good), len(torn), torn, reason))
        self.assertEqual(r.path, self.path + ".torn-1")
        self.assertEqual(self.read(r.path), torn)
        self.assertEqual(self.read(), good)
        self.assertEqual(s.length, len(good))
        return s

    def test_unterminated_partial_line(self):
        s = self.recover(journal_bytes(2), b'{"event_id":"e2","sess', "unterminated")
        self.assertEqual(s.append(L[2]), ack(2))
        self.assertEqual(self.read(), journal_bytes(3))

    def test_unterminated_complete_event_is_torn_too(self):
        # Never acknowledged: an append writes its line and \n in one write.
        s = self.recover(journal_bytes(2), L[2].encode("utf-8"), "unterminated")
        self.assertEqual(s.count, 2)
        self.assertEqual(s.append(L[2]), ack(2))        # not a duplicate

    def test_terminated_last_line_that_does_not_parse(self):
        self.recover(journal_bytes(3), b'{"event_id":"e3",\n', "invalid_json")

    def test_terminated_last_lines_breaking_section_2(self):
        for torn, reason in ((b"\n", "blank_line"), (b" \r\n", "blank_line"),
                             (b"\xef\xbb\xbf" + L[1].encode() + b"\n", "unexpected_bom"),
                             (b'{"a":"\xc3"}\n', "invalid_utf8"),
                             (b'{"a":1,"a":1}\n', "duplicate_key")):
            with self.subTest(torn=torn):
                for name in self.files():
                    os.unlink(os.path.join(self.dir, name))
                s = self.recover(journal_bytes(1), torn, reason)
                s.close()

    def test_whole_file_torn(self):
        s = self.recover(b"", b'{"event_id":"e0"', "unterminated")
        self.assertEqual(s.count, 0)
        self.assertEqual(s.append(L[0]), ack(0))

    def test_smallest_unused_k(self):
        self.write(b"old 1", self.path + ".torn-1")
        self.write(b"old 3", self.path + ".torn-3")
        self.write(journal_bytes(1) + b"xx")
        s = self.open()
        self.assertEqual(s.recovered[0].path, self.path + ".torn-2")
        self.assertEqual(self.read(self.path + ".torn-2"), b"xx")
        self.assertEqual(self.read(self.path + ".torn-1"), b"old 1")
        s.close()
        with open(self.path, "ab") as f:
            f.write(b"yy")
        self.assertEqual(self.open().recovered[0].path, self.path + ".torn-4")

    def test_recovery_syncs_in_order(self):
        # The torn bytes are synced, then the directory, then the journal
        # is truncated and synced.
        events = []
        real_fsync, real_trunc = os.fsync, os.ftruncate
        self.write(journal_bytes(1) + b"{")

        def fsync(fd):
            events.append(("fsync", os.fstat(fd).st_size))
            return real_fsync(fd)

        def fsync_dir(p):
            events.append(("dir",))
            real_dir_sync(p, real_fsync)

        def ftruncate(fd, n):
            events.append(("truncate", n))
            return real_trunc(fd, n)
        with mock.patch.object(sr.os, "fsync", fsync), \
                mock.patch.object(sr, "_fsync_dir", fsync_dir), \
                mock.patch.object(sr.os, "ftruncate", ftruncate):
            self.open()
        n = len(journal_bytes(1))
        self.assertEqual(events, [("fsync", 1), ("dir",), ("truncate", n), ("fsync", n)])

    def test_scan_changes_nothing(self):
        # S-RECOVER-2: what opening would do, without doing it.
        data = journal_bytes(2) + b'{"x"'
        self.write(data)
        self.assertEqual(sr.scan(self.path),
                         {"event_count": 2, "length": len(journal_bytes(2)),
                          "recovery": {"offset": len(journal_bytes(2)), "length": 4,
                                       "reason": "unterminated", "path": None}})
        self.assertEqual(self.read(), data)
        self.assertEqual(self.files(), ["j.jsonl"])
        self.write(journal_bytes(1) + b"{oops\n" + journal_bytes(2)[len(journal_bytes(1)):])
        self.assertJournalError("invalid_json", 2, sr.scan, self.path)

    def test_open_syncs_what_it_found(self):
        # Lines left by a writer that died between write and sync become
        # durable before a retry of them is acknowledged as a duplicate.
        self.write(journal_bytes(2))
        synced = []
        real = os.fsync
        with mock.patch.object(sr.os, "fsync", lambda fd: (synced.append(os.fstat(fd).st_size),
                                                            real(fd))):
            s = self.open()
        self.assertEqual(synced, [len(journal_bytes(2))])
        self.assertEqual(s.append(L[1]), ack(1, True))


class FaultTest(Base):
    """S-FAULT-1: a failed or short write or a failed sync is never
    acknowledged; the journal is truncated back and stays appendable."""

    def setUp(self):
        Base.setUp(self)
        self.s = self.open()
        self.s.append_batch(L[:2])
        self.good = self.read()

    def check_after_fault(self):
        self.assertEqual(self.read(), self.good)
        self.assertEqual((self.s.count, self.s.length), (2, len(self.good)))
        # Still appendable, and the failed event is new, not a duplicate.
        self.assertEqual(self.s.append(L[2]), ack(2))
        self.assertEqual(self.read(), journal_bytes(3))

    def test_failed_sync(self):
        with mock.patch.object(sr, "_datasync", side_effect=OSError(errno.EIO, "injected")):
            with self.assertRaises(sr.StoreFault):
                self.s.append(L[2])
        self.check_after_fault()

    def test_failed_write(self):
        def failing(fd, data, off):
            os.pwrite(fd, data[:7], off)            # some bytes got there, then EIO
            raise OSError(errno.EIO, "injected")
        with mock.patch.object(sr, "_pwrite", failing):
            with self.assertRaises(sr.StoreFault):
                self.s.append(L[2])
        self.check_after_fault()

    def test_short_write(self):
        with mock.patch.object(sr, "_pwrite", lambda fd, data, off: os.pwrite(fd, data[:9], off)):
            with self.assertRaises(sr.StoreFault):
                self.s.append(L[2])
        self.check_after_fault()

    def test_no_space(self):
        with mock.patch.object(sr, "_pwrite", side_effect=OSError(errno.ENOSPC, "injected")):
            with self.assertRaises(sr.StoreFault) as cm:
                self.s.append_batch([L[2], L[3]])
        self.assertEqual(cm.exception.errno, errno.ENOSPC)
        self.check_after_fault()

    def test_failed_batch_acknowledges_nothing(self):
        with mock.patch.object(sr, "_datasync", side_effect=OSError(errno.EIO, "injected")):
            with self.assertRaises(sr.StoreFault):
                self.s.append_batch([L[2], L[1], L[3]])
        self.check_after_fault()
        self.assertEqual(self.s.append(L[3]), ack(3))

    def test_failed_truncate_back_refuses_appends_until_reopened(self):
        with mock.patch.object(sr, "_datasync", side_effect=OSError(errno.EIO, "sync")), \
                mock.patch.object(sr, "_fsync", side_effect=OSError(errno.EIO, "sync again")):
            with self.assertRaises(sr.StoreFault):
                self.s.append(L[2])
        with self.assertRaises(sr.StoreFault):
            self.s.append(L[2])
        with self.assertRaises(sr.StoreFault):
            self.s.append_batch([L[2]])
        self.s.close()
        s = self.open()
        self.assertEqual(s.count, 2)
        self.assertEqual(s.append(L[2]), ack(2))


# ---------------------------------------------------------------------------

class CheckpointTest(Base):
    """K-RECORD-1, K-WRITE-1, K-REPLAY-1."""

    def test_record(self):
        s = self.open()
        s.append_batch(L[:3])
        rec = s.checkpoint()
        on_disk = json.loads(self.read(s.checkpoint_path).decode("utf-8"))
        self.assertEqual(on_disk, rec)
        self.assertEqual(set(rec), {"checkpoint_version", "reducer_version", "event_count",
                                    "source_sequence", "source_event_id", "source_offset",
                                    "source_fingerprint", "projection", "hash_state", "id_index"})
        self.assertEqual(rec["checkpoint_version"], 1)
        self.assertEqual(rec["reducer_version"], sr.REDUCER_VERSION)
        self.assertEqual(rec["event_count"], 3)
        self.assertEqual(rec["source_sequence"], 2)
        self.assertEqual(rec["source_event_id"], "e2")
        self.assertEqual(rec["source_offset"], len(journal_bytes(3)))
        self.assertEqual(rec["source_fingerprint"], fp(3))
        self.assertEqual(rec["projection"], state(3))
        # hash_state: the SHA-256 state after "[" and the 3 canonical events.
        hashed = ("[" + ",".join(C[:3])).encode("utf-8")
        hs = rec["hash_state"]
        self.assertEqual(hs["length"], len(hashed))
        self.assertEqual(hs["pending"], hashed[len(hashed) - len(hashed) % 64:].hex())
        resumed = sr.Sha256.from_state(hs)
        resumed.update(b"]")
        self.assertEqual(resumed.hexdigest(), fp(3))
        resumed = sr.Sha256.from_state(hs)
        resumed.update(("," + C[3] + "]").encode("utf-8"))
        self.assertEqual(resumed.hexdigest(), fp(4))
        # id_index: a sibling file of N sorted SHA-256 digests of the ids.
        idx = rec["id_index"]
        index = self.read(os.path.join(self.dir, idx["file"]))
        digests = sorted(hashlib.sha256(("e%d" % i).encode()).digest() for i in range(3))
        self.assertEqual(index, b"".join(digests))
        self.assertEqual(idx["count"], 3)
        self.assertEqual(idx["sha256"], hashlib.sha256(index).hexdigest())
        # K-WRITE-1: no temporary file left; the journal is untouched.
        self.assertEqual(self.files(), ["j.jsonl", "j.jsonl.checkpoint", idx["file"]])
        self.assertEqual(self.read(), journal_bytes(3))

    def test_atomic_write(self):
        # K-WRITE-1: each file goes to a temporary file in the same
        # directory, is synced, renamed, and the directory synced.
        s = self.open()
        s.append_batch(L[:2])
        log = []
        real_rename, real_fsync = os.rename, os.fsync

        def rename(a, b):
            self.assertEqual(os.path.dirname(a), self.dir)
            log.append(("rename", os.path.basename(b)))
            return real_rename(a, b)

        def fsync(fd):
            log.append(("fsync",))
            return real_fsync(fd)

        def fsync_dir(p):
            log.append(("dir",))
            real_dir_sync(p, real_fsync)
        with mock.patch.object(sr.os, "rename", rename), mock.patch.object(sr.os, "fsync", fsync), \
                mock.patch.object(sr, "_fsync_dir", fsync_dir):
            rec = s.checkpoint()
        self.assertEqual(log, [("fsync",), ("rename", rec["id_index"]["file"]), ("dir",),
                               ("fsync",), ("rename", "j.jsonl.checkpoint"), ("dir",)])

    def test_empty_journal(self):
        s = self.open()
        self.assertJournalError("empty_journal", None, s.checkpoint)
        self.assertJournalError("empty_journal", None, s.replay)
        self.assertJournalError("empty_journal", None, s.replay_from_checkpoint)
        self.assertEqual(self.files(), ["j.jsonl"])

    def test_equivalence_at_every_point(self):
        # K-REPLAY-1: from a checkpoint at k events, after appending up to n,
        # the ReplayState equals the one from event zero.
        for k in range(1, 6):
            for n in range(k, 6):
                with self.subTest(k=k, n=n):
                    for name in self.files():
                        os.unlink(os.path.join(self.dir, name))
                    s = self.open()
                    s.append_batch(L[:k])
                    self.assertEqual(s.checkpoint()["event_count"], k)
                    s.append_batch(L[k:n])
                    got, use = s.replay_from_checkpoint()
                    self.assertEqual((use.used, use.reason, use.event_count), (True, None, k))
                    self.assertEqual(got, state(n))
                    self.assertEqual(s.replay(), state(n))
                    s.close()

    def test_after_restart_and_successive_checkpoints(self):
        s = self.open()
        s.append_batch(L[:2])
        first = s.checkpoint()
        s.append(L[2])
        s.close()
        s = self.open()
        got, use = s.replay_from_checkpoint()
        self.assertEqual((got, use.event_count), (state(3), 2))
        second = s.checkpoint()                  # built from the first one
        self.assertEqual(second["projection"], state(3))
        # the first checkpoint's index is gone with it
        self.assertEqual(self.files(),
                         ["j.jsonl", "j.jsonl.checkpoint", second["id_index"]["file"]])
        self.assertNotEqual(first["id_index"]["file"], second["id_index"]["file"])
        s.append_batch(L[3:])
        got, use = s.replay_from_checkpoint()
        self.assertEqual((got, use.event_count), (state(5), 3))

    def test_no_checkpoint_means_a_full_replay(self):
        s = self.open()
        s.append_batch(L[:2])
        got, use = s.replay_from_checkpoint()
        self.assertEqual((got, use.used, use.reason), (state(2), False, "no checkpoint"))

    def test_only_the_tail_is_read(self):
        # Change a prefix event's content (same length, journal still valid)
        # behind the store's back: the replay from the checkpoint still shows
        # the checkpointed projection, proving it did not read the prefix.
        s = self.open()
        s.append_batch(L[:3])
        s.checkpoint()
        s.append(L[3])
        s.close()
        data = self.read().replace(b"h\\u00e9", b"HELLO!!")
        self.write(data)
        got, use = sr.replay_from_checkpoint(self.path)
        self.assertTrue(use.used)
        self.assertEqual(got, state(4))
        self.assertEqual(jr.op_replay(data)["user_messages"], ["HELLO!!"])

    def test_tail_ids_are_checked_against_the_index(self):
        # K-REPLAY-1: J-ID-1 and J-PARENT-1 consult the id index for the
        # prefix; line numbers continue from N+1.
        s = self.open()
        s.append_batch(L[:3])
        s.checkpoint()
        s.close()
        base = self.read()
        for line, code in ((ev(3, "e1"), "duplicate_event_id"),
                           (ev(3, parent_event_id="zz"), "unknown_parent"),
                           (ev(4), "sequence_gap"),
                           (ev(3, session_id="t"), "mixed_session"),
                           (ev(3, provenance={"run_id": "q"}), "mixed_run"),
                           ("{", "invalid_json")):
            self.write(base + line.encode() + b"\n")
            got = self.assertJournalError(code, 4, sr.replay_from_checkpoint, self.path)
            del got
        self.write(base + ev(3, parent_event_id="e0").encode() + b"\n"
                   + ev(4, "e4", parent_event_id="e3").encode())      # no final \n: W-LINE-3
        got, use = sr.replay_from_checkpoint(self.path)
        self.assertTrue(use.used)
        self.assertEqual(got["applied_sequences"], [0, 1, 2, 3, 4])
        self.assertEqual(got["fingerprint"], jr.op_fingerprint(self.read()))

    def test_index_binary_search(self):
        # Many ids: every prefix id is found in the index file, others not.
        s = self.open()
        lines = [ev(i, "id-%03d" % i) for i in range(200)]
        s.append_batch(lines)
        rec = s.checkpoint()
        fd = os.open(os.path.join(self.dir, rec["id_index"]["file"]), os.O_RDONLY)
        index = sr._IdIndex(fd, 200)
        try:
            for i in range(200):
                self.assertIn("id-%03d" % i, index)
            for other in ("id-200", "e0", "", "id-0000"):
                self.assertNotIn(other, index)
        finally:
            index.close()

    def test_deep_payload(self):
        # An event nested to C-DEPTH-1's limit sits 2 levels deeper in the
        # checkpoint (projection > tool_results > payload): still usable.
        deep = "[" * 126 + "]" * 126
        line = ('{"event_id":"e0","session_id":"s","sequence":0,"type":"tool.result",'
                '"payload":{"x":%s},"provenance":{"run_id":"r"}}' % deep)
        s = self.open()
        s.append(line)
        s.checkpoint()
        s.append(ev(1))
        got, use = s.replay_from_checkpoint()
        self.assertEqual((use.used, use.reason), (True, None))
        self.assertEqual(got, s.replay())


class CheckpointIgnoreTest(Base):
    """K-IGNORE-1: each reason falls back to a full replay, reporting why."""

    def setUp(self):
        Base.setUp(self)
        with sr.Store.open(self.path) as s:
            s.append_batch(L[:3])
            self.rec = s.checkpoint()
            s.append(L[3])
        self.cp = self.path + ".checkpoint"
        self.index = os.path.join(self.dir, self.rec["id_index"]["file"])

    def ignored(self, why):
        """Both the store and the store-less replay ignore the checkpoint."""
        got, use = sr.replay_from_checkpoint(self.path)
        with sr.Store.open(self.path) as s:
            got2, use2 = s.replay_from_checkpoint()
        for g, u in ((got, use), (got2, use2)):
            self.assertFalse(u.used)
            self.assertIn(why, u.reason)
            self.assertEqual(g, state(4))

    def rewrite(self, **changes):
        rec = dict(self.rec, **changes)
        for k, v in list(rec.items()):
            if v is DROP:
                del rec[k]
        self.write(json.dumps(rec).encode(), self.cp)

    def test_control_checkpoint_is_used(self):
        got, use = sr.replay_from_checkpoint(self.path)
        self.assertEqual((got, use.used), (state(4), True))

    def test_does_not_parse(self):
        for data in (b"", b"{", b"\xef\xbb\xbf{}", b"[1,]", b"\xff"):
            self.write(data, self.cp)
            self.ignored("does not parse")

    def test_wrong_members(self):
        self.rewrite(extra=1)
        self.ignored("wrong members")
        self.rewrite(hash_state=DROP)
        self.ignored("wrong members")
        self.write(b"[]", self.cp)
        self.ignored("not a JSON object")

    def test_wrong_types(self):
        for change, why in (
                (dict(event_count="3"), "event_count"),
                (dict(event_count=3.0), "event_count"),
                (dict(source_offset=None), "source_offset"),
                (dict(checkpoint_version="1"), "checkpoint_version"),
                (dict(reducer_version=1), "reducer_version"),
                (dict(source_event_id=2), "source_event_id"),
                (dict(source_fingerprint="x"), "source_fingerprint"),
                (dict(projection=dict(self.rec["projection"], user_messages=[1])), "projection"),
                (dict(projection=dict(self.rec["projection"], extra=1)), "projection"),
                (dict(id_index=dict(self.rec["id_index"], count="3")), "id_index.count"),
                (dict(id_index=dict(self.rec["id_index"], file="../j.jsonl")), "id_index.file"),
                (dict(hash_state=dict(self.rec["hash_state"], length=-1)), "hash_state"),
                (dict(hash_state=dict(self.rec["hash_state"], h=[])), "hash_state")):
            with self.subTest(change=change):
                self.rewrite(**change)
                self.ignored(why)

    def test_inconsistent_members(self):
        # Beyond K-IGNORE-1's list: a record that contradicts itself.
        words = list(self.rec["hash_state"]["h"])
        words[0] = "%08x" % (int(words[0], 16) ^ 1)
        for change, why in (
                (dict(source_sequence=1), "source_sequence"),
                (dict(projection=dict(self.rec["projection"], applied_sequences=[0, 1, 3])),
                 "applied_sequences"),
                (dict(projection=dict(self.rec["projection"], fingerprint=fp(2))), "fingerprint"),
                (dict(hash_state=dict(self.rec["hash_state"], h=words)), "hash_state")):
            with self.subTest(change=change):
                self.rewrite(**change)
                self.ignored(why)

    def test_other_versions(self):
        self.rewrite(checkpoint_version=2)
        self.ignored("checkpoint_version 2")
        self.rewrite(reducer_version="journal-conformance/replay-1")
        self.ignored("reducer_version")

    def test_journal_shorter_than_source_offset(self):
        self.write(journal_bytes(2))
        got, use = sr.replay_from_checkpoint(self.path)
        self.assertFalse(use.used)
        self.assertIn("shorter than source_offset", use.reason)
        self.assertEqual(got, state(2))

    def test_byte_before_offset_is_not_newline(self):
        # The same events, the first line respelled one byte longer.
        data = journal_bytes(4).replace(b'"payload":{},', b'"payload":{} ,', 1)
        self.write(data)
        got, use = sr.replay_from_checkpoint(self.path)
        self.assertFalse(use.used)
        self.assertIn("not \\n", use.reason)
        self.assertEqual(got, state(4))

    def test_line_at_offset_is_not_the_source_event(self):
        # Same length and newline positions, but event 2 has another id (and
        # event 3 its parent): the line ending at source_offset is not e2.
        data = journal_bytes(4).replace(b'"e2"', b'"x2"')
        self.write(data)
        got, use = sr.replay_from_checkpoint(self.path)
        self.assertFalse(use.used)
        self.assertIn("not event 'e2' with sequence 2", use.reason)
        self.assertEqual(got["fingerprint"], jr.op_fingerprint(data))
        # Another sequence: ignored too, and the full replay finds the gap.
        self.write(journal_bytes(4).replace(b'"sequence":2', b'"sequence":7'))
        self.assertJournalError("sequence_gap", 3, sr.replay_from_checkpoint, self.path)

    def test_line_at_offset_is_not_an_event(self):
        # Replace event 2 by a same-length non-event: the fallback replay
        # then reports it.
        n = len(L[2].encode())
        data = (journal_bytes(2) + b'"' + b"x" * (n - 2) + b'"\n'
                + journal_bytes(4)[len(journal_bytes(3)):])
        self.write(data)
        self.assertJournalError("malformed_event", 3, sr.replay_from_checkpoint, self.path)

    def test_index_missing(self):
        os.unlink(self.index)
        self.ignored("missing")

    def test_index_wrong_length(self):
        self.write(self.read(self.index)[:-1], self.index)
        self.ignored("wrong length")
        self.write(self.read(self.index) + b"\x00" * 33, self.index)
        self.ignored("wrong length")

    def test_index_wrong_digest(self):
        data = bytearray(self.read(self.index))
        data[40] ^= 0x01
        self.write(bytes(data), self.index)
        self.ignored("wrong digest")


DROP = object()


def real_dir_sync(path, fsync):
    fd = os.open(path, os.O_RDONLY)
    try:
        fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------

class StoreApplyTest(unittest.TestCase):
    """S-OPS-1."""

    def run_op(self, data, *steps):
        return sr.run_operation({"op": "store_apply", "steps": list(steps)}, data)

    def test_exercise_e_table(self):
        kind, out = self.run_op(
            b"",
            {"step": "append", "line": L[0]},
            {"step": "append", "line": L[1]},
            {"step": "append", "line": L[1].replace("h\\u00e9", "hé")},   # respelled retry
            {"step": "append", "line": L[1].replace("h\\u00e9", "ho")},   # conflicting
            {"step": "append", "line": ev(5)},
            {"step": "append_batch", "lines": [L[2], L[0], "{", L[3]]},
            {"step": "restart"},
            {"step": "append", "line": L[2]})
        self.assertEqual(kind, "result")
        self.assertEqual(out, {
            "recovered": [],
            "results": [ack(0), ack(1), ack(1, True),
                        {"error": {"code": "conflicting_duplicate", "line": 3}},
                        {"error": {"code": "sequence_gap", "line": 3}},
                        [ack(2), ack(0, True), {"error": {"code": "invalid_json", "line": 4}}],
                        None, ack(2, True)],
            "journal": journal_bytes(3).decode("utf-8")})

    def test_torn_tail_checkpoint_and_replays(self):
        kind, out = self.run_op(
            journal_bytes(2) + b'{"event_id":"e2"',
            {"step": "checkpoint"},
            {"step": "append_batch", "lines": L[2:4]},
            {"step": "replay"},
            {"step": "replay_from_checkpoint"},
            {"step": "restart"},
            {"step": "append", "line": L[4]},
            {"step": "replay_from_checkpoint"})
        self.assertEqual(kind, "result")
        self.assertEqual(out, {
            "recovered": [{"offset": len(journal_bytes(2)), "torn": '{"event_id":"e2"'}],
            "results": [{"event_count": 2, "source_fingerprint": fp(2)},
                        [ack(2), ack(3)], state(4), state(4), None, ack(4), state(5)],
            "journal": journal_bytes(5).decode("utf-8")})

    def test_empty_journal_steps(self):
        kind, out = self.run_op(b"", {"step": "checkpoint"}, {"step": "replay"},
                                {"step": "replay_from_checkpoint"})
        self.assertEqual(out["results"], [{"error": {"code": "empty_journal", "line": None}}] * 3)
        self.assertEqual(out["journal"], "")

    def test_open_failure_is_the_operation_error(self):
        kind, out = self.run_op(journal_bytes(1) + b"{oops\n" + L[1].encode() + b"\n",
                                {"step": "replay"})
        self.assertEqual(kind, "error")
        self.assertEqual((out["code"], out["line"]), ("invalid_json", 2))

    def test_malformed_steps(self):
        for steps in ("x", [1], [{"step": "nope"}], [{"step": "append"}],
                      [{"step": "append", "line": 1}], [{"step": "restart", "x": 1}],
                      [{"step": "append_batch", "lines": "x"}],
                      [{"step": "append_batch", "lines": [None]}]):
            with self.assertRaises(jr.OperationError, msg=repr(steps)):
                sr.run_operation({"op": "store_apply", "steps": steps}, b"")
        with self.assertRaises(jr.OperationError):
            sr.run_operation({"op": "store_apply"}, b"")
        with self.assertRaises(jr.OperationError):
            sr.run_operation({"op": "store_apply", "steps": [], "until": 1}, b"")

    def test_fresh_directory_removed(self):
        before = set(os.listdir(tempfile.gettempdir()))
        self.run_op(journal_bytes(1) + b"x", {"step": "checkpoint"})
        self.assertEqual({n for n in os.listdir(tempfile.gettempdir())
                          if n.startswith("store-apply-")} - before, set())


class AdapterStoreTest(unittest.TestCase):
    ADAPTER = [sys.executable, os.path.join(HERE, "adapter.py")]
    STEPS = [{"step": "append", "line": L[1]}, {"step": "append", "line": L[0]}]

    def test_persistent(self):
        data = L[0].encode("utf-8") + b'\n{"x'
        reqs = [{"cmd": "start", "protocol": 1},
                {"cmd": "run", "id": 1, "op": {"op": "store_apply", "steps": self.STEPS},
                 "profile": "core", "input_base64": base64.b64encode(data).decode()},
                {"cmd": "run", "id": 2, "op": {"op": "store_apply", "steps": [{"step": "bogus"}]},
                 "profile": "core", "input_base64": ""},
                {"cmd": "stop"}]
        lines = "".join(json.dumps(r) + "\n" for r in reqs).encode()
        proc = subprocess.run(self.ADAPTER, input=lines,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        replies = [json.loads(x) for x in proc.stdout.split(b"\n") if x]
        self.assertIn("store_apply", replies[0]["operations"])
        self.assertEqual(replies[1], {"id": 1, "result": {
            "recovered": [{"offset": len(L[0]) + 1, "torn": '{"x'}],
            "results": [ack(1), ack(0, True)],
            "journal": journal_bytes(2).decode("utf-8")}})
        # A-REQ-1: a malformed operation is a protocol error, never a conformance result.
        self.assertEqual((replies[2]["id"], replies[2]["error"]["code"]), (2, "invalid_request"))

    def test_oneshot(self):
        steps = json.dumps(self.STEPS, separators=(",", ":"))
        proc = subprocess.run(self.ADAPTER + ["store_apply", "--steps", steps, "--profile", "core"],
                              input=journal_bytes(1), stdout=subprocess.PIPE, timeout=60)
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(json.loads(proc.stdout), {"recovered": [],
                                                   "results": [ack(1), ack(0, True)],
                                                   "journal": journal_bytes(2).decode("utf-8")})
        proc = subprocess.run(self.ADAPTER + ["store_apply", "--steps", steps],
                              input=b"\n" + journal_bytes(1), stdout=subprocess.PIPE, timeout=60)
        self.assertEqual(proc.returncode, 1)
        err = json.loads(proc.stdout)
        self.assertEqual((err["code"], err["line"]), ("blank_line", 1))


if __name__ == "__main__":
    unittest.main()
