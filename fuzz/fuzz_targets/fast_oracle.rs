#![no_main]
//! `cargo +nightly fuzz run fast_oracle`: the body and its invariants live in `fuzz/targets.rs`.

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::fast_oracle(data));
