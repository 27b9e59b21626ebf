#!/usr/bin/env node
// The adapter for naive-journal.mjs: five handlers and serve(). Run the kit against it with
//   journal-conformance test --adapter "node adapters/typescript/examples/adapter.mjs" \
//     --skip-file adapters/typescript/examples/known-deviations.txt
// It imports the package by its name, as your adapter does (here Node resolves the name to
// the package this file is in), so it works unchanged as a copy in your own project.
import { serve, Rejected } from "journal-conformance-adapter";
import * as naive from "./naive-journal.mjs";

// Every handler gets the input bytes and { op, profile }; a JournalError becomes a Rejected.
const guarded = (f) => (input, { op }) => {
  try {
    return f(input, op);
  } catch (e) {
    if (e instanceof naive.JournalError) {
      return new Rejected(e.code, { line: e.line, sequence: e.sequence, message: e.message });
    }
    throw e;
  }
};

serve(
  {
    validate: guarded((input) => ({ event_count: naive.readJournal(input).length })),
    replay: guarded((input, op) => naive.replay(naive.readJournal(input), op.until)),
    fingerprint: guarded((input, op) => naive.replay(naive.readJournal(input), op.until).fingerprint),
    branch: guarded((input, op) => naive.branch(naive.readJournal(input), op.at, op.branch_id)),
    canonical: guarded((input) => {
      console.log("a stray debug print: serve() sends it to stderr, not into the protocol");
      try {
        return naive.canonical(JSON.parse(Buffer.from(input).toString("utf8")));
      } catch (e) {
        throw new naive.JournalError("invalid_json", { line: 1, message: e.message });
      }
    }),
  },
  { implementation: { name: "naive-journal-js", version: "0.1.0", language: "javascript" } },
);
