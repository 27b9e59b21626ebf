import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { talk, run, b64, FIXTURE, HERE } from "./helpers.js";
import { serve, handleLine, handshake } from "../index.js";

const START = { cmd: "start", protocol: 1 };

test("handshake offers exactly the handlers given, in protocol order", () => {
  const { replies, status } = talk([START, { cmd: "stop" }]);
  assert.equal(status, 0);
  assert.deepEqual(replies, [
    {
      protocol: 1,
      implementation: { name: "fixture", version: "1.2.3", language: "javascript" },
      operations: ["validate", "replay", "fingerprint", "branch", "canonical"],
      profiles: ["core"],
    },
  ]);
  const h = handshake({ tree_apply() {}, validate() {} }, { implementation: { name: "x" } });
  assert.deepEqual(h.operations, ["validate", "tree_apply"]);
});

test("a misspelt handler name fails at serve(), before any traffic", async () => {
  await assert.rejects(serve({ valdate() {} }, { exit: false, argv: [] }), /not an operation of protocol 1/);
});

test("results, errors, unsupported; input arrives as exact bytes", () => {
  const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0x0a]);
  const { replies, status, stderr } = talk([
    START,
    run(1, { op: "validate" }, "a\r\nb\n\xff"),
    { cmd: "run", id: 2, op: { op: "validate" }, profile: "core", input_base64: bytes.toString("base64") },
    run(3, { op: "replay", until: 2 }),
    run(4, { op: "fingerprint" }),
    run(5, { op: "branch", at: -7, branch_id: "b" }),
    run(6, { op: "tree_inspect" }),
    run(7, { op: "teleport" }),
    run(8, { op: "validate" }, "", "trace-0.1"),
    run(9, { op: "canonical" }),
    { cmd: "stop" },
    run(10, { op: "validate" }),
  ]);
  assert.equal(status, 0);
  const by = Object.fromEntries(replies.slice(1).map((r) => [r.id, r]));
  assert.deepEqual(by[1], { id: 1, result: { event_count: 3, bytes: 7 } }); // a CR LF b LF + U+00FF as 2 UTF-8 bytes
  assert.deepEqual(by[2], { id: 2, error: { code: "unexpected_bom", message: "", line: 1 } });
  assert.deepEqual(by[3], { id: 3, result: { until: 2, profile: "core" } });
  assert.deepEqual(by[4], { id: 4, unsupported: true });
  assert.deepEqual(by[5], { id: 5, error: { code: "sequence_out_of_range", message: "", sequence: -7 } });
  assert.deepEqual(by[6], { id: 6, unsupported: true }, "an operation not offered");
  assert.deepEqual(by[7], { id: 7, unsupported: true }, "an operation protocol 1 does not know (A-SKIP-1)");
  assert.deepEqual(by[8], { id: 8, unsupported: true }, "a profile not offered");
  assert.equal(by[9].error.code, "internal_error");
  assert.match(by[9].error.message, /boom/);
  assert.match(stderr, /handler canonical threw: Error: boom/);
  assert.equal(by[10], undefined, "nothing is answered after stop");
  assert.equal(replies.length, 10);
});

test("64-bit integers survive the trip (no rounding through Number)", () => {
  const line = '{"cmd":"run","id":1,"op":{"op":"replay","until":9223372036854775807},"profile":"core","input_base64":""}';
  const { raw } = talk([START, line]);
  assert.match(raw, /"until":9223372036854775807,/);
  const neg = '{"cmd":"run","id":1,"op":{"op":"replay","until":-9223372036854775808},"profile":"core","input_base64":""}';
  assert.match(talk([START, neg]).raw, /"until":-9223372036854775808,/);
});

test("unreadable requests get invalid_request and the adapter keeps serving (A-REQ-1)", () => {
  const { replies, status } = talk([
    START,
    "this is not json",
    "[1,2]",
    { cmd: "dance", id: 3 },
    { cmd: "run", id: 4, op: { op: "validate" }, profile: "core", input_base64: "%%%" },
    { cmd: "run", id: 5, op: { op: "replay", until: "2" }, profile: "core", input_base64: "" },
    { cmd: "run", id: 6, op: { op: "validate", extra: 1 }, profile: "core", input_base64: "" },
    { cmd: "run", id: 7, op: "validate", profile: "core", input_base64: "" },
    { cmd: "run", op: { op: "validate" }, profile: "core", input_base64: "" },
    { cmd: "run", id: 8, op: { op: "branch", at: 1 }, profile: "core", input_base64: "" },
    run(9, { op: "validate" }, "x\n"),
    { cmd: "stop" },
  ]);
  assert.equal(status, 0);
  const r = replies.slice(1);
  assert.deepEqual(r.map((x) => [x.id, x.error?.code ?? "result"]), [
    [null, "invalid_request"],
    [null, "invalid_request"],
    [3, "invalid_request"],
    [4, "invalid_request"],
    [5, "invalid_request"],
    [6, "invalid_request"],
    [7, "invalid_request"],
    [null, "invalid_request"],
    [8, "invalid_request"],
    [9, "result"],
  ]);
  for (const x of r.slice(0, -1)) assert.equal(typeof x.error.message, "string");
});

test("stdout hygiene: console.log and process.stdout.write go to stderr while serving", () => {
  const { raw, stderr } = talk([START, run(1, { op: "validate" }, "a\n"), { cmd: "stop" }]);
  for (const line of raw.split("\n").filter(Boolean)) JSON.parse(line); // every stdout line is protocol
  assert.equal(raw.split("\n").filter(Boolean).length, 2);
  for (const s of ["console.log inside a handler", "console.info", "console.warn", "console.debug", "a direct process.stdout.write"]) {
    assert.ok(stderr.includes(s), `${s} on stderr`);
  }
});

test("end of input without stop exits 0; blank lines are ignored", () => {
  const p = talk([], [], JSON.stringify(START) + "\n\n" + JSON.stringify(run(1, { op: "validate" }, "a")));
  assert.equal(p.status, 0);
  assert.equal(p.replies.length, 2, "the last line needs no final newline");
});

test("one-shot mode (A-ONESHOT-1): exit status 0, 1, 3 and 2", () => {
  const one = (args, input = "") => spawnSync(process.execPath, [FIXTURE, ...args], { input, timeout: 20000 });
  let p = one(["validate", "--profile", "core"], "a\nb\n");
  assert.equal(p.status, 0, p.stderr.toString());
  assert.deepEqual(JSON.parse(p.stdout), { event_count: 2, bytes: 4 }, "stdout holds only the result");
  p = one(["validate"], Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
  assert.equal(p.status, 1);
  assert.equal(JSON.parse(p.stdout).code, "unexpected_bom");
  p = one(["replay", "--until", "18446744073709551615"]);
  assert.equal(p.status, 2, "until beyond 64 bits is a usage error");
  p = one(["replay", "--until=-3"]);
  assert.equal(p.status, 0);
  assert.match(p.stdout.toString(), /"until":-3/);
  p = one(["branch", "--at", "5", "--branch-id", "x"]);
  assert.deepEqual([p.status, JSON.parse(p.stdout).sequence], [1, 5]);
  assert.equal(one(["fingerprint"]).status, 3, "the handler threw Unsupported");
  assert.equal(one(["tree_inspect"]).status, 3, "not offered");
  assert.equal(one(["validate", "--profile", "trace-0.1"]).status, 3);
  assert.equal(one(["canonical"]).status, 2, "a handler bug is an internal error");
  assert.equal(one(["replay", "--until"]).status, 2);
  assert.equal(one(["replay", "--bogus", "1"]).status, 2);
});

test("handleLine answers one line in process", async () => {
  const h = { validate: () => ({ event_count: 0 }) };
  const o = { implementation: { name: "x" } };
  assert.deepEqual(await handleLine(h, o, '{"cmd":"run","id":3,"op":{"op":"validate"},"profile":"core","input_base64":""}'), {
    id: 3,
    result: { event_count: 0 },
  });
  assert.equal(await handleLine(h, o, '{"cmd":"stop"}'), null);
  assert.equal((await handleLine(h, o, new Uint8Array([0x7b, 0xff]))).error.code, "invalid_request");
});

test("a request with a repeated member is invalid_request at any depth; serving goes on", () => {
  const ok = '{"cmd":"run","id":9,"op":{"op":"validate"},"profile":"core","input_base64":""}';
  const { replies, status } = talk([
    START,
    '{"cmd":"run","cmd":"stop","id":1,"op":{"op":"validate"},"profile":"core","input_base64":""}',
    '{"cmd":"run","c\\u006dd":"stop","id":2,"op":{"op":"validate"},"profile":"core","input_base64":""}',
    '{"cmd":"run","id":3,"id":4,"op":{"op":"validate"},"profile":"core","input_base64":""}',
    '{"cmd":"run","id":5,"op":{"op":"validate","op":"replay"},"profile":"core","input_base64":""}',
    '{"cmd":"run","id":6,"op":{"op":"tree_apply","ops":[{"step":"append","message":{"a":1,"a":2},"timestamp":0}]},"profile":"core","input_base64":""}',
    '{"cmd":"stop","cmd":"start","protocol":1}',
    ok,
    { cmd: "stop" },
  ]);
  assert.equal(status, 0);
  assert.deepEqual(
    replies.slice(1).map((r) => [r.id, r.error?.code ?? "result"]),
    [[null, "invalid_request"], [null, "invalid_request"], [null, "invalid_request"], [null, "invalid_request"],
      [null, "invalid_request"], [null, "invalid_request"], [9, "result"]],
  );
  for (const r of replies.slice(1, -1)) assert.match(r.error.message, /duplicate member/);
});

test("one-shot output is one JSON value ended by a newline (result, error, help)", () => {
  const one = (args, input = "") => spawnSync(process.execPath, [FIXTURE, ...args], { input, timeout: 20000 }).stdout.toString();
  assert.equal(one(["validate"], "a\n"), '{"event_count":1,"bytes":2}\n');
  assert.equal(one(["branch", "--at", "5", "--branch-id", "x"]), '{"code":"sequence_out_of_range","message":"","sequence":5}\n');
  assert.match(one(["--help"]), /^usage: [^]*\n$/);
});

test("one-shot --ops that repeat a member are a usage error (exit 2), not last-wins", () => {
  const one = (args) => spawnSync(process.execPath, [FIXTURE, ...args], { input: "", timeout: 20000 });
  assert.equal(one(["tree_apply", "--ops", '[{"step":"save_load"}]']).status, 3, "not offered");
  const p = one(["tree_apply", "--ops", '[{"step":"save_load","step":"save_load"}]']);
  assert.equal(p.status, 2);
  assert.match(p.stderr.toString(), /duplicate member/);
});

test("an error message with a lone surrogate is sent well formed (a fuzz campaign found it)", () => {
  // JSON.parse's messages quote the input and can cut a surrogate pair: the reply must
  // still be JSON the runner accepts (no lone \ud83d escape), the message otherwise kept.
  const script = `
    import { serve, Rejected } from ${JSON.stringify(path.join(HERE, "..", "index.js"))};
    serve({ validate: () => { throw new Rejected("invalid_json", { message: "near \\ud83d!" }); } },
          { implementation: { name: "lone" } });`;
  const input = [START, run(1, { op: "validate" }, "x"), { cmd: "stop" }].map((l) => JSON.stringify(l) + "\n").join("");
  const p = spawnSync(process.execPath, ["--input-type=module", "-e", script], { input, timeout: 20000 });
  const out = p.stdout.toString("utf8");
  assert.equal(p.status, 0, p.stderr.toString());
  assert.ok(!/\\ud83d/i.test(out), out);
  const reply = JSON.parse(out.split("\n")[1]);
  assert.deepEqual(reply.error, { code: "invalid_json", message: "near \ufffd!" });
});
