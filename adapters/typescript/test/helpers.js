import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURE = path.join(HERE, "fixture-adapter.js");
export const SCHEMAS = path.join(HERE, "..", "..", "..", "schemas", "protocol-1");

/** Run the fixture adapter with these request lines; returns parsed stdout lines and stderr. */
export function talk(lines, args = [], input) {
  const text = input ?? lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l)) + "\n").join("");
  const p = spawnSync(process.execPath, [FIXTURE, ...args], { input: text, timeout: 20000 });
  const out = p.stdout.toString("utf8");
  return {
    status: p.status,
    raw: out,
    replies: out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)),
    stderr: p.stderr.toString("utf8"),
  };
}

export const b64 = (s) => Buffer.from(s).toString("base64");
export const run = (id, op, input = "", profile = "core") => ({ cmd: "run", id, op, profile, input_base64: b64(input) });
