// index.d.ts against schemas/protocol-1: the string unions and the members of the message
// types must be exactly what the schemas say.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { HERE, SCHEMAS } from "./helpers.js";
import { OPERATIONS, PROFILES } from "../index.js";

const dts = readFileSync(path.join(HERE, "..", "index.d.ts"), "utf8");
const schema = (n) => JSON.parse(readFileSync(path.join(SCHEMAS, `${n}.schema.json`), "utf8"));

/** The string literals of `export type NAME = "a" | "b";` */
function union(name) {
  const m = new RegExp(`export type ${name} =([^;]*);`).exec(dts);
  assert.ok(m, `index.d.ts declares ${name}`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
}
/** The member names of `export interface NAME { ... }` */
function members(name) {
  const m = new RegExp(`export interface ${name} \\{([^}]*)\\}`).exec(dts);
  assert.ok(m, `index.d.ts declares interface ${name}`);
  return [...m[1].matchAll(/(\w+)\??:/g)].map((x) => x[1]).sort();
}
/** The `step` consts/enums of a oneOf of step schemas. */
const stepNames = (def) => def.oneOf.flatMap((s) => s.properties.step.enum ?? [s.properties.step.const]);

test("operation and profile names match the handshake schema", () => {
  const hs = schema("handshake");
  assert.deepEqual(union("OperationName"), hs.properties.operations.items.enum);
  assert.deepEqual(union("Profile"), hs.properties.profiles.items.enum);
  assert.deepEqual([...OPERATIONS], hs.properties.operations.items.enum);
  assert.deepEqual([...PROFILES], hs.properties.profiles.items.enum);
  assert.deepEqual(union("Profile"), schema("run").properties.profile.enum);
});

test("operation objects match run.schema.json", () => {
  const defs = schema("run").$defs;
  const bySchema = {};
  for (const alt of defs.operation.oneOf) {
    for (const name of alt.properties.op.enum ?? [alt.properties.op.const]) bySchema[name] = Object.keys(alt.properties).sort();
  }
  const iface = { validate: "ValidateOp", canonical: "CanonicalOp", tree_inspect: "TreeInspectOp", replay: "ReplayOp",
    fingerprint: "FingerprintOp", branch: "BranchOp", tree_apply: "TreeApplyOp", store_apply: "StoreApplyOp" };
  assert.deepEqual(Object.keys(bySchema).sort(), Object.keys(iface).sort());
  for (const [op, i] of Object.entries(iface)) assert.deepEqual(members(i), bySchema[op], i);
  assert.deepEqual(union("TreeStepName"), stepNames(defs.tree_step));
  assert.deepEqual(union("StoreStepName"), stepNames(defs.store_step));
});

test("messages match start, stop, run, handshake and reply schemas", () => {
  assert.deepEqual(members("StartRequest"), Object.keys(schema("start").properties).sort());
  assert.deepEqual(members("StopRequest"), Object.keys(schema("stop").properties).sort());
  assert.deepEqual(members("RunRequest"), Object.keys(schema("run").properties).sort());
  assert.deepEqual(members("Handshake"), Object.keys(schema("handshake").properties).sort());
  assert.deepEqual(members("ImplementationInfo"), Object.keys(schema("handshake").properties.implementation.properties).sort());
  assert.deepEqual(members("ErrorObject"), Object.keys(schema("reply").$defs.error.properties).sort());
  const reply = /export type Reply =([^]*?)\n\n/.exec(dts)[1];
  for (const k of ["result", "error", "unsupported"]) assert.match(reply, new RegExp(`\\b${k}\\??:`), `Reply has ${k}`);
});
