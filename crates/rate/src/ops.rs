//! The backend interface on the rate-driven machine: each call answered
//! from the machine's parts.

use crate::index::Mass;
use crate::machine::RateMachine;
use crate::placement::{Home, Page, RunAt};
use crate::profile::Span;
use crate::streams::{self, poisson};
use crate::telemetry::{entry_key, entry_va, level_index};
use thermocline_backend::{
    AllocCounts, Backend, BackendError, Capabilities, Capability, Exchange, Flush, HugePages,
    MemEvents, MemPolicy, MemoryMode, MigrationReport, Poisoning, Sample, Sampling, SamplingConfig,
    TierCounters, TierInfo, Translation, TypedAlloc,
};
use thermocline_model::costs::FLUSH_CEILING_PAGES;
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Asid, Level, PageSize, PageType, TierId};

type Result<T> = std::result::Result<T, BackendError>;

/// A page-table entry over an address: its level, key and virtual range.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Level index, root first.
    li: usize,
    /// Key within its level ([`entry_key`]).
    key: u64,
    /// First byte it maps (a leaf's page base).
    start: u64,
    /// One past the last byte it maps.
    end: u64,
    /// Whether it maps a page (a PTE, or a huge page's PMD).
    leaf: bool,
}

impl RateMachine {
    /// The first frame of tier `t`: the tiers' frames follow each other.
    fn first_frame(&self, t: usize) -> u64 {
        self.cfg.tiers[..t]
            .iter()
            .map(|x| x.capacity_bytes / 4096)
            .sum()
    }

    fn not_mapped(asid: Asid, va: u64) -> BackendError {
        BackendError::NotMapped { asid, va }
    }

    fn check_tier(&self, t: TierId) -> Result<()> {
        BackendError::unless_tier(t, self.cfg.tiers.len())
    }

    /// The leaf page of `va`.
    fn leaf(&self, asid: Asid, va: u64) -> Result<Page> {
        self.placement
            .page(asid.0, va)
            .ok_or_else(|| Self::not_mapped(asid, va))
    }

    /// The entry key and virtual range of the entry at `level` over `va`
    /// (a huge page's PMD answers for `Level::Pte`).
    fn entry(&self, asid: Asid, va: u64, level: Level) -> Result<Entry> {
        let page = self.leaf(asid, va)?;
        let level = if level == Level::Pte && page.huge() {
            Level::Pmd
        } else {
            level
        };
        let start = va & !(level.span() - 1);
        Ok(Entry {
            li: level_index(level),
            key: entry_key(asid.0, va, level),
            start: start.max(if level == Level::Pte {
                page.base
            } else {
                start
            }),
            end: start + level.span(),
            leaf: level == Level::Pte || (level == Level::Pmd && page.huge()),
        })
    }

    /// Charges a migration call: copy costs by page size (HeteroOS Table 6
    /// for 4 KiB pages), and one batched shootdown.
    fn charge_migration(&mut self, report: &MigrationReport, base_pages: u64, huge_pages: u64) {
        self.accounting.migrated_bytes(report.bytes);
        let c = &self.cfg.costs;
        let copy_ns = base_pages as f64 * c.base_page_migration_ns(base_pages)
            + huge_pages as f64 * c.huge_page_migration_ns();
        self.accounting.charge_manager(copy_ns);
        let (mut cpu_ns, mut stall_ns) = (copy_ns, 0.0);
        if report.pages > 0 {
            self.invalidate();
            let cost = self.shootdown(report.pages.min(FLUSH_CEILING_PAGES));
            cpu_ns += cost.manager_ns;
            stall_ns += cost.all_core_stall_ns;
        }
        self.accounting.migration_costs(cpu_ns, stall_ns);
    }

    fn shootdown(&mut self, invlpgs: u64) -> thermocline_model::costs::Shootdown {
        let cost = self.cfg.costs.shootdown(invlpgs, self.cfg.perf.threads);
        self.accounting.charge_manager(cost.manager_ns);
        self.clock.stall(cost.all_core_stall_ns);
        self.accounting.shootdown(cost.all_core_stall_ns);
        cost
    }

    /// After a flush covering `[start, end)`: cleared leaf entries there are
    /// set by the next operation on them rather than by the next TLB miss.
    fn redraw_flushed(&mut self, asid: u16, start: u64, end: u64) {
        let now = self.clock.progress();
        for e in self.telemetry.take_unflushed(asid, start, end) {
            // Still clear: from now on the next operation (not the next TLB
            // miss) sets it; memorylessness lets the draw restart here.
            if !self.telemetry.accessed(e.li, e.key, now) {
                let (va, bytes) = (e.va(), e.bytes());
                let at = self.next_set(streams::FLUSHED, e.key, |ix| {
                    ix.set_intensity(asid, va, va + bytes, true)
                });
                self.telemetry.clear_accessed(e.li, e.key, at);
            }
        }
    }

    /// Clears an entry; `leaf` if it maps a page (a PTE, or a huge page's PMD).
    fn clear_entry(&mut self, li: usize, leaf: bool, key: u64, asid: u16, start: u64, end: u64) {
        // The current phase's rates, unflushed and flushed: the draw and
        // the flush test below both use them (computed once: a scan clears
        // every page).
        let phase = self.clock.phase();
        let rates = self
            .current_phase()
            .map(|ix| ix.set_intensities(asid, start, end));
        // Upper levels are answered as after a paging-structure-cache flush
        // (the next walk under the entry sets it); leaves by the next walk
        // of their page (TLB miss) until the page is flushed.
        let at = self.next_set_by_phase(streams::ACCESSED[li], key, |k, ix| match rates {
            Some((unflushed, _)) if k == phase => unflushed,
            _ => ix.set_intensity(asid, start, end, false),
        });
        self.telemetry.clear_accessed(li, key, at);
        // A flush changes the answer only where accesses hit the TLB.
        let tlb_hits = rates.is_none_or(|(unflushed, flushed)| unflushed < 0.999 * flushed);
        if leaf && tlb_hits && self.profile.ever_hot(asid, start, end) {
            self.telemetry
                .note_unflushed(li, key, self.clock.progress());
        }
    }
}

impl Backend for RateMachine {
    fn kind(&self) -> &'static str {
        "rate"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::all()
            .without(Capability::RegionMonitor)
            .without(Capability::Dma)
            .without(Capability::Colours)
    }

    fn now_ns(&self) -> u64 {
        self.clock.now_ns() as u64
    }

    fn regions(&self) -> &[RegionInfo] {
        &self.regions
    }

    fn tiers(&self) -> Vec<TierInfo> {
        self.cfg
            .tiers
            .iter()
            .enumerate()
            .map(|(i, t)| TierInfo {
                id: TierId(i as u8),
                name: t.name.clone(),
                capacity_bytes: t.capacity_bytes,
                free_bytes: (t.capacity_bytes as f64 - self.placement.used()[i]).max(0.0) as u64,
                read_latency_ns: t.read_ns,
                write_latency_ns: t.write_ns,
                // Frames are numbered per tier in address order of its pages
                // (`reverse_translate`); `translate` gives page numbers.
                first_frame: Some(self.first_frame(i)),
            })
            .collect()
    }

    fn translate(&self, asid: Asid, va: u64) -> Result<Option<Translation>> {
        Ok(self.placement.page(asid.0, va).map(|page| Translation {
            size: if page.huge() {
                PageSize::Huge
            } else {
                PageSize::Base
            },
            tier: TierId(page.tier),
            // Frames are not modelled: the virtual page number stands in.
            frame: page.base >> 12,
        }))
    }

    /// The frames of tier `t` are numbered in (address space, address)
    /// order of the pages it holds, renumbered whenever placement changes
    /// (this machine has no physical layout: a clock hand over frames
    /// therefore sees pages in address order).
    fn reverse_translate(&mut self, frame: u64) -> Result<Option<(Asid, u64)>> {
        self.ensure_mapped();
        for t in 0..self.cfg.tiers.len() {
            let first = self.first_frame(t);
            let frames = self.cfg.tiers[t].capacity_bytes / 4096;
            if (first..first + frames).contains(&frame) {
                return Ok(self
                    .placement
                    .reverse(t, frame - first)
                    .map(|(a, va)| (Asid(a), va)));
            }
        }
        Ok(None)
    }

    fn accessed(&mut self, asid: Asid, va: u64, level: Level, clear: bool) -> Result<bool> {
        self.accounting
            .charge_manager(self.cfg.costs.entry_access_at(level));
        let e = self.entry(asid, va, level)?;
        let set = self.telemetry.accessed(e.li, e.key, self.clock.progress());
        if clear {
            self.clear_entry(e.li, e.leaf, e.key, asid.0, e.start, e.end);
        }
        Ok(set)
    }

    fn scan_accessed(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        clear: bool,
        out: &mut Vec<u64>,
    ) -> Result<u64> {
        let end = start.saturating_add(len);
        let mut va = start & !0xfff;
        let mut read = 0u64;
        while va < end {
            // The run at `va`, or the next mapped one.
            let Some(RunAt { from, run, .. }) = self.placement.run_from(asid.0, va, end) else {
                break;
            };
            va = from;
            // Leaf entries of the run (PTEs, or PMDs of huge pages): stretches
            // cold now and later word by word, the rest entry by entry.
            let level = if run.huge { Level::Pmd } else { Level::Pte };
            let (li, shift) = (level_index(level), level.shift());
            let page = 1u64 << shift;
            let stop = run.end.min(end).div_ceil(page) * page;
            va &= !(page - 1);
            let now = self.clock.progress();
            while va < stop {
                let hot = self
                    .profile
                    .next_ever(asid.0, va, stop)
                    .unwrap_or(stop..stop);
                let hot_lo = (hot.start & !(page - 1)).max(va);
                let hot_hi = hot.end.div_ceil(page) * page;
                if va < hot_lo {
                    let (first, last) = (
                        entry_key(asid.0, va, level),
                        entry_key(asid.0, hot_lo - 1, level),
                    );
                    read += last - first + 1;
                    if clear {
                        self.telemetry
                            .clear_cold(li, first, last, |k| out.push(entry_va(li, k)));
                    } else {
                        for k in first..=last {
                            if self.telemetry.accessed(li, k, now) {
                                out.push(entry_va(li, k));
                            }
                        }
                    }
                    va = hot_lo;
                }
                while va < hot_hi.min(stop) {
                    let key = entry_key(asid.0, va, level);
                    read += 1;
                    if self.telemetry.accessed(li, key, now) {
                        out.push(va);
                    }
                    if clear {
                        self.clear_entry(li, true, key, asid.0, va, va + page);
                    }
                    va += page;
                }
            }
        }
        self.accounting
            .charge_manager(read as f64 * self.cfg.costs.entry_access_ns);
        Ok(read)
    }

    fn dirty(&mut self, asid: Asid, va: u64, clear: bool) -> Result<bool> {
        self.accounting
            .charge_manager(self.cfg.costs.entry_access_ns);
        let Page { base, bytes, .. } = self.leaf(asid, va)?;
        let key = entry_key(asid.0, base, Level::Pte);
        let set = self.telemetry.dirty(key, self.clock.progress());
        if clear {
            // Stores set it; an operation's stores come together.
            let (a, end) = (asid.0, base + bytes);
            let at = self.next_set(streams::DIRTY, key, |ix| {
                let all = ix.mass(a, base, end, Mass::All);
                let w = ix.mass(a, base, end, Mass::Writes);
                if all > 0.0 {
                    w.min(ix.ops(a, base, end) * w / all)
                } else {
                    0.0
                }
            });
            self.telemetry.clear_dirty(key, at);
        }
        Ok(set)
    }

    fn flush_tlb(&mut self, asid: Asid, what: Flush) -> Result<()> {
        match what {
            Flush::Page(va) => {
                self.shootdown(1);
                let (base, end) = self
                    .leaf(asid, va)
                    .map_or((va & !4095, (va & !4095) + 4096), |p| (p.base, p.end()));
                self.redraw_flushed(asid.0, base, end);
            }
            Flush::Range { start, len } => {
                let pages = len.div_ceil(4096);
                if pages > FLUSH_CEILING_PAGES {
                    self.shootdown(0);
                    self.accounting.charge_manager(self.cfg.costs.full_flush_ns);
                    self.redraw_flushed(asid.0, 0, 1 << 47);
                } else if len > 0 {
                    self.shootdown(pages);
                    self.redraw_flushed(asid.0, start, start + len);
                }
            }
            Flush::All => {
                self.shootdown(0);
                self.accounting.charge_manager(self.cfg.costs.full_flush_ns);
                self.redraw_flushed(asid.0, 0, 1 << 47);
            }
        }
        Ok(())
    }

    fn tier_counters(&self, tier: TierId) -> Result<TierCounters> {
        self.check_tier(tier)?;
        Ok(self.accounting.tier_counters(tier.index()))
    }

    fn llc_misses(&self) -> Result<u64> {
        Ok(self.accounting.llc_misses())
    }

    fn migrate(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<MigrationReport> {
        self.check_tier(to)?;
        self.ensure_mapped();
        let mut report = MigrationReport::default();
        let (mut base_pages, mut huge_pages) = (0u64, 0u64);
        let cap = self.cfg.tiers[to.index()].capacity_bytes as f64;
        for &va in vas {
            let Some(Page {
                base,
                bytes,
                tier: from,
            }) = self.placement.page(asid.0, va)
            else {
                continue;
            };
            if from == to.0 {
                report.already_there += 1;
                continue;
            }
            if self.placement.used()[to.index()] + bytes as f64 > cap
                || self.placement.quota_room(asid.0, to.index()) < bytes as f64
            {
                report.failed += 1;
                continue;
            }
            self.placement
                .set(asid.0, base, base + bytes, Home::Tier(to.0), bytes > 4096);
            report.pages += 1;
            report.bytes += bytes;
            let lines = (bytes / 64) as f64;
            self.accounting.copied(from as usize, to.index(), lines);
            self.accounting.moved(from as usize, to.index(), 1);
            if bytes > 4096 {
                huge_pages += 1;
            } else {
                base_pages += 1;
            }
        }
        self.charge_migration(&report, base_pages, huge_pages);
        Ok(report)
    }

    fn migrate_range(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        to: TierId,
        max_bytes: u64,
    ) -> Result<MigrationReport> {
        self.check_tier(to)?;
        self.ensure_mapped();
        let end = start.saturating_add(len);
        let cap = self.cfg.tiers[to.index()].capacity_bytes as f64;
        let mut report = MigrationReport::default();
        let (mut base_pages, mut huge_pages) = (0u64, 0u64);
        let mut va = start & !0xfff;
        while va < end && report.bytes < max_bytes {
            let Some(RunAt {
                from,
                start: run_start,
                run,
            }) = self.placement.run_from(asid.0, va, end)
            else {
                break;
            };
            va = from;
            let page = if run.huge { 2u64 << 20 } else { 4096 };
            let lo = (va.max(run_start)) & !(page - 1);
            let hi = run.end.min(end.div_ceil(page) * page);
            let share_elsewhere = 1.0 - self.placement.shares(run.home)[to.index()];
            if share_elsewhere <= 0.0 || hi <= lo {
                va = run.end;
                continue;
            }
            let room = (cap - self.placement.used()[to.index()])
                .min(self.placement.quota_room(asid.0, to.index()))
                .max(0.0);
            let budget = (max_bytes - report.bytes) as f64 / share_elsewhere;
            let want = ((hi - lo) as f64).min(budget).min(room / share_elsewhere);
            let take = (want as u64) / page * page;
            if take == 0 {
                // a budget smaller than a page ends the move; only a full
                // destination is a failure
                if room / share_elsewhere < page as f64 {
                    report.failed += 1;
                }
                break;
            }
            let moved = (take as f64 * share_elsewhere).round() as u64;
            let pages = take / page;
            let from_tiers = self.placement.shares(run.home);
            self.placement
                .set(asid.0, lo, lo + take, Home::Tier(to.0), run.huge);
            for (t, sh) in from_tiers.into_iter().enumerate() {
                if t != to.index() && sh > 0.0 {
                    let lines = sh * take as f64 / 64.0;
                    self.accounting.copied(t, to.index(), lines);
                    let n = (sh * pages as f64).round() as u64;
                    self.accounting.moved(t, to.index(), n);
                }
            }
            let n = (share_elsewhere * pages as f64).round() as u64;
            report.pages += n;
            report.bytes += moved;
            if run.huge {
                huge_pages += n;
            } else {
                base_pages += n;
            }
            va = lo + take;
        }
        self.charge_migration(&report, base_pages, huge_pages);
        Ok(report)
    }

    fn set_policy(&mut self, asid: Asid, policy: MemPolicy) -> Result<()> {
        BackendError::unless_policy(policy, self.cfg.tiers.len())?;
        self.placement.set_policy(asid.0, policy);
        Ok(())
    }

    fn alloc_counts(&self, asid: Asid) -> Result<[AllocCounts; PageType::COUNT]> {
        Ok(self.placement.alloc_counts(asid.0))
    }

    fn charge_manager(&mut self, ns: f64) {
        self.accounting.charge_manager(ns);
    }

    fn manager_ns(&self) -> f64 {
        self.accounting.manager_ns()
    }

    fn stall_ns(&self) -> f64 {
        self.accounting.stall_ns()
    }

    /// The expected time of the page-ins from tiers that fault on access
    /// and give the page back (compressed, swap), as the exact machine
    /// models it, capped at the time elapsed. This machine keeps a faulted
    /// page where it is (its placement changes only by the manager's
    /// moves), so a paged-out page that stays in use stalls at every TLB
    /// miss, where the exact machine would have brought it back once.
    fn some_memory_stall_us(&self) -> u64 {
        (self.accounting.pagein_ns().min(self.now_ns() as f64) / 1e3) as u64
    }

    fn poisoning(&mut self) -> Result<&mut dyn Poisoning> {
        Ok(self)
    }

    fn sampling(&mut self) -> Result<&mut dyn Sampling> {
        Ok(self)
    }

    fn huge_pages(&mut self) -> Result<&mut dyn HugePages> {
        Ok(self)
    }

    fn exchanges(&mut self) -> Result<&mut dyn Exchange> {
        Ok(self)
    }

    fn typed_alloc(&mut self) -> Result<&mut dyn TypedAlloc> {
        Ok(self)
    }

    fn mem_events(&mut self) -> Result<&mut dyn MemEvents> {
        Ok(self)
    }

    fn memory_mode(&mut self) -> Result<&mut dyn MemoryMode> {
        Ok(self)
    }
}

impl Poisoning for RateMachine {
    fn set_poison(&mut self, asid: Asid, va: u64, poisoned: bool) -> Result<()> {
        self.accounting
            .charge_manager(self.cfg.costs.entry_access_ns);
        let Page { base, bytes, .. } = self.leaf(asid, va)?;
        if poisoned {
            self.poison
                .poison(asid.0, base, bytes, self.clock.progress());
        } else {
            self.poison.remove(asid.0, base);
        }
        self.invalidate();
        self.shootdown(1);
        Ok(())
    }

    fn arm_hint_fault(&mut self, asid: Asid, va: u64) -> Result<()> {
        self.accounting
            .charge_manager(self.cfg.costs.entry_access_ns);
        let Page { base, bytes, .. } = self.leaf(asid, va)?;
        let key = entry_key(asid.0, base, Level::Pte);
        let a = asid.0;
        let at = self.next_set(streams::HINT_FAULT, key, |ix| {
            ix.set_intensity(a, base, base + bytes, true)
        });
        self.poison
            .arm_hint(asid.0, base, bytes, self.clock.progress(), at);
        self.shootdown(1);
        Ok(())
    }

    fn poison_faults(&mut self, asid: Asid, va: u64, reset: bool) -> Result<u64> {
        let base = self.leaf(asid, va)?.base;
        let now = self.clock.progress();
        let Some(rec) = self.poison.get(asid.0, base) else {
            return Ok(0);
        };
        if let Some(at) = rec.hint_at {
            let fired = u64::from(at <= now);
            if fired == 1 && reset {
                self.poison.remove(asid.0, base);
            }
            return Ok(fired);
        }
        // Faults since the last count: Poisson in the page's TLB-miss mass,
        // over the current and later phases, then earlier ones (a record can
        // outlive a phase change).
        let page = Span {
            asid: asid.0,
            start: base,
            end: base + rec.bytes,
        };
        let mean = self
            .profile
            .mass_between(rec.since, now, self.clock.phase(), page, Mass::Walks);
        let mut rng = streams::poison_faults(self.cfg.seed, base, rec.since);
        let total = rec.faults + poisson(mean, &mut rng);
        self.poison
            .counted(asid.0, base, now, if reset { 0 } else { total });
        Ok(total)
    }
}

impl Sampling for RateMachine {
    fn set_sampling(&mut self, config: Option<SamplingConfig>) -> Result<()> {
        if let Some(c) = config {
            if c.period == 0 || c.buffer == 0 {
                return Err(BackendError::Invalid {
                    va: 0,
                    why: "sampling period and buffer must be positive",
                });
            }
            if c.buffer > 1 << 24 {
                return Err(BackendError::Invalid {
                    va: 0,
                    why: "a sampling buffer holds at most 2^24 samples",
                });
            }
        }
        self.sampler.configure(config);
        self.invalidate();
        Ok(())
    }

    fn drain_samples(&mut self, out: &mut Vec<Sample>) -> Result<u64> {
        let Some((n, dropped)) = self.sampler.drain(out) else {
            return Err(BackendError::Invalid {
                va: 0,
                why: "sampling is off",
            });
        };
        self.accounting
            .charge_manager(n as f64 * self.cfg.costs.sample_ns);
        Ok(dropped)
    }
}

impl HugePages for RateMachine {
    fn split_huge(&mut self, asid: Asid, va: u64) -> Result<()> {
        let Page { base, bytes, tier } = self.leaf(asid, va)?;
        if bytes == 4096 {
            return Ok(());
        }
        // Splitting is page-moving work, as on the exact machine: its CPU
        // and its shootdown count as migration in the time breakdown.
        let split = self.cfg.costs.split_huge_ns;
        self.accounting.charge_manager(split);
        self.placement
            .set(asid.0, base, base + bytes, Home::Tier(tier), false);
        let cost = self.shootdown(1);
        self.accounting
            .migration_costs(split + cost.manager_ns, cost.all_core_stall_ns);
        Ok(())
    }

    fn collapse_huge(&mut self, asid: Asid, va: u64) -> Result<()> {
        let base = va & !((2 << 20) - 1);
        let region_ok = self
            .regions
            .iter()
            .any(|r| r.asid == asid && r.thp && r.start <= base && base + (2 << 20) <= r.end());
        if !region_ok {
            return Err(BackendError::Invalid {
                va,
                why: "collapse needs a 2 MiB range inside a THP region",
            });
        }
        let mut per_tier = vec![0u64; self.cfg.tiers.len()];
        for i in 0..512 {
            let t = self.leaf(asid, base + i * 4096)?.tier;
            per_tier[t as usize] += 1;
        }
        let tier = per_tier
            .iter()
            .enumerate()
            .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)))
            .map_or(0, |(i, _)| i);
        let moved = 512 - per_tier[tier];
        let work = self.cfg.costs.split_huge_ns
            + moved as f64 * self.cfg.costs.base_page_migration_ns(moved);
        self.accounting.charge_manager(work);
        self.placement
            .set(asid.0, base, base + (2 << 20), Home::Tier(tier as u8), true);
        self.invalidate();
        let cost = self.shootdown(1);
        self.accounting
            .migration_costs(work + cost.manager_ns, cost.all_core_stall_ns);
        Ok(())
    }
}

impl Exchange for RateMachine {
    fn exchange(&mut self, asid: Asid, a: u64, b: u64) -> Result<()> {
        let Page {
            base: ba,
            bytes: sa,
            tier: ta,
        } = self.leaf(asid, a)?;
        let Page {
            base: bb,
            bytes: sb,
            tier: tb,
        } = self.leaf(asid, b)?;
        if sa != sb || ta == tb {
            return Err(BackendError::Invalid {
                va: a,
                why: "exchange needs two pages of one size in different tiers",
            });
        }
        self.placement
            .set(asid.0, ba, ba + sa, Home::Tier(tb), sa > 4096);
        self.placement
            .set(asid.0, bb, bb + sb, Home::Tier(ta), sb > 4096);
        let lines = (2 * sa / 64) as f64;
        self.accounting
            .copied(ta as usize, tb as usize, lines / 2.0);
        self.accounting
            .copied(tb as usize, ta as usize, lines / 2.0);
        self.accounting.migrated_bytes(2 * sa);
        self.accounting
            .charge_manager(2.0 * self.cfg.costs.base_page_migration_ns(1) * (sa / 4096) as f64);
        self.invalidate();
        self.shootdown(2);
        Ok(())
    }
}

impl TypedAlloc for RateMachine {
    /// As on the exact machine, but pages are placed once, when the
    /// workload starts: a policy set after that changes nothing.
    fn set_type_policy(
        &mut self,
        asid: Asid,
        ty: PageType,
        policy: Option<MemPolicy>,
    ) -> Result<()> {
        if let Some(p) = policy {
            BackendError::unless_policy(p, self.cfg.tiers.len())?;
        }
        self.placement.set_type_policy(asid.0, ty.index(), policy);
        Ok(())
    }

    fn set_tier_quota(&mut self, asid: Asid, tier: TierId, pages: Option<u64>) -> Result<()> {
        self.check_tier(tier)?;
        self.placement.set_quota(asid.0, tier.0, pages);
        Ok(())
    }

    fn held_pages(&self, asid: Asid, tier: TierId) -> Result<u64> {
        self.check_tier(tier)?;
        Ok((self.placement.used_by(asid.0, tier.index()) / 4096.0).round() as u64)
    }
}

impl MemEvents for RateMachine {
    /// A rate profile has no releases or I/O completions: none to give.
    fn drain_mem_events(&mut self, out: &mut Vec<thermocline_vocab::MemEvent>) -> Result<u64> {
        let _ = out;
        Ok(0)
    }
}

impl MemoryMode for RateMachine {
    /// In expectation: see [`crate::dram_cache`].
    fn set_memory_mode(&mut self, on: bool) -> Result<()> {
        self.memory_mode = on;
        self.invalidate();
        Ok(())
    }
}
