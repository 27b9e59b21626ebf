#![no_main]
//! `cargo fuzz run against_reference` (nightly), or on stable with
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none against_reference`: every input is
//! asked of `Mine` (src/mine.rs) and of the kit's reference, in process, and a difference
//! panics with both answers (journal_conformance::oracle::check).

#[path = "../src/mine.rs"]
mod mine;

use std::cell::RefCell;

thread_local! {
    static MINE: RefCell<mine::Mine> = RefCell::new(mine::Mine::default());
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    MINE.with(|m| {
        if let Err(mismatch) = journal_conformance::oracle::check(&mut *m.borrow_mut(), data) {
            panic!("the implementation differs from the reference:\n{mismatch}");
        }
    });
});
