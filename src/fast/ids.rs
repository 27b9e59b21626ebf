//! A compact set of event ids (`J-ID-1`, `J-PARENT-1`): every id's bytes in one arena,
//! each after its length (LEB128, one byte below 128), an open-addressing table of the
//! arena offsets where they start, and an exact byte comparison on every probe (no false
//! positives). About 16 bytes per 10-byte id (the id, its length byte, 4 to 8 bytes of
//! table), against ~120 for a `HashMap<String, u64>`. The table's `u32` slots name ids
//! by where they start, so the set takes an id while the ids before it fill at most
//! [`MAX_START`] bytes of the arena; the fast path reports a journal beyond that as an
//! implementation limit (SPEC.md 16.5) instead of panicking.

/// The last arena offset an id may start at (slot value 0 is empty, `o + 1` names the
/// id that starts at `o`).
pub(crate) const MAX_START: usize = u32::MAX as usize - 1;

#[derive(Default)]
pub(crate) struct IdSet {
    /// Each id as its length (LEB128) then its bytes, in insertion order.
    arena: Vec<u8>,
    count: usize,
    /// Slot value 0 is empty, `o + 1` names the id whose length starts at `arena[o]`. At
    /// most three quarters full and grown by half (4 to 8 bytes per id); the slot of a
    /// hash is `hash * len >> 64`.
    table: Vec<u32>,
}

fn hash(b: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h: u64 = b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(c.try_into().unwrap())).wrapping_mul(K);
    }
    for &x in chunks.remainder() {
        h = (h.rotate_left(5) ^ x as u64).wrapping_mul(K);
    }
    // The slot takes the high bits (`hash * len >> 64`): mix the low ones up.
    h ^ (h << 29) ^ (h << 47)
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

/// The id whose record starts at `at`, and where the next record starts.
fn record(arena: &[u8], at: usize) -> (&[u8], usize) {
    let mut len = 0usize;
    let mut shift = 0;
    let mut i = at;
    loop {
        let b = arena[i];
        i += 1;
        len |= ((b & 0x7f) as usize) << shift;
        if b < 0x80 {
            return (&arena[i..i + len], i + len);
        }
        shift += 7;
    }
}

/// Whether a slot can name an id that starts at arena offset `at`.
fn can_start(at: usize) -> bool {
    at <= MAX_START
}

impl IdSet {
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the ids held fill the arena up to [`MAX_START`], so that no other id can
    /// be named by a slot.
    pub fn is_full(&self) -> bool {
        !can_start(self.arena.len())
    }

    /// The slot holding `id`, or the empty slot where it would go.
    fn slot(&self, id: &[u8]) -> usize {
        let len = self.table.len();
        let mut s = ((hash(id) as u128 * len as u128) >> 64) as usize;
        loop {
            match self.table[s] {
                0 => return s,
                n if record(&self.arena, n as usize - 1).0 == id => return s,
                _ => s = if s + 1 == len { 0 } else { s + 1 },
            }
        }
    }

    pub fn contains(&self, id: &[u8]) -> bool {
        !self.table.is_empty() && self.table[self.slot(id)] != 0
    }

    /// Make room for one more id (call before [`IdSet::vacant`]).
    pub fn reserve_one(&mut self) {
        if (self.len() + 1) * 4 > self.table.len() * 3 {
            self.grow();
        }
    }

    /// The free slot for `id`, or `None` when `id` is in the set (one probe sequence
    /// for the duplicate check and the insertion).
    pub fn vacant(&self, id: &[u8]) -> Option<usize> {
        let s = self.slot(id);
        (self.table[s] == 0).then_some(s)
    }

    /// Add `id` at the slot [`IdSet::vacant`] gave (no insertion in between).
    pub fn insert_at(&mut self, slot: usize, id: &[u8]) {
        debug_assert_eq!(self.table[slot], 0, "inserted twice");
        // `is_full` was checked by the caller: the id starts at most at MAX_START.
        let start = self.arena.len();
        push_len(&mut self.arena, id.len());
        self.arena.extend_from_slice(id);
        self.count += 1;
        self.table[slot] = start as u32 + 1;
    }

    fn grow(&mut self) {
        let cap = (self.table.len() * 3 / 2).max(1024);
        // The ids are in the arena: free the old table before the new one is made, so the
        // two are never resident together (the peak is the new table, not both).
        self.table = Vec::new();
        self.table = vec![0; cap];
        let mut at = 0;
        while at < self.arena.len() {
            let (id, next) = record(&self.arena, at);
            let s = self.slot(id);
            self.table[s] = at as u32 + 1;
            at = next;
        }
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
            set.reserve_one();
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
        assert_eq!(set.len(), model.len());
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
                set.reserve_one();
                if let Some(slot) = set.vacant(&id) {
                    set.insert_at(slot, &id);
                    ids.push(id);
                }
            }
        }
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        assert_eq!(set.len(), ids.len());
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

    #[test]
    fn an_id_may_start_at_max_start_and_no_later() {
        assert!(can_start(0));
        assert!(can_start(MAX_START));
        assert!(!can_start(MAX_START + 1));
        // The slot of an id starting at MAX_START is u32::MAX, not the empty 0.
        assert_eq!(MAX_START as u32 + 1, u32::MAX);
        assert!(!IdSet::default().is_full());
    }
}
