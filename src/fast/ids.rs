//! A compact set of event ids (`J-ID-1`, `J-PARENT-1`): every id's bytes in one arena,
//! each after its length (LEB128, one byte below 128), and a `hashbrown::HashTable` of
//! the arena offsets where they start, found by an exact byte comparison (no false
//! positives). About 17 to 23 bytes per 10-byte id (the id, its length byte, and 6 to
//! 12 bytes of table: a 4-byte offset and a control byte per bucket, a power of two of
//! buckets at most 7/8 full), against ~120 for a `HashMap<String, u64>`. The table's
//! `u32` offsets name ids by where they start, so the set takes an id while the ids
//! before it fill at most [`MAX_START`] bytes of the arena; the fast path reports a
//! journal beyond that as an implementation limit (SPEC.md 16.5) instead of panicking.

use std::hash::{BuildHasher, Hasher};

/// The last arena offset an id may start at.
pub(crate) const MAX_START: usize = u32::MAX as usize;

pub(crate) struct IdSet {
    /// Each id as its length (LEB128) then its bytes, in insertion order.
    arena: Vec<u8>,
    /// Where the last id inserted starts in the arena: a journal's parent is most often
    /// the event just before, found without a probe.
    last: Option<usize>,
    /// The arena offset of every id, hashed by the id's bytes ([`hash`]).
    table: hashbrown::HashTable<u32>,
    /// The last arena offset an id may start at: [`MAX_START`], or less when asked
    /// ([`IdSet::with_max_start`]).
    pub(crate) max_start: usize,
}

impl Default for IdSet {
    fn default() -> IdSet {
        IdSet::with_max_start(MAX_START)
    }
}

/// A free place for an id ([`IdSet::vacant`], [`IdSet::insert_at`]): its hash.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vacant {
    hash: u64,
}

/// The id table's hash: foldhash's quality hasher with its fixed seed, so a run is
/// deterministic. (A rotate-xor-multiply hash over bytes, used before, gave 200,000 ids
/// `evt-0000000`..`evt-0199999` only 109,580 distinct values, and twice the probes.)
fn hash(b: &[u8]) -> u64 {
    let mut h = foldhash::quality::FixedState::with_seed(0).build_hasher();
    h.write(b);
    h.finish()
}

/// Append `n` as LEB128: seven bits a byte, low bits first, the high bit set on every
/// byte but the last.
fn push_len(arena: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        arena.push(n as u8 | 0x80);
        n >>= 7;
    }
    arena.push(n as u8);
}

/// The id whose record starts at `at`.
fn record(arena: &[u8], at: usize) -> &[u8] {
    let mut len = 0usize;
    let mut shift = 0;
    let mut i = at;
    loop {
        let b = arena[i];
        i += 1;
        len |= ((b & 0x7f) as usize) << shift;
        if b < 0x80 {
            return &arena[i..i + len];
        }
        shift += 7;
    }
}

/// Whether an id may start at arena offset `at` when ids may start up to `max_start`.
fn can_start(at: usize, max_start: usize) -> bool {
    at <= max_start
}

impl IdSet {
    /// A set whose ids may start up to arena offset `max_start` (at most [`MAX_START`],
    /// the last the table's offsets can name): a lower limit only to test the limit.
    pub fn with_max_start(max_start: usize) -> IdSet {
        IdSet {
            arena: Vec::new(),
            last: None,
            table: hashbrown::HashTable::new(),
            max_start: max_start.min(MAX_START),
        }
    }

    /// Whether the ids held fill the arena past its limit, so that no other id may be
    /// added.
    pub fn is_full(&self) -> bool {
        !can_start(self.arena.len(), self.max_start)
    }

    /// Whether `id`, whose hash is `h`, is in the set.
    fn find(&self, id: &[u8], h: u64) -> bool {
        let arena = &self.arena;
        self.table
            .find(h, |&at| record(arena, at as usize) == id)
            .is_some()
    }

    pub fn contains(&self, id: &[u8]) -> bool {
        if let Some(at) = self.last {
            if record(&self.arena, at) == id {
                return true;
            }
        }
        self.find(id, hash(id))
    }

    /// A free place for `id`, or `None` when `id` is in the set.
    pub fn vacant(&self, id: &[u8]) -> Option<Vacant> {
        let h = hash(id);
        (!self.find(id, h)).then_some(Vacant { hash: h })
    }

    /// Add `id`, which [`IdSet::vacant`] found free (no insertion in between).
    pub fn insert_at(&mut self, Vacant { hash: h }: Vacant, id: &[u8]) {
        // `is_full` was checked by the caller: the id starts at most at `max_start`.
        let start = self.arena.len();
        self.last = Some(start);
        push_len(&mut self.arena, id.len());
        self.arena.extend_from_slice(id);
        let arena = &self.arena;
        self.table
            .insert_unique(h, start as u32, |&at| hash(record(arena, at as usize)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_membership_through_growth() {
        let mut set = IdSet::default();
        let mut model = std::collections::HashSet::new();
        for i in 0..5000u32 {
            let id = format!("evt-{}", i * 7 % 3001);
            assert_eq!(set.contains(id.as_bytes()), model.contains(&id), "{id}");
            let vacant = set.vacant(id.as_bytes());
            assert_eq!(vacant.is_some(), !model.contains(&id));
            if let Some(slot) = vacant {
                model.insert(id.clone());
                set.insert_at(slot, id.as_bytes());
            }
        }
        assert!(set.contains(b"evt-0"));
        assert!(!set.contains(b"evt-"));
        assert!(!set.contains(b""));
        assert_eq!(set.table.len(), model.len());
    }

    /// Ids whose lengths take one, two and three LEB128 bytes, and ids that are prefixes
    /// of one another: each is found exactly, through the growths that rebuild the table
    /// by walking the arena.
    #[test]
    fn lengths_of_every_width() {
        let lens = [
            0usize, 1, 2, 126, 127, 128, 129, 255, 256, 16_383, 16_384, 20_000,
        ];
        let mut set = IdSet::default();
        let mut ids = Vec::new();
        for round in 0..200u32 {
            for &len in &lens {
                let mut id = vec![b'a' + (round % 26) as u8; len];
                if len > 0 {
                    id[len - 1] = b'0' + (round % 10) as u8;
                }
                if let Some(slot) = set.vacant(&id) {
                    set.insert_at(slot, &id);
                    ids.push(id);
                }
            }
        }
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        assert_eq!(set.table.len(), ids.len());
        for id in &ids {
            assert!(set.contains(id), "length {}", id.len());
            let mut longer = id.clone();
            longer.push(b'!');
            assert!(!set.contains(&longer), "length {} + 1", id.len());
        }
        let expected: usize = ids
            .iter()
            .map(|id| id.len() + 1 + (id.len() >= 128) as usize + (id.len() >= 16_384) as usize)
            .sum();
        assert_eq!(
            set.arena.len(),
            expected,
            "one LEB128 length before each id"
        );
    }

    /// The last id inserted is found without a probe; ids next to it (its prefix, one
    /// byte longer) are not, on an empty set nothing is.
    #[test]
    fn the_last_id_is_found_and_only_it() {
        let mut set = IdSet::default();
        assert!(!set.contains(b""));
        assert!(!set.contains(b"evt-1"));
        for i in 0..3000u32 {
            let id = format!("evt-{i}");
            let slot = set.vacant(id.as_bytes()).expect("new");
            set.insert_at(slot, id.as_bytes());
            assert!(set.contains(id.as_bytes()), "{id}");
            assert!(set.contains(b"evt-0"));
            assert!(!set.contains(format!("{id}0").as_bytes()), "{id}0");
            // Its prefix is `evt-` (never inserted) below 10, else `evt-{i / 10}` (inserted).
            assert_eq!(
                set.contains(&id.as_bytes()[..id.len() - 1]),
                i >= 10,
                "{id}"
            );
            assert!(!set.contains(format!("evt-{}", i + 1).as_bytes()));
        }
    }

    /// The hash spreads the ids journals use (sequential numbers after a prefix, uuids,
    /// short counters): every id gets its own hash (the hash used before gave `evt-%07d`
    /// 109,580 hashes for 200,000 ids), and each is found. Counted, not timed.
    #[test]
    fn the_hash_spreads_sequential_ids() {
        let shapes: [fn(u32) -> String; 3] = [
            |i| format!("evt-{i:07}"),
            |i| format!("e{i}"),
            |i| {
                format!(
                    "{:08x}-0000-4000-8000-{:012x}",
                    i.wrapping_mul(2_654_435_761),
                    i
                )
            },
        ];
        for shape in shapes {
            let ids: Vec<String> = (0..200_000).map(shape).collect();
            let hashes: std::collections::HashSet<u64> =
                ids.iter().map(|id| hash(id.as_bytes())).collect();
            assert_eq!(hashes.len(), ids.len(), "{}", ids[1]);
            let mut set = IdSet::default();
            for id in &ids {
                let slot = set.vacant(id.as_bytes()).expect("distinct ids");
                set.insert_at(slot, id.as_bytes());
            }
            assert_eq!(set.table.len(), ids.len());
            assert!(ids.iter().all(|id| set.contains(id.as_bytes())));
        }
    }

    #[test]
    fn an_id_may_start_at_max_start_and_no_later() {
        assert!(can_start(0, MAX_START));
        assert!(can_start(MAX_START, MAX_START));
        assert!(!can_start(MAX_START + 1, MAX_START));
        // The table's u32 holds an id starting at MAX_START.
        assert_eq!(MAX_START as u32 as usize, MAX_START);
        assert!(!IdSet::default().is_full());
    }
}
