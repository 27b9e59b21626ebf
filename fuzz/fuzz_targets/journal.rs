#![no_main]
//! `cargo +nightly fuzz run journal`: the body and its invariants live in `fuzz/targets.rs`.

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::journal(data));
