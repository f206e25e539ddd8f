//! Taking SlowMem pages from a VM into swap (../shared/papers/
//! 001_f8c99e4789a9a37b.txt, section 4.2, "Extending ballooning"): "balloon
//! drivers first use HeteroOS-LRU to find inactive pages, and if not, swap
//! pages to the disk". A VM's pages must keep their contents, so a page the
//! balloon takes goes to the swap device either way; the inactive ones go
//! first. The same clock is a guest's own reclaim when its SlowMem quota
//! is full ([`super::guest::HeteroOsGuest`]).

use thermocline_backend::{Backend, BackendError, Capability, Flush};
use thermocline_vocab::{Asid, Level, PageSize, TierId};

/// A clock hand over one tier's frames, swapping out one VM's pages.
#[derive(Debug, Default)]
pub struct SwapClock {
    /// The next frame to examine (an offset into the tier).
    hand: u64,
    to_move: Vec<u64>,
}

impl SwapClock {
    /// Moves up to `target` 4 KiB pages of `asid` from `tier` to `swap`
    /// and returns how many moved. The hand passes over the tier's frames
    /// at most `passes` times and takes the VM's pages whose Accessed bit
    /// is clear, clearing the bit of those it spares: one pass takes the
    /// pages idle since the hand last passed; a second takes what the
    /// first spared (the balloon's "if not, swap pages"). Pages taken in a
    /// pass move at its end, after one TLB flush of the VM.
    pub fn swap_out(
        &mut self,
        b: &mut dyn Backend,
        asid: Asid,
        tier: TierId,
        swap: TierId,
        target: u64,
        passes: u32,
    ) -> Result<u64, BackendError> {
        let info = b.tiers()[tier.index()].clone();
        let Some(first) = info.first_frame else {
            return Err(BackendError::Unsupported(Capability::ReverseMap));
        };
        let frames = info.capacity_bytes / 4096;
        let mut moved = 0u64;
        for _ in 0..passes {
            if moved >= target {
                break;
            }
            let (mut freed, mut examined) = (0u64, 0u64);
            self.to_move.clear();
            while moved + freed < target && examined < frames {
                let frame = first + self.hand;
                examined += 1;
                self.hand = (self.hand + 1) % frames;
                match b.reverse_translate(frame)? {
                    Some((a, va)) if a == asid => {
                        let Some(t) = b.translate(a, va)? else {
                            continue;
                        };
                        // A huge page is seen once, at its first frame (whose
                        // piece is the page's base: a backend's frames need not
                        // be what `translate` numbers them).
                        if t.size == PageSize::Huge && va != t.size.align_down(va) {
                            continue;
                        }
                        let va = t.size.align_down(va);
                        if !b.accessed(a, va, Level::Pte, true)? {
                            self.to_move.push(va);
                            freed += t.size.bytes() / 4096;
                        }
                    }
                    _ => continue,
                }
            }
            b.flush_tlb(asid, Flush::All)?;
            self.to_move.sort_unstable();
            moved += b.migrate(asid, &self.to_move, swap)?.pages;
        }
        Ok(moved)
    }
}

/// Linux's reclaim of a VM's full SlowMem, on a machine with a swap device:
/// when its SlowMem quota `budget` has fewer free pages than `watermark`
/// of it and some of its pages wait in swap, the clock swaps out the VM's
/// inactive SlowMem pages (one pass), up to the watermark's worth, so that
/// the swapped pages touched next find room. Returns the pages moved.
/// *Inferred*: the paper's balloon drivers "swap pages to the disk"
/// without saying how many or when; the watermark is HeteroOS-LRU's.
#[allow(clippy::too_many_arguments)]
pub fn reclaim_for_swap_ins(
    clock: &mut SwapClock,
    b: &mut dyn Backend,
    asid: Asid,
    slow: TierId,
    swap: TierId,
    budget: u64,
    watermark: f64,
) -> Result<u64, BackendError> {
    let want = ((budget as f64 * watermark).ceil() as u64).max(1);
    let free = budget.saturating_sub(b.typed_alloc()?.held_pages(asid, slow)?);
    if free >= want || b.typed_alloc()?.held_pages(asid, swap)? == 0 {
        return Ok(0);
    }
    clock.swap_out(b, asid, slow, swap, want - free, 1)
}
