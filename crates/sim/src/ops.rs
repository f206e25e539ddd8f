//! The exact machine's implementation of the backend interface.

use crate::machine::{Machine, MAX_TIERS};
use crate::pagetable as pt;
use thermocline_backend::{
    AllocCounts, Backend, BackendError, Capabilities, Capability, Colours, Dma, DmaReport,
    Exchange, Flush, FramePlace, HugePages, MemEvents, MemPolicy, MemoryMode, MigrationReport,
    Poisoning, Sample, Sampling, SamplingConfig, TierCounters, TierInfo, Translation, TypedAlloc,
};
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Asid, Level, PageSize, PageType, TierId, PAGES_PER_HUGE};

type Result<T> = std::result::Result<T, BackendError>;

use thermocline_model::costs::FLUSH_CEILING_PAGES;

impl Machine {
    fn not_mapped(asid: Asid, va: u64) -> BackendError {
        BackendError::NotMapped { asid, va }
    }

    /// Charges a shootdown: the manager's core sends an IPI to every core,
    /// which each stall for it.
    /// Manager CPU time spent moving pages (copies, remaps, DMA set-up).
    fn charge_migration(&mut self, ns: f64) {
        self.manager_ns += ns;
        self.migration_cpu_ns += ns;
    }

    /// A shootdown a migration issued: its costs also count as migration.
    fn migration_shootdown(&mut self, invlpgs: u64) {
        let (cpu, stall) = (self.manager_ns, self.stall_ns);
        self.shootdown(invlpgs);
        self.migration_cpu_ns += self.manager_ns - cpu;
        self.migration_stall_ns += self.stall_ns - stall;
    }

    fn shootdown(&mut self, invlpgs: u64) {
        let cost = self.cfg.costs.shootdown(invlpgs, self.cores.len());
        self.manager_ns += cost.manager_ns;
        self.epoch.all_core_stall_ns += cost.all_core_stall_ns;
        self.stall_ns += cost.all_core_stall_ns;
        self.stats.shootdowns += 1;
    }

    /// Splits the huge page of `va` into 512 base pages in place, each PTE
    /// inheriting its Accessed, Dirty and poison bits; costs and TLB
    /// invalidation are the caller's.
    pub(crate) fn split_huge_entry(&mut self, asid: Asid, va: u64) -> Result<()> {
        let space = self.space_mut(asid)?;
        let path = space.pt.path(va);
        let (Some(pmd), Some(leaf), true) = (path.pmd, path.leaf, path.huge) else {
            return Err(BackendError::Invalid {
                va,
                why: "not mapped by a huge page",
            });
        };
        let slot = Level::Pmd.index(va);
        let e = space.pt.pmd[pmd as usize][slot];
        let frame = pt::target(e);
        let inherited = e & (pt::A | pt::D | pt::POISON);
        let table = &mut space.pt.leaves[leaf as usize];
        for i in 0..512 {
            *table.pte_mut(i) = pt::entry(frame + i as u64, pt::P | pt::RW | inherited);
        }
        space.pt.pmd[pmd as usize][slot] = pt::entry(u64::from(leaf), pt::P | pt::RW | (e & pt::A));
        let base = PageSize::Huge.align_down(va);
        if let Some(n) = self.poison.remove(&(asid.0, base)) {
            // Faults counted on the huge page stay with its first base page.
            for i in 0..PAGES_PER_HUGE {
                self.poison
                    .insert((asid.0, base + i * 4096), if i == 0 { n } else { 0 });
            }
        }
        Ok(())
    }

    fn check_policy(&self, policy: MemPolicy) -> Result<()> {
        BackendError::unless_policy(policy, self.frames.len())
    }

    fn check_tier(&self, t: TierId) -> Result<()> {
        BackendError::unless_tier(t, self.frames.len())
    }
}

impl Backend for Machine {
    fn kind(&self) -> &'static str {
        "exact"
    }

    fn capabilities(&self) -> Capabilities {
        // Colours need a memory system whose banks and slabs a page picks.
        // No host region monitor: DAMON is simulated in a manager.
        let all = Capabilities::all().without(Capability::RegionMonitor);
        if self.colouring.is_some() {
            all
        } else {
            all.without(Capability::Colours)
        }
    }

    fn now_ns(&self) -> u64 {
        self.clock.now_ns as u64
    }

    fn regions(&self) -> &[RegionInfo] {
        &self.regions
    }

    fn tiers(&self) -> Vec<TierInfo> {
        self.cfg
            .tiers
            .iter()
            .zip(&self.frames)
            .enumerate()
            .map(|(i, (s, f))| TierInfo {
                id: TierId(i as u8),
                name: s.name.clone(),
                capacity_bytes: f.count() * 4096,
                free_bytes: f.free() * 4096,
                read_latency_ns: s.read_ns,
                write_latency_ns: s.write_ns,
                first_frame: Some(f.base()),
            })
            .collect()
    }

    fn reverse_translate(&mut self, frame: u64) -> Result<Option<(Asid, u64)>> {
        Ok(self
            .owner_of_frame(frame)
            .map(|(asid, va)| (Asid(asid), va)))
    }

    fn translate(&self, asid: Asid, va: u64) -> Result<Option<Translation>> {
        let space = self
            .spaces
            .get(asid.0 as usize)
            .ok_or(BackendError::NoSuchTarget(asid))?;
        let path = space.pt.path(va);
        let entry = match (path.pmd, path.leaf) {
            (Some(pmd), _) if path.huge => space.pt.pmd[pmd as usize][Level::Pmd.index(va)],
            (Some(_), Some(leaf)) => space.pt.leaves[leaf as usize].pte(Level::Pte.index(va)),
            _ => return Ok(None),
        };
        if entry & pt::P == 0 {
            return Ok(None);
        }
        let frame = pt::target(entry);
        Ok(Some(Translation {
            size: if path.huge {
                PageSize::Huge
            } else {
                PageSize::Base
            },
            tier: TierId(self.tier_of(frame)),
            frame,
        }))
    }

    fn accessed(&mut self, asid: Asid, va: u64, level: Level, clear: bool) -> Result<bool> {
        self.manager_ns += self.cfg.costs.entry_access_at(level);
        let space = self.space_mut(asid)?;
        let e = space
            .pt
            .entry_mut(va, level)
            .filter(|e| **e & pt::P != 0)
            .ok_or(Self::not_mapped(asid, va))?;
        let was = *e & pt::A != 0;
        if clear {
            *e &= !pt::A;
        }
        Ok(was)
    }

    fn scan_accessed(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        clear: bool,
        out: &mut Vec<u64>,
    ) -> Result<u64> {
        let huge_bytes = PageSize::Huge.bytes();
        let end = start.saturating_add(len);
        let space = self.space_mut(asid)?;
        let table = &mut space.pt;
        let mut read = 0u64;
        let mut chunk = PageSize::Huge.align_down(start);
        while chunk < end {
            let path = table.path(chunk);
            if let (Some(pmd), Some(leaf)) = (path.pmd, path.leaf) {
                let e = &mut table.pmd[pmd as usize][Level::Pmd.index(chunk)];
                if path.huge {
                    read += 1;
                    if *e & pt::A != 0 {
                        out.push(chunk);
                        if clear {
                            *e &= !pt::A;
                        }
                    }
                } else if *e & pt::P != 0 {
                    let lo = start.max(chunk);
                    let hi = end.min(chunk + huge_bytes);
                    let first = ((lo - chunk) >> 12) as usize;
                    let last = (hi - chunk).div_ceil(4096) as usize;
                    let leaf = &mut table.leaves[leaf as usize];
                    for i in first..last {
                        let pte = leaf.pte_mut(i);
                        if *pte & pt::P == 0 {
                            continue;
                        }
                        read += 1;
                        if *pte & pt::A != 0 {
                            out.push(chunk + (i as u64) * 4096);
                            if clear {
                                *pte &= !pt::A;
                            }
                        }
                    }
                }
            }
            chunk += huge_bytes;
        }
        self.manager_ns += read as f64 * self.cfg.costs.entry_access_ns;
        Ok(read)
    }

    fn dirty(&mut self, asid: Asid, va: u64, clear: bool) -> Result<bool> {
        self.manager_ns += self.cfg.costs.entry_access_ns;
        let space = self.space_mut(asid)?;
        let e = space.pt.leaf_mut(va).ok_or(Self::not_mapped(asid, va))?;
        let was = *e & pt::D != 0;
        if clear {
            *e &= !pt::D;
        }
        Ok(was)
    }

    fn flush_tlb(&mut self, asid: Asid, what: Flush) -> Result<()> {
        self.space_mut(asid)?;
        match what {
            Flush::Page(va) => {
                self.invalidate_page(asid.0, va);
                self.shootdown(1);
            }
            Flush::Range { start, len } => {
                let pages = len.div_ceil(4096);
                if pages > FLUSH_CEILING_PAGES {
                    self.invalidate_asid(asid.0);
                    self.shootdown(0);
                    self.manager_ns += self.cfg.costs.full_flush_ns;
                } else {
                    for i in 0..pages {
                        self.invalidate_page(asid.0, start + i * 4096);
                    }
                    self.shootdown(pages);
                }
            }
            Flush::All => {
                self.invalidate_asid(asid.0);
                self.shootdown(0);
                self.manager_ns += self.cfg.costs.full_flush_ns;
            }
        }
        Ok(())
    }

    fn tier_counters(&self, tier: TierId) -> Result<TierCounters> {
        self.counters
            .get(tier.index())
            .copied()
            .ok_or(BackendError::NoSuchTier(tier))
    }

    fn llc_misses(&self) -> Result<u64> {
        Ok(self.stats.llc_misses)
    }

    fn migrate(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<MigrationReport> {
        self.check_tier(to)?;
        self.space_mut(asid)?;
        let mut report = MigrationReport::default();
        let mut moved_base = 0u64;
        let mut moved_huge = 0u64;
        for &va in vas {
            match self.move_page(asid.0, va, to) {
                Ok((0, _)) => report.already_there += 1,
                Ok((bytes, from)) => {
                    report.pages += 1;
                    report.bytes += bytes;
                    if bytes > 4096 {
                        moved_huge += 1;
                    } else {
                        moved_base += 1;
                    }
                    if to.0 < from {
                        self.stats.promoted_pages += 1;
                    } else {
                        self.stats.demoted_pages += 1;
                    }
                    self.stats.migrated_bytes += bytes;
                }
                Err(BackendError::TierFull(_)) => report.failed += 1,
                Err(BackendError::NotMapped { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        let c = &self.cfg.costs;
        self.charge_migration(
            moved_base as f64 * c.base_page_migration_ns(vas.len() as u64)
                + moved_huge as f64 * c.huge_page_migration_ns(),
        );
        if report.pages > 0 {
            // One batched shootdown per call (Linux batches migration flushes).
            self.migration_shootdown(report.pages.min(FLUSH_CEILING_PAGES));
        }
        Ok(report)
    }

    fn alloc_counts(&self, asid: Asid) -> Result<[AllocCounts; PageType::COUNT]> {
        Ok(self.space(asid)?.allocs)
    }

    fn set_policy(&mut self, asid: Asid, policy: MemPolicy) -> Result<()> {
        self.check_policy(policy)?;
        self.space_mut(asid)?.policy = policy;
        Ok(())
    }

    fn charge_manager(&mut self, ns: f64) {
        self.manager_ns += ns.max(0.0);
    }

    fn manager_ns(&self) -> f64 {
        self.manager_ns
    }

    fn stall_ns(&self) -> f64 {
        self.stall_ns
    }

    /// The page-ins' time: each fault on a page of a tier that faults on
    /// access and gives the page back to a faster tier (zswap, swap; not
    /// BadgerTrap's emulated slow memory, whose faults are monitoring)
    /// stalls the thread that takes it for the tier's
    /// `fault_on_access_ns`, as the machine's clock charges it. Summed over
    /// threads and capped at the time elapsed: exact with one thread, an
    /// upper bound with several (PSI's `some` counts overlapping stalls
    /// once).
    fn some_memory_stall_us(&self) -> u64 {
        let mut ns = 0.0;
        for (t, spec) in self.cfg.tiers.iter().enumerate().take(MAX_TIERS) {
            let Some(cost) = spec.fault_on_access_ns.filter(|_| !spec.keep_on_fault) else {
                continue;
            };
            let faults: u64 = self.spaces.iter().map(|s| s.tier_faults[t]).sum();
            ns += faults as f64 * cost;
        }
        (ns.min(self.now_ns() as f64) / 1e3) as u64
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

    fn colours(&mut self) -> Result<&mut dyn Colours> {
        if self.colouring.is_some() {
            Ok(self)
        } else {
            Err(BackendError::Unsupported(Capability::Colours))
        }
    }

    fn dma(&mut self) -> Result<&mut dyn Dma> {
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

impl Poisoning for Machine {
    fn set_poison(&mut self, asid: Asid, va: u64, poisoned: bool) -> Result<()> {
        self.manager_ns += self.cfg.costs.entry_access_ns;
        let space = self.space_mut(asid)?;
        let huge = space.pt.path(va).huge;
        let e = space.pt.leaf_mut(va).ok_or(Self::not_mapped(asid, va))?;
        if poisoned {
            *e |= pt::POISON;
        } else {
            *e &= !pt::POISON;
        }
        let size = if huge { PageSize::Huge } else { PageSize::Base };
        let key = (asid.0, size.align_down(va));
        if poisoned {
            self.poison.entry(key).or_insert(0);
        } else {
            self.poison.remove(&key);
            self.hint_once.remove(&key);
        }
        self.invalidate_page(asid.0, va);
        self.shootdown(1);
        Ok(())
    }

    fn set_poison_range(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        poisoned: bool,
    ) -> Result<u64> {
        let end = start.saturating_add(len);
        let mut va = start & !0xfff;
        let mut pages = 0;
        while va < end {
            let space = self.space_mut(asid)?;
            let huge = space.pt.path(va).huge;
            let size = if huge { PageSize::Huge } else { PageSize::Base };
            let base = size.align_down(va);
            if let Some(e) = space.pt.leaf_mut(va) {
                if poisoned {
                    *e |= pt::POISON;
                    self.poison.entry((asid.0, base)).or_insert(0);
                } else {
                    *e &= !pt::POISON;
                    self.poison.remove(&(asid.0, base));
                    self.hint_once.remove(&(asid.0, base));
                }
                pages += 1;
                self.manager_ns += self.cfg.costs.entry_access_ns;
            }
            va = base + size.bytes();
        }
        if pages > 0 {
            self.flush_tlb(asid, Flush::Range { start, len })?;
        }
        Ok(pages)
    }

    fn arm_hint_fault(&mut self, asid: Asid, va: u64) -> Result<()> {
        self.set_poison(asid, va, true)?;
        let huge = self.space_mut(asid)?.pt.path(va).huge;
        let size = if huge { PageSize::Huge } else { PageSize::Base };
        self.hint_once.insert((asid.0, size.align_down(va)));
        Ok(())
    }

    fn poison_faults(&mut self, asid: Asid, va: u64, reset: bool) -> Result<u64> {
        let huge = self.space_mut(asid)?.pt.path(va).huge;
        let size = if huge { PageSize::Huge } else { PageSize::Base };
        let n = self.poison.get_mut(&(asid.0, size.align_down(va)));
        Ok(match n {
            None => 0,
            Some(n) if reset => std::mem::take(n),
            Some(n) => *n,
        })
    }
}

impl Sampling for Machine {
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
        self.set_sampler(config);
        Ok(())
    }

    fn drain_samples(&mut self, out: &mut Vec<Sample>) -> Result<u64> {
        let before = out.len();
        let dropped = self.take_samples(out);
        self.manager_ns += (out.len() - before) as f64 * self.cfg.costs.sample_ns;
        Ok(dropped)
    }
}

impl HugePages for Machine {
    fn split_huge(&mut self, asid: Asid, va: u64) -> Result<()> {
        self.split_huge_entry(asid, va)?;
        self.charge_migration(self.cfg.costs.split_huge_ns);
        self.invalidate_page(asid.0, va);
        self.migration_shootdown(1);
        Ok(())
    }

    fn collapse_huge(&mut self, asid: Asid, va: u64) -> Result<()> {
        let base = PageSize::Huge.align_down(va);
        let mut frames = Vec::with_capacity(PAGES_PER_HUGE as usize);
        let mut votes = vec![0u32; self.frames.len()];
        for i in 0..PAGES_PER_HUGE {
            match self.translate(asid, base + i * 4096)? {
                Some(t) if t.size == PageSize::Base => {
                    votes[t.tier.index()] += 1;
                    frames.push((t.frame, t.tier));
                }
                _ => {
                    return Err(BackendError::Invalid {
                        va,
                        why: "collapse needs all 512 base pages mapped",
                    })
                }
            }
        }
        let first = frames[0].0;
        let in_place = first.is_multiple_of(PAGES_PER_HUGE)
            && frames
                .iter()
                .enumerate()
                .all(|(i, &(f, t))| f == first + i as u64 && t == frames[0].1);
        if in_place {
            // The base pages still are the split huge page's frames (a
            // PTE-mapped THP): map the block by the PMD again, no copy.
            self.map_by_pmd(asid, va, first)?;
            self.drop_poison_counts(asid, base);
            self.note_huge();
            self.charge_migration(self.cfg.costs.entry_access_ns * PAGES_PER_HUGE as f64);
            self.invalidate_asid(asid.0);
            self.migration_shootdown(0);
            return Ok(());
        }
        let target_tier = (0..votes.len())
            .max_by_key(|&t| (votes[t], std::cmp::Reverse(t)))
            .unwrap_or(0);
        // The quota sees the block replace the base pages already there.
        let already = frames
            .iter()
            .filter(|(_, t)| t.index() == target_tier)
            .count() as u64;
        if !self
            .space_mut(asid)?
            .may_hold(target_tier, PAGES_PER_HUGE - already)
        {
            return Err(BackendError::TierFull(TierId(target_tier as u8)));
        }
        let new = self.frames[target_tier]
            .alloc_huge()
            .ok_or(BackendError::TierFull(TierId(target_tier as u8)))?;
        self.map_by_pmd(asid, va, new)?;
        self.rmap_map(new, PageSize::Huge, asid.0, base);
        self.space_mut(asid)?.held[target_tier] += PAGES_PER_HUGE;
        for (frame, tier) in frames {
            self.space_mut(asid)?.held[tier.index()] -= 1;
            self.frames[tier.index()].free_base(frame);
            self.rmap_unmap(frame, PageSize::Base);
            self.epoch.migration_reads[tier.index()] += 64;
            self.epoch.migration_writes[target_tier] += 64;
            self.counters[tier.index()].reads += 64;
            self.counters[target_tier].writes += 64;
        }
        self.note_copy_into(target_tier, new, PageSize::Huge.bytes());
        self.drop_poison_counts(asid, base);
        self.note_huge();
        self.charge_migration(self.cfg.costs.huge_page_migration_ns());
        self.invalidate_asid(asid.0);
        self.migration_shootdown(0);
        Ok(())
    }
}

impl Exchange for Machine {
    fn exchange(&mut self, asid: Asid, a: u64, b: u64) -> Result<()> {
        let ta = self.translate(asid, a)?.ok_or(Self::not_mapped(asid, a))?;
        let tb = self.translate(asid, b)?.ok_or(Self::not_mapped(asid, b))?;
        if ta.size != tb.size || ta.tier == tb.tier {
            return Err(BackendError::Invalid {
                va: a,
                why: "exchange needs two pages of one size in different tiers",
            });
        }
        let space = self.space_mut(asid)?;
        let ea = space.pt.leaf_mut(a).expect("translated");
        *ea = pt::retarget(*ea, tb.frame);
        let eb = space.pt.leaf_mut(b).expect("translated");
        *eb = pt::retarget(*eb, ta.frame);
        self.rmap_map(tb.frame, ta.size, asid.0, a);
        self.rmap_map(ta.frame, ta.size, asid.0, b);
        let lines = ta.size.bytes() / 64;
        self.note_copy_into(tb.tier.index(), tb.frame, ta.size.bytes());
        self.note_copy_into(ta.tier.index(), ta.frame, ta.size.bytes());
        for (from, to) in [(ta.tier, tb.tier), (tb.tier, ta.tier)] {
            self.epoch.migration_reads[from.index()] += lines;
            self.epoch.migration_writes[to.index()] += lines;
            self.counters[from.index()].reads += lines;
            self.counters[to.index()].writes += lines;
        }
        self.stats.promoted_pages += 1;
        self.stats.demoted_pages += 1;
        self.stats.migrated_bytes += 2 * ta.size.bytes();
        let c = &self.cfg.costs;
        self.charge_migration(
            2.0 * match ta.size {
                PageSize::Base => c.base_page_migration_ns(2),
                PageSize::Huge => c.huge_page_migration_ns(),
            },
        );
        self.invalidate_page(asid.0, a);
        self.invalidate_page(asid.0, b);
        self.migration_shootdown(2);
        Ok(())
    }
}

impl Colours for Machine {
    fn set_coloured_allocation(&mut self, on: bool) -> Result<()> {
        let Some(c) = &self.colouring else {
            return Err(BackendError::Unsupported(Capability::Colours));
        };
        let bits = on.then(|| c.bits.clone());
        for f in &mut self.frames {
            f.set_colours(bits.as_deref())
                .expect("colour bits were checked when the machine was built");
        }
        Ok(())
    }

    fn frame_place(&self, frame: u64) -> Result<FramePlace> {
        let Some(c) = &self.colouring else {
            return Err(BackendError::Unsupported(Capability::Colours));
        };
        let (bank, slab) = c.places[crate::colours::colour_of(&c.bits, frame)];
        Ok(FramePlace { bank, slab })
    }

    fn place_counts(&self) -> Result<(u16, u16)> {
        match (&self.colouring, self.memctl.as_ref()) {
            (Some(_), Some(mc)) => Ok((mc.decoder().banks() as u16, mc.decoder().slabs() as u16)),
            _ => Err(BackendError::Unsupported(Capability::Colours)),
        }
    }

    fn migrate_placed(
        &mut self,
        asid: Asid,
        va: u64,
        to: TierId,
        bank: Option<u16>,
        slab: Option<u16>,
    ) -> Result<bool> {
        self.check_tier(to)?;
        self.space_mut(asid)?;
        let colours = self.placed_colours(va, to, bank, slab)?;
        match self.move_page_to(asid.0, va, to, &colours) {
            Ok((0, _)) => Ok(true),
            Ok((bytes, from)) => {
                if to.0 < from {
                    self.stats.promoted_pages += 1;
                } else if to.0 > from {
                    self.stats.demoted_pages += 1;
                }
                self.stats.migrated_bytes += bytes;
                self.charge_migration(self.cfg.costs.base_page_migration_ns(1));
                self.migration_shootdown(1);
                Ok(true)
            }
            Err(BackendError::TierFull(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

impl Dma for Machine {
    fn dma_start(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<u64> {
        self.dma_queue(asid, vas, to, None)
    }

    fn dma_start_placed(
        &mut self,
        asid: Asid,
        va: u64,
        to: TierId,
        bank: Option<u16>,
        slab: Option<u16>,
    ) -> Result<bool> {
        self.placed_colours(va, to, bank, slab)?;
        Ok(self.dma_queue(asid, &[va], to, Some((bank, slab)))? > 0)
    }

    fn dma_poll(&mut self) -> Result<DmaReport> {
        let mut r = DmaReport::default();
        let mut moved = 0;
        while let Some(c) = self.dma.finished(self.clock.now_ns) {
            let dirty = match self.space_mut(c.asid)?.pt.leaf_mut(c.va) {
                Some(e) => *e & pt::D != 0,
                None => continue,
            };
            self.charge_migration(self.cfg.costs.entry_access_ns);
            if dirty {
                r.aborted += 1;
                continue;
            }
            let placed = match c.place {
                Some((bank, slab)) => {
                    let colours = self.placed_colours(c.va, c.to, bank, slab)?;
                    match self.move_page_to(c.asid.0, c.va, c.to, &colours) {
                        Err(BackendError::TierFull(_)) => self.move_page(c.asid.0, c.va, c.to),
                        r => r,
                    }
                }
                None => self.move_page(c.asid.0, c.va, c.to),
            };
            match placed {
                Ok((0, _)) => {}
                Ok((bytes, from)) => {
                    r.moved += 1;
                    r.bytes += bytes;
                    moved += 1;
                    if c.to.0 < from {
                        self.stats.promoted_pages += 1;
                    } else {
                        self.stats.demoted_pages += 1;
                    }
                    self.stats.migrated_bytes += bytes;
                }
                Err(BackendError::TierFull(_)) => r.aborted += 1,
                Err(e) => return Err(e),
            }
        }
        if moved > 0 {
            // The new mappings: one batched shootdown.
            self.migration_shootdown(moved.min(FLUSH_CEILING_PAGES));
        }
        r.pending = self.dma.pending();
        Ok(r)
    }
}

impl TypedAlloc for Machine {
    fn set_type_policy(
        &mut self,
        asid: Asid,
        ty: PageType,
        policy: Option<MemPolicy>,
    ) -> Result<()> {
        if let Some(p) = policy {
            self.check_policy(p)?;
        }
        self.space_mut(asid)?.type_policy[ty.index()] = policy;
        Ok(())
    }

    fn set_tier_quota(&mut self, asid: Asid, tier: TierId, pages: Option<u64>) -> Result<()> {
        self.check_tier(tier)?;
        self.space_mut(asid)?.quota[tier.index()] = pages;
        Ok(())
    }

    fn held_pages(&self, asid: Asid, tier: TierId) -> Result<u64> {
        self.check_tier(tier)?;
        Ok(self.space(asid)?.held[tier.index()])
    }
}

impl MemEvents for Machine {
    fn drain_mem_events(&mut self, out: &mut Vec<thermocline_vocab::MemEvent>) -> Result<u64> {
        Ok(self.events.drain(out))
    }
}

impl MemoryMode for Machine {
    fn set_memory_mode(&mut self, on: bool) -> Result<()> {
        self.dram_cache =
            on.then(|| crate::dram_cache::DramCache::new(self.frames[0].count() * 4096));
        Ok(())
    }
}

impl Machine {
    /// Queues the pages of `vas` on the DMA engine (see
    /// [`thermocline_backend::Dma::dma_start`]), each to a frame of `place` if given.
    fn dma_queue(
        &mut self,
        asid: Asid,
        vas: &[u64],
        to: TierId,
        place: Option<(Option<u16>, Option<u16>)>,
    ) -> Result<u64> {
        self.check_tier(to)?;
        self.space_mut(asid)?;
        let mut queued = 0u64;
        let now = self.clock.now_ns;
        for &va in vas {
            let Some(t) = self.translate(asid, va)? else {
                continue;
            };
            if t.tier == to {
                continue;
            }
            // Dirty cleared and the TLB entries dropped, so that a store
            // during the copy sets it again (one shootdown for the batch).
            let leaf = self.space_mut(asid)?.pt.leaf_mut(va).expect("translated");
            *leaf &= !pt::D;
            self.invalidate_page(asid.0, va);
            let c = &self.cfg.costs;
            let cpu_copy = match t.size {
                PageSize::Base => c.base_page_migration_ns(vas.len() as u64),
                PageSize::Huge => c.huge_page_migration_ns(),
            };
            let (cpu_ns, copy_ns) = (
                c.entry_access_ns + c.dma_cpu_share * cpu_copy,
                c.dma_time_ratio * cpu_copy,
            );
            self.charge_migration(cpu_ns);
            self.dma
                .queue(asid, t.size.align_down(va), to, place, now, copy_ns);
            queued += 1;
        }
        if queued > 0 {
            self.migration_shootdown(queued.min(FLUSH_CEILING_PAGES));
        }
        Ok(queued)
    }

    /// The colours of `to`'s frames in `bank` and `slab` (`None`: any), for
    /// placing the page of `va`; coloured allocation must be on.
    fn placed_colours(
        &self,
        va: u64,
        to: TierId,
        bank: Option<u16>,
        slab: Option<u16>,
    ) -> Result<Vec<usize>> {
        self.check_tier(to)?;
        let Some(c) = &self.colouring else {
            return Err(BackendError::Unsupported(Capability::Colours));
        };
        if !self.frames[to.index()].coloured() {
            return Err(BackendError::Invalid {
                va,
                why: "placing a page by bank and slab needs coloured allocation on (set_coloured_allocation)",
            });
        }
        Ok(c.places
            .iter()
            .enumerate()
            .filter(|(_, &(b, s))| bank.is_none_or(|x| x == b) && slab.is_none_or(|x| x == s))
            .map(|(c, _)| c)
            .collect())
    }

    /// Maps the 2 MiB range of `va` by its PMD onto the block at `frame`,
    /// clearing the 512 PTEs and ORing their Accessed and Dirty bits into it.
    fn map_by_pmd(&mut self, asid: Asid, va: u64, frame: u64) -> Result<()> {
        let space = self.space_mut(asid)?;
        let path = space.pt.path(va);
        let (pmd, leaf) = (path.pmd.expect("mapped"), path.leaf.expect("mapped"));
        let mut flags = 0;
        let table = &mut space.pt.leaves[leaf as usize];
        for i in 0..512 {
            let pte = table.pte_mut(i);
            flags |= *pte & (pt::A | pt::D);
            *pte = 0;
        }
        space.pt.pmd[pmd as usize][Level::Pmd.index(va)] =
            pt::entry(frame, pt::P | pt::RW | pt::PS | flags);
        Ok(())
    }

    /// Forgets the poison counters of the base pages of the 2 MiB range at
    /// `base` (collapsing drops the PTEs that carried the poison).
    fn drop_poison_counts(&mut self, asid: Asid, base: u64) {
        let poisoned: Vec<_> = self
            .poison
            .range((asid.0, base)..(asid.0, base + PageSize::Huge.bytes()))
            .map(|(k, _)| *k)
            .collect();
        for k in poisoned {
            self.poison.remove(&k);
        }
    }
}
