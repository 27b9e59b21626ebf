// Real traffic of serve() checked against schemas/protocol-1/*.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { check } from "./schema.js";
import { talk, run, SCHEMAS } from "./helpers.js";
import { parseJson, checkOperation } from "../index.js";

// parseJson, not JSON.parse: the schemas' 64-bit bounds do not survive a trip through Number.

const schema = (name) => parseJson(readFileSync(path.join(SCHEMAS, `${name}.schema.json`), "utf8"));
const [handshake, reply, runS, start, stop] = ["handshake", "reply", "run", "start", "stop"].map(schema);

const REQUESTS = [
  { cmd: "start", protocol: 1 },
  run(1, { op: "validate" }, "a\nb\n"),
  run(2, { op: "replay", until: 2 }),
  run(3, { op: "fingerprint" }),
  run(4, { op: "branch", at: 1, branch_id: "x" }),
  run(5, { op: "canonical" }),
  run(6, { op: "tree_apply", ops: [{ step: "append", message: { a: [1.5] }, timestamp: 3 }, { step: "save_load" }] }),
  run(7, { op: "store_apply", steps: [{ step: "append_batch", lines: ["{}"] }, { step: "restart" }] }),
  run(8, { op: "validate" }, "\xef\xbb\xbf"),
  run(9, { op: "validate" }, "", "trace-0.1"),
  "not json",
  { cmd: "run", id: 10, op: { op: "validate" }, profile: "core", input_base64: "!" },
  { cmd: "stop" },
];

test("the checker itself rejects what the schemas forbid", () => {
  assert.deepEqual(check(reply, { id: 1, result: 3 }), []);
  assert.notDeepEqual(check(reply, { id: 1, result: 3, unsupported: true }), []);
  assert.notDeepEqual(check(reply, { id: 1, error: { code: "Bad Code" } }), []);
  assert.notDeepEqual(check(reply, { id: 1, error: { code: "x", line: 0 } }), []);
  assert.notDeepEqual(check(reply, { id: "1", result: null }), []);
  assert.notDeepEqual(check(handshake, { protocol: 1, implementation: { name: "", version: "", language: "" }, operations: [], profiles: [] }), []);
  assert.notDeepEqual(check(handshake, { protocol: 1, implementation: { name: "n", version: "", language: "" }, operations: ["teleport"], profiles: [] }), []);
  assert.notDeepEqual(check(runS, { ...run(1, { op: "replay", until: 2n ** 63n }) }), []);
});

test("every request the tests send is a valid protocol-1 request", () => {
  for (const r of REQUESTS.filter((r) => typeof r === "object")) {
    const s = r.cmd === "start" ? start : r.cmd === "stop" ? stop : runS;
    if (r.id === 10) continue; // the deliberately bad base64
    assert.deepEqual(check(s, r), [], JSON.stringify(r));
  }
});

test("every message serve() writes is valid against the schemas", () => {
  const { raw, status } = talk(REQUESTS);
  assert.equal(status, 0);
  const lines = raw.split("\n").filter(Boolean).map(parseJson);
  assert.equal(lines.length, REQUESTS.length - 1); // stop gets no answer
  assert.deepEqual(check(handshake, lines[0]), [], "handshake");
  for (const l of lines.slice(1)) assert.deepEqual(check(reply, l), [], JSON.stringify(l));
  const kinds = new Set(lines.slice(1).map((l) => Object.keys(l).find((k) => k !== "id")));
  assert.deepEqual([...kinds].sort(), ["error", "result", "unsupported"], "all three reply kinds were exercised");
});

test("checkOperation agrees with run.schema.json's operation definition", () => {
  const opSchema = { $ref: "#/$defs/operation", $defs: runS.$defs };
  const ops = [
    { op: "validate" }, { op: "validate", until: 1 }, { op: "canonical" }, { op: "tree_inspect" },
    { op: "replay" }, { op: "replay", until: -5 }, { op: "replay", until: 2n ** 63n - 1n }, { op: "replay", until: 2n ** 63n },
    { op: "replay", until: 1.5 }, { op: "replay", until: "1" }, { op: "fingerprint", until: 0 }, { op: "fingerprint", at: 0 },
    { op: "branch", at: 1, branch_id: "" }, { op: "branch", at: 1 }, { op: "branch", branch_id: "b" }, { op: "branch", at: 1, branch_id: 7 },
    { op: "tree_apply", ops: [] }, { op: "tree_apply" }, { op: "tree_apply", ops: {} },
    { op: "tree_apply", ops: [{ step: "append", message: null, timestamp: 0 }] },
    { op: "tree_apply", ops: [{ step: "append", message: null, timestamp: -1 }] },
    { op: "tree_apply", ops: [{ step: "append", message: null, timestamp: 2n ** 64n - 1n }] },
    { op: "tree_apply", ops: [{ step: "append", message: null, timestamp: 2n ** 64n }] },
    { op: "tree_apply", ops: [{ step: "append", timestamp: 1 }] },
    { op: "tree_apply", ops: [{ step: "seek", id: "e1" }, { step: "checkpoint", label: "x" }, { step: "seek_checkpoint", label: "x" }] },
    { op: "tree_apply", ops: [{ step: "seek", id: 1 }] }, { op: "tree_apply", ops: [{ step: "checkpoint" }] },
    { op: "tree_apply", ops: [{ step: "append_new", history: [1, {}], timestamp: 2 }] },
    { op: "tree_apply", ops: [{ step: "append_new", history: {}, timestamp: 2 }] },
    { op: "tree_apply", ops: [{ step: "save_load", extra: 1 }] }, { op: "tree_apply", ops: [{ step: "teleport" }] },
    { op: "store_apply", steps: [] }, { op: "store_apply", steps: [{ step: "append", line: "x" }, { step: "checkpoint" }] },
    { op: "store_apply", steps: [{ step: "append_batch", lines: ["a", 1] }] }, { op: "store_apply", steps: [{ step: "append" }] },
    { op: "store_apply", steps: [{ step: "replay" }, { step: "replay_from_checkpoint" }, { step: "restart" }] },
    { op: "store_apply", steps: [{ step: "replay", x: 1 }] }, { op: "store_apply", ops: [] },
    { op: 7 }, "validate", null, [],
  ];
  for (const op of ops) {
    const bySchema = check(opSchema, op, opSchema).length === 0;
    assert.equal(checkOperation(op) === null, bySchema, `${JSON.stringify(op, (_, x) => (typeof x === "bigint" ? `${x}n` : x))}: checkOperation says ${checkOperation(op)}`);
  }
});
