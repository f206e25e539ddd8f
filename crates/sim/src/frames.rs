//! Physical frames of one tier, handed out as 4 KiB frames or as 2 MiB blocks.
//!
//! Frames are numbered globally; a tier owns `[base, base + count)`. Memory is
//! carved in 2 MiB blocks on demand (a bump pointer, so a terabyte tier costs
//! nothing until used); a block is either one huge frame or split into 512 base
//! frames. Freed base frames are not coalesced back into blocks (there is no
//! compaction), so a long run that mixes page sizes can fail a huge allocation
//! while base frames are free: the caller falls back to base pages, as Linux
//! does when THP allocation fails.
//!
//! A tier may sort its free base frames by colour ([`Colours`], Memos'
//! two-tiered buddy system): then a frame of a given colour is found in O(1)
//! and uncoloured allocations take the colours in turn.

use crate::colours::Colours;
use thermocline_vocab::PAGES_PER_HUGE;

/// The frames of one tier.
#[derive(Clone, Debug)]
pub struct TierFrames {
    base: u64,
    count: u64,
    /// Next never-used 2 MiB block, as a frame offset from `base`.
    bump: u64,
    free_huge: Vec<u64>,
    free_base: Vec<u64>,
    used: u64,
    /// Free base frames by colour, instead of `free_base`, if the tier
    /// colours its frames.
    colours: Option<Colours>,
}

impl TierFrames {
    /// A tier owning `count` frames starting at frame `base` (2 MiB-aligned).
    pub fn new(base: u64, count: u64) -> Self {
        debug_assert_eq!(base % PAGES_PER_HUGE, 0);
        TierFrames {
            base,
            count,
            bump: 0,
            free_huge: Vec::new(),
            free_base: Vec::new(),
            used: 0,
            colours: None,
        }
    }

    /// A tier whose free base frames are sorted by the colour that
    /// frame-number `bits` form.
    pub fn with_colours(base: u64, count: u64, bits: &[u8]) -> Result<Self, String> {
        let mut t = TierFrames::new(base, count);
        t.set_colours(Some(bits))?;
        Ok(t)
    }

    /// Sorts the free base frames by the colour that frame-number `bits`
    /// form from now on (`None`: one list again, in no particular order).
    pub fn set_colours(&mut self, bits: Option<&[u8]>) -> Result<(), String> {
        let mut new = bits.map(Colours::new).transpose()?;
        let mut free: Vec<u64> = std::mem::take(&mut self.free_base);
        if let Some(old) = self.colours.as_mut() {
            free.extend(std::iter::from_fn(|| old.pop_next()));
        }
        match new.as_mut() {
            Some(c) => free.iter().for_each(|&f| c.push(f)),
            None => self.free_base = free,
        }
        self.colours = new;
        Ok(())
    }

    /// Whether free base frames are sorted by colour.
    pub fn coloured(&self) -> bool {
        self.colours.is_some()
    }

    /// The colour of `frame`, if the tier colours its frames.
    pub fn colour_of(&self, frame: u64) -> Option<usize> {
        self.colours.as_ref().map(|c| c.colour_of(frame))
    }

    /// The first frame of the tier.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Total frames.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Frames backing pages.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Free frames.
    pub fn free(&self) -> u64 {
        self.count - self.used
    }

    /// Whether `frame` belongs to this tier.
    pub fn owns(&self, frame: u64) -> bool {
        frame >= self.base && frame < self.base + self.count
    }

    fn fresh_block(&mut self) -> Option<u64> {
        if self.bump + PAGES_PER_HUGE <= self.count {
            let f = self.base + self.bump;
            self.bump += PAGES_PER_HUGE;
            Some(f)
        } else {
            None
        }
    }

    /// One 4 KiB frame.
    pub fn alloc_base(&mut self) -> Option<u64> {
        if self.colours.is_some() {
            return self.alloc_from_colours(None);
        }
        if let Some(f) = self.free_base.pop() {
            self.used += 1;
            return Some(f);
        }
        if let Some(b) = self.free_huge.pop().or_else(|| self.fresh_block()) {
            // Split a block: hand out its first frame, keep the other 511.
            self.free_base
                .extend((1..PAGES_PER_HUGE).rev().map(|i| b + i));
            self.used += 1;
            return Some(b);
        }
        // The tail of a tier whose size is not a multiple of 2 MiB.
        if self.bump < self.count {
            self.bump += 1;
            self.used += 1;
            return Some(self.base + self.bump - 1);
        }
        None
    }

    /// One 4 KiB frame of `colour` (Memos' `alloc_resource`), splitting
    /// free blocks until one has a frame of it; `None` if the tier has no
    /// free frame of that colour or does not colour its frames.
    pub fn alloc_coloured(&mut self, colour: usize) -> Option<u64> {
        self.colours.as_ref()?;
        self.alloc_from_colours(Some(colour))
    }

    fn alloc_from_colours(&mut self, colour: Option<usize>) -> Option<u64> {
        loop {
            let c = self.colours.as_mut()?;
            if let Some(f) = match colour {
                Some(k) => c.pop(k),
                None => c.pop_next(),
            } {
                self.used += 1;
                return Some(f);
            }
            // Split a block into the lists, or take the tail of a tier whose
            // size is not a multiple of 2 MiB.
            let (first, n) = match self.free_huge.pop().or_else(|| self.fresh_block()) {
                Some(b) => (b, PAGES_PER_HUGE),
                None if self.bump < self.count => {
                    self.bump += 1;
                    (self.base + self.bump - 1, 1)
                }
                None => return None,
            };
            let c = self.colours.as_mut()?;
            (first..first + n).for_each(|f| c.push(f));
        }
    }

    /// One 2 MiB-aligned block of 512 frames; returns its first frame.
    pub fn alloc_huge(&mut self) -> Option<u64> {
        let b = self.free_huge.pop().or_else(|| self.fresh_block())?;
        self.used += PAGES_PER_HUGE;
        Some(b)
    }

    /// Returns a 4 KiB frame.
    pub fn free_base(&mut self, frame: u64) {
        debug_assert!(self.owns(frame));
        self.used -= 1;
        match self.colours.as_mut() {
            Some(c) => c.push(frame),
            None => self.free_base.push(frame),
        }
    }

    /// Returns a 2 MiB block.
    pub fn free_huge(&mut self, first: u64) {
        debug_assert!(self.owns(first) && first.is_multiple_of(PAGES_PER_HUGE));
        self.used -= PAGES_PER_HUGE;
        self.free_huge.push(first);
    }

    /// Host bytes used by the free lists (for the memory budget).
    pub fn host_bytes(&self) -> usize {
        (self.free_base.capacity() + self.free_huge.capacity()) * 8
            + self.colours.as_ref().map_or(0, Colours::host_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[derive(Debug, Clone)]
    enum Op {
        AllocBase,
        AllocColoured(usize),
        AllocHuge,
        FreeBase(usize),
        FreeHuge(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => Just(Op::AllocBase),
            2 => any::<usize>().prop_map(Op::AllocColoured),
            1 => Just(Op::AllocHuge),
            3 => any::<usize>().prop_map(Op::FreeBase),
            1 => any::<usize>().prop_map(Op::FreeHuge),
        ]
    }

    proptest! {
        /// Against a reference model (a set of owned frames): no frame is handed
        /// out twice, every frame is inside the tier, huge blocks are aligned,
        /// and the used count always equals the model's. A coloured tier
        /// (Memos' colours) hands out a frame of the colour asked for
        /// exactly when it has one free or in a free block.
        #[test]
        fn allocator_matches_reference(ops in proptest::collection::vec(op(), 1..300),
                                       blocks in 1u64..4, tail in 0u64..40,
                                       coloured in any::<bool>()) {
            let base = 1024;
            let count = blocks * PAGES_PER_HUGE + tail;
            let mut t = if coloured {
                TierFrames::with_colours(base, count, &[0, 1, 2, 3, 4, 5, 6, 8, 9]).unwrap()
            } else {
                TierFrames::new(base, count)
            };
            let mut owned: BTreeSet<u64> = BTreeSet::new();
            let mut bases: Vec<u64> = Vec::new();
            let mut huges: Vec<u64> = Vec::new();
            for op in ops {
                match op {
                    Op::AllocBase => {
                        match t.alloc_base() {
                            Some(f) => {
                                prop_assert!(t.owns(f));
                                prop_assert!(owned.insert(f), "frame {} handed out twice", f);
                                bases.push(f);
                            }
                            None => prop_assert_eq!(owned.len() as u64, count, "base alloc failed with room"),
                        }
                    }
                    Op::AllocColoured(c) => {
                        let c = c % 512;
                        match t.alloc_coloured(c) {
                            Some(f) => {
                                prop_assert!(coloured);
                                prop_assert!(t.owns(f));
                                prop_assert_eq!(t.colour_of(f), Some(c));
                                prop_assert!(owned.insert(f), "frame {} handed out twice", f);
                                bases.push(f);
                            }
                            None => {
                                let any_free = (base..base + count)
                                    .any(|f| t.colour_of(f) == Some(c) && !owned.contains(&f));
                                prop_assert!(!any_free, "colour {} failed with room", c);
                            }
                        }
                    }
                    Op::AllocHuge => {
                        if let Some(f) = t.alloc_huge() {
                            prop_assert_eq!(f % PAGES_PER_HUGE, 0);
                            for i in 0..PAGES_PER_HUGE {
                                prop_assert!(t.owns(f + i));
                                prop_assert!(owned.insert(f + i), "frame {} handed out twice", f + i);
                            }
                            huges.push(f);
                        }
                    }
                    Op::FreeBase(i) => {
                        if !bases.is_empty() {
                            let f = bases.swap_remove(i % bases.len());
                            owned.remove(&f);
                            t.free_base(f);
                        }
                    }
                    Op::FreeHuge(i) => {
                        if !huges.is_empty() {
                            let f = huges.swap_remove(i % huges.len());
                            for k in 0..PAGES_PER_HUGE { owned.remove(&(f + k)); }
                            t.free_huge(f);
                        }
                    }
                }
                prop_assert_eq!(t.used(), owned.len() as u64);
            }
        }
    }

    #[test]
    fn base_allocation_uses_every_frame() {
        let mut t = TierFrames::new(0, 2 * PAGES_PER_HUGE + 3);
        let mut n = 0;
        while t.alloc_base().is_some() {
            n += 1;
        }
        assert_eq!(n, 2 * PAGES_PER_HUGE + 3);
        assert_eq!(t.free(), 0);
    }
}
