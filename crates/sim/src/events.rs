//! Memory events on the exact machine: a released range gives its frames
//! back and forgets its pages (a later access faults in new ones), and
//! every event is kept for a manager that asked to see them.
//!
//! *Inferred*: the kernel time of munmap and of I/O completion is part of
//! the application's compute time here; the TLB invalidation a release
//! needs is done (per page up to the flush ceiling, else the whole address
//! space), but charged to no one, since no manager caused it.

use crate::machine::Machine;
use crate::pagetable as pt;
use thermocline_backend::BackendError;
use thermocline_model::costs::FLUSH_CEILING_PAGES;
use thermocline_vocab::{Asid, MemEvent, PageSize, PAGES_PER_HUGE};

impl Machine {
    /// Applies a workload's memory event.
    pub fn apply_event(&mut self, ev: MemEvent) -> Result<(), BackendError> {
        let (asid, start, len) = ev.range();
        ev.check().map_err(|_| BackendError::Invalid {
            va: start,
            why: "a memory event's range must be non-empty, 4 KiB-aligned and below 2^47",
        })?;
        if let MemEvent::Release { .. } = ev {
            self.release(asid, start, len)?;
        }
        self.events.record(ev);
        Ok(())
    }

    /// Frees the pages of `[start, start + len)` of `asid`: their frames
    /// go back to their tiers, their leaf entries and poison are
    /// cleared, pending DMA copies of them are cancelled, and no TLB keeps
    /// them. A huge page partly in the range is split first.
    fn release(&mut self, asid: Asid, start: u64, len: u64) -> Result<(), BackendError> {
        if self.spaces.get(asid.0 as usize).is_none() {
            return Ok(());
        }
        let end = start + len;
        let mut released = 0u64;
        let mut va = start;
        while va < end {
            let huge_start = PageSize::Huge.align_down(va);
            let path = self.spaces[asid.0 as usize].pt.path(va);
            if path.huge {
                if huge_start >= start && huge_start + PageSize::Huge.bytes() <= end {
                    self.release_huge(asid.0, huge_start, path.pmd.expect("a huge path has a PMD"));
                    released += PAGES_PER_HUGE;
                    va = huge_start + PageSize::Huge.bytes();
                    continue;
                }
                self.split_huge_entry(asid, va)?;
            }
            if self.release_base(asid.0, va) {
                released += 1;
            }
            va += 4096;
        }
        self.dma.cancel(asid, start, end);
        if released > FLUSH_CEILING_PAGES {
            self.invalidate_asid(asid.0);
        } else if released > 0 {
            let mut va = start;
            while va < end {
                self.invalidate_page(asid.0, va);
                va += 4096;
            }
        }
        Ok(())
    }

    /// Frees the base page at `va`, if one is mapped; returns whether.
    fn release_base(&mut self, asid: u16, va: u64) -> bool {
        let space = &mut self.spaces[asid as usize].pt;
        let path = space.path(va);
        let (Some(pmd), Some(leaf)) = (path.pmd, path.leaf) else {
            return false;
        };
        if space.pmd[pmd as usize][thermocline_vocab::Level::Pmd.index(va)] & pt::P == 0 {
            return false;
        }
        let slot = thermocline_vocab::Level::Pte.index(va);
        let table = &mut space.leaves[leaf as usize];
        let e = *table.pte_mut(slot);
        if e & pt::P == 0 {
            return false;
        }
        // The ground-truth count stays: it counts accesses to the address.
        *table.pte_mut(slot) = 0;
        let frame = pt::target(e);
        let tier = self.tier_of(frame) as usize;
        self.frames[tier].free_base(frame);
        self.spaces[asid as usize].held[tier] -= 1;
        self.rmap_unmap(frame, PageSize::Base);
        self.poison.remove(&(asid, va));
        self.hint_once.remove(&(asid, va));
        true
    }

    /// Frees the huge page at `huge_start`, mapped by page directory `pmd`.
    fn release_huge(&mut self, asid: u16, huge_start: u64, pmd: u32) {
        let space = &mut self.spaces[asid as usize].pt;
        let slot = thermocline_vocab::Level::Pmd.index(huge_start);
        let e = std::mem::take(&mut space.pmd[pmd as usize][slot]);
        let frame = pt::target(e);
        let tier = self.tier_of(frame) as usize;
        self.frames[tier].free_huge(frame);
        self.spaces[asid as usize].held[tier] -= PAGES_PER_HUGE;
        self.rmap_unmap(frame, PageSize::Huge);
        self.poison.remove(&(asid, huge_start));
        self.hint_once.remove(&(asid, huge_start));
    }
}
