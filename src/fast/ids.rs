//! A compact set of event ids (`J-ID-1`, `J-PARENT-1`): every id's bytes in one arena,
//! an open-addressing table of indices into it, exact byte comparison on every probe
//! (no false positives). About 30 bytes per short id, against ~120 for a
//! `HashMap<String, u64>`. Id ends are `u64` (any total of id bytes); the table's
//! `u32` slots hold at most [`MAX_IDS`] ids, and the fast path reports a journal with
//! more events as an implementation limit (SPEC.md 16.5) instead of panicking.

/// The most ids the set holds (slot value 0 is empty, `i + 1` names id `i`).
pub(crate) const MAX_IDS: usize = u32::MAX as usize - 1;

#[derive(Default)]
pub(crate) struct IdSet {
    arena: Vec<u8>,
    /// `ends[i]` is the end of id `i` in the arena; it starts at `ends[i - 1]` (or 0).
    ends: Vec<u64>,
    /// Slot value 0 is empty, `i + 1` names id `i`. At most three quarters full and
    /// grown by half (4 to 8 bytes per id); the slot of a hash is `hash * len >> 64`.
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

impl IdSet {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the set holds [`MAX_IDS`] ids and can take no more.
    pub fn is_full(&self) -> bool {
        self.len() >= MAX_IDS
    }

    fn id(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    /// The slot holding `id`, or the empty slot where it would go.
    fn slot(&self, id: &[u8]) -> usize {
        let len = self.table.len();
        let mut s = ((hash(id) as u128 * len as u128) >> 64) as usize;
        loop {
            match self.table[s] {
                0 => return s,
                n if self.id(n as usize - 1) == id => return s,
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
        let s = slot;
        self.arena.extend_from_slice(id);
        self.ends.push(self.arena.len() as u64);
        // `is_full` was checked by the caller: at most MAX_IDS ids, so this fits.
        self.table[s] = self.ends.len() as u32;
    }

    fn grow(&mut self) {
        let cap = (self.table.len() * 3 / 2).max(1024);
        // The ids are in the arena: free the old table before the new one is made, so the
        // two are never resident together (the peak is the new table, not both).
        self.table = Vec::new();
        self.table = vec![0; cap];
        for i in 0..self.len() {
            let s = self.slot(self.id(i));
            self.table[s] = i as u32 + 1;
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
}
