//! The VMM's Accessed-bit history over scans, HeteroVisor's hotness
//! tracking as HeteroOS-coordinated reuses it (../shared/papers/
//! 001_f8c99e4789a9a37b.txt, sections 2.3 and 4.1):
//!
//! > "The hotness-tracking mechanism periodically scans the page table,
//! > records the value of the access bit (set to '1' if a page is
//! > referenced), and resets the bit. [...] Pages that are identified as hot
//! > are promoted to FastMem, whereas least recently used hot pages are
//! > evicted to a slower memory." (section 2.3)
//!
//! and section 4.1's closing remark speaks of "maintaining the history
//! similar to hotness-tracking discussed in this paper".
//!
//! Each tracked page keeps the Accessed bits of its last
//! [`HISTORY_SCANS`] scans in a shift register, the newest in the top bit
//! (the "aging" approximation of LRU): read as a number, a larger history
//! is a more recently used page (a page used in the latest scan beats every
//! page that was not, whatever their older bits), which is the order the
//! least recently used FastMem pages are evicted in
//! ([`AccessHistory::coldest_fast`]).
//!
//! *Inferred* (the paper names the history but gives neither its length
//! nor the rule that calls a page hot):
//! - eight scans, one byte a page: the register's width is what bounds how
//!   far back recency is told apart; eight is the customary width of an
//!   aging register and keeps the table at a byte of history a page;
//! - a page is hot when its latest scan found it accessed and at least
//!   `hot_scans` of its last eight did (default 2: Linux activates a page on
//!   its second reference, `mark_page_accessed`). One set bit says only that
//!   the page was touched once in a scan period, which at 16 K pages per
//!   epoch is seconds: nearly every page a workload touches. Calling those
//!   hot made `heteroos-coordinated` promote most pages it scanned and evict
//!   as many (the thrashing this history replaces).
//!
//! **Two sets of Accessed bits.** On a real machine the VMM reads the EPT's
//! Accessed bits and the guest its own page table's; the hardware sets both
//! on a walk, and clearing one leaves the other. The simulated machine has
//! one bit per page, so the two readers would hide each other's accesses (a
//! page the VMM just cleared would look inactive to the guest's LRU, and
//! the reverse). For tracked pages the table keeps, per reader, whether the
//! other reader cleared a bit it had not yet seen ([`AccessHistory::vmm_read`],
//! [`AccessHistory::guest_read`]): each reader then sees exactly the
//! accesses since its own last read, as with two sets of bits.

use std::cell::Cell;
use std::collections::BTreeMap;
use thermocline_backend::{Backend, BackendError};
use thermocline_vocab::{Asid, Level};

/// Scans of history a page keeps: the register's width.
pub const HISTORY_SCANS: u32 = u8::BITS;

/// A tracked page: (address space, base address).
pub type Page = (Asid, u64);

/// Whether a page with history `bits` (newest scan in the top bit) is hot
/// when `hot_scans` of its last scans must have found it accessed: its
/// latest scan did, and at least `hot_scans` of the eight did.
pub fn is_hot_bits(bits: u8, hot_scans: u32) -> bool {
    bits & 0x80 != 0 && bits.count_ones() >= hot_scans
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    /// The Accessed bits of the last scans, newest in the top bit.
    bits: u8,
    /// Whether any scan recorded a bit yet.
    scanned: bool,
    /// Whether the page was in FastMem when last seen or moved.
    fast: bool,
    /// The guest cleared the bit set since the VMM's last read.
    vmm_pending: bool,
    /// The VMM cleared the bit set since the guest's last read.
    guest_pending: bool,
}

/// Pages per block of the table (2 MiB of 4 KiB pages).
const BLOCK: u64 = 512;

/// Per tracked page, its Accessed-bit history over scans and where it was
/// last seen; see the module docs. Pages are 4 KiB-aligned bases, kept in
/// blocks of [`BLOCK`] consecutive pages: a scan looks up page after page,
/// which a search per page made most of its cost.
#[derive(Debug, Default)]
pub struct AccessHistory {
    /// Each block's index in `blocks`, by (address space, block number).
    index: BTreeMap<(Asid, u64), usize>,
    blocks: Vec<[Option<Entry>; BLOCK as usize]>,
    /// The block last looked up (its key and index).
    last: Cell<Option<((Asid, u64), usize)>>,
}

impl AccessHistory {
    /// An empty history.
    pub fn new() -> Self {
        AccessHistory::default()
    }

    /// The block key of `page` and the page's slot in it.
    fn place(page: Page) -> ((Asid, u64), usize) {
        debug_assert_eq!(page.1 % 4096, 0, "a page's base");
        let n = page.1 >> 12;
        ((page.0, n / BLOCK), (n % BLOCK) as usize)
    }

    /// The block index and slot of `page`, if its block exists.
    fn find(&self, page: Page) -> Option<(usize, usize)> {
        let (key, slot) = Self::place(page);
        match self.last.get() {
            Some((k, i)) if k == key => Some((i, slot)),
            _ => {
                let i = *self.index.get(&key)?;
                self.last.set(Some((key, i)));
                Some((i, slot))
            }
        }
    }

    /// The entry of `page`, if it has one.
    fn get(&self, page: Page) -> Option<&Entry> {
        let (i, slot) = self.find(page)?;
        self.blocks[i][slot].as_ref()
    }

    /// The slot of `page`, its block allocated if need be.
    fn slot(&mut self, page: Page) -> &mut Option<Entry> {
        let (key, slot) = Self::place(page);
        let i = match self.last.get() {
            Some((k, i)) if k == key => i,
            _ => {
                let n = self.blocks.len();
                let i = *self.index.entry(key).or_insert(n);
                if i == n {
                    self.blocks.push([None; BLOCK as usize]);
                }
                self.last.set(Some((key, i)));
                i
            }
        };
        &mut self.blocks[i][slot]
    }

    /// Records one scan of `page`: whether it was `accessed` since its last
    /// scan, and whether it is in FastMem (`fast`). Returns its history.
    pub fn record(&mut self, page: Page, accessed: bool, fast: bool) -> u8 {
        let e = self.slot(page).get_or_insert_with(Entry::default);
        e.bits = (e.bits >> 1) | if accessed { 0x80 } else { 0 };
        e.scanned = true;
        e.fast = fast;
        e.bits
    }

    /// The history of `page`, if a scan recorded one.
    pub fn bits(&self, page: Page) -> Option<u8> {
        self.get(page).filter(|e| e.scanned).map(|e| e.bits)
    }

    /// Notes that `page` moved into (`fast`) or out of FastMem.
    pub fn set_fast(&mut self, page: Page, fast: bool) {
        if let Some((i, slot)) = self.find(page) {
            if let Some(e) = &mut self.blocks[i][slot] {
                e.fast = fast;
            }
        }
    }

    /// Forgets every page of `asid` in `start..end` (found unmapped: a page
    /// mapped there later starts without history).
    pub fn forget(&mut self, asid: Asid, start: u64, end: u64) {
        if start >= end {
            return;
        }
        // Pages numbered first..last (one past), by their bases.
        let (first, last) = (start.div_ceil(4096), end.div_ceil(4096));
        if first >= last {
            return;
        }
        let blocks = (asid, first / BLOCK)..=(asid, (last - 1) / BLOCK);
        for (&(_, blk), &i) in self.index.range(blocks) {
            let lo = first.max(blk * BLOCK) - blk * BLOCK;
            let hi = last.min((blk + 1) * BLOCK) - blk * BLOCK;
            self.blocks[i][lo as usize..hi as usize].fill(None);
        }
    }

    /// Up to `n` of the scanned pages last seen in FastMem, least recently
    /// used first (smallest history; equal histories by address), with
    /// their histories.
    pub fn coldest_fast(&self, n: usize) -> Vec<(Page, u8)> {
        let mut v: Vec<(u8, Page)> = Vec::new();
        for (&(asid, blk), &i) in &self.index {
            for (slot, e) in self.blocks[i].iter().enumerate() {
                if let Some(e) = e.filter(|e| e.scanned && e.fast) {
                    v.push((e.bits, (asid, (blk * BLOCK + slot as u64) << 12)));
                }
            }
        }
        if n < v.len() {
            v.select_nth_unstable(n);
            v.truncate(n);
        }
        v.sort_unstable();
        v.into_iter().map(|(b, p)| (p, b)).collect()
    }

    /// The VMM's read of `page`'s Accessed bit, clearing it: set if the
    /// page was accessed since the VMM's last read, whoever cleared the
    /// machine's bit since.
    pub fn vmm_read(&mut self, b: &mut dyn Backend, page: Page) -> Result<bool, BackendError> {
        let hw = b.accessed(page.0, page.1, Level::Pte, true)?;
        let e = self.slot(page).get_or_insert_with(Entry::default);
        let seen = hw || e.vmm_pending;
        e.vmm_pending = false;
        e.guest_pending |= hw;
        Ok(seen)
    }

    /// The guest's read of `page`'s Accessed bit, clearing it: set if the
    /// page was accessed since the guest's last read. `tracked`: whether
    /// the VMM tracks the page (only then does it keep a bit of its own).
    pub fn guest_read(
        &mut self,
        b: &mut dyn Backend,
        page: Page,
        tracked: bool,
    ) -> Result<bool, BackendError> {
        let hw = b.accessed(page.0, page.1, Level::Pte, true)?;
        if !tracked {
            return Ok(hw);
        }
        if !hw && self.get(page).is_none() {
            return Ok(false);
        }
        let e = self.slot(page).get_or_insert_with(Entry::default);
        let seen = hw || e.guest_pending;
        e.guest_pending = false;
        e.vmm_pending |= hw;
        Ok(seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    const A: Asid = Asid(0);

    fn page(i: usize) -> Page {
        (A, i as u64 * 4096)
    }

    #[test]
    fn the_register_shifts_in_the_newest_scan_at_the_top() {
        let mut h = AccessHistory::new();
        assert_eq!(h.record(page(0), true, false), 0x80);
        assert_eq!(h.record(page(0), false, false), 0x40);
        assert_eq!(h.record(page(0), true, false), 0xa0);
        assert!(is_hot_bits(0xa0, 2));
        assert!(!is_hot_bits(0x40, 1), "not accessed in its latest scan");
        assert!(!is_hot_bits(0x80, 2), "one scan is not re-use");
        assert!(is_hot_bits(0x80, 1));
        for _ in 0..8 {
            h.record(page(0), false, false);
        }
        assert_eq!(h.bits(page(0)), Some(0), "eight idle scans forget");
    }

    #[test]
    fn the_least_recently_used_fastmem_pages_come_first() {
        let mut h = AccessHistory::new();
        // Page 0: used in every scan; 1: only long ago; 2: only latest;
        // 3: in SlowMem; 4: never scanned.
        for s in 0..8 {
            h.record(page(0), true, true);
            h.record(page(1), s == 0, true);
            h.record(page(2), s == 7, true);
            h.record(page(3), false, false);
        }
        let order: Vec<Page> = h.coldest_fast(10).into_iter().map(|x| x.0).collect();
        assert_eq!(order, vec![page(1), page(2), page(0)]);
        assert_eq!(h.coldest_fast(1)[0].0, page(1));
        h.forget(A, 0, 4096 * 2);
        assert_eq!(h.bits(page(1)), None);
        assert_eq!(h.coldest_fast(10).len(), 1);
    }

    /// The reference: per page, its scans' bits in a deque (newest
    /// first, at most eight), whether it is in FastMem; hot and LRU order
    /// computed from the deque without any bit arithmetic.
    #[derive(Default, Clone)]
    struct Reference {
        scans: Option<VecDeque<bool>>,
        fast: bool,
    }

    fn ref_hot(r: &Reference, hot_scans: u32) -> bool {
        r.scans.as_ref().is_some_and(|d| {
            d.front() == Some(&true) && d.iter().filter(|&&x| x).count() as u32 >= hot_scans
        })
    }

    /// Recency: newest scan first, compared scan by scan (accessed beats
    /// idle); missing scans are idle.
    fn ref_recency(r: &Reference) -> Vec<bool> {
        let d = r.scans.clone().unwrap_or_default();
        (0..HISTORY_SCANS as usize)
            .map(|i| d.get(i).copied().unwrap_or(false))
            .collect()
    }

    #[derive(Debug, Clone)]
    enum Op {
        /// A scan of some pages: (page, accessed, in FastMem).
        Scan(Vec<(usize, bool, bool)>),
        /// Pages `a..b` found unmapped.
        Forget(usize, usize),
        /// A page moved in or out of FastMem.
        Move(usize, bool),
    }

    const PAGES: usize = 24;

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => prop::collection::vec((0..PAGES, any::<bool>(), any::<bool>()), 0..PAGES)
                .prop_map(Op::Scan),
            1 => (0..PAGES, 0..PAGES).prop_map(|(a, b)| Op::Forget(a.min(b), a.max(b))),
            2 => (0..PAGES, any::<bool>()).prop_map(|(p, f)| Op::Move(p, f)),
        ]
    }

    proptest! {
        /// Random scans, unmaps and moves fed to the history and to the
        /// reference: every page's hotness agrees, and so does the order
        /// in which FastMem pages would be evicted.
        #[test]
        fn history_agrees_with_the_reference(
            ops in prop::collection::vec(op(), 1..60),
            hot_scans in 1u32..=8,
            n in 0usize..PAGES + 2,
        ) {
            let mut h = AccessHistory::new();
            let mut r = vec![Reference::default(); PAGES];
            for op in ops {
                match op {
                    Op::Scan(pages) => {
                        for (p, accessed, fast) in pages {
                            h.record(page(p), accessed, fast);
                            let d = r[p].scans.get_or_insert_with(VecDeque::new);
                            d.push_front(accessed);
                            d.truncate(HISTORY_SCANS as usize);
                            r[p].fast = fast;
                        }
                    }
                    Op::Forget(a, b) => {
                        h.forget(A, page(a).1, page(b).1);
                        for x in &mut r[a..b] {
                            *x = Reference::default();
                        }
                    }
                    Op::Move(p, fast) => {
                        h.set_fast(page(p), fast);
                        if r[p].scans.is_some() {
                            r[p].fast = fast;
                        }
                    }
                }
                for (p, rp) in r.iter().enumerate() {
                    let hot = h.bits(page(p)).is_some_and(|b| is_hot_bits(b, hot_scans));
                    prop_assert_eq!(hot, ref_hot(rp, hot_scans), "page {}", p);
                }
                let mut want: Vec<(Vec<bool>, usize)> = r
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.scans.is_some() && x.fast)
                    .map(|(p, x)| (ref_recency(x), p))
                    .collect();
                want.sort();
                want.truncate(n);
                let want: Vec<Page> = want.into_iter().map(|(_, p)| page(p)).collect();
                let got: Vec<Page> = h.coldest_fast(n).into_iter().map(|x| x.0).collect();
                prop_assert_eq!(got, want);
            }
        }
    }
}
