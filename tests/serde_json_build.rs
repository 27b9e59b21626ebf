//! The yoagent-0.26 dialect reads numbers as serde_json does in a default build (SPEC.md's
//! T-YO rules; the real crate's expectations in conformance/tree-yoagent/ were recorded that
//! way). Cargo unifies features across a build, so any dependency that turns on serde_json's
//! `float_roundtrip` (jsonschema does, which is why tools/schema-check is a package of its own)
//! silently changes those numbers and five yoagent vectors fail for a reason that looks like
//! a bug of the dialect. This test says what happened instead.

#[test]
fn serde_json_is_built_without_float_roundtrip() {
    // From conformance/tree-yoagent/categories.json, save-number-serde-rounding: the real
    // yoagent crate (serde_json's default parser, not correctly rounded) reads this long
    // decimal as 9.901320332740344e63; a correctly rounded parser gives ...342e63.
    let v: f64 = serde_json::from_str("9.901320332740342907154673e63").unwrap();
    assert_eq!(
        v, 9.901320332740344e63,
        "serde_json is built with float_roundtrip in this build (a dependency turned it on: \
         `cargo tree -e features -i serde_json`); the yoagent-0.26 dialect's numbers would \
         differ from the real crate's"
    );
}
