import base64
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import journal_conformance_adapter as jca  # noqa: E402

FIXTURE = [sys.executable, os.path.join(HERE, "fixture_adapter.py")]
START = {"cmd": "start", "protocol": 1}
STOP = {"cmd": "stop"}


def run(rid, op, data=b"", profile="core"):
    return {"cmd": "run", "id": rid, "op": op, "profile": profile,
            "input_base64": base64.b64encode(data).decode()}


def talk(msgs, args=()):
    text = b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in msgs)
    p = subprocess.run(FIXTURE + list(args), input=text, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p, [json.loads(x) for x in p.stdout.split(b"\n") if x]


class ServeTest(unittest.TestCase):

    def test_handshake_offers_exactly_the_handlers(self):
        p, replies = talk([START, STOP])
        self.assertEqual(p.returncode, 0)
        self.assertEqual(replies, [{"protocol": 1, "implementation": {
            "name": "fixture", "version": "1.2.3", "language": "python"},
            "operations": ["validate", "replay", "fingerprint", "branch", "canonical"],
            "profiles": ["core"]}])
        self.assertEqual(jca.handshake({"tree_apply": len, "validate": len})["operations"],
                         ["validate", "tree_apply"])
        with self.assertRaises(TypeError):
            jca.handshake({"valdate": len})

    def test_replies(self):
        p, replies = talk([
            START,
            run(1, {"op": "validate"}, b"a\r\nb\n\xff"),
            run(2, {"op": "validate"}, b"\xef\xbb\xbf{}\n"),
            run(3, {"op": "replay", "until": 9223372036854775807}),
            run(4, {"op": "fingerprint"}),
            run(5, {"op": "branch", "at": -7, "branch_id": "b"}),
            run(6, {"op": "tree_inspect"}),
            run(7, {"op": "teleport"}),
            run(8, {"op": "validate"}, b"", "trace-0.1"),
            run(9, {"op": "canonical"}),
            STOP,
            run(10, {"op": "validate"}),
        ])
        self.assertEqual(p.returncode, 0)
        by = {r["id"]: r for r in replies[1:]}
        self.assertEqual(by[1], {"id": 1, "result": {"event_count": 3, "bytes": 6}})
        self.assertEqual(by[2], {"id": 2, "error": {"code": "unexpected_bom", "message": "", "line": 1}})
        self.assertEqual(by[3], {"id": 3, "result": {"until": 9223372036854775807, "profile": "core"}})
        for i in (4, 6, 7, 8):
            self.assertEqual(by[i], {"id": i, "unsupported": True})
        self.assertEqual(by[5]["error"], {"code": "sequence_out_of_range", "message": "", "sequence": -7})
        self.assertEqual(by[9]["error"]["code"], "internal_error")
        self.assertIn(b"RuntimeError: boom", p.stderr)
        self.assertNotIn(10, by)
        self.assertEqual(len(replies), 10)

    def test_a_lone_surrogate_in_a_message_is_sent_well_formed(self):
        # A fuzz campaign found it: a message quoting cut input can hold a lone surrogate,
        # and its \\udXXX escape would make the reply a text the runner refuses (C-STR-3).
        cfg = jca._config({"validate": len}, {"name": "x", "version": "1"})
        line = jca._encode(cfg, {"id": 1, "error": {"code": "invalid_json", "message": "near \ud83d!"}})
        self.assertNotIn("\\ud83d", line)
        self.assertEqual(json.loads(line)["error"], {"code": "invalid_json", "message": "near \ufffd!"})
        ok = jca._encode(cfg, {"id": 2, "result": "\U0001f600"})
        self.assertEqual(json.loads(ok)["result"], "\U0001f600", "results are never changed")

    def test_invalid_request_keeps_serving(self):
        p, replies = talk([
            START, b"this is not json", b"[1,2]", b'{"cmd":"run","id":1,"x":NaN}',
            {"cmd": "dance", "id": 3},
            {"cmd": "run", "id": 4, "op": {"op": "validate"}, "profile": "core", "input_base64": "%%"},
            {"cmd": "run", "id": 5, "op": {"op": "replay", "until": "2"}, "profile": "core", "input_base64": ""},
            {"cmd": "run", "id": 6, "op": {"op": "validate", "extra": 1}, "profile": "core", "input_base64": ""},
            {"cmd": "run", "id": 7, "op": "validate", "profile": "core", "input_base64": ""},
            {"cmd": "run", "op": {"op": "validate"}, "profile": "core", "input_base64": ""},
            run(8, {"op": "replay", "until": 1 << 63}),
            run(9, {"op": "validate"}, b"x\n"),
            STOP])
        self.assertEqual(p.returncode, 0)
        self.assertEqual([(r["id"], r["error"]["code"] if "error" in r else "result") for r in replies[1:]],
                         [(None, "invalid_request")] * 3 + [(3, "invalid_request"), (4, "invalid_request"),
                          (5, "invalid_request"), (6, "invalid_request"), (7, "invalid_request"),
                          (None, "invalid_request"), (8, "invalid_request"), (9, "result")])

    def test_stdout_hygiene(self):
        p, replies = talk([START, run(1, {"op": "validate"}, b"a\n"), STOP])
        self.assertEqual(len(replies), 2)          # every stdout line parsed as protocol
        for s in (b"print() inside a handler", b"a raw write to fd 1", b"sys.stdout.write"):
            self.assertIn(s, p.stderr)

    def test_eof_and_blank_lines(self):
        text = json.dumps(START).encode() + b"\n\n" + json.dumps(run(1, {"op": "validate"}, b"a")).encode()
        p = subprocess.run(FIXTURE, input=text, stdout=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(len(p.stdout.split(b"\n")) - 1, 2)

    def test_oneshot(self):
        def one(args, data=b""):
            return subprocess.run(FIXTURE + args, input=data, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=60)
        p = one(["validate", "--profile", "core"], b"a\nb\n")
        self.assertEqual((p.returncode, json.loads(p.stdout)), (0, {"event_count": 2, "bytes": 4}))
        p = one(["validate"], b"\xef\xbb\xbf{}")
        self.assertEqual((p.returncode, json.loads(p.stdout)["code"]), (1, "unexpected_bom"))
        p = one(["replay", "--until=-3"])
        self.assertEqual((p.returncode, json.loads(p.stdout)["until"]), (0, -3))
        p = one(["branch", "--at", "5", "--branch-id", "x"])
        self.assertEqual((p.returncode, json.loads(p.stdout)["sequence"]), (1, 5))
        self.assertEqual(one(["replay", "--until", "18446744073709551615"]).returncode, 2)
        self.assertEqual(one(["fingerprint"]).returncode, 3)
        self.assertEqual(one(["tree_inspect"]).returncode, 3)
        self.assertEqual(one(["validate", "--profile", "trace-0.1"]).returncode, 3)
        self.assertEqual(one(["canonical"]).returncode, 2)
        self.assertEqual(one(["replay", "--until"]).returncode, 2)
        self.assertEqual(one(["replay", "--bogus", "1"]).returncode, 2)


class CheckOperationTest(unittest.TestCase):
    """check_operation against schemas/protocol-1/run.schema.json, when jsonschema is there."""

    def test_against_the_schema(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("jsonschema not installed (CI installs it)")
        path = os.path.join(HERE, "..", "..", "..", "schemas", "protocol-1", "run.schema.json")
        with open(path) as f:
            schema = json.load(f)
        op_schema = {"$ref": "#/$defs/operation", "$defs": schema["$defs"]}
        ops = [
            {"op": "validate"}, {"op": "validate", "until": 1}, {"op": "replay", "until": -5},
            {"op": "replay", "until": (1 << 63) - 1}, {"op": "replay", "until": 1 << 63},
            {"op": "replay", "until": 1.5}, {"op": "replay", "until": True}, {"op": "fingerprint", "at": 0},
            {"op": "branch", "at": 1, "branch_id": ""}, {"op": "branch", "at": 1},
            {"op": "tree_apply", "ops": []}, {"op": "tree_apply"},
            {"op": "tree_apply", "ops": [{"step": "append", "message": None, "timestamp": (1 << 64) - 1}]},
            {"op": "tree_apply", "ops": [{"step": "append", "message": None, "timestamp": 1 << 64}]},
            {"op": "tree_apply", "ops": [{"step": "append_new", "history": {}, "timestamp": 2}]},
            {"op": "tree_apply", "ops": [{"step": "seek", "id": "e1"}, {"step": "save_load"}]},
            {"op": "tree_apply", "ops": [{"step": "save_load", "x": 1}]},
            {"op": "store_apply", "steps": [{"step": "append_batch", "lines": ["a", 1]}]},
            {"op": "store_apply", "steps": [{"step": "append", "line": "x"}, {"step": "restart"}]},
            {"op": "store_apply", "ops": []}, {"op": 7}, "validate", None,
        ]
        for op in ops:
            by_schema = jsonschema.Draft202012Validator(op_schema).is_valid(op)
            self.assertEqual(jca.check_operation(op) is None, by_schema, (op, jca.check_operation(op)))


class TrafficSchemaTest(unittest.TestCase):
    """Every message serve() writes, validated against schemas/protocol-1 (jsonschema)."""

    def test_replies_match_the_schemas(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("jsonschema not installed (CI installs it)")
        d = os.path.join(HERE, "..", "..", "..", "schemas", "protocol-1")

        def schema(name):
            with open(os.path.join(d, name + ".schema.json")) as f:
                return jsonschema.Draft202012Validator(json.load(f))
        p, replies = talk([START, run(1, {"op": "validate"}, b"a\n"), run(2, {"op": "validate"}, b"\xef\xbb\xbf"),
                           run(3, {"op": "fingerprint"}), run(4, {"op": "branch", "at": 3, "branch_id": "b"}),
                           run(5, {"op": "canonical"}), b"not json", STOP])
        self.assertEqual(p.returncode, 0)
        self.assertEqual(list(schema("handshake").iter_errors(replies[0])), [])
        reply = schema("reply")
        for r in replies[1:]:
            self.assertEqual([e.message for e in reply.iter_errors(r)], [], r)
        self.assertEqual({next(k for k in r if k != "id") for r in replies[1:]}, {"result", "error", "unsupported"})
        self.assertFalse(reply.is_valid({"id": 1, "error": {"code": "x", "line": 0}}))   # the check can fail


if __name__ == "__main__":
    unittest.main()
