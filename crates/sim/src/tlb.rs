//! Set-associative TLBs with true LRU replacement.
//!
//! Each set is a slice of `ways` entries kept in recency order (most recent
//! first), so a hit moves its entry to the front and a fill evicts the last.
//! With 4- to 12-way sets this is a handful of moves, cheaper than age counters.

/// A cached translation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlbEntry {
    /// `tag(asid, vpn, huge)`; `INVALID` when empty.
    pub tag: u64,
    /// First 4 KiB frame of the page.
    pub frame: u64,
    /// Index of the page's leaf (PTE or deposited) table, for ground-truth counts.
    pub leaf: u32,
    /// Tier of the frame.
    pub tier: u8,
    /// The translation was formed with Dirty set (writes need no walk).
    pub dirty: bool,
    /// Maps 2 MiB.
    pub huge: bool,
}

/// The tag of an empty entry.
pub const INVALID: u64 = u64::MAX;

impl TlbEntry {
    /// An empty entry.
    pub const EMPTY: TlbEntry = TlbEntry {
        tag: INVALID,
        frame: 0,
        leaf: 0,
        tier: 0,
        dirty: false,
        huge: false,
    };
}

/// The tag of a translation: address space, page number and size.
#[inline]
pub fn tag(asid: u16, va: u64, huge: bool) -> u64 {
    let vpn = if huge { va >> 21 } else { va >> 12 };
    (u64::from(asid) << 48) | (u64::from(huge) << 47) | vpn
}

/// The address space of a tag.
#[inline]
pub fn tag_asid(tag: u64) -> u16 {
    (tag >> 48) as u16
}

/// One set-associative TLB.
#[derive(Clone, Debug)]
pub struct Tlb {
    set_mask: u64,
    ways: usize,
    entries: Vec<TlbEntry>,
}

/// The largest TLB simulated (every core holds its own): 40 times a
/// Skylake STLB, and a bound on the memory a configuration can ask for.
const MAX_TLB_ENTRIES: usize = 1 << 16;

impl Tlb {
    /// `entries` total, `ways` per set; the set count must be a power of two.
    pub fn new(entries: usize, ways: usize) -> Result<Self, String> {
        if entries > MAX_TLB_ENTRIES {
            return Err(format!(
                "TLB of {entries} entries: at most {MAX_TLB_ENTRIES} are simulated"
            ));
        }
        if ways == 0 || entries == 0 || !entries.is_multiple_of(ways) {
            return Err(format!(
                "TLB of {entries} entries cannot be {ways}-way set-associative"
            ));
        }
        let sets = entries / ways;
        if !sets.is_power_of_two() {
            return Err(format!(
                "TLB of {entries} entries, {ways}-way, has {sets} sets: not a power of two"
            ));
        }
        Ok(Tlb {
            set_mask: sets as u64 - 1,
            ways,
            entries: vec![TlbEntry::EMPTY; entries],
        })
    }

    #[inline]
    fn set(&mut self, tag: u64) -> &mut [TlbEntry] {
        // Index by the low bits of the page number (the tag's low bits).
        let s = (tag & self.set_mask) as usize * self.ways;
        &mut self.entries[s..s + self.ways]
    }

    /// Looks `tag` up; a hit becomes most recently used.
    #[inline]
    pub fn lookup(&mut self, tag: u64) -> Option<TlbEntry> {
        let set = self.set(tag);
        let pos = set.iter().position(|e| e.tag == tag)?;
        let e = set[pos];
        set.copy_within(0..pos, 1);
        set[0] = e;
        Some(e)
    }

    /// Inserts `e` as most recently used, evicting the least recently used entry
    /// of its set (or replacing an entry with the same tag).
    #[inline]
    pub fn insert(&mut self, e: TlbEntry) -> Option<TlbEntry> {
        let set = self.set(e.tag);
        let pos = set
            .iter()
            .position(|x| x.tag == e.tag)
            .unwrap_or(set.len() - 1);
        let victim = set[pos];
        set.copy_within(0..pos, 1);
        set[0] = e;
        (victim.tag != INVALID && victim.tag != e.tag).then_some(victim)
    }

    /// Updates the entry with `tag` in place, if present, without touching LRU order.
    pub fn update(&mut self, tag: u64, f: impl Fn(&mut TlbEntry)) {
        if let Some(e) = self.set(tag).iter_mut().find(|e| e.tag == tag) {
            f(e);
        }
    }

    /// Invalidates the entry with `tag`, if present.
    pub fn invalidate(&mut self, tag: u64) {
        let set = self.set(tag);
        if let Some(pos) = set.iter().position(|e| e.tag == tag) {
            // Keep the remaining entries in recency order; the hole goes last.
            set.copy_within(pos + 1.., pos);
            let last = set.len() - 1;
            set[last] = TlbEntry::EMPTY;
        }
    }

    /// Invalidates every entry of `asid`.
    pub fn invalidate_asid(&mut self, asid: u16) {
        let ways = self.ways;
        for set in self.entries.chunks_mut(ways) {
            let mut kept: Vec<TlbEntry> = set
                .iter()
                .copied()
                .filter(|e| e.tag != INVALID && tag_asid(e.tag) != asid)
                .collect();
            kept.resize(ways, TlbEntry::EMPTY);
            set.copy_from_slice(&kept);
        }
    }

    /// Number of valid entries.
    pub fn len(&self) -> usize {
        self.entries.iter().filter(|e| e.tag != INVALID).count()
    }

    /// Whether no entry is valid.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(tag: u64) -> TlbEntry {
        TlbEntry {
            tag,
            ..TlbEntry::EMPTY
        }
    }

    #[test]
    fn lru_evicts_least_recent_of_the_set() {
        // 2 sets x 2 ways: tags 0, 2, 4 share set 0.
        let mut t = Tlb::new(4, 2).unwrap();
        assert!(t.insert(entry(0)).is_none());
        assert!(t.insert(entry(2)).is_none());
        assert!(t.lookup(0).is_some()); // 0 is now MRU, 2 LRU
        let v = t.insert(entry(4)).unwrap();
        assert_eq!(v.tag, 2);
        assert!(t.lookup(2).is_none());
        assert!(t.lookup(0).is_some() && t.lookup(4).is_some());
        assert!(t.insert(entry(1)).is_none(), "set 1 is independent");
    }

    #[test]
    fn rejects_bad_geometry() {
        assert!(Tlb::new(1536, 12).is_ok());
        assert!(Tlb::new(64, 3).is_err());
        assert!(Tlb::new(96, 4).is_err());
    }

    /// Reference model: per set, a Vec in recency order.
    #[derive(Default)]
    struct Model {
        sets: Vec<Vec<u64>>,
    }

    impl Model {
        fn new(sets: usize) -> Self {
            Model {
                sets: vec![Vec::new(); sets],
            }
        }
        fn lookup(&mut self, tag: u64) -> bool {
            let n = self.sets.len();
            let s = &mut self.sets[(tag as usize) % n];
            if let Some(p) = s.iter().position(|&t| t == tag) {
                let t = s.remove(p);
                s.insert(0, t);
                true
            } else {
                false
            }
        }
        fn insert(&mut self, tag: u64, ways: usize) {
            let n = self.sets.len();
            let s = &mut self.sets[(tag as usize) % n];
            if let Some(p) = s.iter().position(|&t| t == tag) {
                s.remove(p);
            }
            s.insert(0, tag);
            s.truncate(ways);
        }
        fn invalidate(&mut self, tag: u64) {
            let n = self.sets.len();
            let s = &mut self.sets[(tag as usize) % n];
            s.retain(|&t| t != tag);
        }
    }

    proptest! {
        /// Random lookups, fills and invalidations agree with a trivially
        /// correct per-set recency list after every step.
        #[test]
        fn tlb_matches_lru_model(ops in proptest::collection::vec((0u8..3, 0u64..40), 1..400)) {
            let (entries, ways) = (16, 4);
            let mut t = Tlb::new(entries, ways).unwrap();
            let mut m = Model::new(entries / ways);
            for (op, tag) in ops {
                match op {
                    0 => prop_assert_eq!(t.lookup(tag).is_some(), m.lookup(tag)),
                    1 => { t.insert(entry(tag)); m.insert(tag, ways); }
                    _ => { t.invalidate(tag); m.invalidate(tag); }
                }
                let total: usize = m.sets.iter().map(|s| s.len()).sum();
                prop_assert_eq!(t.len(), total);
            }
        }
    }
}
