"""The fuzz harness (journal_conformance_adapter.fuzz) against the real reference: the
standard-library fallback, deterministic (fixed seeds and input counts, nothing timed).

The reference is $JOURNAL_CONFORMANCE, else the kit's target/release (or target/debug)
binary, else `journal-conformance` on PATH; without one the tests are skipped, except under
CI=true, where they fail.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "..")
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
EXAMPLES = os.path.join(PKG, "examples")
GOLDEN = [os.path.join(ROOT, "golden", n) for n in
          ("s02-events-streaming.golden.jsonl", "s07-session-replay.golden.jsonl")]
sys.path.insert(0, PKG)
os.environ["JOURNAL_CONFORMANCE_FUZZ"] = "stdlib"   # never atheris here, even if installed
from journal_conformance_adapter import Rejected  # noqa: E402
from journal_conformance_adapter import fuzz as jf  # noqa: E402


def find_reference():
    for c in (os.environ.get("JOURNAL_CONFORMANCE"),
              os.path.join(ROOT, "target", "release", "journal-conformance"),
              os.path.join(ROOT, "target", "debug", "journal-conformance"),
              shutil.which("journal-conformance")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


REFERENCE = find_reference()
if REFERENCE is None and os.environ.get("CI") == "true":
    raise RuntimeError("test_fuzz: no journal-conformance binary (set JOURNAL_CONFORMANCE)")


def naive_handlers():
    sys.path.insert(0, EXAMPLES)
    import fuzz_naive
    return fuzz_naive.HANDLERS


def quiet(_):
    pass


@unittest.skipIf(REFERENCE is None, "no journal-conformance binary (set JOURNAL_CONFORMANCE)")
class FuzzTest(unittest.TestCase):

    def test_the_naive_example_has_a_difference_found_within_500_mutations(self):
        check = jf.Checker(naive_handlers(), reference=REFERENCE)
        with tempfile.TemporaryDirectory() as tmp:
            status, m = jf.run_fallback(check, ["-runs=500", "-seed=1", "-artifact_prefix=%s/" % tmp]
                                        + GOLDEN, log=quiet)
            check.close()
            self.assertEqual(status, 1)
            self.assertIsInstance(m, AssertionError)
            self.assertNotEqual(jf.same_answer(m.expected, m.actual), None)
            # the input is kept, and it reproduces the difference on its own
            crash, = os.listdir(tmp)
            with open(os.path.join(tmp, crash), "rb") as f:
                data = f.read()
        self.assertEqual(data, m.data)
        again = jf.Checker(naive_handlers(), reference=REFERENCE)
        with self.assertRaises(jf.Mismatch):
            again(data)
        again.close()

    def test_a_correct_implementation_has_none_in_300_mutations(self):
        handlers, second = jf.forwarding_handlers(REFERENCE)
        check = jf.Checker(handlers, profiles=("core", "trace-0.1"), reference=REFERENCE)
        try:
            status, m = jf.run_fallback(check, ["-runs=300", "-seed=7"] + GOLDEN, log=quiet)
        finally:
            check.close()
            second.close()
        self.assertEqual((status, m), (0, None))
        self.assertEqual(check.inputs, 302)
        self.assertGreater(check.compared, 302 * 2 * 5)      # 5 ops x 2 profiles, canonical too

    def test_one_known_deviation_directly(self):
        check = jf.Checker(naive_handlers(), reference=REFERENCE)
        try:
            check(b'{"a":1}')                     # canonical agrees (and the journal ops reject)
            with self.assertRaises(jf.Mismatch) as cm:
                check(b'{"a":1,"a":2}')           # C-KEY-2: naive keeps the last key
        finally:
            check.close()
        m = cm.exception
        self.assertEqual(m.expected[0], "error")
        self.assertEqual(m.expected[1]["code"], "duplicate_key")
        self.assertIn("duplicate_key", str(m))

    def test_a_handler_that_raises_is_a_finding_with_the_reference_answer(self):
        def broken(data, req):
            raise KeyError("oops")
        check = jf.Checker({"validate": broken}, reference=REFERENCE)
        try:
            with self.assertRaises(jf.Mismatch) as cm:
                check(jf.MINIMAL_SEED)
        finally:
            check.close()
        self.assertIsInstance(cm.exception.__cause__, KeyError)
        self.assertIn('"event_count":2', str(cm.exception))

    def test_the_command_line_finds_it_and_exits_1(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, JOURNAL_CONFORMANCE=REFERENCE)
            p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "fuzz_naive.py"), "--no-atheris",
                                "-runs=500", "-seed=1", "-artifact_prefix=%s/" % tmp] + GOLDEN,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(b"fuzz: MISMATCH", p.stderr)
            self.assertIn(b"reference:", p.stderr)
            self.assertNotIn(b"Traceback", p.stderr)
            self.assertEqual(len(os.listdir(tmp)), 1)

    def test_bad_arguments_and_a_missing_reference_exit_2_without_a_traceback(self):
        script = os.path.join(EXAMPLES, "fuzz_naive.py")
        for args, env, said in (
                (["-runs=many"], {"JOURNAL_CONFORMANCE": REFERENCE}, b"-runs needs an integer"),
                (["/no/such/corpus"], {"JOURNAL_CONFORMANCE": REFERENCE}, b"no such file"),
                (["-runs=1"], {"JOURNAL_CONFORMANCE": "/no/such/binary"}, b"cannot start the reference")):
            p = subprocess.run([sys.executable, script, "--no-atheris"] + args, env=dict(os.environ, **env),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(said, p.stderr)
            self.assertNotIn(b"Traceback", p.stderr)

    def test_same_answer_compares_as_the_kit_does(self):
        same = jf.same_answer
        self.assertIsNone(same(("result", {"a": 1, "b": [1.0]}), ("result", {"b": [1.0], "a": 1})))
        self.assertIsNotNone(same(("result", 1), ("result", 1.0)))
        self.assertIsNotNone(same(("result", 1), ("result", True)))
        self.assertIsNotNone(same(("result", {"a": 1}), ("error", {"code": "x"})))
        ref = {"code": "sequence_gap", "line": 2, "sequence": None, "message": "m"}
        self.assertIsNone(same(("error", ref), ("error", {"code": "sequence_gap", "line": 2,
                                                         "sequence": 9, "message": "other", "column": 3})))
        self.assertIsNotNone(same(("error", ref), ("error", {"code": "sequence_gap"})))
        self.assertIsNotNone(same(("error", ref), ("error", {"code": "blank_line", "line": 2})))

    def test_operations_are_derived_from_the_input_alone(self):
        ops = jf.operations_for(b"abc")
        self.assertEqual(ops, jf.operations_for(b"abc"))
        self.assertEqual([o["op"] for o in ops], ["validate", "replay", "replay", "fingerprint",
                                                  "fingerprint", "branch", "canonical", "tree_inspect"])
        self.assertEqual(jf.fnv1a32(b""), 0x811C9DC5)
        self.assertEqual(jf.fnv1a32(b"a"), 0xE40C292C)
        self.assertEqual([o["op"] for o in jf.operations_for(b"x", {"canonical": 1})], ["canonical"])

    def test_mutations_are_deterministic(self):
        import random
        a = [jf.mutate(GOLDEN[0].encode(), random.Random(3), jf.DEFAULT_TOKENS, 64) for _ in range(5)]
        b = [jf.mutate(GOLDEN[0].encode(), random.Random(3), jf.DEFAULT_TOKENS, 64) for _ in range(5)]
        self.assertEqual(a, b)

    def test_the_reference_is_reaped_by_close_and_when_the_harness_is_killed(self):
        proc = jf.ReferenceProcess(REFERENCE)
        p = proc.proc
        proc.close()
        self.assertIsNotNone(p.returncode)
        if not sys.platform.startswith("linux"):
            return
        code = ("import sys; sys.path.insert(0, %r); from journal_conformance_adapter import fuzz\n"
                "r = fuzz.ReferenceProcess(%r); print(r.proc.pid, flush=True); sys.stdin.read()"
                % (PKG, REFERENCE))
        h = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        pid = int(h.stdout.readline())
        os.kill(h.pid, signal.SIGKILL)
        h.wait()
        h.stdin.close()
        h.stdout.close()
        # PR_SET_PDEATHSIG: the kernel kills the reference as its parent dies; it is then
        # reaped by init. Wait (bounded) until it is gone or a zombie.
        for _ in range(200):
            try:
                with open("/proc/%d/stat" % pid) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                state = "gone"
            if state in ("gone", "Z", "X"):
                break
            time.sleep(0.05)
        self.assertIn(state, ("gone", "Z", "X"))


class RejectedRoundTrip(unittest.TestCase):
    def test_from_object_keeps_the_location(self):
        r = Rejected.from_object({"code": "c", "line": 3, "sequence": None, "message": None})
        self.assertEqual(r.error, {"code": "c", "line": 3, "message": ""})


if __name__ == "__main__":
    unittest.main()
