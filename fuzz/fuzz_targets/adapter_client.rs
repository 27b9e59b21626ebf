#![no_main]
//! `cargo fuzz run adapter_client`: the body and its invariants live in `fuzz/targets.rs`.

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::adapter_client(data));
