//! Where in the memory hierarchy a page should go (Memos,
//! ../shared/papers/003_4ce7a4cbf1361ba3.txt, sections 4.1-4.3 and
//! Algorithm 1): the bank and LLC slab of its frame.
//!
//! - **Frequency tables** (Algorithm 1): per bank and per slab, how many
//!   accessed pages sit there. A DRAM page counts when its Accessed bit was
//!   set in the sampling period, an NVM page when it had TLB misses.
//! - **Slab classes** (4.2 (1)): stream-like pages go to the reserved slab
//!   0, rarely-touched pages to the reserved last slab (15 of 16), and
//!   frequently-touched pages to the others (1-14).
//! - **Order of candidates** (4.2 (2)-(3), 4.3 case 3): the coldest bank
//!   first, and within it the slab of the page's class with the lowest
//!   frequency; when that bank has no free frame there, the next slab of
//!   the class in the same bank, then the next bank.
//! - **Enlarged reserved slabs** (4.2 (4)): when slab 0 (or the last slab)
//!   is full in every bank, the reservation grows by the next slab inward.
//!
//! *Inferred*: ties (equal frequencies) go to the lower id, so choices are
//! deterministic; a reservation grows one slab at a time, as far as the
//! middle of the slabs.

/// What a page is to the LLC: its slab class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlabClass {
    /// Stream-like (HyMM's IQR test): the reserved slab 0, so it does not
    /// evict others' lines.
    Stream,
    /// Rarely touched: the reserved last slab.
    Rare,
    /// Frequently touched: slabs 1 to the last but one.
    Frequent,
}

/// Per (tier, bank) and per slab, the accessed pages that sit there
/// (Algorithm 1's Bank_Freq_Table and Cache_Freq_Table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreqTables {
    banks: usize,
    slabs: usize,
    /// `bank[tier * banks + b]`.
    bank: Vec<u64>,
    slab: Vec<u64>,
}

impl FreqTables {
    /// Empty tables for `tiers` channels of `banks` banks and an LLC of
    /// `slabs` slabs (at least 3: two reserved, one for the rest).
    pub fn new(tiers: usize, banks: usize, slabs: usize) -> Self {
        FreqTables {
            banks,
            slabs,
            bank: vec![0; tiers * banks],
            slab: vec![0; slabs],
        }
    }

    /// Algorithm 1, line 1.
    pub fn clear(&mut self) {
        self.bank.iter_mut().for_each(|f| *f = 0);
        self.slab.iter_mut().for_each(|f| *f = 0);
    }

    /// Algorithm 1, lines 13-15: one accessed page in `bank` of `tier` and
    /// in `slab` (ids beyond the tables are ignored).
    pub fn count(&mut self, tier: usize, bank: u16, slab: u16) {
        if let Some(f) = self.bank.get_mut(tier * self.banks + bank as usize) {
            *f += 1;
        }
        if let Some(f) = self.slab.get_mut(slab as usize) {
            *f += 1;
        }
    }

    /// The frequency of `bank` in `tier`.
    pub fn bank_freq(&self, tier: usize, bank: u16) -> u64 {
        self.bank
            .get(tier * self.banks + bank as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The frequency of `slab`.
    pub fn slab_freq(&self, slab: u16) -> u64 {
        self.slab.get(slab as usize).copied().unwrap_or(0)
    }

    /// The slabs of `class`, in the order to try them. `grown` is how many
    /// slabs the class's reservation has grown by (4.2 (4)).
    pub fn class_slabs(&self, class: SlabClass, grown: usize) -> Vec<u16> {
        let last = self.slabs.saturating_sub(1);
        let half = self.slabs / 2;
        match class {
            SlabClass::Stream => (0..=grown.min(half.saturating_sub(1)))
                .map(|s| s as u16)
                .collect(),
            SlabClass::Rare => (0..=grown.min(half.saturating_sub(1)))
                .map(|k| (last - k) as u16)
                .collect(),
            SlabClass::Frequent => {
                let mut s: Vec<u16> = (1..last).map(|s| s as u16).collect();
                s.sort_by_key(|&x| (self.slab_freq(x), x));
                s
            }
        }
    }

    /// The (bank, slab) pairs of `tier` to try for a page of `class`, best
    /// first: banks from the coldest, and within a bank the class's slabs
    /// (from the coldest, for frequently-touched pages).
    pub fn candidates(&self, tier: usize, class: SlabClass, grown: usize) -> Vec<(u16, u16)> {
        let mut banks: Vec<u16> = (0..self.banks).map(|b| b as u16).collect();
        banks.sort_by_key(|&b| (self.bank_freq(tier, b), b));
        let slabs = self.class_slabs(class, grown);
        banks
            .iter()
            .flat_map(|&b| slabs.iter().map(move |&s| (b, s)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_1_counts_per_bank_of_each_tier_and_per_slab() {
        let mut t = FreqTables::new(2, 32, 16);
        t.count(0, 3, 9);
        t.count(0, 3, 9);
        t.count(1, 3, 2);
        t.count(1, 99, 99); // beyond the tables: ignored
        assert_eq!(t.bank_freq(0, 3), 2);
        assert_eq!(t.bank_freq(1, 3), 1);
        assert_eq!(t.slab_freq(9), 2);
        assert_eq!(t.slab_freq(2), 1);
        t.clear();
        assert_eq!((t.bank_freq(0, 3), t.slab_freq(9)), (0, 0));
    }

    #[test]
    fn reserved_slabs_are_the_ends_and_grow_inward() {
        let t = FreqTables::new(1, 4, 16);
        assert_eq!(t.class_slabs(SlabClass::Stream, 0), vec![0]);
        assert_eq!(t.class_slabs(SlabClass::Rare, 0), vec![15]);
        assert_eq!(t.class_slabs(SlabClass::Stream, 2), vec![0, 1, 2]);
        assert_eq!(t.class_slabs(SlabClass::Rare, 1), vec![15, 14]);
        // Never past the middle.
        assert_eq!(t.class_slabs(SlabClass::Stream, 100).len(), 8);
        let f = t.class_slabs(SlabClass::Frequent, 0);
        assert_eq!(f, (1..15).collect::<Vec<u16>>());
    }

    #[test]
    fn the_coldest_bank_and_slab_come_first() {
        // Fig. 8's case 3: slab 9 is the least used of the frequent slabs,
        // bank 2 the least used bank of DRAM.
        let mut t = FreqTables::new(2, 4, 16);
        for s in 1..15u16 {
            if s != 9 {
                t.count(1, 0, s);
            }
        }
        for (b, n) in [(0u16, 5), (1, 3), (3, 4)] {
            for _ in 0..n {
                t.count(0, b, 0);
            }
        }
        let c = t.candidates(0, SlabClass::Frequent, 0);
        assert_eq!(c[0], (2, 9));
        // Then the other frequent slabs of bank 2, before bank 1.
        assert!(c[1..14].iter().all(|&(b, s)| b == 2 && s != 0 && s != 15));
        assert_eq!(c[14].0, 1);
        assert_eq!(c.len(), 4 * 14);
        // Stream pages: slab 0 of every bank, coldest bank first.
        let s = t.candidates(0, SlabClass::Stream, 0);
        assert_eq!(s, vec![(2, 0), (1, 0), (3, 0), (0, 0)]);
    }
}
