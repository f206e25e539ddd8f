//! Paging-structure caches (Intel SDM vol. 3A 4.10.3): the PML4 cache, the
//! PDPTE cache and the PDE cache. Each maps the upper bits of a virtual address
//! to the next table of the walk, so a walk that hits skips the upper levels and
//! does not set their Accessed bits again.
//!
//! Modelled as small fully associative LRU caches. The SDM gives no sizes; the
//! defaults (2 / 4 / 32 entries) are *inferred* from published reverse-engineering
//! of Intel cores and are configurable.

use crate::lru::Ways;

/// One paging-structure cache: keys are `(asid, va >> shift)`, values table indices.
#[derive(Clone, Debug)]
pub struct Psc {
    /// One fully associative set of `capacity` ways, each with its table.
    ways: Ways<u32>,
    capacity: usize,
}

impl Psc {
    /// A cache of `capacity` entries (0 disables it).
    pub fn new(capacity: usize) -> Self {
        Psc {
            ways: Ways::new(1, capacity),
            capacity,
        }
    }

    /// The cache key of (asid, va) for a cache indexed by `va >> shift`.
    #[inline]
    pub fn key(asid: u16, va: u64, shift: u32) -> u64 {
        (u64::from(asid) << 48) | ((va & ((1 << 48) - 1)) >> shift)
    }

    /// Looks `key` up; a hit becomes most recent.
    #[inline(always)]
    pub fn lookup(&mut self, key: u64) -> Option<u32> {
        // Walks mostly repeat the most recent upper-level entry.
        self.ways.lookup(0, key, true)
    }

    /// Inserts or refreshes `key`.
    pub fn insert(&mut self, key: u64, table: u32) {
        if self.capacity > 0 {
            // A new key takes the least recent way: an empty one while the
            // cache is not full.
            self.ways.insert(0, key, table);
        }
    }

    /// Inserts `key`, which the cache does not hold (a lookup just missed):
    /// [`Psc::insert`] without the search.
    #[inline(always)]
    pub(crate) fn insert_absent(&mut self, key: u64, table: u32) {
        if self.capacity > 0 {
            self.ways.insert_absent(0, key, table);
        }
    }

    /// Drops every entry of `asid` (INVLPG drops all PSC entries of the PCID).
    pub fn flush_asid(&mut self, asid: u16) {
        self.ways.invalidate_where(|k| (k >> 48) as u16 == asid);
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.ways.len()
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reference model: the previous implementation, a Vec in recency order.
    struct Model {
        entries: Vec<(u64, u32)>,
        capacity: usize,
    }

    impl Model {
        fn lookup(&mut self, key: u64) -> Option<u32> {
            let pos = self.entries.iter().position(|e| e.0 == key)?;
            let e = self.entries.remove(pos);
            self.entries.insert(0, e);
            Some(e.1)
        }
        fn insert(&mut self, key: u64, table: u32) {
            if self.capacity == 0 {
                return;
            }
            if let Some(pos) = self.entries.iter().position(|e| e.0 == key) {
                self.entries.remove(pos);
            } else if self.entries.len() == self.capacity {
                self.entries.pop();
            }
            self.entries.insert(0, (key, table));
        }
        fn flush_asid(&mut self, asid: u16) {
            self.entries.retain(|e| (e.0 >> 48) as u16 != asid);
        }
    }

    proptest! {
        /// Lookups, fills and flushes agree with a recency-ordered list.
        #[test]
        fn psc_matches_lru_model(
            capacity in 0usize..40,
            ops in proptest::collection::vec((0u8..4, 0u64..3, 0u64..60, 0u32..1000), 1..400),
        ) {
            let mut p = Psc::new(capacity);
            let mut m = Model { entries: Vec::new(), capacity };
            for (op, asid, k, t) in ops {
                let key = (asid << 48) | k;
                match op {
                    0 | 1 => prop_assert_eq!(p.lookup(key), m.lookup(key)),
                    2 => { p.insert(key, t); m.insert(key, t); }
                    _ => { p.flush_asid(asid as u16); m.flush_asid(asid as u16); }
                }
                prop_assert_eq!(p.len(), m.entries.len());
            }
        }
    }
}
