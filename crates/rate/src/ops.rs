//! The backend interface on the rate-driven machine.

use crate::bits::uniform;
use crate::index::Mass;
use crate::machine::{entry_key, level_index, poisson, PoisonRec, RateMachine, Sampler};
use crate::placement::Home;
use thermocline_backend::{
    Backend, BackendError, Capabilities, Capability, Flush, MemPolicy, MigrationReport, RegionInfo,
    Sample, SamplingConfig, TierCounters, TierInfo, Translation,
};
use thermocline_vocab::{Asid, Level, PageSize, Rng, TierId};

type Result<T> = std::result::Result<T, BackendError>;

/// Levels by index, root first.
const LEVELS: [Level; 4] = [Level::Pgd, Level::Pud, Level::Pmd, Level::Pte];

/// An entry of the unflushed set: the level index in the top bits.
fn unflushed_encode(li: usize, key: u64) -> u64 {
    key | ((li as u64) << 60)
}

fn unflushed_decode(enc: u64) -> (usize, u64) {
    ((enc >> 60) as usize, enc & ((1 << 60) - 1))
}

/// Size of the unflushed-entry set above which set entries are pruned.
const UNFLUSHED_PRUNE: usize = 1 << 20;

/// Linux's flush ceiling: ranges above it flush the whole address space.
const FLUSH_CEILING_PAGES: u64 = 33;

impl RateMachine {
    fn not_mapped(asid: Asid, va: u64) -> BackendError {
        BackendError::NotMapped { asid, va }
    }

    fn check_tier(&self, t: TierId) -> Result<()> {
        if t.index() < self.cfg.tiers.len() {
            Ok(())
        } else {
            Err(BackendError::NoSuchTier(t))
        }
    }

    /// The leaf page of `va`: (base, bytes, tier).
    fn leaf(&self, asid: Asid, va: u64) -> Result<(u64, u64, u8)> {
        self.placement
            .page(asid.0, va)
            .ok_or_else(|| Self::not_mapped(asid, va))
    }

    /// The entry key and virtual range of the entry at `level` over `va`
    /// (a huge page's PMD answers for `Level::Pte`).
    fn entry(&self, asid: Asid, va: u64, level: Level) -> Result<(usize, u64, u64, u64)> {
        let (base, bytes, _) = self.leaf(asid, va)?;
        let level = if level == Level::Pte && bytes > 4096 {
            Level::Pmd
        } else {
            level
        };
        let start = va & !(level.span() - 1);
        Ok((
            level_index(level),
            entry_key(asid.0, va, level),
            start.max(if level == Level::Pte { base } else { start }),
            start + level.span(),
        ))
    }

    /// Charges a migration call: copy costs by page size (HeteroOS Table 6
    /// for 4 KiB pages), and one batched shootdown.
    fn charge_migration(&mut self, report: &MigrationReport, base_pages: u64, huge_pages: u64) {
        self.stats.migrated_bytes += report.bytes;
        let c = &self.cfg.costs;
        self.manager_ns += base_pages as f64 * c.base_page_migration_ns(base_pages)
            + huge_pages as f64 * c.huge_page_migration_ns();
        if report.pages > 0 {
            self.stale = true;
            self.shootdown(report.pages.min(FLUSH_CEILING_PAGES));
        }
    }

    fn shootdown(&mut self, invlpgs: u64) {
        let c = &self.cfg.costs;
        let cores = self.cfg.perf.threads as f64;
        self.manager_ns += invlpgs as f64 * c.invlpg_ns + cores * c.shootdown_ipi_ns;
        self.now_ns += c.shootdown_ipi_ns + invlpgs as f64 * c.invlpg_ns;
        self.stats.shootdowns += 1;
    }

    /// After a flush covering `[start, end)`: cleared leaf entries there are
    /// set by the next operation on them rather than by the next TLB miss.
    fn redraw_flushed(&mut self, asid: u16, start: u64, end: u64) {
        let in_range = |enc: u64| {
            let (li, key) = unflushed_decode(enc);
            let shift = LEVELS[li].shift();
            let va = (key & ((1 << 40) - 1)) << shift;
            (key >> 40) as u16 == asid && va < end && start < va + (1 << shift)
        };
        let keys: Vec<u64> = if end - start <= 4 << 20 {
            let pte = level_index(Level::Pte);
            let pmd = level_index(Level::Pmd);
            let mut cands: Vec<u64> = (start >> 12..end.div_ceil(4096))
                .map(|p| unflushed_encode(pte, entry_key(asid, p << 12, Level::Pte)))
                .collect();
            cands.extend(
                (start >> 21..end.div_ceil(2 << 20))
                    .map(|u| unflushed_encode(pmd, entry_key(asid, u << 21, Level::Pmd))),
            );
            cands
                .into_iter()
                .filter(|k| self.unflushed.remove(k))
                .collect()
        } else {
            let (inside, outside): (Vec<u64>, Vec<u64>) =
                self.unflushed.drain().partition(|&k| in_range(k));
            self.unflushed.extend(outside);
            inside
        };
        for enc in keys {
            // Still clear: from now on the next operation (not the next TLB
            // miss) sets it; memorylessness lets the draw restart here.
            let (li, key) = unflushed_decode(enc);
            if !self.abits[li].test(key, self.progress) {
                let shift = LEVELS[li].shift();
                let va = (key & ((1 << 40) - 1)) << shift;
                let page = 1u64 << shift;
                let at = self.next_set(key, 0xf1, |ix| ix.set_intensity(asid, va, va + page, true));
                self.abits[li].clear(key, at);
            }
        }
    }

    /// Clears an entry; `leaf` if it maps a page (a PTE, or a huge page's PMD).
    fn clear_entry(&mut self, li: usize, leaf: bool, key: u64, asid: u16, start: u64, end: u64) {
        // Upper levels are answered as after a paging-structure-cache flush
        // (the next walk under the entry sets it); leaves by the next walk
        // of their page (TLB miss) until the page is flushed.
        let at = self.next_set(key, li as u64, |ix| {
            ix.set_intensity(asid, start, end, false)
        });
        self.abits[li].clear(key, at);
        // A flush changes the answer only where accesses hit the TLB.
        let tlb_hits = |m: &RateMachine| {
            m.phases.get(m.phase).is_none_or(|ix| {
                let unflushed = ix.set_intensity(asid, start, end, false);
                unflushed < 0.999 * ix.set_intensity(asid, start, end, true)
            })
        };
        if leaf && self.ever_hot(asid, start, end) && tlb_hits(self) {
            self.unflushed.insert(unflushed_encode(li, key));
            if self.unflushed.len() > self.unflushed_limit {
                // Entries already set need no redraw at the next flush; the
                // limit doubles past what stays, so pruning is amortised.
                let now = self.progress;
                let bits = &mut self.abits;
                self.unflushed.retain(|&enc| {
                    let (li, key) = unflushed_decode(enc);
                    !bits[li].test(key, now)
                });
                self.unflushed_limit = UNFLUSHED_PRUNE.max(2 * self.unflushed.len());
            }
        }
    }
}

impl Backend for RateMachine {
    fn kind(&self) -> &'static str {
        "rate"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::all().without(Capability::MemoryMode)
    }

    fn now_ns(&self) -> u64 {
        self.now_ns as u64
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
            })
            .collect()
    }

    fn translate(&self, asid: Asid, va: u64) -> Result<Option<Translation>> {
        Ok(self
            .placement
            .page(asid.0, va)
            .map(|(base, bytes, tier)| Translation {
                size: if bytes > 4096 {
                    PageSize::Huge
                } else {
                    PageSize::Base
                },
                tier: TierId(tier),
                // Frames are not modelled: the virtual page number stands in.
                frame: base >> 12,
            }))
    }

    fn accessed(&mut self, asid: Asid, va: u64, level: Level, clear: bool) -> Result<bool> {
        self.manager_ns += self.cfg.costs.entry_access_at(level);
        let (li, key, start, end) = self.entry(asid, va, level)?;
        let set = self.abits[li].test(key, self.progress);
        if clear {
            let bytes = self.leaf(asid, va)?.1;
            let leaf =
                li == level_index(Level::Pte) || (li == level_index(Level::Pmd) && bytes > 4096);
            self.clear_entry(li, leaf, key, asid.0, start, end);
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
            let Some((from, _, run)) = self.placement.run_from(asid.0, va, end) else {
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
            let va_of = |k: u64| (k & ((1 << 40) - 1)) << shift;
            while va < stop {
                let (hot_lo, hot_hi) = self.next_ever(asid.0, va, stop).unwrap_or((stop, stop));
                let hot_lo = (hot_lo & !(page - 1)).max(va);
                let hot_hi = hot_hi.div_ceil(page) * page;
                if va < hot_lo {
                    let (first, last) = (
                        entry_key(asid.0, va, level),
                        entry_key(asid.0, hot_lo - 1, level),
                    );
                    read += last - first + 1;
                    if clear {
                        self.abits[li].test_and_clear_cold(first, last, |k| out.push(va_of(k)));
                    } else {
                        for k in first..=last {
                            if self.abits[li].test(k, self.progress) {
                                out.push(va_of(k));
                            }
                        }
                    }
                    va = hot_lo;
                }
                while va < hot_hi.min(stop) {
                    let key = entry_key(asid.0, va, level);
                    read += 1;
                    if self.abits[li].test(key, self.progress) {
                        out.push(va);
                    }
                    if clear {
                        self.clear_entry(li, true, key, asid.0, va, va + page);
                    }
                    va += page;
                }
            }
        }
        self.manager_ns += read as f64 * self.cfg.costs.entry_access_ns;
        Ok(read)
    }

    fn dirty(&mut self, asid: Asid, va: u64, clear: bool) -> Result<bool> {
        self.manager_ns += self.cfg.costs.entry_access_ns;
        let (base, bytes, _) = self.leaf(asid, va)?;
        let key = entry_key(asid.0, base, Level::Pte);
        let set = self.dbits.test(key, self.progress);
        if clear {
            // Stores set it; an operation's stores come together.
            let (a, end) = (asid.0, base + bytes);
            let at = self.next_set(key, 0xd, |ix| {
                let all = ix.mass(a, base, end, Mass::All);
                let w = ix.mass(a, base, end, Mass::Writes);
                if all > 0.0 {
                    w.min(ix.ops(a, base, end) * w / all)
                } else {
                    0.0
                }
            });
            self.dbits.clear(key, at);
        }
        Ok(set)
    }

    fn flush_tlb(&mut self, asid: Asid, what: Flush) -> Result<()> {
        match what {
            Flush::Page(va) => {
                self.shootdown(1);
                let (base, bytes, _) = self.leaf(asid, va).unwrap_or((va & !4095, 4096, 0));
                self.redraw_flushed(asid.0, base, base + bytes);
            }
            Flush::Range { start, len } => {
                let pages = len.div_ceil(4096);
                if pages > FLUSH_CEILING_PAGES {
                    self.shootdown(0);
                    self.manager_ns += self.cfg.costs.full_flush_ns;
                    self.redraw_flushed(asid.0, 0, 1 << 47);
                } else if len > 0 {
                    self.shootdown(pages);
                    self.redraw_flushed(asid.0, start, start + len);
                }
            }
            Flush::All => {
                self.shootdown(0);
                self.manager_ns += self.cfg.costs.full_flush_ns;
                self.redraw_flushed(asid.0, 0, 1 << 47);
            }
        }
        Ok(())
    }

    fn set_poison(&mut self, asid: Asid, va: u64, poisoned: bool) -> Result<()> {
        self.manager_ns += self.cfg.costs.entry_access_ns;
        let (base, bytes, _) = self.leaf(asid, va)?;
        if poisoned {
            self.poison.insert(
                (asid.0, base),
                PoisonRec {
                    since: self.progress,
                    faults: 0,
                    hint_at: None,
                    bytes,
                },
            );
        } else {
            self.poison.remove(&(asid.0, base));
        }
        self.stale = true;
        self.shootdown(1);
        Ok(())
    }

    fn arm_hint_fault(&mut self, asid: Asid, va: u64) -> Result<()> {
        self.manager_ns += self.cfg.costs.entry_access_ns;
        let (base, bytes, _) = self.leaf(asid, va)?;
        let key = entry_key(asid.0, base, Level::Pte) ^ 0x41;
        let a = asid.0;
        let at = self.next_set(key, 0x41, |ix| {
            ix.set_intensity(a, base, base + bytes, true)
        });
        self.poison.insert(
            (asid.0, base),
            PoisonRec {
                since: self.progress,
                faults: 0,
                hint_at: Some(at),
                bytes,
            },
        );
        self.shootdown(1);
        Ok(())
    }

    fn poison_faults(&mut self, asid: Asid, va: u64, reset: bool) -> Result<u64> {
        let (base, _, _) = self.leaf(asid, va)?;
        let now = self.progress;
        let Some(rec) = self.poison.get(&(asid.0, base)).copied() else {
            return Ok(0);
        };
        if let Some(at) = rec.hint_at {
            let fired = u64::from(at <= now);
            if fired == 1 && reset {
                self.poison.remove(&(asid.0, base));
            }
            return Ok(fired);
        }
        // Faults since the last count: Poisson in the page's TLB-miss mass.
        let mut mean = 0.0;
        for k in self.phase..self.phases.len() {
            let a = rec.since.max(self.phase_start[k]);
            let b = now.min(self.phase_start[k + 1]);
            if b > a {
                mean += (b - a) * self.phases[k].mass(asid.0, base, base + rec.bytes, Mass::Walks);
            }
        }
        // Earlier phases too (a record can outlive a phase change).
        for k in 0..self.phase.min(self.phases.len()) {
            let a = rec.since.max(self.phase_start[k]);
            let b = now.min(self.phase_start[k + 1]);
            if b > a {
                mean += (b - a) * self.phases[k].mass(asid.0, base, base + rec.bytes, Mass::Walks);
            }
        }
        let seed = uniform(self.seed, base, rec.since.to_bits(), 0x9f).to_bits();
        let mut rng = Rng::new(seed);
        let total = rec.faults + poisson(mean, &mut rng);
        let r = self.poison.get_mut(&(asid.0, base)).expect("present");
        r.since = now;
        r.faults = if reset { 0 } else { total };
        Ok(total)
    }

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
        self.sampler = config.map(|cfg| Sampler {
            cfg,
            buf: Vec::new(),
            dropped: 0,
        });
        self.stale = true;
        Ok(())
    }

    fn drain_samples(&mut self, out: &mut Vec<Sample>) -> Result<u64> {
        let Some(s) = self.sampler.as_mut() else {
            return Err(BackendError::Invalid {
                va: 0,
                why: "sampling is off",
            });
        };
        let n = s.buf.len();
        out.append(&mut s.buf);
        let dropped = std::mem::take(&mut s.dropped);
        self.manager_ns += n as f64 * self.cfg.costs.sample_ns;
        Ok(dropped)
    }

    fn tier_counters(&self, tier: TierId) -> Result<TierCounters> {
        self.check_tier(tier)?;
        let c = self.counters[tier.index()];
        Ok(TierCounters {
            reads: c[0].round() as u64,
            writes: c[1].round() as u64,
        })
    }

    fn llc_misses(&self) -> Result<u64> {
        Ok(self.stats.llc_misses.round() as u64)
    }

    fn migrate(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<MigrationReport> {
        self.check_tier(to)?;
        self.ensure_mapped();
        let mut report = MigrationReport::default();
        let (mut base_pages, mut huge_pages) = (0u64, 0u64);
        let cap = self.cfg.tiers[to.index()].capacity_bytes as f64;
        for &va in vas {
            let Some((base, bytes, from)) = self.placement.page(asid.0, va) else {
                continue;
            };
            if from == to.0 {
                report.already_there += 1;
                continue;
            }
            if self.placement.used()[to.index()] + bytes as f64 > cap {
                report.failed += 1;
                continue;
            }
            self.placement
                .set(asid.0, base, base + bytes, Home::Tier(to.0), bytes > 4096);
            report.pages += 1;
            report.bytes += bytes;
            let lines = (bytes / 64) as f64;
            self.counters[from as usize][0] += lines;
            self.counters[to.index()][1] += lines;
            if to.0 < from {
                self.stats.promoted_pages += 1;
            } else {
                self.stats.demoted_pages += 1;
            }
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
            let Some((from, run_start, run)) = self.placement.run_from(asid.0, va, end) else {
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
            let room = (cap - self.placement.used()[to.index()]).max(0.0);
            let budget = (max_bytes - report.bytes) as f64 / share_elsewhere;
            let want = ((hi - lo) as f64).min(budget).min(room / share_elsewhere);
            let take = (want as u64) / page * page;
            if take == 0 {
                report.failed += 1;
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
                    self.counters[t][0] += lines;
                    self.counters[to.index()][1] += lines;
                    let n = (sh * pages as f64).round() as u64;
                    if to.index() < t {
                        self.stats.promoted_pages += n;
                    } else {
                        self.stats.demoted_pages += n;
                    }
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

    fn exchange(&mut self, asid: Asid, a: u64, b: u64) -> Result<()> {
        let (ba, sa, ta) = self.leaf(asid, a)?;
        let (bb, sb, tb) = self.leaf(asid, b)?;
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
        self.counters[ta as usize][0] += lines / 2.0;
        self.counters[tb as usize][0] += lines / 2.0;
        self.counters[ta as usize][1] += lines / 2.0;
        self.counters[tb as usize][1] += lines / 2.0;
        self.stats.migrated_bytes += 2 * sa;
        self.manager_ns += 2.0 * self.cfg.costs.base_page_migration_ns(1) * (sa / 4096) as f64;
        self.stale = true;
        self.shootdown(2);
        Ok(())
    }

    fn split_huge(&mut self, asid: Asid, va: u64) -> Result<()> {
        let (base, bytes, tier) = self.leaf(asid, va)?;
        if bytes == 4096 {
            return Ok(());
        }
        self.manager_ns += self.cfg.costs.split_huge_ns;
        self.placement
            .set(asid.0, base, base + bytes, Home::Tier(tier), false);
        self.shootdown(1);
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
            let (_, _, t) = self.leaf(asid, base + i * 4096)?;
            per_tier[t as usize] += 1;
        }
        let tier = per_tier
            .iter()
            .enumerate()
            .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)))
            .map_or(0, |(i, _)| i);
        let moved = 512 - per_tier[tier];
        self.manager_ns += self.cfg.costs.split_huge_ns
            + moved as f64 * self.cfg.costs.base_page_migration_ns(moved);
        self.placement
            .set(asid.0, base, base + (2 << 20), Home::Tier(tier as u8), true);
        self.stale = true;
        self.shootdown(1);
        Ok(())
    }

    fn set_policy(&mut self, asid: Asid, policy: MemPolicy) -> Result<()> {
        if let MemPolicy::Bind { tier } = policy {
            self.check_tier(tier)?;
        }
        self.policies.insert(asid.0, policy);
        Ok(())
    }

    fn charge_manager(&mut self, ns: f64) {
        self.manager_ns += ns;
    }

    fn manager_ns(&self) -> f64 {
        self.manager_ns
    }
}
