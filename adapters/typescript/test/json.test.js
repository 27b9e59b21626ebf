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

test("parseJson rejects a repeated member at any depth, escaped spellings included", () => {
  for (const bad of [
    '{"a":1,"a":2}',
    '{"cmd":"run","cmd":"stop"}',
    '{"cmd":"run","c\\u006dd":"stop"}',
    '{"\\u0063\\u006d\\u0064":1,"cmd":2}',
    '{"x":{"y":[{"z":1,"w":{"q":1,"q":1}}]}}',
    '[[[{"a":{},"a":{}}]]]',
    '{"__proto__":1,"__proto__":2}',
    '{"\\ud800":1,"\\uD800":2}',
    '{"":1,"":2}',
    '{"a\\/b":1,"a/b":2}',
  ]) {
    assert.throws(() => parseJson(bad), /duplicate member/, bad);
  }
  // the same key in sibling or nested objects is no repetition
  assert.deepEqual(parseJson('[{"a":1},{"a":2},{"a":{"a":3}}]'), [{ a: 1 }, { a: 2 }, { a: { a: 3 } }]);
  assert.deepEqual(Object.keys(parseJson('{"a":1,"A":2,"a ":3,"\\u0061b":4}')), ["a", "A", "a ", "ab"]);
});
