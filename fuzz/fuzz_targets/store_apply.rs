#![no_main]
//! `fuzz/run.sh store_apply`: the body and its invariants live in `fuzz/targets.rs`.

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::store_apply(data));
