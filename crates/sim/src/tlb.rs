//! Set-associative TLBs with true LRU replacement.
//!
//! The tags and their recency order live in [`crate::lru`]; a hit, a fill or
//! an invalidation updates the order without moving entries.

use crate::lru::{SmallSets, Ways};
use thermocline_model::config::tlb_sets;

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
pub const INVALID: u64 = crate::lru::INVALID;

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

/// A translation without its tag: what a TLB way holds besides its tag,
/// and what the machine passes around for an access. Packed into two words
/// (frame, tier and flags in one) so that a fill stores, and a function
/// returns, two registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Translation {
    /// Bits 0..48: the first 4 KiB frame of the page (a page-table target,
    /// below 2^39); 48..56: its tier; 56: Dirty; 57: maps 2 MiB.
    word: u64,
    /// Index of the page's leaf (PTE or deposited) table.
    pub leaf: u32,
}

const FRAME_MASK: u64 = (1 << 48) - 1;
const TIER_SHIFT: u32 = 48;
const DIRTY: u64 = 1 << 56;
const HUGE: u64 = 1 << 57;

impl Translation {
    /// The translation to `frame` (below 2^48) in `tier` through leaf table
    /// `leaf`.
    #[inline(always)]
    pub(crate) fn new(frame: u64, leaf: u32, tier: u8, dirty: bool, huge: bool) -> Self {
        debug_assert!(frame <= FRAME_MASK);
        Translation {
            word: frame
                | u64::from(tier) << TIER_SHIFT
                | if dirty { DIRTY } else { 0 }
                | if huge { HUGE } else { 0 },
            leaf,
        }
    }

    /// First 4 KiB frame of the page.
    #[inline(always)]
    pub(crate) fn frame(self) -> u64 {
        self.word & FRAME_MASK
    }

    /// Tier of the frame.
    #[inline(always)]
    pub(crate) fn tier(self) -> u8 {
        (self.word >> TIER_SHIFT) as u8
    }

    /// The translation was formed with Dirty set (writes need no walk).
    #[inline(always)]
    pub(crate) fn dirty(self) -> bool {
        self.word & DIRTY != 0
    }

    /// Maps 2 MiB.
    #[inline(always)]
    pub(crate) fn huge(self) -> bool {
        self.word & HUGE != 0
    }

    /// The same translation with Dirty set.
    #[inline(always)]
    pub(crate) fn with_dirty(self) -> Self {
        Translation {
            word: self.word | DIRTY,
            leaf: self.leaf,
        }
    }

    #[inline(always)]
    fn of(e: &TlbEntry) -> Self {
        Translation::new(e.frame, e.leaf, e.tier, e.dirty, e.huge)
    }

    #[inline(always)]
    fn entry(self, tag: u64) -> TlbEntry {
        TlbEntry {
            tag,
            frame: self.frame(),
            leaf: self.leaf,
            tier: self.tier(),
            dirty: self.dirty(),
            huge: self.huge(),
        }
    }
}

/// A TLB of at most 16 ways per set, borrowed for one translation: its
/// lookups and fills take the tag's signature ([`crate::lru::signature`])
/// from the caller, which computes it once for both TLBs of a size.
pub(crate) struct SmallTlb<'a> {
    set_mask: u64,
    ways: SmallSets<'a, Translation>,
}

impl SmallTlb<'_> {
    /// [`Tlb::lookup_translation`] of `tag`, whose signature is `sig`.
    #[inline(always)]
    pub(crate) fn lookup(&mut self, tag: u64, sig: u8) -> Option<Translation> {
        let set = (tag & self.set_mask) as usize;
        self.ways.lookup(set, tag, sig)
    }

    /// [`Tlb::insert_absent`] of `tag`, whose signature is `sig`.
    #[inline(always)]
    pub(crate) fn insert_absent(&mut self, tag: u64, sig: u8, t: Translation) {
        let set = (tag & self.set_mask) as usize;
        self.ways.insert_absent(set, tag, sig, t);
    }
}

/// One set-associative TLB.
#[derive(Clone, Debug)]
pub struct Tlb {
    set_mask: u64,
    ways: Ways<Translation>,
}

impl Tlb {
    /// `entries` total, `ways` per set; the set count must be a power of two
    /// ([`tlb_sets`]).
    pub fn new(entries: usize, ways: usize) -> Result<Self, String> {
        let sets = tlb_sets(entries, ways)?;
        Ok(Tlb {
            set_mask: sets as u64 - 1,
            ways: Ways::new(sets, ways),
        })
    }

    #[inline(always)]
    fn set(&self, tag: u64) -> usize {
        // Index by the low bits of the page number (the tag's low bits).
        (tag & self.set_mask) as usize
    }

    /// The TLB as a [`SmallTlb`], if its sets have at most 16 ways.
    #[inline(always)]
    pub(crate) fn small(&mut self) -> Option<SmallTlb<'_>> {
        let set_mask = self.set_mask;
        self.ways
            .small_sets()
            .map(|ways| SmallTlb { set_mask, ways })
    }

    /// Looks `tag` up; a hit becomes most recently used.
    #[inline(always)]
    pub fn lookup(&mut self, tag: u64) -> Option<TlbEntry> {
        self.lookup_translation(tag).map(|t| t.entry(tag))
    }

    /// [`Tlb::lookup`], giving the translation without its tag.
    #[inline(always)]
    pub(crate) fn lookup_translation(&mut self, tag: u64) -> Option<Translation> {
        let set = self.set(tag);
        self.ways.lookup(set, tag, false)
    }

    /// Inserts `e` as most recently used, evicting the least recently used entry
    /// of its set (or replacing an entry with the same tag).
    pub fn insert(&mut self, e: TlbEntry) -> Option<TlbEntry> {
        self.insert_translation(e.tag, Translation::of(&e))
    }

    /// [`Tlb::insert`] of `t` with `tag`.
    pub(crate) fn insert_translation(&mut self, tag: u64, t: Translation) -> Option<TlbEntry> {
        let set = self.set(tag);
        self.ways.insert(set, tag, t).map(|(tag, t)| t.entry(tag))
    }

    /// Inserts `t` with `tag`, which the TLB does not hold (a lookup just
    /// missed), as most recently used, evicting the least recently used
    /// entry of its set: [`Tlb::insert`] without the search.
    #[inline(always)]
    pub(crate) fn insert_absent(&mut self, tag: u64, t: Translation) {
        let set = self.set(tag);
        self.ways.insert_absent(set, tag, t);
    }

    /// Marks the entry with `tag` dirty, if present, without touching LRU order.
    pub fn set_dirty(&mut self, tag: u64) {
        let set = self.set(tag);
        self.ways.update(set, tag, |t| *t = t.with_dirty());
    }

    /// Invalidates the entry with `tag`, if present; the remaining entries
    /// keep their recency order.
    pub fn invalidate(&mut self, tag: u64) {
        let set = self.set(tag);
        self.ways.invalidate(set, tag);
    }

    /// Invalidates every entry of `asid`.
    pub fn invalidate_asid(&mut self, asid: u16) {
        self.ways.invalidate_where(|t| tag_asid(t) == asid);
    }

    /// Number of valid entries.
    pub fn len(&self) -> usize {
        self.ways.len()
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

    /// Even tags in two groups whose signatures (the byte of a hash that
    /// lookups compare first) collide, so lookups must tell them apart by the
    /// full tag.
    fn colliding_tags() -> Vec<u64> {
        let sig = |t: u64| (t.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8;
        let mut out = Vec::new();
        for want in [7u8, 200] {
            let mut t = 0u64;
            while out.len() < if want == 7 { 24 } else { 40 } {
                if sig(t) == want {
                    out.push(t);
                }
                t += 2;
            }
        }
        out
    }

    proptest! {
        /// Random lookups, fills and invalidations agree with a trivially
        /// correct per-set recency list after every step.
        #[test]
        fn tlb_matches_lru_model(
            geometry in 0usize..5,
            colliding in any::<bool>(),
            ops in proptest::collection::vec((0u8..4, 0usize..40), 1..400),
        ) {
            let (entries, ways) = [(16, 4), (24, 12), (40, 20), (64, 64), (2, 1)][geometry];
            let pool: Vec<u64> = if colliding { colliding_tags() } else { (0..40).collect() };
            let mut t = Tlb::new(entries, ways).unwrap();
            let mut m = Model::new(entries / ways);
            for (op, i) in ops {
                let tag = pool[i];
                match op {
                    0 => prop_assert_eq!(t.lookup(tag).is_some(), m.lookup(tag)),
                    1 => { t.insert(entry(tag)); m.insert(tag, ways); }
                    2 => { t.invalidate(tag); m.invalidate(tag); }
                    _ => {
                        // The least recent entry of the set is evicted next.
                        let n = m.sets.len();
                        let s = &m.sets[(tag as usize) % n];
                        let victim = t.insert(entry(tag)).map(|e| e.tag);
                        let expect = (s.len() == ways && !s.contains(&tag)).then(|| s[ways - 1]);
                        m.insert(tag, ways);
                        prop_assert_eq!(victim, expect);
                    }
                }
                let total: usize = m.sets.iter().map(|s| s.len()).sum();
                prop_assert_eq!(t.len(), total);
            }
        }
    }
}
