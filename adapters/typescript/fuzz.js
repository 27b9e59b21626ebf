// Fuzz YOUR implementation against the kit's reference (issue 24): `fuzzTarget(handlers,
// {reference})` returns a synchronous `(data: Buffer) => void` that asks your handlers and
// the reference `journal-conformance serve` the same operations on the same bytes and throws
// a `Mismatch` (an Error holding both answers) when they differ. Give it to a coverage-guided
// fuzzer that takes such a function (Jazzer.js: `export const fuzz = fuzzTarget(...)`, then
// `npx jazzer harness.mjs`), or to `runFuzz`/`fuzzMain` below, a deterministic mutation runner
// in plain Node with libFuzzer's command line (-runs=N -seed=S -max_len=N -dict=F
// -artifact_prefix=P CORPUS...).
//
// The reference is ONE persistent protocol-1 process (SPEC.md 13.1), driven from a worker
// thread: the target posts a request to the worker and blocks in Atomics.wait until the
// worker has the reply line, which it then takes with receiveMessageOnPort. So the target is
// synchronous (what fuzzers call) and pays one round trip per operation, not a process start
// per input as spawnSync in one-shot mode would (SPEC.md 13.2: an interpreter start per
// check). The process exits when `target.close()` is called, when this process exits (an
// "exit" hook kills it), and in any case at the end of its stdin, which this process's death
// closes: it never outlives the harness.
//
// Every input is a journal (or a JSON text); the operations asked are derived from its bytes
// alone (operationsFor, the same in the Python and Rust harnesses). Answers are compared as
// the kit's differential phase compares an implementation with the reference (SPEC.md 13.3):
// results as JSON values (member order ignored, an integer and a float different values, so
// what JSON.stringify writes as 1 differs from the reference's 1.0, as the kit sees it over
// the protocol), errors by `code`, then `line`, `sequence` and `index` wherever the
// reference gives them; `message` and `column` never. A handler that throws anything but
// Rejected or Unsupported is a finding (the Mismatch's `cause`); Unsupported skips the check.

import { Worker, MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Rejected, Unsupported, OPERATIONS, PROFILES, parseJson, stringifyJson } from "./index.js";

/** The operations the harness asks (tree_apply and store_apply take step lists). */
export const FUZZ_OPERATIONS = Object.freeze(["validate", "replay", "fingerprint", "branch", "canonical", "tree_inspect"]);

export class ReferenceUnavailable extends Error {
  constructor(message) {
    super(message);
    this.name = "ReferenceUnavailable";
  }
}

export class Mismatch extends Error {
  constructor(message, { op, profile, data, expected, actual, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "Mismatch";
    Object.assign(this, { op, profile, data, expected, actual });
  }
}

/** FNV-1a, 32 bits. */
export function fnv1a32(data) {
  let h = 0x811c9dc5;
  for (const b of data) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h >>> 0;
}

/** The operation objects asked for one input (see the Python harness: the same list). */
export function operationsFor(data, offered = FUZZ_OPERATIONS) {
  const h = fnv1a32(data);
  const n = (h % 6) - 1;
  const bid = { 0: "", 1: " \t" }[(h >>> 8) % 8] ?? "fuzz";
  const ops = [
    { op: "validate" }, { op: "replay" }, { op: "replay", until: n }, { op: "fingerprint" },
    { op: "fingerprint", until: n }, { op: "branch", at: n, branch_id: bid }, { op: "canonical" },
    { op: "tree_inspect" },
  ];
  return ops.filter((o) => offered.includes(o.op));
}

// ------------------------------------------------------------------ tagged JSON

/** Parse JSON text into a tree where numbers keep their kind: {int: BigInt} or {float: n}. */
export function parseTagged(text) {
  let i = 0;
  const fail = () => {
    throw new SyntaxError(`bad JSON at offset ${i}`);
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const o = new Map();
      ws();
      if (text[i] === "}") return i++, { obj: o };
      for (;;) {
        ws();
        const k = str();
        ws();
        if (text[i++] !== ":") fail();
        o.set(k, value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return i++, { obj: o };
        else fail();
      }
    }
    if (c === "[") {
      i++;
      const a = [];
      ws();
      if (text[i] === "]") return i++, { arr: a };
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return i++, { arr: a };
        else fail();
      }
    }
    if (c === '"') return { str: str() };
    for (const [lit, v] of [["true", { bool: true }], ["false", { bool: false }], ["null", { null: true }]]) {
      if (text.startsWith(lit, i)) return (i += lit.length), v;
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 5000));
    if (!m || m[0] === "") fail();
    i += m[0].length;
    return m[2] || m[3] ? { float: Number(m[0]) } : { int: BigInt(m[0]) };
  };
  const str = () => {
    if (text[i] !== '"') fail();
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const v = value();
  ws();
  if (i !== text.length) fail();
  return v;
}

function sameTagged(a, b) {
  const [ka] = Object.keys(a);
  const [kb] = Object.keys(b);
  if (ka !== kb) return false;
  if (ka === "obj") {
    if (a.obj.size !== b.obj.size) return false;
    for (const [k, v] of a.obj) if (!b.obj.has(k) || !sameTagged(v, b.obj.get(k))) return false;
    return true;
  }
  if (ka === "arr") return a.arr.length === b.arr.length && a.arr.every((x, j) => sameTagged(x, b.arr[j]));
  return Object.is(a[ka], b[kb]) || a[ka] === b[kb];
}

/**
 * Whether `actual` meets `expected`: both {kind: "result", text} (the JSON text) or
 * {kind: "error", error}. null when they agree, else why not.
 */
export function sameAnswer(expected, actual) {
  if (expected.kind !== actual.kind) return `${actual.kind} instead of ${expected.kind}`;
  if (expected.kind === "result") return sameTagged(parseTagged(expected.text), parseTagged(actual.text)) ? null : "the results differ";
  const e = expected.error;
  const a = actual.error;
  if (e.code !== a.code) return `error code ${JSON.stringify(a.code)} instead of ${JSON.stringify(e.code)}`;
  for (const f of ["line", "sequence", "index"]) {
    if (e[f] !== undefined && e[f] !== null && String(e[f]) !== String(a[f] ?? "null")) {
      return `${f} ${a[f] ?? null} instead of ${e[f]} (code ${e.code})`;
    }
  }
  return null;
}

// ------------------------------------------------------------------ the reference

const WORKER = `
const { workerData } = require("node:worker_threads");
const { spawn } = require("node:child_process");
const { port, signal, argv } = workerData;
const sig = new Int32Array(signal);
const done = (m) => { port.postMessage(m); Atomics.store(sig, 0, 1); Atomics.notify(sig, 0); };
let child, buf = "", dead = null, waiting = false;
try {
  child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
} catch (e) { dead = String(e && e.message); }
if (child) {
  child.on("error", (e) => { dead = e.message; if (waiting) { waiting = false; done({ dead }); } });
  child.on("exit", (code, s) => { dead = dead ?? ("it exited (" + (s ?? "status " + code) + ")"); if (waiting) { waiting = false; done({ dead }); } });
  child.stdin.on("error", () => {});
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d) => {
    buf += d;
    const nl = buf.indexOf("\\n");
    if (nl >= 0 && waiting) { const line = buf.slice(0, nl); buf = buf.slice(nl + 1); waiting = false; done({ line }); }
  });
}
port.on("message", (m) => {
  if (m.pid) return done({ pid: child ? child.pid : null, dead });
  if (m.stop) { if (child && dead === null) { child.stdin.end('{"cmd":"stop"}\\n'); } port.close(); return; }
  if (dead !== null) return done({ dead });
  waiting = true;
  child.stdin.write(m.line + "\\n");
});
`;

const TIMEOUT_MS = 60000; // a guard against a hung reference, never a verdict

/** `journal-conformance serve` as one persistent subprocess, with a synchronous request(). */
export class ReferenceProcess {
  constructor(reference) {
    const bin = reference ?? process.env.JOURNAL_CONFORMANCE ?? "journal-conformance";
    this.argv = Array.isArray(reference) ? reference : [bin, "serve"];
    this.signal = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER, { eval: true, execArgv: [], stdout: false, workerData: { port: port2, signal: this.signal.buffer, argv: this.argv }, transferList: [port2] });
    this.worker.unref();
    this.nextId = 0;
    const { pid, dead } = this.#call({ pid: true });
    this.pid = pid;
    this.onExit = () => this.kill();
    process.on("exit", this.onExit);
    if (dead) {
      this.close();
      throw new ReferenceUnavailable(`cannot start the reference ${this.argv.join(" ")}: ${dead} (give its path as {reference}, or set JOURNAL_CONFORMANCE)`);
    }
    const hs = this.exchange({ cmd: "start", protocol: 1 });
    if (hs.protocol !== 1 || !Array.isArray(hs.operations)) {
      this.close();
      throw new ReferenceUnavailable(`${this.argv.join(" ")} did not answer the protocol-1 handshake`);
    }
  }

  #call(msg) {
    if (!this.port) throw new ReferenceUnavailable("the reference process is closed");
    Atomics.store(this.signal, 0, 0);
    this.port.postMessage(msg);
    if (Atomics.wait(this.signal, 0, 0, TIMEOUT_MS) === "timed-out") {
      this.close();
      throw new ReferenceUnavailable(`the reference ${this.argv.join(" ")} gave no answer in ${TIMEOUT_MS / 1000} s`);
    }
    return receiveMessageOnPort(this.port).message;
  }

  /** Send one request object; returns the reply object. */
  exchange(request) {
    const r = this.#call({ line: stringifyJson(request) });
    if (r.dead) {
      this.close();
      throw new ReferenceUnavailable(`the reference ${this.argv.join(" ")} stopped answering: ${r.dead}`);
    }
    return { ...parseJson(r.line), line: r.line }; // 64-bit integers exact (BigInt)
  }

  /** {kind: "result", text} | {kind: "error", error} | {kind: "unsupported"}. */
  answer(op, profile, data) {
    const id = ++this.nextId;
    const reply = this.exchange({ cmd: "run", id, op, profile, input_base64: Buffer.from(data).toString("base64") });
    if (reply.id !== id) throw new ReferenceUnavailable(`the reference answered id ${reply.id} for ${id}`);
    if ("result" in reply) {
      // the result's own text, its numbers as written (JSON.parse would lose 1.0)
      const tagged = parseTagged(reply.line);
      return { kind: "result", text: textOf(tagged.obj.get("result")) };
    }
    if (reply.unsupported === true) return { kind: "unsupported" };
    if (reply.error && ["internal_error", "invalid_request"].includes(reply.error.code)) {
      throw new ReferenceUnavailable(`the reference answered ${reply.error.code}: ${reply.error.message}`);
    }
    return { kind: "error", error: reply.error };
  }

  kill() {
    if (this.pid) {
      try {
        process.kill(this.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  /** Stop the process (idempotent): stop request and end of stdin; the exit hook kills it. */
  close() {
    if (!this.port) return;
    try {
      this.port.postMessage({ stop: true });
    } catch {
      // the worker is gone
    }
    this.port = null;
  }
}

/** A tagged value back to compact JSON text (numbers as tagged: floats keep a fraction). */
function textOf(t) {
  const [k] = Object.keys(t);
  switch (k) {
    case "obj":
      return `{${[...t.obj].map(([key, v]) => `${JSON.stringify(key)}:${textOf(v)}`).join(",")}}`;
    case "arr":
      return `[${t.arr.map(textOf).join(",")}]`;
    case "str":
      return JSON.stringify(t.str);
    case "int":
      return t.int.toString();
    case "float": {
      const s = String(t.float);
      return /[.eE]/.test(s) ? s : `${s}.0`;
    }
    case "bool":
      return String(t.bool);
    default:
      return "null";
  }
}

// ------------------------------------------------------------------ the target

const show = (a, limit = 2000) => {
  const s = a.kind === "result" ? `{"result":${a.text}}` : a.kind === "error" ? stringifyJson({ error: a.error }) : "unsupported";
  return s.length <= limit ? s : s.slice(0, limit) + "...";
};
const showInput = (data, limit = 600) => {
  const s = JSON.stringify(Buffer.from(data.subarray(0, limit)).toString("latin1"));
  return data.length > limit ? `${s}... (${data.length} bytes)` : s;
};

function mine(f, op, profile, data, id) {
  let r;
  try {
    r = f(new Uint8Array(data), { id, op, profile });
  } catch (e) {
    if (e instanceof Rejected) r = e;
    else if (e instanceof Unsupported) return { kind: "unsupported" };
    else throw e;
  }
  if (r && typeof r.then === "function") throw new TypeError(`handler ${op.op} returned a promise: fuzzTarget needs synchronous handlers`);
  if (r instanceof Rejected) return { kind: "error", error: parseJson(stringifyJson(r.toJSON())) };
  if (r === undefined) throw new TypeError(`handler ${op.op} returned undefined (return a JSON value)`);
  if (r instanceof RawJson) return { kind: "result", text: r.text };
  return { kind: "result", text: stringifyJson(r) }; // as serve() would send it
}

/**
 * A synchronous fuzz target comparing `handlers` (as for serve(); synchronous ones) with
 * the reference. Options: reference (path of journal-conformance, or an argv array; default
 * $JOURNAL_CONFORMANCE, else journal-conformance on PATH), profiles (default ["core"]).
 * The reference starts at the first input. target.close() stops it; target.stats counts.
 */
export function fuzzTarget(handlers, options = {}) {
  const hs = Object.fromEntries(Object.entries(handlers).filter(([, f]) => f != null));
  for (const [k, f] of Object.entries(hs)) {
    if (!OPERATIONS.includes(k)) throw new TypeError(`${k} is not an operation of protocol 1`);
    if (!FUZZ_OPERATIONS.includes(k)) throw new TypeError(`fuzzTarget does not fuzz ${k} (it takes step lists): use journal-conformance test --properties N`);
    if (typeof f !== "function") throw new TypeError(`handler ${k} must be a function`);
  }
  if (Object.keys(hs).length === 0) throw new TypeError("give at least one handler");
  const profiles = options.profiles ?? ["core"];
  for (const p of profiles) if (!PROFILES.includes(p)) throw new TypeError(`unknown profile ${p}`);
  let ref = null;
  const stats = { inputs: 0, compared: 0, skipped: 0 };
  const target = (data) => {
    data = Buffer.from(data);
    stats.inputs++;
    ref ??= new ReferenceProcess(options.reference);
    for (const profile of profiles) {
      for (const op of operationsFor(data, Object.keys(hs))) {
        const expected = ref.answer(op, profile, data);
        if (expected.kind === "unsupported") {
          stats.skipped++;
          continue;
        }
        let actual;
        try {
          actual = mine(hs[op.op], op, profile, data, stats.compared + 1);
        } catch (e) {
          throw new Mismatch(`${stringifyJson(op)} (profile ${profile}) threw ${e?.name ?? "a value"}: ${e?.message ?? String(e)}\n  input:     ${showInput(data)}\n  reference: ${show(expected)}`, { op, profile, data, expected, cause: e });
        }
        if (actual.kind === "unsupported") {
          stats.skipped++;
          continue;
        }
        stats.compared++;
        const why = sameAnswer(expected, actual);
        if (why !== null) {
          throw new Mismatch(`${stringifyJson(op)} (profile ${profile}): ${why}\n  input:     ${showInput(data)}\n  reference: ${show(expected)}\n  yours:     ${show(actual)}`, { op, profile, data, expected, actual });
        }
      }
    }
  };
  target.stats = stats;
  target.close = () => {
    ref?.close();
    ref = null;
  };
  return target;
}

/** Handlers answering what a SECOND reference process answers: a correct implementation. */
export function forwardingHandlers(reference) {
  const proc = new ReferenceProcess(reference);
  const handler = (input, { op, profile }) => {
    const a = proc.answer(op, profile, input);
    if (a.kind === "unsupported") throw new Unsupported();
    if (a.kind === "error") return new Rejected(a.error.code, a.error);
    return new RawJson(a.text);
  };
  const hs = Object.fromEntries(FUZZ_OPERATIONS.map((o) => [o, handler]));
  return { handlers: hs, close: () => proc.close() };
}

/** A result already written as JSON text (stringifyJson would write 1.0 as 1). */
export class RawJson {
  constructor(text) {
    this.text = text;
  }
}

// ------------------------------------------------------------------ the fallback runner

/** A deterministic PRNG (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n); // 0..n-1
  return { next, int, range: (lo, hi) => lo + int(hi - lo + 1), choice: (xs) => xs[int(xs.length)] };
}

const enc = (s) => Buffer.from(s, "latin1");
export const DEFAULT_TOKENS = ['{', '}', '[', ']', ',', ':', '"', '\n', '\r', '\t', ' ', '\f', '\xef\xbb\xbf', '\xff',
  '\\u0000', '\\ud800', 'NaN', 'Infinity', '1e400', '1.0', '-0', 'null', 'true', '"a":1,"a":2', '"sequence":',
  '"event_id":', '[[[[[[[[[[[[[[[[', '\xc2\xa0', '\xe2\x80\xa8', '9007199254740993', '"\\u00e9"', '"\xc3\xa9"'].map(enc);

/** A libFuzzer dictionary file's tokens. */
export function readDict(file) {
  const out = [];
  fs.readFileSync(file, "utf8").split("\n").forEach((raw, n) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const q = line.indexOf('"');
    if (q < 0 || !line.endsWith('"') || q === line.length - 1) throw new Error(`${file}:${n + 1}: not a dictionary entry`);
    const s = line.slice(q + 1, -1);
    const bytes = [];
    for (let i = 0; i < s.length; i++) {
      if (s[i] === "\\" && s[i + 1] === "x") {
        bytes.push(parseInt(s.slice(i + 2, i + 4), 16));
        i += 3;
      } else if (s[i] === "\\" && i + 1 < s.length) {
        bytes.push(...Buffer.from(s[++i]));
      } else bytes.push(...Buffer.from(s[i]));
    }
    out.push(Buffer.from(bytes));
  });
  return out;
}

/** One to four stacked mutations of `data`. */
export function mutate(data, r, tokens, maxLen, pool = []) {
  let b = Buffer.from(data);
  const splice = (pos, del, ins) => Buffer.concat([b.subarray(0, pos), ins, b.subarray(Math.min(b.length, pos + del))]);
  for (let k = r.range(1, 4); k > 0; k--) {
    const m = r.int(9);
    const pos = r.int(b.length + 1);
    if (m === 0 && b.length) {
      const i = r.int(b.length);
      b[i] ^= 1 << r.int(8);
    } else if (m === 1) b = splice(pos, 0, Buffer.from([r.int(256)]));
    else if (m === 2 && b.length) b = splice(pos, r.range(1, 16), Buffer.alloc(0));
    else if (m === 3 || m === 4) b = splice(pos, 0, r.choice(tokens));
    else if (m === 5 && b.length) {
      const t = r.choice(tokens);
      b = splice(pos, t.length, t);
    } else if (m === 6) {
      const lines = [];
      let s = 0;
      for (let i = 0; i <= b.length; i++) if (i === b.length || b[i] === 0x0a) lines.push(b.subarray(s, i)), (s = i + 1);
      const i = r.int(lines.length);
      const j = r.int(lines.length);
      const how = r.int(3);
      if (how === 0) lines.splice(j, 0, lines[i]);
      else if (how === 1 && lines.length > 1) lines.splice(i, 1);
      else [lines[i], lines[j]] = [lines[j], lines[i]];
      b = Buffer.concat(lines.flatMap((l, n) => (n ? [Buffer.from("\n"), l] : [l])));
    } else if (m === 7 && pool.length) {
      const o = r.choice(pool);
      b = Buffer.concat([b.subarray(0, pos), o.subarray(r.int(o.length + 1))]);
    } else if (m === 8 && b.length) b[r.int(b.length)] = r.choice(enc('\x00\t\n\r "\\{}[]:,01-.eE\x7f\x80\xff'));
  }
  return b.subarray(0, maxLen);
}

export const MINIMAL_SEED = Buffer.from(
  '{"event_id":"e0","session_id":"s","sequence":0,"type":"user.message","payload":{"content":"hi"},"provenance":{"run_id":"r"}}\n' +
    '{"event_id":"e1","session_id":"s","sequence":1,"type":"model.response","parent_event_id":"e0","payload":{"content":"hello"},"provenance":{"run_id":"r"}}\n',
);

/** libFuzzer-style arguments to {options, paths}; throws Error on a bad one. */
export function parseArgs(argv) {
  const o = { runs: 10000, seed: 1, max_len: 4096, dict: null, artifact_prefix: "./" };
  const paths = [];
  for (const a of argv) {
    const m = /^-([a-z_]+)=(.*)$/s.exec(a);
    if (m) {
      if (["runs", "seed", "max_len"].includes(m[1])) {
        if (!/^[0-9]+$/.test(m[2])) throw new Error(`-${m[1]} needs an integer, got ${JSON.stringify(m[2])}`);
        o[m[1]] = Number(m[2]);
      } else if (["dict", "artifact_prefix"].includes(m[1])) o[m[1]] = m[2];
      // other libFuzzer flags mean nothing here
    } else if (a.startsWith("-")) throw new Error(`unknown option ${JSON.stringify(a)}`);
    else paths.push(a);
  }
  return { options: o, paths };
}

function corpus(paths) {
  const files = [];
  const walk = (p) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) throw new Error(`${p}: no such file or directory`);
    if (st.isDirectory()) for (const n of fs.readdirSync(p).sort()) walk(path.join(p, n));
    else files.push(p);
  };
  paths.forEach(walk);
  return files.map((f) => fs.readFileSync(f));
}

/**
 * The plain-Node runner: every corpus input once, then `runs` mutations drawn from `seed`.
 * Returns {status: 0 | 1 | 2, mismatch, inputs}: 0 nothing differed, 1 a difference (the
 * input written to <artifact_prefix>crash-<sha1>), 2 a usage error or no reference.
 */
export function runFuzz(target, argv, log = (m) => process.stderr.write(m + "\n")) {
  let options;
  let pool;
  let tokens;
  try {
    let paths;
    ({ options, paths } = parseArgs(argv));
    pool = corpus(paths);
    if (pool.length === 0) pool = [MINIMAL_SEED];
    tokens = [...(options.dict ? readDict(options.dict) : []), ...DEFAULT_TOKENS];
  } catch (e) {
    log(`fuzz: ${e.message}`);
    return { status: 2, mismatch: null, inputs: 0 };
  }
  const r = rng(options.seed);
  let n = 0;
  const one = (data) => {
    n++;
    try {
      target(data);
      return null;
    } catch (e) {
      if (!(e instanceof Mismatch)) throw e;
      const name = `${options.artifact_prefix}crash-${createHash("sha1").update(data).digest("hex")}`;
      let saved;
      try {
        fs.writeFileSync(name, data);
        saved = `input written to ${name}`;
      } catch (w) {
        saved = `input not written: ${w.message}`;
      }
      log(`fuzz: MISMATCH after ${n} inputs (seed ${options.seed}): ${saved}\n${e.message}`);
      return e;
    }
  };
  try {
    for (const d of pool) {
      const m = one(d.subarray(0, options.max_len));
      if (m) return { status: 1, mismatch: m, inputs: n };
    }
    for (let k = 0; k < options.runs; k++) {
      const m = one(mutate(r.choice(pool), r, tokens, options.max_len, pool));
      if (m) return { status: 1, mismatch: m, inputs: n };
    }
  } catch (e) {
    if (!(e instanceof ReferenceUnavailable)) throw e;
    log(`fuzz: ${e.message}`);
    return { status: 2, mismatch: null, inputs: n };
  }
  log(`fuzz: done, ${n} inputs (${pool.length} from the corpus, ${n - pool.length} mutations, seed ${options.seed}), no difference`);
  return { status: 0, mismatch: null, inputs: n };
}

/** runFuzz on process.argv, then exit with its status (closing the reference). */
export function fuzzMain(target, argv = process.argv.slice(2)) {
  let status = 2;
  try {
    status = runFuzz(target, argv).status;
  } finally {
    target.close?.();
  }
  process.exit(status);
}
