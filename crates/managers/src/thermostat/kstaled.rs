//! A kstaled-like baseline: Accessed-bit idle-page detection, the kind of
//! mechanism Thermostat argues against (../shared/papers/000_5488ae48d80721cc.txt,
//! section 2.1 and Figures 1-2: "the single accessed bit per page is
//! insufficient to distinguish hot and cold 2MB huge pages").
//!
//! Every scan period (1 s) every leaf entry's Accessed bit is read and
//! cleared, then the TLBs are flushed so that later accesses set it again. A
//! page not accessed for `idle_scans` scans (10, so 10 s idle) is cold and
//! moves to the slow tier; a slow page found accessed moves back. There is
//! no slowdown target: that is the point of the comparison.
//!
//! Granularity (*inferred*: the paper does not give kstaled's settings):
//! with `base_pages = true` (the default) huge pages are split when first
//! seen, since the paper notes monitoring at 2 MiB "provides even worse
//! hot/cold differentiation"; with `false` it works on whatever leaves the
//! workload has. The scan period and idle count are *inferred* from the
//! issue's "not accessed for N scans, default 10 s".

use crate::{HotSet, Manager};
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError, Capability, Flush, MemPolicy};
use thermocline_vocab::{Asid, CapacitySpec, PageSize, TierId};

/// A page's state: idle scans in the low byte (saturating at 255, above any
/// `idle_scans`), with the flags [`SEEN`] and [`SLOW`] in bits of their own,
/// so that no idle count can ever read as another state.
type PageState = u16;
/// Mask of the idle-scan count.
const IDLE: PageState = 0x00ff;
/// Flag bit: the page has been seen accessed at least once.
const SEEN: PageState = 0x0100;
/// Flag bit: the page is in the slow tier.
const SLOW: PageState = 0x0200;
/// State of a page never seen accessed.
const UNSEEN: PageState = 0;

/// kstaled-like parameters.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct KstaledParams {
    /// Seconds between scans.
    pub scan_period_s: f64,
    /// Scans without an access after which a page is cold.
    pub idle_scans: u8,
    /// Split huge pages and track 4 KiB pages.
    pub base_pages: bool,
    /// Allocate every page in the slow tier, so that pages reach the fast
    /// tier only by being found accessed (Memos' Figure 13 baseline, whose
    /// data starts in NVM as Memos' does); off: the fast tier first.
    pub start_slow: bool,
}

impl Default for KstaledParams {
    fn default() -> Self {
        KstaledParams {
            scan_period_s: 1.0,
            idle_scans: 10,
            base_pages: true,
            start_slow: false,
        }
    }
}

/// Per-region page state ([`PageState`]), one per 4 KiB page.
#[derive(Debug)]
struct RegionPages {
    asid: Asid,
    start: u64,
    len: u64,
    state: Vec<PageState>,
    split: Vec<bool>,
}

/// The kstaled-like manager.
#[derive(Debug)]
pub struct Kstaled {
    params: KstaledParams,
    regions: Vec<RegionPages>,
    slow: TierId,
    cold_bytes: u64,
    scans: u64,
}

impl Kstaled {
    /// A manager with `params`.
    pub fn new(params: KstaledParams) -> Self {
        Kstaled {
            params,
            regions: Vec::new(),
            slow: TierId(1),
            cold_bytes: 0,
            scans: 0,
        }
    }

    fn split_new_huge_pages(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        for r in &mut self.regions {
            for (i, done) in r.split.iter_mut().enumerate() {
                if *done {
                    continue;
                }
                let va = (r.start & !((2 << 20) - 1)) + ((i as u64) << 21);
                match b.translate(r.asid, va.max(r.start))? {
                    Some(t) if t.size == PageSize::Huge => {
                        // a backend that cannot split tracks it as it is
                        match b.huge_pages().and_then(|x| x.split_huge(r.asid, va)) {
                            Ok(()) | Err(BackendError::Unsupported(Capability::HugePages)) => {}
                            Err(e) => return Err(e),
                        }
                        *done = true;
                    }
                    Some(_) => *done = true,
                    None => {}
                }
            }
        }
        Ok(())
    }

    fn scan(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let limit = PageState::from(self.params.idle_scans);
        let mut accessed = Vec::new();
        let mut cold_bytes = 0;
        for r in &mut self.regions {
            accessed.clear();
            b.scan_accessed(r.asid, r.start, r.len, true, &mut accessed)?;
            for s in r.state.iter_mut().filter(|s| **s & SEEN != 0) {
                let idle = (*s & IDLE).saturating_add(1).min(IDLE);
                *s = (*s & !IDLE) | idle;
            }
            // Slow leaves found accessed: (address, base pages it stands for).
            let mut promote = Vec::new();
            for &va in &accessed {
                // A huge leaf (base_pages = false) stands for all its pages.
                let pages = match b.translate(r.asid, va)? {
                    Some(t) if t.size == PageSize::Huge => 512,
                    _ => 1,
                };
                let mut slow = false;
                for p in 0..pages {
                    let Some(i) = page_index(r.start, va + p * 4096) else {
                        continue;
                    };
                    if let Some(s) = r.state.get_mut(i) {
                        slow |= *s & SLOW != 0;
                        // Seen, idle 0; the slow flag stays until it moves.
                        *s = (*s & SLOW) | SEEN;
                    }
                }
                if slow {
                    promote.push((va, pages));
                }
            }
            let mut demote = Vec::new();
            for (i, s) in r.state.iter().enumerate() {
                if *s & SEEN != 0 && *s & SLOW == 0 && *s & IDLE >= limit {
                    demote.push(r.start + i as u64 * 4096);
                }
            }
            if !promote.is_empty() {
                let vas: Vec<u64> = promote.iter().map(|p| p.0).collect();
                b.migrate(r.asid, &vas, TierId::FAST)?;
            }
            if !demote.is_empty() {
                b.migrate(r.asid, &demote, self.slow)?;
            }
            for &(va, pages) in &promote {
                // A full fast tier leaves a page where it was.
                if b.translate(r.asid, va)?
                    .is_some_and(|t| t.tier == self.slow)
                {
                    continue;
                }
                for p in 0..pages {
                    if let Some(s) =
                        page_index(r.start, va + p * 4096).and_then(|i| r.state.get_mut(i))
                    {
                        *s &= !SLOW;
                    }
                }
            }
            for &va in &demote {
                if let Some(s) = page_index(r.start, va).and_then(|i| r.state.get_mut(i)) {
                    *s |= SLOW;
                }
            }
            cold_bytes += r.state.iter().filter(|s| **s & SLOW != 0).count() as u64 * 4096;
            b.flush_tlb(r.asid, Flush::All)?;
        }
        self.cold_bytes = cold_bytes;
        self.scans += 1;
        Ok(())
    }
}

/// Index of the 4 KiB page of `va` in a region starting at `start`, if
/// `va` is not below it.
fn page_index(start: u64, va: u64) -> Option<usize> {
    usize::try_from(va.checked_sub(start)? / 4096).ok()
}

impl Manager for Kstaled {
    fn name(&self) -> &'static str {
        "kstaled"
    }

    fn default_fast_capacity(&self) -> Option<CapacitySpec> {
        Some(CapacitySpec::PercentOfFootprint(100.0))
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if !(self.params.scan_period_s.is_finite() && self.params.scan_period_s > 0.0) {
            return Err(BackendError::Invalid {
                va: 0,
                why: "kstaled.scan_period_s must be positive",
            });
        }
        if self.params.idle_scans == 0 {
            return Err(BackendError::Invalid {
                va: 0,
                why: "kstaled.idle_scans must be 1..=255",
            });
        }
        self.slow = TierId(b.tiers().len().saturating_sub(1) as u8);
        let (initial, policy) = if self.params.start_slow {
            (UNSEEN | SLOW, MemPolicy::Bind { tier: self.slow })
        } else {
            (UNSEEN, MemPolicy::PreferFast)
        };
        self.regions = b
            .regions()
            .iter()
            .map(|r| {
                let first = r.start >> 21;
                let last = (r.end() - 1) >> 21;
                RegionPages {
                    asid: r.asid,
                    start: r.start,
                    len: r.len,
                    state: vec![initial; r.len.div_ceil(4096) as usize],
                    split: vec![!(self.params.base_pages && r.thp); (last - first + 1) as usize],
                }
            })
            .collect();
        let mut asids: Vec<Asid> = self.regions.iter().map(|r| r.asid).collect();
        asids.dedup();
        for a in asids {
            b.set_policy(a, policy)?;
        }
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some((self.params.scan_period_s * 1e9) as u64)
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        self.split_new_huge_pages(b)?;
        self.scan(b)?;
        Ok(None)
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("cold_base_bytes", self.cold_bytes as f64),
            ("scans_count", self.scans as f64),
        ]
    }
}
