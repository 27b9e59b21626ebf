// Types of journal-conformance-adapter/fuzz (fuzz.js): fuzz your handlers against the reference.
import type { Rejected } from "./index.js";

export type FuzzOperation = "validate" | "replay" | "fingerprint" | "branch" | "canonical" | "tree_inspect";
export type FuzzHandler = (input: Uint8Array, req: { id: number; op: Record<string, unknown>; profile: string }) => unknown | Rejected;

export interface FuzzTargetOptions {
  /** Path of journal-conformance (run as `PATH serve`) or a whole argv; default $JOURNAL_CONFORMANCE, else journal-conformance on PATH. */
  reference?: string | string[];
  /** Profiles each input is checked under; default ["core"]. */
  profiles?: string[];
}

export interface FuzzTarget {
  (data: Uint8Array): void;
  /** Stop the reference process. */
  close(): void;
  stats: { inputs: number; compared: number; skipped: number };
}

export type FuzzAnswer = { kind: "result"; text: string } | { kind: "error"; error: Record<string, unknown> & { code: string } } | { kind: "unsupported" };

export class Mismatch extends Error {
  op: Record<string, unknown>;
  profile: string;
  data: Buffer;
  expected: FuzzAnswer;
  actual?: FuzzAnswer;
}
export class ReferenceUnavailable extends Error {}
export class RawJson {
  constructor(text: string);
  text: string;
}

export const FUZZ_OPERATIONS: readonly FuzzOperation[];
export function fuzzTarget(handlers: Partial<Record<FuzzOperation, FuzzHandler>>, options?: FuzzTargetOptions): FuzzTarget;
export function forwardingHandlers(reference?: string | string[]): { handlers: Record<FuzzOperation, FuzzHandler>; close(): void };
export function operationsFor(data: Uint8Array, offered?: readonly string[]): Record<string, unknown>[];
export function fnv1a32(data: Uint8Array): number;
export function sameAnswer(expected: FuzzAnswer, actual: FuzzAnswer): string | null;
export function runFuzz(target: (data: Buffer) => void, argv: string[], log?: (m: string) => void): { status: 0 | 1 | 2; mismatch: Mismatch | null; inputs: number };
export function fuzzMain(target: FuzzTarget, argv?: string[]): never;
