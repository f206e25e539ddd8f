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
//! - **Bank moves within a channel** (4.3: "Even for a specific channel,
//!   hot pages are migrated from highly utilized banks to lower ones to
//!   balance the overall utilization"; [`BankLoads`]): a channel's banks by
//!   the accessed pages in each, Algorithm 1 counted afresh; a hot page
//!   moves from the busiest bank to the coldest that holds at least two
//!   pages fewer.
//!
//! *Inferred*: ties (equal frequencies) go to the lower id, so choices are
//! deterministic; a reservation grows one slab at a time, as far as the
//! middle of the slabs. The paper gives no rule for a "highly utilized"
//! bank: a bank is a source while it holds more than `1 + tolerance` times
//! the channel's mean and at least two pages more than the coldest bank (a
//! move of one page then narrows the spread; at one page apart it would
//! only swap the two).

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

    /// One page of `tier` counted in `from` now sits in `to` (a bank move
    /// within the channel): the bank table follows it.
    pub fn shift_bank(&mut self, tier: usize, from: u16, to: u16) {
        if let Some(f) = self.bank.get_mut(tier * self.banks + from as usize) {
            *f = f.saturating_sub(1);
        }
        if let Some(f) = self.bank.get_mut(tier * self.banks + to as usize) {
            *f += 1;
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

/// One channel's banks by the accessed pages that sit in each (Algorithm
/// 1's Bank_Freq_Table for one channel, counted afresh), for moving hot
/// pages from busy banks to idle ones within the channel (4.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankLoads {
    load: Vec<u64>,
}

impl BankLoads {
    /// No page in any of `banks` banks.
    pub fn new(banks: usize) -> Self {
        BankLoads {
            load: vec![0; banks],
        }
    }

    /// One accessed page in `bank` (ids beyond the channel are ignored).
    pub fn add(&mut self, bank: u16) {
        if let Some(l) = self.load.get_mut(bank as usize) {
            *l += 1;
        }
    }

    /// Accessed pages in `bank`.
    pub fn load(&self, bank: u16) -> u64 {
        self.load.get(bank as usize).copied().unwrap_or(0)
    }

    /// The busiest bank's pages over the mean (1 when empty or even).
    pub fn imbalance(&self) -> f64 {
        let total: u64 = self.load.iter().sum();
        if total == 0 {
            return 1.0;
        }
        let max = self.load.iter().copied().max().unwrap_or(0);
        max as f64 * self.load.len() as f64 / total as f64
    }

    /// The bank to move a page from: the busiest of those that `movable`
    /// says still hold a page to move (ties: the lower id), if it holds
    /// more than `1 + tolerance` times the mean and at least two pages more
    /// than the coldest bank.
    pub fn source(&self, tolerance: f64, movable: impl Fn(u16) -> bool) -> Option<u16> {
        let n = self.load.len();
        let total: u64 = self.load.iter().sum();
        let min = self.load.iter().copied().min()?;
        let src = (0..n as u16)
            .filter(|&b| movable(b))
            .max_by_key(|&b| (self.load(b), std::cmp::Reverse(b)))?;
        let l = self.load(src);
        let over_mean = l as f64 * n as f64 > (1.0 + tolerance) * total as f64;
        (over_mean && l >= min + 2).then_some(src)
    }

    /// The banks a page of `src` may move to, coldest first (ties: the
    /// lower id): those with at least two pages fewer, so that a move
    /// narrows the spread.
    pub fn targets(&self, src: u16) -> Vec<u16> {
        let l = self.load(src);
        let mut t: Vec<u16> = (0..self.load.len() as u16)
            .filter(|&b| self.load(b) + 2 <= l)
            .collect();
        t.sort_by_key(|&b| (self.load(b), b));
        t
    }

    /// One page moved from `from` to `to`.
    pub fn shift(&mut self, from: u16, to: u16) {
        if let Some(l) = self.load.get_mut(from as usize) {
            *l = l.saturating_sub(1);
        }
        if let Some(l) = self.load.get_mut(to as usize) {
            *l += 1;
        }
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

    #[test]
    fn a_bank_move_goes_from_the_busiest_bank_to_the_coldest() {
        let mut l = BankLoads::new(4);
        for (b, n) in [(0u16, 9), (1, 3), (2, 6), (3, 2)] {
            for _ in 0..n {
                l.add(b);
            }
        }
        l.add(9); // beyond the channel: ignored
        assert_eq!(l.imbalance(), 9.0 * 4.0 / 20.0);
        assert_eq!(l.source(0.0, |_| true), Some(0));
        // Bank 0 has nothing left to move: the next busiest, above the
        // mean (5).
        assert_eq!(l.source(0.0, |b| b != 0), Some(2));
        // Bank 1 is at the mean: not a source.
        assert_eq!(l.source(0.0, |b| b == 1), None);
        // Coldest first; any bank two pages below the source, never the
        // source itself.
        assert_eq!(l.targets(0), vec![3, 1, 2]);
        assert_eq!(l.targets(2), vec![3, 1]);
        // Within the tolerance: no source.
        assert_eq!(l.source(1.0, |_| true), None);
        // Levelled to one page apart, nothing moves.
        while let Some(s) = l.source(0.0, |_| true) {
            let t = l.targets(s)[0];
            l.shift(s, t);
        }
        assert_eq!(
            (0..4).map(|b| l.load(b)).collect::<Vec<_>>(),
            vec![5, 5, 5, 5]
        );
        assert_eq!(l.imbalance(), 1.0);
        let mut l = BankLoads::new(3);
        for b in [0, 0, 0, 1, 1] {
            l.add(b);
        }
        assert_eq!(l.targets(0), vec![2], "bank 1 is one page below");
        l.shift(0, 9); // beyond the channel: only the page leaving counts
        assert_eq!((0..3).map(|b| l.load(b)).collect::<Vec<_>>(), vec![2, 2, 0]);
        let mut l = BankLoads::new(2);
        l.add(0);
        assert_eq!(l.source(0.0, |_| true), None, "one page apart");
    }

    #[test]
    fn the_bank_table_follows_a_bank_move() {
        let mut t = FreqTables::new(2, 4, 16);
        t.count(1, 2, 5);
        t.shift_bank(1, 2, 3);
        assert_eq!((t.bank_freq(1, 2), t.bank_freq(1, 3)), (0, 1));
        assert_eq!(t.slab_freq(5), 1, "the slab is kept");
        t.shift_bank(1, 2, 3); // nothing counted there: stays at 0
        assert_eq!((t.bank_freq(1, 2), t.bank_freq(1, 3)), (0, 2));
        assert_eq!(t.bank_freq(0, 3), 0, "the other channel is untouched");
    }
}
