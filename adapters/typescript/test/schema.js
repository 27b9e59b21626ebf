// A tiny JSON Schema (draft 2020-12) checker for the subset schemas/protocol-1 uses:
// type, enum, const, required, properties, additionalProperties:false, items, oneOf, anyOf,
// not, $ref (#/$defs/...), pattern, minimum, maximum, minLength, and boolean schemas.
// Returns a list of problems (empty: valid). Integers may be BigInt.

const typeOf = (v) => {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "bigint") return "integer";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v; // string, boolean, object
};
const isType = (v, t) => typeOf(v) === t || (t === "number" && typeOf(v) === "integer");
const same = (a, b) => JSON.stringify(a, (_, x) => (typeof x === "bigint" ? x.toString() : x)) ===
  JSON.stringify(b, (_, x) => (typeof x === "bigint" ? x.toString() : x));
const KNOWN = new Set(["$schema", "$id", "title", "type", "enum", "const", "required", "properties",
  "additionalProperties", "items", "oneOf", "anyOf", "not", "$ref", "$defs", "pattern", "minimum",
  "maximum", "minLength"]);

export function check(schema, value, root = schema, at = "") {
  if (schema === true) return [];
  if (schema === false) return [`${at || "/"}: nothing is allowed here`];
  const out = [];
  for (const k of Object.keys(schema)) if (!KNOWN.has(k)) throw new Error(`schema keyword ${k} is not supported by this checker`);
  if (schema.$ref) {
    const m = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    if (!m) throw new Error(`unsupported $ref ${schema.$ref}`);
    out.push(...check(root.$defs[m[1]], value, root, at));
  }
  if (schema.type !== undefined) {
    const types = [].concat(schema.type);
    if (!types.some((t) => isType(value, t))) return [`${at || "/"}: ${typeOf(value)} is not ${types.join(" or ")}`];
  }
  if (schema.enum && !schema.enum.some((e) => same(e, value))) out.push(`${at || "/"}: not one of ${JSON.stringify(schema.enum)}`);
  if ("const" in schema && !same(schema.const, value)) out.push(`${at || "/"}: not ${JSON.stringify(schema.const)}`);
  if (typeof value === "string") {
    if (schema.pattern && !new RegExp(schema.pattern, "u").test(value)) out.push(`${at}: does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && [...value].length < schema.minLength) out.push(`${at}: shorter than ${schema.minLength}`);
  }
  if (typeOf(value) === "integer" || typeOf(value) === "number") {
    const big = (x) => (Number.isInteger(x) || typeof x === "bigint" ? BigInt(x) : null);
    const cmp = (a, b) => (big(a) !== null && big(b) !== null ? (big(a) < big(b) ? -1 : big(a) > big(b) ? 1 : 0) : Math.sign(Number(a) - Number(b)));
    if (schema.minimum !== undefined && cmp(value, schema.minimum) < 0) out.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && cmp(value, schema.maximum) > 0) out.push(`${at}: above ${schema.maximum}`);
  }
  if (typeOf(value) === "object") {
    for (const r of schema.required ?? []) if (!(r in value)) out.push(`${at}/${r}: required`);
    for (const [k, v] of Object.entries(value)) {
      if (schema.properties && k in schema.properties) out.push(...check(schema.properties[k], v, root, `${at}/${k}`));
      else if (schema.additionalProperties === false) out.push(`${at}/${k}: not allowed`);
    }
  }
  if (typeOf(value) === "array" && schema.items !== undefined) {
    value.forEach((v, i) => out.push(...check(schema.items, v, root, `${at}/${i}`)));
  }
  if (schema.oneOf) {
    const ok = schema.oneOf.filter((s) => check(s, value, root, at).length === 0).length;
    if (ok !== 1) out.push(`${at || "/"}: matches ${ok} of oneOf, not exactly 1`);
  }
  if (schema.anyOf && !schema.anyOf.some((s) => check(s, value, root, at).length === 0)) out.push(`${at || "/"}: matches none of anyOf`);
  if (schema.not && check(schema.not, value, root, at).length === 0) out.push(`${at || "/"}: matches a forbidden schema`);
  return out;
}
