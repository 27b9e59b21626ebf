// The fuzz harness (fuzz.js) against the real reference, with the plain-Node runner:
// deterministic (fixed seeds and input counts, nothing timed). The reference is
// $JOURNAL_CONFORMANCE, else the kit's target/release (or target/debug) binary; without one
// the tests are skipped, except under CI=true, where they fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HERE } from "./helpers.js";
import { Rejected } from "../index.js";
import { fuzzTarget, forwardingHandlers, runFuzz, sameAnswer, operationsFor, fnv1a32, mutate, rng, DEFAULT_TOKENS, Mismatch, ReferenceProcess } from "../fuzz.js";
import { handlers as naive } from "../examples/fuzz-naive.mjs";

const ROOT = path.join(HERE, "..", "..", "..");
const GOLDEN = ["s02-events-streaming.golden.jsonl", "s07-session-replay.golden.jsonl"].map((n) => path.join(ROOT, "golden", n));
const REFERENCE = [process.env.JOURNAL_CONFORMANCE, ...["release", "debug"].map((p) => path.join(ROOT, "target", p, "journal-conformance"))]
  .find((c) => c && fs.existsSync(c));
if (!REFERENCE && process.env.CI === "true") throw new Error("fuzz.test.js: no journal-conformance binary (set JOURNAL_CONFORMANCE)");
const skip = REFERENCE ? false : "no journal-conformance binary (set JOURNAL_CONFORMANCE)";
const quiet = () => {};
const EXAMPLE = path.join(HERE, "..", "examples", "fuzz-naive.mjs");

test("the naive example differs from the reference, and the input reproduces it", { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "jc-fuzz-"));
  const t = fuzzTarget(naive, { reference: REFERENCE });
  try {
    const r = runFuzz(t, ["-runs=500", "-seed=1", `-artifact_prefix=${tmp}/`, ...GOLDEN], quiet);
    assert.equal(r.status, 1);
    assert.ok(r.mismatch instanceof Mismatch);
    assert.notEqual(sameAnswer(r.mismatch.expected, r.mismatch.actual), null);
    const [crash] = fs.readdirSync(tmp);
    assert.throws(() => t(fs.readFileSync(path.join(tmp, crash))), Mismatch);
  } finally {
    t.close();
    fs.rmSync(tmp, { recursive: true });
  }
});

test("a mutation finds naive validate's deviation within 500 inputs of seed 1", { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "jc-fuzz-"));
  const t = fuzzTarget({ validate: naive.validate }, { reference: REFERENCE });
  try {
    const r = runFuzz(t, ["-runs=500", "-seed=1", `-artifact_prefix=${tmp}/`, ...GOLDEN], quiet);
    assert.equal(r.status, 1);
    assert.ok(r.inputs > GOLDEN.length, "found by a mutation, not by a corpus input");
    assert.equal(r.mismatch.op.op, "validate");
  } finally {
    t.close();
    fs.rmSync(tmp, { recursive: true });
  }
});

test("a correct implementation (a second reference) has no difference in 300 inputs", { skip }, () => {
  const fwd = forwardingHandlers(REFERENCE);
  const t = fuzzTarget(fwd.handlers, { reference: REFERENCE, profiles: ["core", "trace-0.1"] });
  try {
    const r = runFuzz(t, ["-runs=300", "-seed=7", ...GOLDEN], quiet);
    assert.deepEqual([r.status, r.mismatch, r.inputs], [0, null, 302]);
    assert.ok(t.stats.compared > 302 * 2 * 6, `compared ${t.stats.compared}`);
  } finally {
    t.close();
    fwd.close();
  }
});

test("known deviations directly: 1.0 written as 1, a duplicate key", { skip }, () => {
  const t = fuzzTarget({ canonical: naive.canonical }, { reference: REFERENCE });
  try {
    t(Buffer.from('{"a":[1,"x"]}'));
    assert.throws(() => t(Buffer.from("[1.0]")), (e) => e instanceof Mismatch && /results differ/.test(e.message) && e.expected.text === '"[1.0]"');
    assert.throws(() => t(Buffer.from('{"a":1,"a":2}')), (e) => e instanceof Mismatch && e.expected.error.code === "duplicate_key");
  } finally {
    t.close();
  }
});

test("a handler that throws is a finding with the reference's answer", { skip }, () => {
  const t = fuzzTarget({ validate: () => { throw new RangeError("oops"); } }, { reference: REFERENCE });
  try {
    assert.throws(() => t(Buffer.from("{}\n")), (e) => e instanceof Mismatch && e.cause instanceof RangeError && /malformed_event/.test(e.message));
  } finally {
    t.close();
  }
});

test("the command line: exit 1 on a difference, 2 on bad arguments or no reference, no stack", { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "jc-fuzz-"));
  const runIt = (args, env) => spawnSync(process.execPath, [EXAMPLE, ...args], { env: { ...process.env, JOURNAL_CONFORMANCE: REFERENCE, ...env }, encoding: "utf8", timeout: 300000 });
  try {
    let p = runIt(["-runs=100", `-artifact_prefix=${tmp}/`, ...GOLDEN]);
    assert.equal(p.status, 1, p.stderr);
    assert.match(p.stderr, /fuzz: MISMATCH/);
    assert.equal(fs.readdirSync(tmp).length, 1);
    for (const [args, env, said] of [
      [["-runs=many"], {}, /-runs needs an integer/],
      [["/no/such/corpus"], {}, /no such file/],
      [["-runs=1"], { JOURNAL_CONFORMANCE: "/no/such/binary" }, /cannot start the reference/],
    ]) {
      p = runIt(args, env);
      assert.equal(p.status, 2, `${args}: ${p.stderr}`);
      assert.match(p.stderr, said);
      assert.doesNotMatch(p.stderr, /\n\s+at /);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true });
  }
});

test("the reference is killed when the harness exits, even without close()", { skip }, () => {
  const code = `import { ReferenceProcess } from ${JSON.stringify(path.join(HERE, "..", "fuzz.js"))};
    const r = new ReferenceProcess(${JSON.stringify(REFERENCE)}); console.log(r.pid); process.exit(0);`;
  const p = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 60000 });
  assert.equal(p.status, 0, p.stderr);
  const pid = Number(p.stdout.trim());
  assert.ok(pid > 0);
  // SIGKILL from the exit hook: gone, or a zombie until init reaps it (a bounded wait).
  const gone = () => {
    try {
      const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(")").pop().trim()[0];
      return state === "Z" || state === "X";
    } catch {
      return true;
    }
  };
  let alive = !gone();
  for (let i = 0; alive && i < 200; i++) {
    spawnSync("sleep", ["0.05"]);
    alive = !gone();
  }
  assert.equal(alive, false, `reference ${pid} outlived the harness`);
});

test("comparison, operations and mutations are deterministic and as the kit's", () => {
  assert.equal(sameAnswer({ kind: "result", text: '{"a":1,"b":[1.0]}' }, { kind: "result", text: '{"b":[1.0],"a":1}' }), null);
  assert.notEqual(sameAnswer({ kind: "result", text: "1.0" }, { kind: "result", text: "1" }), null);
  assert.notEqual(sameAnswer({ kind: "result", text: "1" }, { kind: "result", text: "true" }), null);
  assert.equal(sameAnswer({ kind: "result", text: "18446744073709551616" }, { kind: "result", text: "18446744073709551616" }), null);
  assert.notEqual(sameAnswer({ kind: "result", text: "18446744073709551616" }, { kind: "result", text: "18446744073709551617" }), null);
  const ref = { kind: "error", error: { code: "sequence_gap", line: 2, sequence: null, message: "m" } };
  assert.equal(sameAnswer(ref, { kind: "error", error: { code: "sequence_gap", line: 2, sequence: 9, column: 3, message: "x" } }), null);
  assert.notEqual(sameAnswer(ref, { kind: "error", error: { code: "sequence_gap" } }), null);
  assert.notEqual(sameAnswer(ref, { kind: "error", error: { code: "blank_line", line: 2 } }), null);
  assert.equal(fnv1a32(Buffer.alloc(0)), 0x811c9dc5);
  assert.equal(fnv1a32(Buffer.from("a")), 0xe40c292c);
  assert.deepEqual(operationsFor(Buffer.from("abc")).map((o) => o.op), ["validate", "replay", "replay", "fingerprint", "fingerprint", "branch", "canonical", "tree_inspect"]);
  const seeds = (s) => { const r = rng(s); return Array.from({ length: 5 }, () => mutate(Buffer.from("hello\nworld"), r, DEFAULT_TOKENS, 64).toString("hex")); };
  assert.deepEqual(seeds(3), seeds(3));
  assert.notDeepEqual(seeds(3), seeds(4));
  assert.ok(Rejected);
});
