#!/usr/bin/env node
// Fuzz naive-journal.mjs against the kit's reference, wired as adapter.mjs wires serve():
//   JOURNAL_CONFORMANCE=path/to/journal-conformance node adapters/typescript/examples/fuzz-naive.mjs -runs=2000 -seed=1 golden/
// (the plain-Node runner), or with Jazzer.js, where it installs (npm install --save-dev
// @jazzer.js/core; see the README): npx jazzer adapters/typescript/examples/fuzz-naive.mjs
// naive-journal.mjs has known deviations (known-deviations.txt), so the harness finds a
// difference: it prints both answers and exits 1.
import { Rejected } from "journal-conformance-adapter";
import { fuzzTarget, fuzzMain } from "journal-conformance-adapter/fuzz";
import { fileURLToPath } from "node:url";
import * as naive from "./naive-journal.mjs";

const guarded = (f) => (input, { op }) => {
  try {
    return f(input, op);
  } catch (e) {
    if (e instanceof naive.JournalError) return new Rejected(e.code, { line: e.line, sequence: e.sequence, message: e.message });
    throw e;
  }
};

export const handlers = {
  validate: guarded((input) => ({ event_count: naive.readJournal(input).length })),
  replay: guarded((input, op) => naive.replay(naive.readJournal(input), op.until)),
  fingerprint: guarded((input, op) => naive.replay(naive.readJournal(input), op.until).fingerprint),
  branch: guarded((input, op) => naive.branch(naive.readJournal(input), op.at, op.branch_id)),
  canonical: guarded((input) => {
    try {
      return naive.canonical(JSON.parse(Buffer.from(input).toString("utf8")));
    } catch (e) {
      throw new naive.JournalError("invalid_json", { line: 1, message: e.message });
    }
  }),
};

// What a fuzzer calls (Jazzer.js looks for the export `fuzz`).
export const fuzz = fuzzTarget(handlers);

if (process.argv[1] === fileURLToPath(import.meta.url)) fuzzMain(fuzz);
