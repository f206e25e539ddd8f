//! Ambix (../shared/papers/004_5016d0e3a63ff357.txt, section 4): read/write-
//! asymmetry-aware placement on DRAM + DCPMM.
//!
//! **Control** (4.2.1) runs every 2 s. It reads DRAM usage and DCPMM's write
//! throughput (tier counters, as PCMon does for the paper) and decides:
//!
//! - DCPMM writes above 50 MB/s: if DRAM is above its 0.95 usage threshold,
//!   SWITCH (exchange intensive DCPMM pages with cold DRAM pages); otherwise
//!   PROMOTE_INT (promote intensive pages up to the threshold);
//! - otherwise: if DRAM has room below the threshold, PROMOTE (any DCPMM
//!   pages, intensive first); if it is at or above it, DEMOTE (cold pages
//!   first) down to the threshold, then SWITCH, because section 5.2.3 runs
//!   Ambix with "the Switch component ... always activated" (see the
//!   deviations below; `switch_always = false` gives 4.2.1's tree alone).
//!
//! Before any request that promotes, DCPMM_CLEAR clears the R/D bits of
//! every DCPMM page and Control waits the 50 ms delay: pages referenced in
//! the delay are read-intensive, modified ones write-intensive.
//!
//! **SelMo** (4.2.2) walks the page tables with one callback per mode,
//! sorting pages into priority, backup and retain groups, and resumes each
//! tier's walk where the last one stopped. DEMOTE is Algorithm 1: priority =
//! not referenced (cold), backup = referenced but clean (read-intensive);
//! pages written since the last walk are retained, never demoted. PROMOTE: priority = modified,
//! backup = any other DCPMM page. PROMOTE_INT: priority = modified, backup =
//! referenced. SWITCH runs PROMOTE_INT on DCPMM then DEMOTE on DRAM for as
//! many pages, and pairs a backup page only with a priority page of the
//! other tier; the pairs are exchanged.
//!
//! Deviations and inferences:
//! - The text says DEMOTE clears the R/D bits of every page it does not pick;
//!   Algorithm 1 clears them only for backup pages. We follow the text
//!   (CLOCK-like: a written page is retained once, then judged again).
//!   Promotion callbacks leave bits alone, as the text says.
//! - After clearing bits we flush the TLBs so later accesses set them again
//!   (on x86 a cached translation would not); the paper does not say.
//! - **SWITCH with low DCPMM writes (inferred).** Section 4.2.1's decision
//!   tree, read literally, never promotes a page into a full DRAM unless
//!   DCPMM's write throughput exceeds 50 MB/s, so a read-intensive page
//!   left in DCPMM by first touch would stay there for good. That
//!   contradicts section 4's goal ("If these [write-intensive pages] do not
//!   fully occupy DRAM, Ambix prefers read-intensive pages over cold pages
//!   in the faster tier") and section 5.2.3's configuration ("The Switch
//!   component is always activated, therefore having no need to set a
//!   target threshold for DCPMM"). We read "always activated" as: when DRAM
//!   is at or above its threshold, Control sends SWITCH every period
//!   whatever DCPMM's write throughput, after demoting any excess over the
//!   threshold; the write threshold still decides between PROMOTE_INT and
//!   PROMOTE when DRAM has room. SWITCH's pairing rule keeps it from
//!   exchanging equally intensive pages, so a read-intensive DCPMM page only
//!   replaces a cold DRAM page. `switch_always = false` restores the literal
//!   tree.
//! - The paper does not bound SWITCH: by default it exchanges every
//!   intensive DCPMM page it finds (at most DRAM's size);
//!   `switch_max_pages` sets a bound.
//! - Pages are 4 KiB PTEs (Ambix's callbacks see PTEs); huge pages are
//!   walked as one leaf.
//!
//! **On a live host** (thermocline daemon; examples/live-ambix.toml), each
//! missing primitive has a stand-in, chosen by what the backend has, so a
//! simulated run takes none of them:
//! - R: the backend's Accessed bits (on Linux refault sampling, which pages
//!   every DCPMM page out at each DCPMM_CLEAR), or with `referenced =
//!   "damon"` the host's DAMON regions (`Backend::monitor_regions`, 5 ms /
//!   100 ms, 10-1000 regions): a page is referenced if its region was
//!   accessed in the last aggregation interval before the walk. Clearing R
//!   is then a no-op; D is still cleared (soft-dirty, per process on Linux).
//! - DCPMM's write throughput, without tier counters (no PCMon): the DCPMM
//!   pages found written (D set) since the last DCPMM_CLEAR, times 4 KiB,
//!   per period: a lower bound (a page written many times counts once).
//! - SWITCH, without an exchange primitive: the DRAM page is demoted, then
//!   the DCPMM page promoted (two moves; DRAM must hold one page more for a
//!   moment).
//! - DRAM usage: the fast node's, which holds every process of the host;
//!   `dram_mib` instead gives Ambix a DRAM of that size holding the
//!   targets' pages only (their fast-tier pages counted at each decision).
//! - `start_in_slow`: the targets' pages moved to DCPMM once at start (the
//!   live test's way to show promotion; the paper starts from first touch).
//!
//! The configurations Ambix is compared with (section 5: App Direct
//! node-local, Memory Mode, AutoNUMA tiering, Memos' placement) are in
//! [`baselines`].

pub mod baselines;

use crate::{HotSet, Manager};
use serde::{Deserialize, Serialize};
use thermocline_backend::{
    Backend, BackendError, Capability, Flush, MemPolicy, MonitorAttrs, MonitorRegion,
};
use thermocline_vocab::{Asid, Level, TierId};

/// Where Ambix's R (referenced) bits come from.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Referenced {
    /// The backend's Accessed bits (the paper's PTE bits).
    #[default]
    AccessedBits,
    /// The host's DAMON regions (live): referenced if its region was
    /// accessed in the last aggregation interval.
    Damon,
}

/// DAMON's attributes when R comes from it: damo's defaults.
const DAMON_ATTRS: MonitorAttrs = MonitorAttrs {
    sample_us: 5_000,
    aggr_us: 100_000,
    min_regions: 10,
    max_regions: 1000,
};

/// Ambix's parameters; defaults are section 5.2.3's.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AmbixParams {
    /// Control's period (s): 2.
    pub period_s: f64,
    /// DRAM usage above which it is full: 0.95.
    pub dram_threshold: f64,
    /// DCPMM write throughput that signals write-intensive pages there (MB/s): 50.
    pub dcpmm_write_threshold_mb_s: f64,
    /// Delay between DCPMM_CLEAR and a promoting PageFind (ms): 50.
    pub clear_delay_ms: f64,
    /// Pages SWITCH exchanges at most per period (0: no bound, as in the
    /// paper: every intensive DCPMM page found, up to DRAM's size).
    pub switch_max_pages: u64,
    /// SWITCH whenever DRAM is at its threshold, not only when DCPMM's
    /// writes are above theirs: section 5.2.3's "Switch component ... always
    /// activated" (an inference; see the module documentation).
    pub switch_always: bool,
    /// Where R comes from: `accessed-bits` (default) or `damon` (live).
    pub referenced: Referenced,
    /// DRAM's size for Control in MiB, counting the targets' fast-tier
    /// pages only (0: the fast tier's capacity and usage). Live hosts
    /// share their fast node with every process.
    pub dram_mib: u64,
    /// Move the targets' pages to DCPMM once at start (live tests).
    pub start_in_slow: bool,
}

impl Default for AmbixParams {
    fn default() -> Self {
        AmbixParams {
            period_s: 2.0,
            dram_threshold: 0.95,
            dcpmm_write_threshold_mb_s: 50.0,
            clear_delay_ms: 50.0,
            switch_max_pages: 0,
            switch_always: true,
            referenced: Referenced::AccessedBits,
            dram_mib: 0,
            start_in_slow: false,
        }
    }
}

/// A PageFind mode (Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Cold pages out of DRAM.
    Demote,
    /// Any DCPMM pages in, intensive first.
    Promote,
    /// Only intensive DCPMM pages in.
    PromoteInt,
    /// Intensive DCPMM pages for cold DRAM pages.
    Switch,
}

/// What Control does in one period.
#[derive(Debug, Default)]
struct Decision {
    /// 4 KiB pages to DEMOTE at once (0: none).
    demote: u64,
    /// The PageFind after it, and its pages.
    then: Option<(Mode, u64)>,
}

impl Decision {
    fn then(mode: Mode, pages: u64) -> Self {
        Decision {
            demote: 0,
            then: Some((mode, pages)),
        }
    }
}

/// A selected page: address space, address, size in 4 KiB pages.
type Pick = (Asid, u64, u64);

/// Pages a walk selected, with their sizes summed in 4 KiB pages.
#[derive(Debug, Default)]
struct Found {
    priority: Vec<Pick>,
    backup: Vec<Pick>,
    priority_pages: u64,
    backup_pages: u64,
}

impl Found {
    fn add_priority(&mut self, p: Pick) {
        self.priority_pages += p.2;
        self.priority.push(p);
    }

    fn add_backup(&mut self, p: Pick) {
        self.backup_pages += p.2;
        self.backup.push(p);
    }
}

/// The Ambix manager.
#[derive(Debug)]
pub struct Ambix {
    p: AmbixParams,
    /// (asid, start, end) of every region, in walk order.
    ranges: Vec<(Asid, u64, u64)>,
    /// Where each tier's next walk starts, as a byte offset into the
    /// concatenated ranges.
    cursor: [u64; 2],
    slow: TierId,
    last_dcpmm_writes: u64,
    /// A promoting decision waiting for the clear delay: (mode, pages).
    pending: Option<(Mode, u64)>,
    ticks: u64,
    counts: [u64; 4],
    /// With `referenced = "damon"`: the host's regions, sorted, as of the
    /// last walk's start.
    damon: Vec<MonitorRegion>,
}

impl Ambix {
    /// Ambix with `p`.
    pub fn new(p: AmbixParams) -> Self {
        Ambix {
            p,
            ranges: Vec::new(),
            cursor: [0; 2],
            slow: TierId(1),
            last_dcpmm_writes: 0,
            pending: None,
            ticks: 0,
            counts: [0; 4],
            damon: Vec::new(),
        }
    }

    /// R of a page from the host's DAMON regions.
    fn damon_young(&self, asid: Asid, va: u64) -> bool {
        let i = self
            .damon
            .partition_point(|r| (r.asid, r.start) <= (asid, va));
        i.checked_sub(1)
            .map(|i| &self.damon[i])
            .is_some_and(|r| r.asid == asid && va < r.start + r.len && r.nr_accesses > 0)
    }

    /// Reads the host's DAMON regions when R comes from them.
    fn refresh_referenced(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if self.p.referenced == Referenced::Damon {
            let mut r = b.monitor_regions(DAMON_ATTRS)?;
            r.sort_by_key(|r| (r.asid, r.start));
            self.damon = r;
        }
        Ok(())
    }

    fn ticks_per_period(&self) -> u64 {
        (self.p.period_s * 1e3 / self.p.clear_delay_ms)
            .round()
            .max(1.0) as u64
    }

    /// Walks the pages of `tier` from where its last walk stopped, one lap
    /// at most, calling `visit(backend, page, young, dirty)`; a `true`
    /// from `visit` stops the walk there.
    fn walk(
        &mut self,
        b: &mut dyn Backend,
        tier: TierId,
        mut visit: impl FnMut(&mut dyn Backend, Pick, bool, bool) -> Result<bool, BackendError>,
    ) -> Result<(), BackendError> {
        let total: u64 = self.ranges.iter().map(|r| r.2 - r.1).sum();
        if total == 0 {
            return Ok(());
        }
        let slot = usize::from(tier != TierId::FAST);
        let mut pos = self.cursor[slot] % total;
        let mut walked = 0;
        while walked < total {
            // Linear position -> (range, address).
            let (mut r, mut off) = (0, pos);
            while off >= self.ranges[r].2 - self.ranges[r].1 {
                off -= self.ranges[r].2 - self.ranges[r].1;
                r += 1;
            }
            let (asid, start, end) = self.ranges[r];
            let va = start + off;
            let step = match b.translate(asid, va)? {
                None => 4096,
                Some(t) => {
                    let next = (t.size.align_down(va) + t.size.bytes()).min(end);
                    if t.tier == tier {
                        let young = match self.p.referenced {
                            Referenced::AccessedBits => b.accessed(asid, va, Level::Pte, false)?,
                            Referenced::Damon => self.damon_young(asid, va),
                        };
                        let dirty = b.dirty(asid, va, false)?;
                        let pages = t.size.bytes() / 4096;
                        if visit(b, (asid, va, pages), young, dirty)? {
                            self.cursor[slot] = pos;
                            return Ok(());
                        }
                    }
                    next - va
                }
            };
            pos = (pos + step) % total;
            walked += step;
        }
        self.cursor[slot] = pos;
        Ok(())
    }

    /// Clears a page's R and D bits (R only when it comes from Accessed
    /// bits: DAMON's counts start afresh every aggregation interval).
    fn clear_bits(
        b: &mut dyn Backend,
        r: Referenced,
        asid: Asid,
        va: u64,
    ) -> Result<(), BackendError> {
        if r == Referenced::AccessedBits {
            b.accessed(asid, va, Level::Pte, true)?;
        }
        b.dirty(asid, va, true)?;
        Ok(())
    }

    /// Algorithm 1 over DRAM: `want` 4 KiB pages' worth, cold first,
    /// read-intensive as backup; every page not picked has its R/D bits
    /// cleared.
    fn find_demote(&mut self, b: &mut dyn Backend, want: u64) -> Result<Found, BackendError> {
        let mut f = Found::default();
        if want == 0 {
            return Ok(f);
        }
        let mut cleared = false;
        let referenced = self.p.referenced;
        self.walk(b, TierId::FAST, |b, page, young, dirty| {
            if f.priority_pages >= want {
                return Ok(true);
            }
            if !young {
                f.add_priority(page);
                return Ok(false);
            }
            if !dirty && f.backup_pages < want - f.priority_pages {
                f.add_backup(page);
            }
            Self::clear_bits(b, referenced, page.0, page.1)?;
            cleared = true;
            Ok(false)
        })?;
        if cleared {
            // Without it a page written through a cached translation keeps
            // clear bits and looks cold to the next walk.
            self.flush_tlbs(b)?;
        }
        Ok(f)
    }

    /// Flushes the TLBs of every address space Ambix manages, so that
    /// accesses after a clear set R/D again.
    fn flush_tlbs(&self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let mut asids: Vec<Asid> = self.ranges.iter().map(|r| r.0).collect();
        asids.sort();
        asids.dedup();
        for a in asids {
            b.flush_tlb(a, Flush::All)?;
        }
        Ok(())
    }

    /// PROMOTE / PROMOTE_INT over DCPMM: modified pages first; then any
    /// (PROMOTE) or referenced (PROMOTE_INT) pages as backup.
    fn find_promote(
        &mut self,
        b: &mut dyn Backend,
        want: u64,
        intensive_only: bool,
    ) -> Result<Found, BackendError> {
        let mut f = Found::default();
        if want == 0 {
            return Ok(f);
        }
        let slow = self.slow;
        self.walk(b, slow, |_, page, young, dirty| {
            if f.priority_pages >= want {
                return Ok(true);
            }
            if dirty {
                f.add_priority(page);
            } else if (young || !intensive_only) && f.backup_pages < want {
                f.add_backup(page);
            }
            Ok(false)
        })?;
        Ok(f)
    }

    /// Priority pages, then backup pages, up to `want` 4 KiB pages' worth.
    fn take(f: Found, want: u64) -> Vec<(Asid, u64)> {
        let mut out = Vec::new();
        let mut got = 0;
        for p in f.priority.into_iter().chain(f.backup) {
            if got >= want {
                break;
            }
            got += p.2;
            out.push((p.0, p.1));
        }
        out
    }

    fn migrate(b: &mut dyn Backend, pages: &[(Asid, u64)], to: TierId) -> Result<(), BackendError> {
        let mut i = 0;
        while i < pages.len() {
            let asid = pages[i].0;
            let j = pages[i..]
                .iter()
                .position(|p| p.0 != asid)
                .map_or(pages.len(), |k| i + k);
            let vas: Vec<u64> = pages[i..j].iter().map(|p| p.1).collect();
            b.migrate(asid, &vas, to)?;
            i = j;
        }
        Ok(())
    }

    /// DCPMM_CLEAR: R/D bits of every DCPMM page cleared.
    fn dcpmm_clear(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let slow = self.slow;
        let saved = self.cursor[1];
        let referenced = self.p.referenced;
        self.walk(b, slow, |b, page, _, _| {
            Self::clear_bits(b, referenced, page.0, page.1)?;
            Ok(false)
        })?;
        self.cursor[1] = saved;
        self.flush_tlbs(b)
    }

    fn switch(&mut self, b: &mut dyn Backend, max: u64) -> Result<(), BackendError> {
        let up = self.find_promote(b, max, true)?;
        let down = self.find_demote(b, up.priority_pages + up.backup_pages)?;
        // Pair priority with priority, then priority with the other tier's
        // backup; a backup page never pairs with a backup page. Exchanged
        // pages must be of one size.
        let mut down_p: Vec<Pick> = down.priority;
        let mut down_b: Vec<Pick> = down.backup;
        let mut pairs = Vec::new();
        for u in up.priority {
            let pick = |v: &mut Vec<Pick>| {
                v.iter()
                    .position(|d| d.0 == u.0 && d.2 == u.2)
                    .map(|i| v.remove(i))
            };
            if let Some(d) = pick(&mut down_p).or_else(|| pick(&mut down_b)) {
                pairs.push((u, d));
            }
        }
        for u in up.backup {
            if let Some(i) = down_p.iter().position(|d| d.0 == u.0 && d.2 == u.2) {
                pairs.push((u, down_p.remove(i)));
            }
        }
        if b.capabilities().has(Capability::Exchange) {
            for (u, d) in pairs {
                b.exchanges()?.exchange(u.0, u.1, d.1)?;
            }
        } else {
            // two moves: the DRAM pages out first, so DRAM has the room
            let down: Vec<(Asid, u64)> = pairs.iter().map(|(_, d)| (d.0, d.1)).collect();
            let up: Vec<(Asid, u64)> = pairs.iter().map(|(u, _)| (u.0, u.1)).collect();
            Self::migrate(b, &down, self.slow)?;
            Self::migrate(b, &up, TierId::FAST)?;
        }
        Ok(())
    }

    /// DRAM's capacity and the bytes used of it: the fast tier's, or with
    /// `dram_mib` that size and the targets' fast-tier pages.
    fn dram_usage(&self, b: &mut dyn Backend) -> Result<(u64, u64), BackendError> {
        if self.p.dram_mib == 0 {
            let dram = &b.tiers()[0];
            return Ok((dram.capacity_bytes, dram.capacity_bytes - dram.free_bytes));
        }
        let mut used = 0;
        for &(asid, start, end) in &self.ranges {
            let mut va = start;
            while let Some((base, t)) = b.next_mapped(asid, va, end)? {
                if t.tier == TierId::FAST {
                    used += t.size.bytes();
                }
                va = base + t.size.bytes();
            }
        }
        Ok((self.p.dram_mib << 20, used))
    }

    /// DCPMM's writes so far, in 64 B lines: its tier counter, or without
    /// one the DCPMM pages written since the last DCPMM_CLEAR (D set) as
    /// 4 KiB each, added to the running total.
    fn dcpmm_writes(&mut self, b: &mut dyn Backend) -> Result<u64, BackendError> {
        if b.capabilities().has(Capability::TierCounters) {
            return Ok(b.tier_counters(self.slow)?.writes);
        }
        let mut lines = 0;
        for &(asid, start, end) in &self.ranges {
            let mut va = start;
            while let Some((base, t)) = b.next_mapped(asid, va, end)? {
                if t.tier == self.slow && b.dirty(asid, base, false)? {
                    lines += t.size.bytes() / 64;
                }
                va = base + t.size.bytes();
            }
        }
        Ok(self.last_dcpmm_writes + lines)
    }

    /// Control's decision for this period: pages to demote at once, then
    /// the PageFind that waits for the clear delay (a promoting one) or
    /// runs at once (DEMOTE).
    fn decide(&mut self, b: &mut dyn Backend) -> Result<Decision, BackendError> {
        let (capacity, used) = self.dram_usage(b)?;
        let limit = (capacity as f64 * self.p.dram_threshold) as u64;
        let writes = self.dcpmm_writes(b)?;
        let mb_s = (writes - self.last_dcpmm_writes) as f64 * 64.0 / 1e6 / self.p.period_s;
        self.last_dcpmm_writes = writes;
        let pages = |bytes: u64| bytes / 4096;
        let switch_max = if self.p.switch_max_pages > 0 {
            self.p.switch_max_pages
        } else {
            pages(capacity)
        };
        let excess = pages(used.saturating_sub(limit));
        Ok(if mb_s > self.p.dcpmm_write_threshold_mb_s {
            if used > limit {
                Decision::then(Mode::Switch, switch_max)
            } else {
                Decision::then(Mode::PromoteInt, pages(limit - used))
            }
        } else if used < limit {
            Decision::then(Mode::Promote, pages(limit - used))
        } else if self.p.switch_always {
            Decision {
                demote: excess,
                then: Some((Mode::Switch, switch_max)),
            }
        } else if used > limit {
            Decision::then(Mode::Demote, excess)
        } else {
            Decision::default()
        })
    }

    fn act(&mut self, b: &mut dyn Backend, mode: Mode, n: u64) -> Result<(), BackendError> {
        self.counts[mode as usize] += 1;
        self.refresh_referenced(b)?;
        match mode {
            Mode::Demote => {
                let f = self.find_demote(b, n)?;
                let pages = Self::take(f, n);
                Self::migrate(b, &pages, self.slow)
            }
            Mode::Promote | Mode::PromoteInt => {
                let f = self.find_promote(b, n, mode == Mode::PromoteInt)?;
                let pages = Self::take(f, n);
                Self::migrate(b, &pages, TierId::FAST)
            }
            Mode::Switch => self.switch(b, n),
        }
    }
}

impl Default for Ambix {
    fn default() -> Self {
        Ambix::new(AmbixParams::default())
    }
}

impl Manager for Ambix {
    fn name(&self) -> &'static str {
        "ambix"
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let p = &self.p;
        let valid = p.period_s > 0.0
            && p.clear_delay_ms > 0.0
            && p.clear_delay_ms < p.period_s * 1e3
            && p.dram_threshold > 0.0
            && p.dram_threshold <= 1.0;
        if !valid {
            return Err(BackendError::Invalid {
                va: 0,
                why: "ambix: need period_s > clear_delay_ms / 1000 > 0 and 0 < dram_threshold <= 1",
            });
        }
        self.slow = TierId(b.tiers().len().saturating_sub(1) as u8);
        self.ranges = b
            .regions()
            .iter()
            .map(|r| (r.asid, r.start, r.end()))
            .collect();
        let mut asids: Vec<Asid> = self.ranges.iter().map(|r| r.0).collect();
        asids.dedup();
        for a in asids {
            // ADM's default: the local DRAM node first, then DCPMM.
            b.set_policy(a, MemPolicy::PreferFast)?;
        }
        crate::telemetry::Migration {
            enabled: true,
            start_in_slow: self.p.start_in_slow,
            ..crate::telemetry::Migration::default()
        }
        .start(b)?;
        self.refresh_referenced(b)?;
        self.last_dcpmm_writes = if b.capabilities().has(Capability::TierCounters) {
            b.tier_counters(self.slow)?.writes
        } else {
            0
        };
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some((self.p.clear_delay_ms * 1e6) as u64)
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        self.ticks += 1;
        if let Some((mode, n)) = self.pending.take() {
            // The clear delay has passed: pages touched since are intensive.
            self.act(b, mode, n)?;
        }
        if !self.ticks.is_multiple_of(self.ticks_per_period()) {
            return Ok(None);
        }
        let d = self.decide(b)?;
        if d.demote > 0 {
            self.act(b, Mode::Demote, d.demote)?;
        }
        match d.then {
            Some((mode, n)) if mode != Mode::Demote => {
                self.dcpmm_clear(b)?;
                self.pending = Some((mode, n));
            }
            Some((mode, n)) => self.act(b, mode, n)?,
            None => {}
        }
        Ok(None)
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("demote_count", self.counts[Mode::Demote as usize] as f64),
            ("promote_count", self.counts[Mode::Promote as usize] as f64),
            (
                "promote_int_count",
                self.counts[Mode::PromoteInt as usize] as f64,
            ),
            ("switch_count", self.counts[Mode::Switch as usize] as f64),
        ]
    }
}
