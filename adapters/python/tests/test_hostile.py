"""serve() never dies of user code (issue 20 item 12): any exception, whatever its __str__,
__repr__ or class does, becomes an internal_error reply and serving goes on; so does a
result or an error that cannot be written. A request that repeats a member is
invalid_request."""
import base64
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HOSTILE = [sys.executable, os.path.join(HERE, "hostile_adapter.py")]
FIXTURE = [sys.executable, os.path.join(HERE, "fixture_adapter.py")]
START = {"cmd": "start", "protocol": 1}
STOP = {"cmd": "stop"}
NAMES = ["str-raises", "str-and-repr-raise", "base-exception", "system-exit", "generator-exit",
         "name-raises", "notes-raise", "bad-notes", "str-not-a-string", "rejected-error-raises",
         "rejected-bad-member"]


def run(rid, op, data=b""):
    return {"cmd": "run", "id": rid, "op": op, "profile": "core",
            "input_base64": base64.b64encode(data).decode()}


def talk(cmd, msgs, args=(), data=None):
    text = data if data is not None else b"".join(
        (m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in msgs)
    return subprocess.run(cmd + list(args), input=text, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60)


def protocol_lines(test, out):
    test.assertTrue(out == b"" or out.endswith(b"\n"), out[-80:])
    return [json.loads(x) for x in out.split(b"\n") if x]


class HostileTest(unittest.TestCase):

    def assert_internal_error(self, r, rid):
        self.assertEqual(sorted(r), ["error", "id"], r)
        self.assertEqual((r["id"], r["error"]["code"]), (rid, "internal_error"), r)
        self.assertIsInstance(r["error"]["message"], str)

    def test_any_exception_is_an_internal_error_and_serving_goes_on(self):
        msgs = [START]
        for i, n in enumerate(NAMES):
            msgs += [run(2 * i + 1, {"op": "validate"}, n.encode()), run(2 * i + 2, {"op": "validate"}, b"ok")]
        p = talk(HOSTILE, msgs + [STOP])
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        replies = protocol_lines(self, p.stdout)
        self.assertEqual(len(replies), 1 + 2 * len(NAMES), p.stderr.decode())
        for i, n in enumerate(NAMES):
            with self.subTest(n):
                self.assert_internal_error(replies[1 + 2 * i], 2 * i + 1)
                self.assertEqual(replies[2 + 2 * i], {"id": 2 * i + 2, "result": {"event_count": 1}})

    def test_results_that_cannot_be_written(self):
        kinds = ["deep", "huge-int", "object", "nan", "returned-rejected-raises"]
        msgs = [START] + [run(i + 1, {"op": "replay"}, k.encode()) for i, k in enumerate(kinds)]
        p = talk(HOSTILE, msgs + [run(9, {"op": "validate"}, b"ok"), STOP])
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        replies = protocol_lines(self, p.stdout)
        self.assertEqual(len(replies), len(kinds) + 2, p.stderr.decode())
        for i, k in enumerate(kinds):
            with self.subTest(k):
                self.assert_internal_error(replies[i + 1], i + 1)
        self.assertEqual(replies[-1], {"id": 9, "result": {"event_count": 1}})

    def test_oneshot_hostile_is_exit_2_with_nothing_on_stdout(self):
        for n in NAMES:
            with self.subTest(n):
                p = talk(HOSTILE, [], ["validate"], n.encode())
                self.assertEqual((p.returncode, p.stdout), (2, b""), p.stderr.decode())
        for k in ["deep", "huge-int", "object", "nan", "returned-rejected-raises"]:
            with self.subTest(k):
                p = talk(HOSTILE, [], ["replay"], k.encode())
                self.assertEqual((p.returncode, p.stdout), (2, b""), p.stderr.decode())

    def test_a_log_function_that_raises_does_not_kill_serve(self):
        sys.path.insert(0, os.path.join(HERE, ".."))
        import io
        import journal_conformance_adapter as jca

        def log(m):
            raise StrAndReprRaiseHere()

        class StrAndReprRaiseHere(Exception):
            def __str__(self):
                raise RuntimeError()

        n = []

        def validate(data, req):
            n.append(1)
            if len(n) == 1:
                raise StrAndReprRaiseHere()
            return {"event_count": 0}
        inp = io.BytesIO(b"".join(json.dumps(run(i, {"op": "validate"})).encode() + b"\n" for i in (1, 2)))
        out = io.BytesIO()
        status = jca.serve(validate=validate, argv=[], stdin=inp, stdout=out, log=log, exit=False)
        self.assertEqual(status, 0)
        replies = [json.loads(x) for x in out.getvalue().split(b"\n") if x]
        self.assertEqual(replies[0]["error"]["code"], "internal_error")
        self.assertEqual(replies[1], {"id": 2, "result": {"event_count": 0}})


class RepeatedMemberTest(unittest.TestCase):

    def test_a_repeated_member_is_invalid_request_at_any_depth(self):
        ok = b'{"cmd":"run","id":9,"op":{"op":"validate"},"profile":"core","input_base64":""}'
        p = talk(FIXTURE, [
            START,
            b'{"cmd":"run","cmd":"stop","id":1,"op":{"op":"validate"},"profile":"core","input_base64":""}',
            b'{"cmd":"run","c\\u006dd":"stop","id":2,"op":{"op":"validate"},"profile":"core","input_base64":""}',
            b'{"cmd":"run","id":3,"id":4,"op":{"op":"validate"},"profile":"core","input_base64":""}',
            b'{"cmd":"run","id":5,"op":{"op":"validate","op":"replay"},"profile":"core","input_base64":""}',
            b'{"cmd":"run","id":6,"op":{"op":"tree_apply","ops":[{"step":"append","message":{"a":1,"a":2},'
            b'"timestamp":0}]},"profile":"core","input_base64":""}',
            b'{"cmd":"stop","cmd":"start","protocol":1}',
            b'{"cmd":"run","id":7,"op":{"op":"validate"},"profile":"core","input_base64":"","\\ud800":1,"\\uD800":2}',
            ok, STOP])
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        replies = protocol_lines(self, p.stdout)[1:]
        self.assertEqual([(r["id"], r["error"]["code"] if "error" in r else "result") for r in replies],
                         [(None, "invalid_request")] * 7 + [(9, "result")])
        for r in replies[:-1]:
            self.assertIn("duplicate member", r["error"]["message"])

    def test_oneshot_ops_with_a_repeated_member_is_a_usage_error(self):
        # tree_apply is not offered (exit 3) unless the arguments are unreadable first (exit 2)
        step = '[{"step":"save_load"}]'
        self.assertEqual(talk(FIXTURE, [], ["tree_apply", "--ops", step], b"").returncode, 3)
        p = talk(FIXTURE, [], ["tree_apply", "--ops", '[{"step":"save_load","step":"save_load"}]'], b"")
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"duplicate member", p.stderr)

    def test_siblings_and_spellings_are_no_repetition(self):
        sys.path.insert(0, os.path.join(HERE, ".."))
        import journal_conformance_adapter as jca
        r = jca.handle_line(json.dumps(run(1, {"op": "tree_apply", "ops": [
            {"step": "append", "message": [{"a": 1}, {"a": 2}, {"a": {"a": 3}}], "timestamp": 0}]})),
            {"tree_apply": lambda d, req: req.op["ops"][0]["message"]})
        self.assertEqual(r, {"id": 1, "result": [{"a": 1}, {"a": 2}, {"a": {"a": 3}}]})


class OneShotNewlineTest(unittest.TestCase):

    def test_oneshot_output_is_one_line_ended_by_a_newline(self):
        self.assertEqual(talk(FIXTURE, [], ["validate"], b"a\n").stdout, b'{"event_count":1,"bytes":2}\n')
        self.assertEqual(talk(FIXTURE, [], ["branch", "--at", "5", "--branch-id", "x"], b"").stdout,
                         b'{"code":"sequence_out_of_range","message":"","sequence":5}\n')
        self.assertTrue(talk(FIXTURE, [], ["--help"], b"").stdout.endswith(b"\n"))


if __name__ == "__main__":
    unittest.main()
