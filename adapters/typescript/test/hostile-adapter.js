// A test adapter whose handlers misbehave in every way user code can: the input names
// the misbehaviour. serve() must answer each request and keep serving.
import { writeSync } from "node:fs";
import { spawnSync, spawn } from "node:child_process";
import { serve, Rejected } from "../index.js";

const boom = () => {
  throw new Error("getter boom");
};
const trap = () => {
  throw Object.create(null);
};
const throwingProxy = () =>
  new Proxy(
    {},
    {
      get: trap,
      getPrototypeOf: trap,
      has: trap,
      ownKeys: trap,
      getOwnPropertyDescriptor: trap,
    },
  );

// Every value is built fresh, at the call.
export const HOSTILE = {
  "null-prototype": () => Object.create(null),
  "name-getter": () => Object.defineProperty(new Error("x"), "name", { get: boom }),
  "message-getter": () => Object.defineProperty(new Error("x"), "message", { get: boom }),
  "stack-getter": () => Object.defineProperty(new Error("x"), "stack", { get: trap }),
  "to-string": () => ({ toString: boom, valueOf: boom }),
  "to-primitive": () => ({ [Symbol.toPrimitive]: boom }),
  proxy: throwingProxy,
  bigint: () => 12345678901234567890n,
  symbol: () => Symbol("thrown"),
  undefined: () => undefined,
  null: () => null,
  "rejected-tojson": () => {
    const r = new Rejected("sequence_gap");
    r.toJSON = trap;
    return r;
  },
  "rejected-where-getter": () => Object.defineProperty(new Rejected("sequence_gap"), "where", { get: trap }),
};

const handlers = {
  // throw the hostile value
  validate(input) {
    const name = Buffer.from(input).toString("utf8");
    if (name === "ok") return { event_count: 1 };
    throw HOSTILE[name]();
  },
  // return a promise rejected with it
  replay(input) {
    return Promise.reject(HOSTILE[Buffer.from(input).toString("utf8")]());
  },
  // return values that cannot be written, in hostile ways
  fingerprint(input) {
    const name = Buffer.from(input).toString("utf8");
    switch (name) {
      case "proxy":
        return throwingProxy();
      case "getter":
        return Object.defineProperty({}, "a", { enumerable: true, get: trap });
      case "tojson":
        return { toJSON: trap };
      case "deep": {
        let v = [];
        for (let i = 0; i < 1e6; i++) v = [v];
        return v;
      }
      case "then-getter":
        return Object.defineProperty({}, "then", { get: trap });
      case "rejected-instance":
        return HOSTILE["rejected-tojson"]();
      case "floating-rejection":
        Promise.reject(Object.create(null)); // nobody awaits it
        return "fine";
      default:
        return "fine";
    }
  },
  // write to fd 1 behind serve()'s back
  canonical(input) {
    const how = Buffer.from(input).toString("utf8");
    if (how === "fd1") writeSync(1, "raw fd 1 write, no newline");
    if (how === "stdout") process.stdout.write("process.stdout.write\n");
    if (how === "child-sync") spawnSync("sh", ["-c", "echo child with inherited stdio"], { stdio: "inherit" });
    if (how === "child-fd3") {
      // fd 3 is the protocol in the isolated child: a process it starts must not inherit it
      const r = spawnSync("sh", ["-c", "if [ -e /proc/self/fd/3 ]; then echo 'fd 3 inherited'; else echo 'no fd 3'; fi"]);
      return r.stdout.toString().trim();
    }
    if (how === "child-async") {
      return new Promise((resolve) => {
        spawn("sh", ["-c", "echo async child with inherited stdio"], { stdio: "inherit" }).on("exit", () => resolve("ok"));
      });
    }
    return "ok";
  },
};

serve(handlers, { implementation: { name: "hostile", version: "0" } });
