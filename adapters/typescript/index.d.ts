// Types of journal-conformance-adapter: the protocol-1 messages of SPEC.md section 13
// (schemas/protocol-1/*.json) and serve(). test/types.test.js checks these unions and
// members against the JSON schemas, so they cannot drift apart silently.

/** Any JSON value as this package hands it over: integers beyond 2^53 are BigInt. */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

/** 64-bit integers: a number when safe, else a BigInt. */
export type Int = number | bigint;

export type OperationName =
  | "validate"
  | "replay"
  | "fingerprint"
  | "branch"
  | "canonical"
  | "tree_inspect"
  | "tree_apply"
  | "store_apply";

export type Profile = "core" | "trace-0.1" | "yoagent-0.26";

// ---------------------------------------------------------------- operations (O-JSON-1, T-OPS-1, S-OPS-1)

export interface ValidateOp { op: "validate" }
export interface CanonicalOp { op: "canonical" }
export interface TreeInspectOp { op: "tree_inspect" }
export interface ReplayOp { op: "replay"; until?: Int }
export interface FingerprintOp { op: "fingerprint"; until?: Int }
export interface BranchOp { op: "branch"; at: Int; branch_id: string }
export interface TreeApplyOp { op: "tree_apply"; ops: TreeStep[] }
export interface StoreApplyOp { op: "store_apply"; steps: StoreStep[] }

export type Operation =
  | ValidateOp
  | CanonicalOp
  | TreeInspectOp
  | ReplayOp
  | FingerprintOp
  | BranchOp
  | TreeApplyOp
  | StoreApplyOp;

export type TreeStepName = "append" | "seek" | "checkpoint" | "seek_checkpoint" | "append_new" | "save_load";
export type TreeStep =
  | { step: "append"; message: Json; timestamp: Int }
  | { step: "seek"; id: string }
  | { step: "checkpoint"; label: string }
  | { step: "seek_checkpoint"; label: string }
  | { step: "append_new"; history: Json[]; timestamp: Int }
  | { step: "save_load" };

export type StoreStepName = "append" | "append_batch" | "restart" | "checkpoint" | "replay" | "replay_from_checkpoint";
export type StoreStep =
  | { step: "append"; line: string }
  | { step: "append_batch"; lines: string[] }
  | { step: "restart" }
  | { step: "checkpoint" }
  | { step: "replay" }
  | { step: "replay_from_checkpoint" };

// ---------------------------------------------------------------- messages

/** runner -> adapter (start.schema.json) */
export interface StartRequest { cmd: "start"; protocol: 1 }
/** runner -> adapter (run.schema.json) */
export interface RunRequest { cmd: "run"; id: number; op: Operation; profile: Profile; input_base64: string }
/** runner -> adapter (stop.schema.json) */
export interface StopRequest { cmd: "stop" }
export type Request = StartRequest | RunRequest | StopRequest;

export interface ImplementationInfo { name: string; version: string; language: string; homepage?: string }

/** adapter -> runner (handshake.schema.json) */
export interface Handshake {
  protocol: number;
  implementation: ImplementationInfo;
  operations: OperationName[];
  profiles: Profile[];
}

/** O-ERR-1 (reply.schema.json $defs/error) */
export interface ErrorObject {
  code: string;
  message?: string;
  line?: number | null;
  column?: number | null;
  sequence?: Int | null;
  event_id?: string | null;
  index?: number;
}

/** adapter -> runner (reply.schema.json) */
export type Reply =
  | { id: number | null; result: Json }
  | { id: number | null; error: ErrorObject }
  | { id: number | null; unsupported: true };

// ---------------------------------------------------------------- serve()

/** What a handler gets besides the input bytes. */
export interface RunContext<O extends Operation = Operation> {
  /** The request id (null in one-shot mode). */
  id: number | null;
  op: O;
  profile: Profile;
}

/** Return a JSON result, or return/throw a Rejected; throw Unsupported to skip. */
export type Handler<O extends Operation = Operation> = (
  input: Uint8Array,
  ctx: RunContext<O>,
) => Json | Rejected | Promise<Json | Rejected>;

export interface Handlers {
  validate?: Handler<ValidateOp>;
  replay?: Handler<ReplayOp>;
  fingerprint?: Handler<FingerprintOp>;
  branch?: Handler<BranchOp>;
  canonical?: Handler<CanonicalOp>;
  tree_inspect?: Handler<TreeInspectOp>;
  tree_apply?: Handler<TreeApplyOp>;
  store_apply?: Handler<StoreApplyOp>;
}

export interface ServeOptions {
  /** The handshake's `implementation` (language defaults to "javascript"). */
  implementation?: Partial<ImplementationInfo> & { name: string };
  /** Profiles offered (default ["core"]); runs under others are answered unsupported. */
  profiles?: Profile[];
  /** Arguments (default process.argv.slice(2)); an operation name first means one-shot mode. */
  argv?: string[];
  /** Streams (default process.stdin / process.stdout). Giving stdout turns hygiene off. */
  stdin?: AsyncIterable<Uint8Array | string>;
  stdout?: { write(chunk: string, cb: (err?: Error | null) => void): unknown };
  /** Diagnostics (default: a line on process.stderr). */
  log?: (message: string) => void;
  /** While serving, send console.log & co. and process.stdout.write to stderr (default true). */
  hygiene?: boolean;
  /**
   * With hygiene on the real stdout (and `exit` not false): run the handlers in a child
   * process of this script whose fd 1 is stderr and whose fd 3 is the protocol, so raw fd-1
   * writes and child processes with inherited stdio cannot corrupt the protocol either
   * (default true; it costs one more Node start per adapter process). README.md: "Stdout isolation".
   */
  isolate?: boolean;
  /** Exit the process with the status when done (default true). */
  exit?: boolean;
}

export const PROTOCOL: 1;
export const OPERATIONS: readonly OperationName[];
export const PROFILES: readonly Profile[];

export class Rejected extends Error {
  constructor(
    code: string,
    where?: { line?: number | null; column?: number | null; sequence?: Int | null; event_id?: string | null; index?: number; message?: string },
  );
  code: string;
  toJSON(): ErrorObject;
}
export class Unsupported extends Error {
  constructor(message?: string);
}
export class InvalidRequest extends Error {
  constructor(message: string);
}

/** Serve as a protocol-1 adapter; resolves with the exit status (and exits unless exit: false). */
export function serve(handlers: Handlers, options?: ServeOptions): Promise<number>;
/** Answer one persistent-mode request line; null for stop. */
export function handleLine(handlers: Handlers, options: ServeOptions, line: string | Uint8Array): Promise<Reply | Handshake | null>;
/** The handshake serve() would send. */
export function handshake(handlers: Handlers, options?: ServeOptions): Handshake;
/** null when `op` is a well-formed protocol-1 operation, else why not. */
export function checkOperation(op: unknown): string | null;
/** A-ONESHOT-1 arguments to [operation, profile]. */
export function parseOneShotArgs(argv: string[]): [Operation, string];
/** RFC 8259 parser; unsafe integers become BigInt; a repeated member is a SyntaxError. */
export function parseJson(text: string): Json;
/** Compact JSON writer that writes BigInt as digits. */
export function stringifyJson(value: unknown): string;
