// journal-conformance-adapter: write a protocol-1 adapter (SPEC.md section 13) for the
// journal-conformance kit by giving `serve()` one function per operation you implement.
//
// Plain ES module, no runtime dependencies; the types are in index.d.ts.
//
//   import { serve, Rejected } from "journal-conformance-adapter";
//   serve({ validate: (input) => ({ event_count: countEvents(input) }) },
//         { implementation: { name: "my-journal", version: "1.0.0" } });
//
// serve() speaks persistent mode (13.1) on stdin/stdout, or one-shot mode (13.2) when the
// process is started with an operation name as its first argument.

import { Console } from "node:console";
import { spawn } from "node:child_process";
import { fstatSync, writeSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { isMainThread } from "node:worker_threads";

/** Protocol version this package speaks (A-START-1). */
export const PROTOCOL = 1;

/** Every operation of protocol 1, in the order a handshake lists them. */
export const OPERATIONS = Object.freeze([
  "validate",
  "replay",
  "fingerprint",
  "branch",
  "canonical",
  "tree_inspect",
  "tree_apply",
  "store_apply",
]);

/** Every profile of protocol 1. */
export const PROFILES = Object.freeze(["core", "trace-0.1", "yoagent-0.26"]);

/**
 * Throw (or return) this from a handler to reject the input: the reply is
 * `{"id":N,"error":{code, line, sequence, ...}}` (O-ERR-1).
 */
export class Rejected extends Error {
  /**
   * @param {string} code an error code of SPEC.md section 10, e.g. "sequence_gap"
   * @param {{line?: number|null, column?: number|null, sequence?: number|bigint|null,
   *          event_id?: string|null, index?: number, message?: string}} [where]
   */
  constructor(code, where = {}) {
    super(where.message ?? code);
    this.name = "Rejected";
    this.code = code;
    this.where = where;
  }

  /** The O-ERR-1 object of this error. */
  toJSON() {
    const e = { code: this.code, message: this.where.message ?? "" };
    for (const k of ["line", "column", "sequence", "event_id", "index"]) {
      if (this.where[k] !== undefined) e[k] = this.where[k];
    }
    return e;
  }
}

/** Throw this from a handler to answer `{"id":N,"unsupported":true}` (A-SKIP-1). */
export class Unsupported extends Error {
  constructor(message = "unsupported") {
    super(message);
    this.name = "Unsupported";
  }
}

/** Throw this from a handler when the request itself is malformed (A-REQ-1). */
export class InvalidRequest extends Error {
  constructor(message) {
    super(message);
    this.name = "InvalidRequest";
  }
}

// ------------------------------------------------------------------ JSON

/**
 * Parse one JSON text (RFC 8259). Integers beyond Number.MAX_SAFE_INTEGER become BigInt so
 * `until`/`at` arrive exactly; `__proto__` keys are plain members; an object that repeats a
 * member (after unescaping, at any depth) is an error, not last-wins as in JSON.parse.
 * Throws SyntaxError.
 * @param {string} text
 */
export function parseJson(text) {
  let i = 0;
  const n = text.length;
  const fail = (what) => {
    throw new SyntaxError(`${what} at offset ${i}`);
  };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const NUM = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
  const value = (depth) => {
    if (depth > 10000) fail("nesting too deep");
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a string key");
        const k = string();
        // A repeated member is an error (C-KEY-2), compared after unescaping: "c\u006dd"
        // repeats "cmd". Object.hasOwn, so "__proto__" is a member like any other.
        if (Object.hasOwn(obj, k)) fail(`duplicate member ${JSON.stringify(k)}`);
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        Object.defineProperty(obj, k, {
          value: value(depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return obj;
        } else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return arr;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [lit, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ]) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return v;
      }
    }
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (!m) fail("unexpected character");
    i = NUM.lastIndex;
    if (m[1] === undefined && m[2] === undefined) {
      const v = Number(m[0]);
      return Number.isSafeInteger(v) ? (Object.is(v, -0) ? 0 : v) : BigInt(m[0]);
    }
    const f = Number(m[0]);
    if (!Number.isFinite(f)) fail("number out of range");
    return f;
  };
  const string = () => {
    // text[i] === '"'
    let j = i + 1;
    let out = "";
    for (;;) {
      if (j >= n) {
        i = j;
        fail("unterminated string");
      }
      const c = text.charCodeAt(j);
      if (c === 0x22) break;
      if (c < 0x20) {
        i = j;
        fail("control character in string");
      }
      if (c === 0x5c) {
        const e = text[j + 1];
        const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
        if (e in simple) {
          out += simple[e];
          j += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) {
          out += String.fromCharCode(parseInt(text.slice(j + 2, j + 6), 16));
          j += 6;
        } else {
          i = j;
          fail("invalid escape");
        }
      } else {
        out += text[j];
        j++;
      }
    }
    i = j + 1;
    return out;
  };
  const v = value(0);
  ws();
  if (i !== n) fail("text after the value");
  return v;
}

/**
 * Write a JSON value as compact text; BigInt is written as its digits. Throws TypeError on
 * values JSON cannot hold (NaN, Infinity, functions, symbols, cycles).
 * @param {unknown} value
 */
export function stringifyJson(value) {
  const seen = new Set();
  const w = (v) => {
    if (v === null) return "null";
    switch (typeof v) {
      case "boolean":
        return v ? "true" : "false";
      case "bigint":
        return v.toString();
      case "number":
        if (!Number.isFinite(v)) throw new TypeError(`${v} is not a JSON number`);
        return JSON.stringify(v);
      case "string":
        return JSON.stringify(v);
      case "object": {
        if (seen.has(v)) throw new TypeError("cyclic value");
        seen.add(v);
        let s;
        if (typeof v.toJSON === "function" && !Array.isArray(v)) {
          s = w(v.toJSON());
        } else if (Array.isArray(v)) {
          s = "[" + v.map((x) => (x === undefined ? "null" : w(x))).join(",") + "]";
        } else {
          const parts = [];
          for (const k of Object.keys(v)) {
            if (v[k] === undefined) continue;
            parts.push(JSON.stringify(k) + ":" + w(v[k]));
          }
          s = "{" + parts.join(",") + "}";
        }
        seen.delete(v);
        return s;
      }
      default:
        throw new TypeError(`a ${typeof v} is not a JSON value`);
    }
  };
  return w(value);
}

// ------------------------------------------------------------------ requests

const isInt = (v) => (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const inRange = (v, lo, hi) => isInt(v) && BigInt(v) >= lo && BigInt(v) <= hi;
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function onlyMembers(obj, allowed, where) {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) return `${where}: unknown member ${JSON.stringify(k)}`;
  }
  return null;
}

const TREE_STEPS = {
  append: { message: () => true, timestamp: (v) => inRange(v, 0n, U64_MAX) },
  seek: { id: (v) => typeof v === "string" },
  checkpoint: { label: (v) => typeof v === "string" },
  seek_checkpoint: { label: (v) => typeof v === "string" },
  append_new: { history: Array.isArray, timestamp: (v) => inRange(v, 0n, U64_MAX) },
  save_load: {},
};
const STORE_STEPS = {
  append: { line: (v) => typeof v === "string" },
  append_batch: { lines: (v) => Array.isArray(v) && v.every((l) => typeof l === "string") },
  restart: {},
  checkpoint: {},
  replay: {},
  replay_from_checkpoint: {},
};

function checkSteps(steps, kinds, where) {
  if (!Array.isArray(steps)) return `${where} must be an array`;
  for (const [n, s] of steps.entries()) {
    const at = `${where}[${n}]`;
    if (!isObj(s) || typeof s.step !== "string" || !(s.step in kinds)) {
      return `${at}: not a known step`;
    }
    const members = kinds[s.step];
    const bad = onlyMembers(s, ["step", ...Object.keys(members)], at);
    if (bad) return bad;
    for (const [m, ok] of Object.entries(members)) {
      if (!(m in s)) return `${at}: ${s.step} needs ${m}`;
      if (!ok(s[m])) return `${at}: ${m} has the wrong type`;
    }
  }
  return null;
}

/**
 * Check an operation object against protocol 1 (run.schema.json). Returns null when it is
 * well formed, else why not.
 * @param {unknown} op
 */
export function checkOperation(op) {
  if (!isObj(op) || typeof op.op !== "string") return "`op` must be an object with a string `op`";
  const i64 = (v) => inRange(v, I64_MIN, I64_MAX);
  switch (op.op) {
    case "validate":
    case "canonical":
    case "tree_inspect":
      return onlyMembers(op, ["op"], op.op);
    case "replay":
    case "fingerprint":
      if ("until" in op && !i64(op.until)) return `${op.op}: until must be a 64-bit integer`;
      return onlyMembers(op, ["op", "until"], op.op);
    case "branch":
      if (!i64(op.at)) return "branch: at must be a 64-bit integer";
      if (typeof op.branch_id !== "string") return "branch: branch_id must be a string";
      return onlyMembers(op, ["op", "at", "branch_id"], "branch");
    case "tree_apply":
      return onlyMembers(op, ["op", "ops"], "tree_apply") ?? checkSteps(op.ops, TREE_STEPS, "ops");
    case "store_apply":
      return (
        onlyMembers(op, ["op", "steps"], "store_apply") ?? checkSteps(op.steps, STORE_STEPS, "steps")
      );
    default:
      return `unknown operation ${JSON.stringify(op.op)}`;
  }
}

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(s) {
  if (typeof s !== "string" || !B64.test(s) || s.length % 4 !== 0) return null;
  return new Uint8Array(Buffer.from(s, "base64"));
}

function errorReply(id, code, message) {
  return { id, error: { code, message } };
}

function normalizeOptions(handlers, options) {
  if (!isObj(handlers)) throw new TypeError("serve(handlers): handlers must be an object");
  for (const [k, f] of Object.entries(handlers)) {
    if (!OPERATIONS.includes(k)) {
      throw new TypeError(`serve(): ${JSON.stringify(k)} is not an operation of protocol 1 (${OPERATIONS.join(", ")})`);
    }
    if (f !== undefined && typeof f !== "function") {
      throw new TypeError(`serve(): handler ${k} must be a function`);
    }
  }
  const implementation = {
    name: "unnamed implementation",
    version: "0.0.0",
    language: "javascript",
    ...(options.implementation ?? {}),
  };
  const profiles = options.profiles ?? ["core"];
  for (const p of profiles) {
    if (!PROFILES.includes(p)) throw new TypeError(`serve(): unknown profile ${JSON.stringify(p)}`);
  }
  return {
    implementation,
    profiles: [...profiles],
    operations: OPERATIONS.filter((o) => typeof handlers[o] === "function"),
  };
}

/** The handshake (A-START-1) serve() sends for these handlers and options. */
export function handshake(handlers, options = {}) {
  const o = normalizeOptions(handlers, options);
  return { protocol: PROTOCOL, implementation: o.implementation, operations: o.operations, profiles: o.profiles };
}

// ------------------------------------------------------------------ user code

/** f(), or `fallback` when it throws anything at all. */
function attempt(f, fallback) {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/**
 * A description of any thrown value that never throws itself: a null-prototype object, a
 * Proxy whose traps throw, getters that throw, symbols and BigInts included.
 */
function describeThrown(e) {
  switch (typeof e) {
    case "string":
      return e;
    case "bigint":
      return `${e}n`;
    case "symbol":
      return attempt(() => e.toString(), "a symbol");
    case "object":
    case "function": {
      if (e === null) return "null";
      const str = (k) => attempt(() => (typeof e[k] === "string" ? e[k] : ""), "");
      const name = str("name");
      const message = str("message");
      if (name && message) return `${name}: ${message}`;
      if (name || message) return name || message;
      const text = attempt(() => String(e), "");
      return typeof text === "string" && text !== "" ? text : `a thrown ${typeof e} that cannot be described`;
    }
    default:
      return String(e); // number, boolean, undefined
  }
}

/** The stack of a thrown value, or its description. Never throws. */
function stackOf(e) {
  const stack = e !== null && (typeof e === "object" || typeof e === "function")
    ? attempt(() => (typeof e.stack === "string" ? e.stack : ""), "")
    : "";
  return stack || describeThrown(e);
}

const isA = (v, C) => attempt(() => v instanceof C, false);

/** A plain copy of a Rejected's O-ERR-1 object, or null when its toJSON misbehaves. */
function rejectedError(r) {
  try {
    const e = parseJson(stringifyJson(r.toJSON()));
    return isObj(e) && typeof e.code === "string" ? e : null;
  } catch {
    return null;
  }
}

/** The reply for a value a handler threw (or rejected with). Never throws. */
function thrownReply(e, op, id, log) {
  if (isA(e, Rejected)) {
    const error = rejectedError(e);
    if (error) return { id, error };
    log(`handler ${op.op} threw a Rejected whose toJSON() fails`);
    return errorReply(id, "internal_error", `a Rejected whose toJSON() fails: ${describeThrown(e)}`);
  }
  if (isA(e, Unsupported)) return { id, unsupported: true };
  if (isA(e, InvalidRequest)) return errorReply(id, "invalid_request", describeThrown(attempt(() => e.message, e)));
  log(`handler ${op.op} threw: ${stackOf(e)}`);
  return errorReply(id, "internal_error", describeThrown(e));
}

async function callHandler(handlers, op, profile, input, id, log) {
  let r;
  try {
    r = await handlers[op.op](input, { id, op, profile });
  } catch (e) {
    return thrownReply(e, op, id, log);
  }
  if (isA(r, Rejected)) {
    const error = rejectedError(r);
    if (error) return { id, error };
    log(`handler ${op.op} returned a Rejected whose toJSON() fails`);
    return errorReply(id, "internal_error", `a Rejected whose toJSON() fails: ${describeThrown(r)}`);
  }
  if (r === undefined) return thrownReply(new TypeError(`handler ${op.op} returned undefined (return a JSON value)`), op, id, log);
  return { id, result: r };
}

/** The reply as one JSON text; a result that cannot be written is an internal_error. Never throws. */
function encodeReply(reply, log) {
  // A message is free text (a JSON.parse error quotes the input, and may cut a surrogate
  // pair): a lone surrogate escape would make the reply a text the runner refuses (C-STR-3).
  if (isObj(reply.error) && typeof reply.error.message === "string") {
    reply.error.message = reply.error.message.toWellFormed();
  }
  try {
    return stringifyJson(reply);
  } catch (e) {
    const why = `the result is not JSON: ${describeThrown(e)}`;
    log(why);
    return stringifyJson(errorReply(reply.id ?? null, "internal_error", why));
  }
}

/** A log function that never throws (a user's own, or the default). */
function safeLog(options) {
  const log = options.log ?? ((m) => process.stderr.write(m + "\n"));
  return (m) => {
    try {
      log(m);
    } catch {
      // the diagnostics channel failed; the protocol goes on
    }
  };
}

/**
 * Answer one request line (persistent mode). Returns the reply object, or `null` for
 * `stop` (after which the adapter exits). Never throws.
 * @param {Record<string, Function>} handlers
 * @param {object} options as for serve()
 * @param {string|Uint8Array} line one line without its `\n`
 */
export async function handleLine(handlers, options, line) {
  const o = normalizeOptions(handlers, options);
  const log = safeLog(options);
  let text = line;
  if (typeof line !== "string") {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(line);
    } catch {
      return errorReply(null, "invalid_request", "the request line is not UTF-8");
    }
  }
  let msg;
  try {
    msg = parseJson(text.endsWith("\r") ? text.slice(0, -1) : text);
  } catch (e) {
    return errorReply(null, "invalid_request", `the request is not JSON: ${e.message}`);
  }
  if (!isObj(msg)) return errorReply(null, "invalid_request", "the request is not a JSON object");
  const id = isInt(msg.id) && msg.id >= 1 ? msg.id : null;
  switch (msg.cmd) {
    case "start":
      if (msg.protocol !== PROTOCOL) {
        log(`runner asked for protocol ${stringifyJson(msg.protocol ?? null)}; this adapter speaks ${PROTOCOL}`);
      }
      return { protocol: PROTOCOL, implementation: o.implementation, operations: o.operations, profiles: o.profiles };
    case "stop":
      return null;
    case "run": {
      if (id === null) return errorReply(null, "invalid_request", "run: id must be a positive integer");
      const op = msg.op;
      if (isObj(op) && typeof op.op === "string" && !o.operations.includes(op.op)) {
        return { id, unsupported: true }; // not offered, or unknown to protocol 1 (A-SKIP-1)
      }
      const bad = checkOperation(op);
      if (bad) return errorReply(id, "invalid_request", bad);
      const profile = msg.profile ?? "core";
      if (typeof profile !== "string") return errorReply(id, "invalid_request", "run: profile must be a string");
      if (!o.profiles.includes(profile)) return { id, unsupported: true };
      const input = decodeBase64(msg.input_base64);
      if (input === null) return errorReply(id, "invalid_request", "run: input_base64 is not base64");
      return callHandler(handlers, op, profile, input, id, log);
    }
    default:
      return errorReply(id, "invalid_request", `unknown cmd ${stringifyJson(msg.cmd ?? null)}`);
  }
}

// ------------------------------------------------------------------ stdout hygiene

const CONSOLE_METHODS = [
  "log", "info", "debug", "warn", "dir", "dirxml", "table", "group", "groupCollapsed",
  "groupEnd", "count", "countReset", "time", "timeEnd", "timeLog", "trace", "assert",
];

/**
 * Send everything but the protocol to stderr: console.log and friends, and direct
 * process.stdout.write calls. Returns [write to the real stdout, restore].
 */
function guardStdout() {
  const stdout = process.stdout;
  const realWrite = stdout.write;
  const restoreConsole = guardConsole();
  stdout.write = (...args) => process.stderr.write(...args);
  const write = (text) =>
    new Promise((resolve, reject) => realWrite.call(stdout, text, (err) => (err ? reject(err) : resolve())));
  const restore = () => {
    stdout.write = realWrite;
    restoreConsole();
  };
  return [write, restore];
}

/** console.log & co. to stderr (without touching process.stdout); returns restore. */
function guardConsole() {
  const saved = CONSOLE_METHODS.map((m) => [m, console[m]]);
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  for (const m of CONSOLE_METHODS) {
    if (typeof toStderr[m] === "function") console[m] = toStderr[m].bind(toStderr);
  }
  return () => {
    for (const [m, f] of saved) console[m] = f;
  };
}

function streamWriter(stream) {
  return (text) => new Promise((resolve, reject) => stream.write(text, (err) => (err ? reject(err) : resolve())));
}

// ------------------------------------------------------------------ serving

async function* lines(stream) {
  let parts = [];
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let p = buf.indexOf(10); p !== -1; p = buf.indexOf(10, start)) {
      parts.push(buf.subarray(start, p));
      yield Buffer.concat(parts);
      parts = [];
      start = p + 1;
    }
    if (start < buf.length) parts.push(buf.subarray(start));
  }
  if (parts.length) yield Buffer.concat(parts);
}

async function readAll(stream) {
  const parts = [];
  for await (const chunk of stream) parts.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return new Uint8Array(Buffer.concat(parts));
}

async function persistent(handlers, options, write) {
  for await (const raw of lines(options.stdin ?? process.stdin)) {
    if (raw.length === 0 || (raw.length === 1 && raw[0] === 13)) continue;
    const reply = await handleLine(handlers, options, raw);
    if (reply === null) return 0;
    await write(encodeReply(reply, safeLog(options)) + "\n");
  }
  return 0;
}

const USAGE =
  "usage: ADAPTER                (persistent protocol 1 on stdin/stdout)\n" +
  "       ADAPTER OP [--until N] [--at N] [--branch-id ID] [--ops JSON] [--steps JSON] [--profile P] < INPUT\n";

/** Parse one-shot arguments (A-ONESHOT-1) into [operation object, profile]; throws on usage errors. */
export function parseOneShotArgs(argv) {
  const op = { op: argv[0] };
  let profile = "core";
  for (let i = 1; i < argv.length; i++) {
    let flag = argv[i];
    let value;
    const eq = flag.indexOf("=");
    if (flag.startsWith("--") && eq > 0) {
      value = flag.slice(eq + 1);
      flag = flag.slice(0, eq);
    } else {
      if (i + 1 >= argv.length) throw new InvalidRequest(`${flag} needs a value`);
      value = argv[++i];
    }
    switch (flag) {
      case "--until":
      case "--at": {
        if (!/^-?[0-9]+$/.test(value)) throw new InvalidRequest(`${flag} needs an integer, got ${value}`);
        const b = BigInt(value);
        op[flag.slice(2)] = b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
        break;
      }
      case "--branch-id":
        op.branch_id = value;
        break;
      case "--ops":
      case "--steps":
        try {
          op[flag.slice(2)] = parseJson(value);
        } catch (e) {
          throw new InvalidRequest(`${flag} is not JSON: ${e.message}`);
        }
        break;
      case "--profile":
        profile = value;
        break;
      default:
        throw new InvalidRequest(`unknown option ${flag}`);
    }
  }
  return [op, profile];
}

async function oneShot(handlers, options, argv, write) {
  const o = normalizeOptions(handlers, options);
  const log = safeLog(options);
  if (argv[0] === "-h" || argv[0] === "--help") {
    await write(USAGE);
    return 0;
  }
  let op, profile;
  try {
    [op, profile] = parseOneShotArgs(argv);
  } catch (e) {
    log(`${e.message}\n${USAGE}`);
    return 2;
  }
  if (!o.operations.includes(op.op) || !o.profiles.includes(profile)) {
    log(`unsupported operation or profile: ${op.op} ${profile}`);
    return 3;
  }
  const bad = checkOperation(op);
  if (bad) {
    log(bad);
    return 2;
  }
  const input = await readAll(options.stdin ?? process.stdin);
  const reply = await callHandler(handlers, op, profile, input, null, log);
  if (reply.unsupported) return 3;
  if (reply.error && ["internal_error", "invalid_request"].includes(reply.error.code)) {
    log(reply.error.message);
    return 2;
  }
  let text;
  try {
    text = stringifyJson("result" in reply ? reply.result : reply.error);
  } catch (e) {
    log(`the result is not JSON: ${describeThrown(e)}`);
    return 2;
  }
  await write(text + "\n");
  return "result" in reply ? 0 : 1;
}

// ------------------------------------------------------------------ fd 1 isolation

// Node cannot dup2 (no native addon here), so serve() cannot point fd 1 at stderr in its own
// process the way the Python package does. Instead it starts the adapter script again as
// a child whose fd 1 IS stderr and whose fd 3 is the real stdout, and waits for it: then
// fs.writeSync(1, ...), native code and child processes with inherited stdio all write
// to stderr, and only the protocol reaches stdout. README.md: "Stdout isolation".
const ISOLATED_ENV = "JOURNAL_CONFORMANCE_ADAPTER_ISOLATED";
const PROTOCOL_FD = 3;

/** In the child: fd 3 when this process was started by serve()'s isolation, else null. */
const protocolFd = (() => {
  // The value is the pid of the parent that set it, so a process that user code starts
  // from the child (which inherits the environment, not fd 3) is not mistaken for it.
  if (process.env[ISOLATED_ENV] !== String(process.ppid)) return null;
  try {
    fstatSync(PROTOCOL_FD);
    return PROTOCOL_FD;
  } catch {
    return null;
  }
})();

/** Write all of `text` to fd, synchronously (waiting out EAGAIN on a non-blocking pipe). */
function writeAllSync(fd, text) {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (e) {
      if (e?.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** The command that starts this script again, or null when it cannot be started again. */
function selfCommand() {
  if (!isMainThread) return null;
  const exec = process.execArgv;
  const evaluated = exec.some((a) => /^(-e|--eval|-p|--print)(=|$)/.test(a));
  // A script read from stdin cannot be read again; a debugger port cannot be bound twice.
  if (!evaluated && (process.argv.length < 2 || process.argv[1] === "-")) return null;
  if (exec.some((a) => /^--(inspect|debug|test|watch)/.test(a))) return null;
  return [process.execPath, [...exec, ...process.argv.slice(1)]];
}

/**
 * Run this script again with fd 1 bound to stderr and the protocol on fd 3 (= our fd 1);
 * resolve with its exit status and signal. Resolves null when it could not be started.
 */
function runIsolated([file, args]) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(file, args, {
        stdio: [0, 2, 2, 1],
        env: { ...process.env, [ISOLATED_ENV]: String(process.pid) },
      });
    } catch {
      resolve(null);
      return;
    }
    let started = false;
    const forward = (sig) => attempt(() => child.kill(sig));
    const signals = ["SIGTERM", "SIGINT", "SIGHUP"];
    for (const s of signals) process.on(s, forward);
    const done = (v) => {
      for (const s of signals) process.off(s, forward);
      resolve(v);
    };
    child.once("spawn", () => (started = true));
    child.once("error", () => started || done(null));
    child.once("exit", (code, signal) => done({ code, signal }));
  });
}

/** Exit the way the isolated child did: its status, or the signal that ended it. */
function exitLike({ code, signal }) {
  if (signal) {
    attempt(() => process.kill(process.pid, signal));
    process.exit(128 + (osConstants.signals[signal] ?? 0));
  }
  process.exit(code ?? 2);
}

/**
 * Serve the given handlers as a protocol-1 adapter. Resolves with the exit status (0 after
 * `stop` or end of input); unless `options.exit === false` it then exits the process with it.
 * @param {Record<string, Function>} handlers
 * @param {object} [options]
 */
export async function serve(handlers, options = {}) {
  normalizeOptions(handlers, options); // a typo in a handler name fails here, before any traffic
  const argv = options.argv ?? process.argv.slice(2);
  const realStdout = !options.stdout && options.hygiene !== false;
  if (realStdout && protocolFd === null && options.isolate !== false && options.exit !== false) {
    const self = selfCommand();
    if (self) {
      const restoreConsole = guardConsole();
      const ended = await runIsolated(self);
      if (ended) exitLike(ended);
      restoreConsole(); // it could not be started: serve in this process
    }
  }
  let write, restore;
  if (options.stdout) {
    write = streamWriter(options.stdout);
    restore = () => {};
  } else if (options.hygiene === false) {
    write = streamWriter(process.stdout);
    restore = () => {};
  } else if (protocolFd !== null) {
    // the isolated child: fd 1 is stderr already, fd 3 the protocol
    write = async (text) => writeAllSync(protocolFd, text);
    restore = () => {};
  } else {
    [write, restore] = guardStdout();
  }
  // A promise a handler dropped that rejects later would end the process (Node's default):
  // log it instead, while serving.
  const log = safeLog(options);
  const floating = (reason) => log(`a promise nobody awaited was rejected: ${stackOf(reason)}`);
  process.on("unhandledRejection", floating);
  let status;
  try {
    status = argv.length > 0 ? await oneShot(handlers, options, argv, write) : await persistent(handlers, options, write);
  } finally {
    process.off("unhandledRejection", floating);
    restore();
  }
  if (options.exit !== false) {
    process.exitCode = status;
    // The last reply was written and its callback ran: stdout is flushed. Exit even if the
    // implementation left timers or handles behind (A-STOP-1 wants a prompt exit).
    process.exit(status);
  }
  return status;
}
