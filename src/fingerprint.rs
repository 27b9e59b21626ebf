//! The fingerprint (SPEC.md section "Fingerprint", rules `F-*`).
//!
//! This module owns incremental hashing of the canonical JSON text of the ARRAY of
//! selected events: `sha256("[" + canon(e0) + "," + canon(e1) + ... + "]")`, lowercase
//! hex. Events are hashed as they stream by; no array is ever built.

use sha2::{Digest, Sha256};

use crate::canonical;
use crate::json::Value;

/// An incremental fingerprint over a sequence of JSON values.
#[derive(Clone, Debug)]
pub struct Fingerprinter {
    hasher: Sha256,
    count: u64,
    buf: Vec<u8>,
}

impl Default for Fingerprinter {
    fn default() -> Self {
        Fingerprinter::new()
    }
}

impl Fingerprinter {
    pub fn new() -> Fingerprinter {
        let mut hasher = Sha256::new();
        hasher.update(b"[");
        Fingerprinter {
            hasher,
            count: 0,
            buf: Vec::with_capacity(4096),
        }
    }

    /// Add the next element of the array.
    pub fn push(&mut self, v: &Value) {
        self.buf.clear();
        if self.count > 0 {
            self.buf.push(b',');
        }
        canonical::write(v, &mut self.buf);
        self.hasher.update(&self.buf);
        self.count += 1;
    }

    /// How many values were pushed.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The lowercase hex digest of the array so far (the state is not consumed).
    pub fn hex(&self) -> String {
        let mut h = self.hasher.clone();
        h.update(b"]");
        hex(&h.finalize())
    }
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 0xf) as usize] as char);
    }
    s
}

/// SHA-256 of arbitrary bytes, lowercase hex (`canonical --sha256`).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The fingerprint of a slice of values (convenience for tests and small inputs).
pub fn of_values<'a>(values: impl IntoIterator<Item = &'a Value>) -> String {
    let mut f = Fingerprinter::new();
    for v in values {
        f.push(v);
    }
    f.hex()
}
