//! The fingerprint (SPEC.md section "Fingerprint", rules `F-*`).
//!
//! This module owns incremental hashing of the canonical JSON text of the ARRAY of
//! selected events: `sha256("[" + canon(e0) + "," + canon(e1) + ... + "]")`, lowercase
//! hex. Events are hashed as they stream by; no array is ever built.

use sha2::digest::generic_array::GenericArray;
use sha2::{Digest, Sha256};

use crate::canonical;
use crate::json::Value;

/// SHA-256 whose running state can be saved and restored (a checkpoint carries it so
/// replay from a checkpoint never re-hashes the prefix, `K-STATE-1`). The compression
/// function is sha2's; this type only keeps the chaining value, the pending partial
/// block and the length, and applies the standard padding at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sha256State {
    h: [u32; 8],
    pending: Vec<u8>,
    length: u64,
}

const SHA256_IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

impl Default for Sha256State {
    fn default() -> Self {
        Sha256State {
            h: SHA256_IV,
            pending: Vec::with_capacity(64),
            length: 0,
        }
    }
}

impl Sha256State {
    pub fn new() -> Sha256State {
        Sha256State::default()
    }

    fn compress(h: &mut [u32; 8], blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % 64, 0);
        for block in blocks.chunks_exact(64) {
            sha2::compress256(h, std::slice::from_ref(GenericArray::from_slice(block)));
        }
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.length += data.len() as u64;
        if !self.pending.is_empty() {
            let take = (64 - self.pending.len()).min(data.len());
            self.pending.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.pending.len() < 64 {
                return;
            }
            Self::compress(&mut self.h, &self.pending);
            self.pending.clear();
        }
        let whole = data.len() / 64 * 64;
        Self::compress(&mut self.h, &data[..whole]);
        self.pending.extend_from_slice(&data[whole..]);
    }

    /// The digest of everything so far (the state is not consumed).
    pub fn digest(&self) -> [u8; 32] {
        let mut h = self.h;
        let mut tail = self.pending.clone();
        tail.push(0x80);
        while tail.len() % 64 != 56 {
            tail.push(0);
        }
        tail.extend_from_slice(&(self.length.wrapping_mul(8)).to_be_bytes());
        Self::compress(&mut h, &tail);
        let mut out = [0u8; 32];
        for (i, w) in h.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// `{"h": [8 lowercase hex words], "pending": hex, "length": bytes hashed}`.
    pub fn to_json(&self) -> Value {
        Value::object([
            (
                "h",
                Value::Array(
                    self.h
                        .iter()
                        .map(|w| Value::from(format!("{w:08x}")))
                        .collect(),
                ),
            ),
            ("pending", Value::from(hex(&self.pending))),
            ("length", Value::from_u64(self.length)),
        ])
    }

    pub fn from_json(v: &Value) -> Option<Sha256State> {
        let hv = v.get("h")?.as_array()?;
        if hv.len() != 8 {
            return None;
        }
        let mut h = [0u32; 8];
        for (i, w) in hv.iter().enumerate() {
            let s = w.as_str()?;
            if s.len() != 8 {
                return None;
            }
            h[i] = u32::from_str_radix(s, 16).ok()?;
        }
        let p = v.get("pending")?.as_str()?;
        if p.len() % 2 != 0 || p.len() >= 128 {
            return None;
        }
        let pending = (0..p.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(p.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        let length: u64 = match v.get("length")? {
            Value::Number(crate::json::Number::Int(s)) => s.parse().ok()?,
            _ => return None,
        };
        if length % 64 != pending.len() as u64 {
            return None;
        }
        Some(Sha256State { h, pending, length })
    }
}

/// An incremental fingerprint over a sequence of JSON values.
#[derive(Clone, Debug)]
pub struct Fingerprinter {
    hasher: Sha256State,
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
        let mut hasher = Sha256State::new();
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

    /// Add the next element given as its canonical text (for callers that need the
    /// canonical bytes anyway, so they are written once).
    pub fn push_canonical(&mut self, canonical_text: &[u8]) {
        if self.count > 0 {
            self.hasher.update(b",");
        }
        self.hasher.update(canonical_text);
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
        hex(&h.digest())
    }

    /// The resumable state: the hash of `[` and the values so far, and their count.
    pub fn state(&self) -> (&Sha256State, u64) {
        (&self.hasher, self.count)
    }

    /// Continue from a saved state of `count` values.
    pub fn resume(hasher: Sha256State, count: u64) -> Fingerprinter {
        Fingerprinter {
            hasher,
            count,
            buf: Vec::with_capacity(4096),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resumable_sha256_matches_sha2_at_every_split() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 55, 56, 63, 64, 65, 119, 128, 300] {
            for split in [0, 1, len / 2, len] {
                let mut s = Sha256State::new();
                s.update(&data[..split.min(len)]);
                let saved = Sha256State::from_json(&s.to_json()).expect("state round-trips");
                let mut r = saved;
                r.update(&data[split.min(len)..len]);
                assert_eq!(
                    hex(&r.digest()),
                    sha256_hex(&data[..len]),
                    "len {len} split {split}"
                );
            }
        }
    }
}
