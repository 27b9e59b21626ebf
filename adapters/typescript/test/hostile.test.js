// serve() never dies of user code (issue 20 item 12): every thrown value, every rejected
// promise, every result that cannot be written becomes an internal_error reply for that
// request, and serving goes on; raw writes to fd 1 never reach the protocol stream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { HERE, run } from "./helpers.js";
import { serve } from "../index.js";

const HOSTILE_ADAPTER = path.join(HERE, "hostile-adapter.js");
const START = { cmd: "start", protocol: 1 };
const NAMES = [
  "null-prototype",
  "name-getter",
  "message-getter",
  "stack-getter",
  "to-string",
  "to-primitive",
  "proxy",
  "bigint",
  "symbol",
  "undefined",
  "null",
  "rejected-tojson",
  "rejected-where-getter",
];

function talkTo(lines, args = [], input) {
  const text = input ?? lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l)) + "\n").join("");
  const p = spawnSync(process.execPath, [HOSTILE_ADAPTER, ...args], { input: text, timeout: 60000 });
  const raw = p.stdout.toString("utf8");
  return { status: p.status, signal: p.signal, raw, stderr: p.stderr.toString("utf8") };
}

/** Every stdout line must be one JSON object (the protocol); returns them. */
function protocolLines(raw) {
  assert.ok(raw === "" || raw.endsWith("\n"), `stdout ends with a newline: ${JSON.stringify(raw.slice(-80))}`);
  return raw
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      let v;
      assert.doesNotThrow(() => (v = JSON.parse(l)), `not a protocol line: ${JSON.stringify(l)}`);
      return v;
    });
}

const internalError = (r, id) => {
  assert.equal(r.id, id, JSON.stringify(r));
  assert.equal(r.error?.code, "internal_error", JSON.stringify(r));
  assert.equal(typeof r.error.message, "string");
  assert.deepEqual(Object.keys(r).sort(), ["error", "id"]);
};

test("any thrown value is an internal_error reply and serving goes on", () => {
  const reqs = [START];
  let id = 0;
  for (const n of NAMES) reqs.push(run(++id, { op: "validate" }, n), run(++id, { op: "validate" }, "ok"));
  reqs.push({ cmd: "stop" });
  const p = talkTo(reqs);
  assert.equal(p.status, 0, p.stderr);
  const replies = protocolLines(p.raw);
  assert.equal(replies.length, 1 + 2 * NAMES.length, p.stderr);
  for (let i = 0; i < NAMES.length; i++) {
    internalError(replies[1 + 2 * i], 2 * i + 1);
    assert.deepEqual(replies[2 + 2 * i], { id: 2 * i + 2, result: { event_count: 1 } }, NAMES[i]);
  }
  assert.match(p.stderr, /handler validate threw/);
});

test("a promise rejected with any value is an internal_error reply", () => {
  const reqs = [START, ...NAMES.map((n, i) => run(i + 1, { op: "replay" }, n)), run(99, { op: "validate" }, "ok"), { cmd: "stop" }];
  const p = talkTo(reqs);
  assert.equal(p.status, 0, p.stderr);
  const replies = protocolLines(p.raw);
  assert.equal(replies.length, NAMES.length + 2, p.stderr);
  NAMES.forEach((_, i) => internalError(replies[i + 1], i + 1));
  assert.deepEqual(replies.at(-1), { id: 99, result: { event_count: 1 } });
});

test("results that cannot be written are internal_error replies; a floating rejection is logged", () => {
  const kinds = ["proxy", "getter", "tojson", "deep", "then-getter", "rejected-instance"];
  const reqs = [START, ...kinds.map((k, i) => run(i + 1, { op: "fingerprint" }, k))];
  reqs.push(run(50, { op: "fingerprint" }, "floating-rejection"), run(51, { op: "validate" }, "ok"), { cmd: "stop" });
  const p = talkTo(reqs);
  assert.equal(p.status, 0, p.stderr);
  const replies = protocolLines(p.raw);
  assert.equal(replies.length, kinds.length + 3, p.stderr);
  kinds.forEach((k, i) => internalError(replies[i + 1], i + 1));
  assert.deepEqual(replies.at(-2), { id: 50, result: "fine" });
  assert.deepEqual(replies.at(-1), { id: 51, result: { event_count: 1 } });
});

test("one-shot: a hostile throw is exit 2 with nothing on stdout, never a crash", () => {
  for (const n of NAMES) {
    const p = talkTo([], ["validate"], n);
    assert.equal(p.status, 2, `${n}: ${p.stderr}`);
    assert.equal(p.raw, "", n);
  }
  for (const k of ["proxy", "getter", "tojson", "deep"]) {
    const p = talkTo([], ["fingerprint"], k);
    assert.equal(p.status, 2, `${k}: ${p.stderr}`);
    assert.equal(p.raw, "", k);
  }
});

test("raw fd-1 writes, process.stdout.write and children with inherited stdio reach stderr, not the protocol", () => {
  const hows = ["fd1", "stdout", "child-sync", "child-async"];
  const p = talkTo([START, ...hows.map((h, i) => run(i + 1, { op: "canonical" }, h)), { cmd: "stop" }]);
  assert.equal(p.status, 0, p.stderr);
  const replies = protocolLines(p.raw);
  assert.deepEqual(
    replies.slice(1),
    hows.map((_, i) => ({ id: i + 1, result: "ok" })),
  );
  for (const s of ["raw fd 1 write, no newline", "process.stdout.write", "child with inherited stdio", "async child with inherited stdio"]) {
    assert.ok(p.stderr.includes(s), `${s} on stderr: ${p.stderr}`);
  }
  // one-shot: stdout holds only the result, ended by a newline
  for (const h of hows) {
    const o = talkTo([], ["canonical"], h);
    assert.equal(o.status, 0, o.stderr);
    assert.equal(o.raw, '"ok"\n', h);
  }
});

test("processes the handlers start do not inherit the protocol's fd 3", { skip: process.platform !== "linux" }, () => {
  const p = talkTo([START, run(1, { op: "canonical" }, "child-fd3"), { cmd: "stop" }]);
  assert.deepEqual(protocolLines(p.raw)[1], { id: 1, result: "no fd 3" });
});

test("a handler's own log function that throws does not kill serve", async () => {
  const log = () => {
    throw Object.create(null);
  };
  const out = [];
  const stdout = { write: (t, cb) => (out.push(t), cb()) };
  const lines = [JSON.stringify(run(1, { op: "validate" })), JSON.stringify(run(2, { op: "validate" }))].join("\n") + "\n";
  const { Readable } = await import("node:stream");
  let n = 0;
  const status = await serve(
    {
      validate() {
        if (++n === 1) throw Object.create(null);
        return { event_count: 0 };
      },
    },
    { exit: false, argv: [], stdin: Readable.from([Buffer.from(lines)]), stdout, log },
  );
  assert.equal(status, 0);
  const replies = out.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  assert.equal(replies[0].error.code, "internal_error");
  assert.deepEqual(replies[1], { id: 2, result: { event_count: 0 } });
});

/** The pids of the direct children of `pid` (Linux /proc). */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
  } catch {
    return false;
  }
};

test("the isolated adapter: SIGTERM to the parent ends both, and the parent dies of it", { skip: process.platform !== "linux" }, async () => {
  const p = spawn(process.execPath, [HOSTILE_ADAPTER], { stdio: ["pipe", "pipe", "inherit"] });
  const first = await new Promise((resolve) => {
    p.stdout.once("data", (d) => resolve(d.toString()));
    p.stdin.write(JSON.stringify(START) + "\n");
  });
  assert.equal(JSON.parse(first).protocol, 1);
  const kids = childrenOf(p.pid);
  assert.equal(kids.length, 1, "serve() runs the handlers in one child process");
  const ended = new Promise((resolve) => p.on("exit", (code, signal) => resolve({ code, signal })));
  p.kill("SIGTERM");
  assert.deepEqual(await ended, { code: null, signal: "SIGTERM" });
  for (let i = 0; i < 100 && alive(kids[0]); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(kids[0]), false, "the child is gone too");
});

test("isolate: false serves in process (one process, no child)", { skip: process.platform !== "linux" }, async () => {
  const src = `import { serve } from ${JSON.stringify(new URL("../index.js", import.meta.url).href)};
serve({ validate: () => ({ event_count: 0 }) }, { isolate: false });`;
  const p = spawn(process.execPath, ["--input-type=module", "-e", src], { stdio: ["pipe", "pipe", "inherit"] });
  const first = await new Promise((resolve) => {
    p.stdout.once("data", (d) => resolve(d.toString()));
    p.stdin.write(JSON.stringify(START) + "\n");
  });
  assert.equal(JSON.parse(first).protocol, 1);
  assert.deepEqual(childrenOf(p.pid), []);
  const ended = new Promise((resolve) => p.on("exit", (code) => resolve(code)));
  p.stdin.end('{"cmd":"stop"}\n');
  assert.equal(await ended, 0);
});
