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
use serde::Deserialize;
use thermocline_backend::{Backend, BackendError, Flush};
use thermocline_vocab::{Asid, CapacitySpec, PageSize, TierId};

/// Idle counter value of a page never seen accessed.
const UNSEEN: u8 = u8::MAX;
/// Flag bit: the page is in the slow tier.
const SLOW: u8 = 0x80;

/// kstaled-like parameters.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct KstaledParams {
    /// Seconds between scans.
    pub scan_period_s: f64,
    /// Scans without an access after which a page is cold.
    pub idle_scans: u8,
    /// Split huge pages and track 4 KiB pages.
    pub base_pages: bool,
}

impl Default for KstaledParams {
    fn default() -> Self {
        KstaledParams {
            scan_period_s: 1.0,
            idle_scans: 10,
            base_pages: true,
        }
    }
}

/// Per-region page state: idle scans in the low 7 bits, [`SLOW`] on top,
/// [`UNSEEN`] for pages never seen accessed.
#[derive(Debug)]
struct RegionPages {
    asid: Asid,
    start: u64,
    len: u64,
    state: Vec<u8>,
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
                        b.split_huge(r.asid, va)?;
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
        let limit = self.params.idle_scans.min(0x7e);
        let mut accessed = Vec::new();
        let mut cold_bytes = 0;
        for r in &mut self.regions {
            accessed.clear();
            b.scan_accessed(r.asid, r.start, r.len, true, &mut accessed)?;
            for s in r.state.iter_mut().filter(|s| **s != UNSEEN) {
                let idle = (*s & !SLOW).saturating_add(1).min(0x7f);
                *s = (*s & SLOW) | idle;
            }
            let mut promote = Vec::new();
            for &va in &accessed {
                // A huge leaf (base_pages = false) stands for all its pages.
                let pages = match b.translate(r.asid, va)? {
                    Some(t) if t.size == PageSize::Huge => 512,
                    _ => 1,
                };
                for p in 0..pages {
                    let i = ((va + p * 4096 - r.start) / 4096) as usize;
                    let Some(s) = r.state.get_mut(i) else {
                        continue;
                    };
                    if *s != UNSEEN && *s & SLOW != 0 {
                        if p == 0 {
                            promote.push(va);
                        }
                        *s = SLOW;
                    } else {
                        *s = 0;
                    }
                }
            }
            let mut demote = Vec::new();
            for (i, s) in r.state.iter().enumerate() {
                if *s != UNSEEN && *s & SLOW == 0 && *s >= limit {
                    demote.push(r.start + i as u64 * 4096);
                }
            }
            if !promote.is_empty() {
                b.migrate(r.asid, &promote, TierId::FAST)?;
            }
            if !demote.is_empty() {
                b.migrate(r.asid, &demote, self.slow)?;
            }
            for &va in &promote {
                let i = ((va - r.start) / 4096) as usize;
                r.state[i] = 0;
            }
            for &va in &demote {
                let i = ((va - r.start) / 4096) as usize;
                r.state[i] |= SLOW;
            }
            cold_bytes += r
                .state
                .iter()
                .filter(|s| **s != UNSEEN && **s & SLOW != 0)
                .count() as u64
                * 4096;
            b.flush_tlb(r.asid, Flush::All)?;
        }
        self.cold_bytes = cold_bytes;
        self.scans += 1;
        Ok(())
    }
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
        if self.params.idle_scans == 0 || self.params.idle_scans > 0x7e {
            return Err(BackendError::Invalid {
                va: 0,
                why: "kstaled.idle_scans must be 1..=126",
            });
        }
        self.slow = TierId(b.tiers().len().saturating_sub(1) as u8);
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
                    state: vec![UNSEEN; r.len.div_ceil(4096) as usize],
                    split: vec![!(self.params.base_pages && r.thp); (last - first + 1) as usize],
                }
            })
            .collect();
        let mut asids: Vec<Asid> = self.regions.iter().map(|r| r.asid).collect();
        asids.dedup();
        for a in asids {
            b.set_policy(a, thermocline_backend::MemPolicy::PreferFast)?;
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
