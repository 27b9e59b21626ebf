import { test } from "node:test";
import assert from "node:assert/strict";
import { parseJson, stringifyJson } from "../index.js";

test("parseJson keeps 64-bit integers exact and __proto__ as a plain member", () => {
  assert.equal(parseJson("9007199254740991"), 9007199254740991);
  assert.equal(parseJson("9007199254740993"), 9007199254740993n);
  assert.equal(parseJson("-9223372036854775808"), -(2n ** 63n));
  assert.ok(Object.is(parseJson("-0"), 0), "-0 is the integer 0");
  assert.ok(Object.is(parseJson("-0.0"), -0));
  assert.equal(parseJson("1.5e3"), 1500);
  const o = parseJson('{"__proto__":{"polluted":1},"a":"\\u00e9\\ud83d\\ude00\\n"}');
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.deepEqual(Object.keys(o), ["__proto__", "a"]);
  assert.equal(o.a, "é😀\n");
  assert.equal({}.polluted, undefined);
  for (const bad of ["", "01", "1.", ".5", "[1,]", "{'a':1}", "NaN", "1e400", '"\u0001"', "[1] x", "tru", '"\\x"']) {
    assert.throws(() => parseJson(bad), SyntaxError, bad);
  }
});

test("stringifyJson writes BigInt digits and refuses non-JSON values", () => {
  assert.equal(stringifyJson({ a: 2n ** 64n, b: [1, "x", null, true], c: undefined }), '{"a":18446744073709551616,"b":[1,"x",null,true]}');
  assert.throws(() => stringifyJson({ a: NaN }), TypeError);
  assert.throws(() => stringifyJson({ a: () => 1 }), TypeError);
  const cyc = [];
  cyc.push(cyc);
  assert.throws(() => stringifyJson(cyc), TypeError);
  assert.equal(stringifyJson(parseJson('{"__proto__":1}')), '{"__proto__":1}');
});
