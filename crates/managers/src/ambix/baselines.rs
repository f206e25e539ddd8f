//! The configurations Ambix is compared with
//! (../shared/papers/004_5016d0e3a63ff357.txt, sections 5.1 and 5.3):
//!
//! - `adm-default`: App Direct with the node-local policy: DRAM until full,
//!   then DCPMM; no migration.
//! - `memory-mode`: DRAM as a direct-mapped, 64-byte-line, write-back cache in
//!   front of DCPMM, caching every access that leaves the CPU caches, the
//!   LLC's write-backs included (Intel's Memory Mode; the backend's
//!   `set_memory_mode`). Every page lives in DCPMM.
//! - `autonuma-tiering`: Linux NUMA balancing for tiered memory as in the
//!   tiering-0.4 patches (and TPP): a kswapd-like reclaimer demotes inactive
//!   DRAM pages (Accessed bit clear since its last pass; blind to reads vs
//!   writes) whenever DRAM free memory falls under the low watermark, until
//!   it is back over the high one; NUMA hint faults sample DCPMM pages (a
//!   scan window of `scan_size_mb` per `scan_period_s` is marked; the first
//!   access to a marked page faults once) and a page that faults within the
//!   hot threshold after being marked is promoted, at most `rate_limit_mb_s`.
//! - `memos-placement`: Memos' placement algorithm as Ambix evaluated it
//!   ("a simplified version, strictly focusing on the proposed placement
//!   algorithm, relying on the mechanisms implemented in Ambix to classify
//!   pages"): every page starts in NVM; each period the R/D bits of NVM pages
//!   are cleared, and after the 50 ms delay hot pages are promoted,
//!   write-dominated first, at most 10 000 per period, while the DRAM share
//!   of traffic is under the bandwidth split the feedback aims for; cold DRAM
//!   pages are demoted when DRAM runs out.
//!
//! Inferred values: watermarks (low 1%, high 2% of DRAM: Linux's are a
//! fraction of a percent on large nodes, raised by the tiering patches'
//! demotion headroom), hint-fault scanning (256 MB per 1 s: Linux's
//! numa_balancing_scan_size_mb and scan_period_min), hot threshold (one scan
//! period, 1 s: tiering-0.4's default hot threshold), promotion rate limit
//! (tiering-0.4's 65536 MB/s default is effectively no limit; we take
//! 1000 MB/s); Memos' period (Ambix's 2 s) and its bandwidth target (80% of
//! traffic in DRAM: the read-bandwidth-optimal split IWB measures).

use crate::baselines::set_all;
use crate::{HotSet, Manager};
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError, Flush, MemPolicy};
use thermocline_vocab::{Asid, CapacitySpec, Level, TierId};

fn asids(b: &dyn Backend) -> Vec<Asid> {
    let mut v: Vec<Asid> = b.regions().iter().map(|r| r.asid).collect();
    v.dedup();
    v
}

fn slow_tier(b: &dyn Backend) -> TierId {
    TierId(b.tiers().len().saturating_sub(1) as u8)
}

/// Every mapped 4 KiB page (or huge page) of every region, with its tier.
fn pages(b: &dyn Backend) -> Result<Vec<(Asid, u64, TierId)>, BackendError> {
    let mut out = Vec::new();
    for r in b.regions().to_vec() {
        let mut va = r.start;
        while va < r.end() {
            match b.translate(r.asid, va)? {
                Some(t) => {
                    let base = t.size.align_down(va);
                    out.push((r.asid, base, t.tier));
                    va = base + t.size.bytes();
                }
                None => va += 4096,
            }
        }
    }
    Ok(out)
}

fn migrate_all(b: &mut dyn Backend, v: &[(Asid, u64)], to: TierId) -> Result<(), BackendError> {
    for a in asids(b) {
        let vas: Vec<u64> = v.iter().filter(|p| p.0 == a).map(|p| p.1).collect();
        if !vas.is_empty() {
            b.migrate(a, &vas, to)?;
        }
    }
    Ok(())
}

fn dram_free_fraction(b: &dyn Backend) -> f64 {
    let t = &b.tiers()[0];
    t.free_bytes as f64 / t.capacity_bytes.max(1) as f64
}

/// ADM with the node-local policy: DRAM until full, then DCPMM.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AdmDefault {}

impl Manager for AdmDefault {
    fn name(&self) -> &'static str {
        "adm-default"
    }
    fn launch_policy(&self, _tiers: usize) -> Option<MemPolicy> {
        Some(MemPolicy::PreferFast)
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        set_all(b, MemPolicy::PreferFast)
    }
}

/// DRAM as a hardware cache of DCPMM.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryMode {}

impl Manager for MemoryMode {
    fn name(&self) -> &'static str {
        "memory-mode"
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let slow = slow_tier(b);
        set_all(b, MemPolicy::Bind { tier: slow })?;
        b.memory_mode().and_then(|x| x.set_memory_mode(true))
    }
}

/// NUMA-balancing tiering (tiering-0.4 / TPP-like).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AutonumaTiering {
    /// Demotion starts when DRAM free memory falls below this fraction.
    pub low_watermark: f64,
    /// ... and stops when free memory is back above this one.
    pub high_watermark: f64,
    /// Bytes of DCPMM marked for hint faults per scan period (MB).
    pub scan_size_mb: f64,
    /// Seconds between scans (also the hot threshold).
    pub scan_period_s: f64,
    /// Promotion rate limit (MB/s).
    pub rate_limit_mb_s: f64,
    #[serde(skip)]
    marked: Vec<(Asid, u64)>,
    #[serde(skip)]
    cursor: usize,
}

impl Default for AutonumaTiering {
    fn default() -> Self {
        AutonumaTiering {
            low_watermark: 0.01,
            high_watermark: 0.02,
            scan_size_mb: 256.0,
            scan_period_s: 1.0,
            rate_limit_mb_s: 1000.0,
            marked: Vec::new(),
            cursor: 0,
        }
    }
}

impl AutonumaTiering {
    /// kswapd-like demotion: inactive (A clear) DRAM pages only, until free
    /// memory is over the high watermark; A bits of active pages are cleared
    /// on the way, so they are demoted at a later pass if still unused.
    fn reclaim(
        &mut self,
        b: &mut dyn Backend,
        all: &[(Asid, u64, TierId)],
    ) -> Result<(), BackendError> {
        if dram_free_fraction(b) >= self.low_watermark {
            return Ok(());
        }
        let cap = b.tiers()[0].capacity_bytes as f64;
        let need = ((self.high_watermark - dram_free_fraction(b)) * cap / 4096.0).ceil() as usize;
        let mut inactive = Vec::new();
        for &(a, va, t) in all {
            if t != TierId::FAST {
                continue;
            }
            if !b.accessed(a, va, Level::Pte, true)? {
                inactive.push((a, va));
                if inactive.len() >= need {
                    break;
                }
            }
        }
        let slow = slow_tier(b);
        migrate_all(b, &inactive, slow)?;
        for a in asids(b) {
            b.flush_tlb(a, Flush::All)?;
        }
        Ok(())
    }
}

impl Manager for AutonumaTiering {
    fn name(&self) -> &'static str {
        "autonuma-tiering"
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        set_all(b, MemPolicy::PreferFast)
    }
    fn tick_ns(&self) -> Option<u64> {
        Some((self.scan_period_s * 1e9) as u64)
    }
    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        // Pages marked last period that took a hint fault are hot: promote
        // them (rate-limited), making room by reclaim first.
        let budget = (self.rate_limit_mb_s * 1e6 * self.scan_period_s / 4096.0) as usize;
        let mut hot = Vec::new();
        for &(a, va) in &self.marked {
            if b.poisoning()?.poison_faults(a, va, true)? > 0 && hot.len() < budget {
                hot.push((a, va));
            }
            b.poisoning()?.set_poison(a, va, false)?;
        }
        self.marked.clear();
        let all = pages(b)?;
        self.reclaim(b, &all)?;
        let room = (b.tiers()[0].free_bytes / 4096) as usize;
        hot.truncate(room);
        migrate_all(b, &hot, TierId::FAST)?;
        // Mark the next window of DCPMM pages (NUMA hint-fault scanning).
        let slow: Vec<(Asid, u64)> = all
            .iter()
            .filter(|p| p.2 != TierId::FAST)
            .map(|p| (p.0, p.1))
            .collect();
        let window = (self.scan_size_mb * 1e6 / 4096.0) as usize;
        if !slow.is_empty() {
            for i in 0..window.min(slow.len()) {
                let (a, va) = slow[(self.cursor + i) % slow.len()];
                b.poisoning()?.arm_hint_fault(a, va)?;
                self.marked.push((a, va));
            }
            // `window % len` first: a huge scan_size_mb must not overflow.
            self.cursor = (self.cursor + window % slow.len()) % slow.len();
        }
        Ok(None)
    }
}

/// Memos' placement as Ambix evaluated it.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemosPlacement {
    /// Action period (s).
    pub period_s: f64,
    /// Delay between clearing NVM pages' R/D bits and reading them (ms).
    pub clear_delay_ms: f64,
    /// Pages promoted per period at most.
    pub max_promotions: usize,
    /// Share of traffic the bandwidth feedback aims to serve from DRAM.
    pub dram_traffic_target: f64,
    /// DRAM usage above which cold DRAM pages are demoted.
    pub dram_threshold: f64,
    #[serde(skip)]
    ticks: u64,
    #[serde(skip)]
    last: [u64; 2],
    #[serde(skip)]
    dram_share: f64,
}

impl Default for MemosPlacement {
    fn default() -> Self {
        MemosPlacement {
            period_s: 2.0,
            clear_delay_ms: 50.0,
            max_promotions: 10_000,
            dram_traffic_target: 0.8,
            dram_threshold: 0.95,
            ticks: 0,
            last: [0; 2],
            dram_share: 0.0,
        }
    }
}

impl Manager for MemosPlacement {
    fn name(&self) -> &'static str {
        "memos-placement"
    }
    fn default_fast_capacity(&self) -> Option<CapacitySpec> {
        None
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let slow = slow_tier(b);
        set_all(b, MemPolicy::Bind { tier: slow })
    }
    fn tick_ns(&self) -> Option<u64> {
        Some((self.clear_delay_ms * 1e6) as u64)
    }
    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        self.ticks += 1;
        let per = (self.period_s * 1e3 / self.clear_delay_ms).round().max(2.0) as u64;
        let slow = slow_tier(b);
        match self.ticks % per {
            // Period start: measure the traffic split, clear NVM R/D bits.
            0 => {
                let d = b.tier_counters(TierId::FAST)?;
                let s = b.tier_counters(slow)?;
                let now = [d.reads + d.writes, s.reads + s.writes];
                let (dd, ds) = (now[0] - self.last[0], now[1] - self.last[1]);
                self.last = now;
                self.dram_share = dd as f64 / (dd + ds).max(1) as f64;
                for (a, va, t) in pages(b)? {
                    if t == slow {
                        b.accessed(a, va, Level::Pte, true)?;
                        b.dirty(a, va, true)?;
                    }
                }
                for a in asids(b) {
                    b.flush_tlb(a, Flush::All)?;
                }
            }
            // After the delay: promote hot pages, write-dominated first.
            1 => {
                let all = pages(b)?;
                let (mut writes, mut reads) = (Vec::new(), Vec::new());
                for &(a, va, t) in &all {
                    if t != slow {
                        continue;
                    }
                    if b.dirty(a, va, false)? {
                        writes.push((a, va));
                    } else if b.accessed(a, va, Level::Pte, false)? {
                        reads.push((a, va));
                    }
                }
                // Bandwidth feedback: read-hot pages only while DRAM serves
                // less than its target share of the traffic.
                if self.dram_share < self.dram_traffic_target {
                    writes.extend(reads);
                }
                writes.truncate(self.max_promotions);
                let tier = &b.tiers()[0];
                let limit = (tier.capacity_bytes as f64 * self.dram_threshold) as u64;
                let used = tier.capacity_bytes - tier.free_bytes;
                let room = (limit.saturating_sub(used) / 4096) as usize;
                if writes.len() > room {
                    // Demote cold DRAM pages (A bit clear) to make room.
                    let mut cold = Vec::new();
                    for &(a, va, t) in &all {
                        if t == TierId::FAST && !b.accessed(a, va, Level::Pte, true)? {
                            cold.push((a, va));
                            if cold.len() >= writes.len() - room {
                                break;
                            }
                        }
                    }
                    migrate_all(b, &cold, slow)?;
                }
                let room = (b.tiers()[0].free_bytes / 4096) as usize;
                writes.truncate(room);
                migrate_all(b, &writes, TierId::FAST)?;
            }
            _ => {}
        }
        Ok(None)
    }
}
