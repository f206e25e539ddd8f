//! Paging-structure caches (Intel SDM vol. 3A 4.10.3): the PML4 cache, the
//! PDPTE cache and the PDE cache. Each maps the upper bits of a virtual address
//! to the next table of the walk, so a walk that hits skips the upper levels and
//! does not set their Accessed bits again.
//!
//! Modelled as small fully associative LRU caches. The SDM gives no sizes; the
//! defaults (2 / 4 / 32 entries) are *inferred* from published reverse-engineering
//! of Intel cores and are configurable.

/// One paging-structure cache: keys are `(asid, va >> shift)`, values table indices.
#[derive(Clone, Debug)]
pub struct Psc {
    /// Most recent first.
    entries: Vec<(u64, u32)>,
    capacity: usize,
}

impl Psc {
    /// A cache of `capacity` entries (0 disables it).
    pub fn new(capacity: usize) -> Self {
        Psc {
            entries: Vec::with_capacity(capacity),
            capacity,
        }
    }

    /// The cache key of (asid, va) for a cache indexed by `va >> shift`.
    #[inline]
    pub fn key(asid: u16, va: u64, shift: u32) -> u64 {
        (u64::from(asid) << 48) | ((va & ((1 << 48) - 1)) >> shift)
    }

    /// Looks `key` up; a hit becomes most recent.
    #[inline]
    pub fn lookup(&mut self, key: u64) -> Option<u32> {
        let pos = self.entries.iter().position(|e| e.0 == key)?;
        let e = self.entries[pos];
        self.entries.copy_within(0..pos, 1);
        self.entries[0] = e;
        Some(e.1)
    }

    /// Inserts or refreshes `key`.
    #[inline]
    pub fn insert(&mut self, key: u64, table: u32) {
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

    /// Drops every entry of `asid` (INVLPG drops all PSC entries of the PCID).
    pub fn flush_asid(&mut self, asid: u16) {
        self.entries.retain(|e| (e.0 >> 48) as u16 != asid);
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
