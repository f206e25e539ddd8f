//! The rate-driven machine's state and clock.

use crate::bits::LazyBits;
use crate::index::{Mass, PhaseIndex};
use crate::placement::{Home, Placement};
use crate::streams;
use std::collections::BTreeMap;
use std::ops::Range;
use thermocline_backend::{MemPolicy, Sample, SamplingConfig};
use thermocline_model::rates::RateProfile;
use thermocline_model::{epoch_time, EpochEvents, MachineConfig, MachineStats};
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Level, Rng, Stream};

/// What the machine expects per access under the current phase and placement.
#[derive(Clone, Debug, Default)]
pub(crate) struct PerAccess {
    pub ns: f64,
    pub ideal_ns: f64,
    pub reads: Vec<f64>,
    pub writes: Vec<f64>,
    pub tier_faults: Vec<f64>,
    pub l1_misses: f64,
    pub walks: f64,
    pub walk_entries: f64,
    pub llc_misses: f64,
    pub poison_faults: f64,
    pub samples: f64,
}

/// A poisoned page or an armed hint fault.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PoisonRec {
    /// Progress when faults were last counted.
    pub since: f64,
    /// Faults counted and not yet reset.
    pub faults: u64,
    /// Armed hint fault: fires once, at this progress.
    pub hint_at: Option<f64>,
    /// Page bytes.
    pub bytes: u64,
}

/// PEBS-like sampling state; draws come from a stream per clock step.
pub(crate) struct Sampler {
    pub cfg: SamplingConfig,
    pub buf: Vec<Sample>,
    pub dropped: u64,
}

/// A machine configuration it cannot run.
#[derive(Debug)]
pub struct RateConfigError(pub String);

impl std::fmt::Display for RateConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rate machine: {}", self.0)
    }
}

impl std::error::Error for RateConfigError {}

/// The rate-driven simulated machine. See the crate documentation.
pub struct RateMachine {
    pub(crate) cfg: MachineConfig,
    pub(crate) regions: Vec<RegionInfo>,
    pub(crate) phases: Vec<PhaseIndex>,
    /// Progress (accesses) at which each phase starts; one extra for the end.
    pub(crate) phase_start: Vec<f64>,
    /// Ranges with positive mass in some phase, sorted and merged.
    pub(crate) ever: Vec<Span>,
    pub(crate) phase: usize,
    /// Simulated time (ns) at which each phase reached so far began.
    pub(crate) phase_started_ns: Vec<f64>,
    pub(crate) progress: f64,
    pub(crate) now_ns: f64,
    pub(crate) ideal_ns: f64,
    pub(crate) per: PerAccess,
    pub(crate) stale: bool,
    pub(crate) placement: Placement,
    pub(crate) mapped: bool,
    pub(crate) policies: BTreeMap<u16, MemPolicy>,
    /// Accessed bits by level (root first), then Dirty bits of leaves.
    pub(crate) abits: [LazyBits; 4],
    pub(crate) dbits: LazyBits,
    /// Leaf keys cleared since the last flush (with positive mass).
    pub(crate) unflushed: crate::bits::KeySet,
    /// Size at which `unflushed` is next pruned.
    pub(crate) unflushed_limit: usize,
    pub(crate) poison: BTreeMap<(u16, u64), PoisonRec>,
    pub(crate) sampler: Option<Sampler>,
    pub(crate) counters: Vec<[f64; 2]>,
    pub(crate) app_counters: Vec<[f64; 2]>,
    pub(crate) stats: Stats,
    pub(crate) manager_ns: f64,
    pub(crate) steps: u64,
    pub(crate) seed: u64,
}

/// A range of one address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Span {
    pub asid: u16,
    pub start: u64,
    pub end: u64,
}

/// Expected counts, kept as reals and rounded for reports.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stats {
    pub accesses: f64,
    pub l1_tlb_misses: f64,
    pub walks: f64,
    pub walk_entries: f64,
    pub llc_misses: f64,
    pub poison_faults: f64,
    pub tier_faults: f64,
    pub promoted_pages: u64,
    pub demoted_pages: u64,
    pub migrated_bytes: u64,
    pub shootdowns: u64,
    pub samples: u64,
}

/// The key of the entry at `level` that maps `va`.
pub(crate) fn entry_key(asid: u16, va: u64, level: Level) -> u64 {
    (u64::from(asid) << 40) | (va >> level.shift())
}

pub(crate) fn level_index(level: Level) -> usize {
    match level {
        Level::Pgd => 0,
        Level::Pud => 1,
        Level::Pmd => 2,
        Level::Pte => 3,
    }
}

impl RateMachine {
    /// A machine running `profile` over `regions`.
    pub fn new(
        cfg: MachineConfig,
        regions: Vec<RegionInfo>,
        profile: &RateProfile,
    ) -> Result<Self, RateConfigError> {
        if cfg.tiers.is_empty() {
            return Err(RateConfigError("no tiers".into()));
        }
        if cfg.tiers.len() > 255 {
            return Err(RateConfigError("more than 255 tiers".into()));
        }
        profile.validate(&regions).map_err(RateConfigError)?;
        if regions.iter().any(|r| r.end() > 1 << 47) {
            return Err(RateConfigError(
                "a region ends above the 47-bit user address space".into(),
            ));
        }
        let phases: Vec<PhaseIndex> = profile
            .phases
            .iter()
            .map(|p| PhaseIndex::new(p, &regions, &cfg.tlb, &cfg.llc))
            .collect();
        let mut phase_start = vec![0.0];
        for p in &profile.phases {
            let last = *phase_start.last().expect("non-empty");
            phase_start.push(last + p.accesses as f64);
        }
        let mut ever: Vec<Span> = phases
            .iter()
            .flat_map(|ix| {
                ix.pieces().iter().map(|p| Span {
                    asid: p.asid,
                    start: p.start,
                    end: p.end,
                })
            })
            .collect();
        ever.sort_unstable();
        let mut merged: Vec<Span> = Vec::new();
        for r in ever {
            match merged.last_mut() {
                Some(m) if m.asid == r.asid && r.start <= m.end => m.end = m.end.max(r.end),
                _ => merged.push(r),
            }
        }
        let tiers = cfg.tiers.len();
        Ok(RateMachine {
            seed: cfg.seed,
            placement: Placement::new(tiers, cfg.seed),
            regions,
            phases,
            phase_start,
            ever: merged,
            phase: 0,
            phase_started_ns: vec![0.0],
            progress: 0.0,
            now_ns: 0.0,
            ideal_ns: 0.0,
            per: PerAccess::default(),
            stale: true,
            mapped: false,
            policies: BTreeMap::new(),
            abits: Default::default(),
            dbits: LazyBits::default(),
            unflushed: Default::default(),
            unflushed_limit: 1 << 20,
            poison: BTreeMap::new(),
            sampler: None,
            counters: vec![[0.0; 2]; tiers],
            app_counters: vec![[0.0; 2]; tiers],
            stats: Stats::default(),
            manager_ns: 0.0,
            steps: 0,
            cfg,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MachineConfig {
        &self.cfg
    }

    /// Simulated time (ns).
    pub fn time_ns(&self) -> f64 {
        self.now_ns
    }

    /// Time the same accesses take with every page in the fast tier (ns).
    pub fn ideal_time_ns(&self) -> f64 {
        self.ideal_ns
    }

    /// Manager CPU time charged (ns).
    pub fn manager_ns(&self) -> f64 {
        self.manager_ns
    }

    /// Workload accesses simulated so far.
    pub fn progress(&self) -> f64 {
        self.progress
    }

    /// Phase being run.
    pub fn phase(&self) -> usize {
        self.phase
    }

    /// Simulated time (ns) at which phase `k` began (0 if not reached).
    pub fn phase_start_ns(&self, k: usize) -> f64 {
        self.phase_started_ns.get(k).copied().unwrap_or(0.0)
    }

    /// Counts for reports (expected counts, rounded).
    pub fn stats(&self) -> MachineStats {
        let s = &self.stats;
        MachineStats {
            accesses: s.accesses.round() as u64,
            l1_tlb_misses: s.l1_tlb_misses.round() as u64,
            walks: s.walks.round() as u64,
            walk_entries: s.walk_entries.round() as u64,
            llc_misses: s.llc_misses.round() as u64,
            first_touch_faults: 0,
            poison_faults: s.poison_faults.round() as u64,
            tier_faults: s.tier_faults.round() as u64,
            tier_fault_promotions: 0,
            promoted_pages: s.promoted_pages,
            demoted_pages: s.demoted_pages,
            migrated_bytes: s.migrated_bytes,
            shootdowns: s.shootdowns,
            samples: s.samples,
        }
    }

    /// Application line reads and writes per tier.
    pub fn app_counters(&self) -> Vec<thermocline_backend::TierCounters> {
        self.app_counters
            .iter()
            .map(|c| thermocline_backend::TierCounters {
                reads: c[0].round() as u64,
                writes: c[1].round() as u64,
            })
            .collect()
    }

    /// Bytes mapped per tier.
    pub fn resident_bytes(&self) -> Vec<u64> {
        self.placement
            .used()
            .iter()
            .map(|&b| b.round() as u64)
            .collect()
    }

    /// Host memory the machine's state holds (bytes, approximate).
    pub fn host_bytes(&self) -> usize {
        self.abits.iter().map(LazyBits::host_bytes).sum::<usize>()
            + self.dbits.host_bytes()
            + self.placement.run_count() * 64
            + self
                .phases
                .iter()
                .map(|p| p.pieces().len() * 100)
                .sum::<usize>()
    }

    /// Maps every region by its address space's policy (first touch in
    /// address order), once, before the first access.
    pub(crate) fn ensure_mapped(&mut self) {
        if self.mapped {
            return;
        }
        self.mapped = true;
        let caps: Vec<f64> = self
            .cfg
            .tiers
            .iter()
            .map(|t| t.capacity_bytes as f64)
            .collect();
        let tiers = caps.len();
        for r in self.regions.clone() {
            let policy = self
                .policies
                .get(&r.asid.0)
                .copied()
                .unwrap_or(MemPolicy::PreferFast);
            let unit = if r.thp { 2u64 << 20 } else { 4096 };
            let (asid, start, end) = (r.asid.0, r.start, r.end());
            let first = match policy {
                MemPolicy::Interleave => {
                    self.placement
                        .set(asid, start, end, Home::Interleave, r.thp);
                    continue;
                }
                MemPolicy::Random { fast_probability } => {
                    let home = Home::Random(fast_probability.clamp(0.0, 1.0));
                    self.placement.set(asid, start, end, home, r.thp);
                    continue;
                }
                MemPolicy::PreferFast => 0,
                MemPolicy::Bind { tier } => tier.index().min(tiers - 1),
            };
            // Fill the preferred tier, then the others in order.
            let mut at = start;
            let order: Vec<usize> = std::iter::once(first)
                .chain((0..tiers).filter(|&t| t != first))
                .collect();
            for (i, &t) in order.iter().enumerate() {
                if at >= end {
                    break;
                }
                let room = (caps[t] - self.placement.used()[t]).max(0.0) as u64 / unit * unit;
                let take = if i + 1 == order.len() {
                    end - at
                } else {
                    room.min(end - at)
                };
                if take > 0 {
                    self.placement
                        .set(asid, at, at + take, Home::Tier(t as u8), r.thp);
                    at += take;
                }
            }
        }
        self.stale = true;
    }

    /// Recomputes what one access costs and produces.
    pub(crate) fn refresh(&mut self) {
        self.stale = false;
        let tiers = self.cfg.tiers.len();
        let mut per = PerAccess {
            reads: vec![0.0; tiers],
            writes: vec![0.0; tiers],
            tier_faults: vec![0.0; tiers],
            ..PerAccess::default()
        };
        let Some(ix) = self.phases.get(self.phase) else {
            self.per = per;
            return;
        };
        let llc = self.cfg.llc.bytes > 0;
        for (asid, start, run) in self.placement.runs() {
            let m = |k| ix.mass(asid, start, run.end, k);
            let all = m(Mass::All);
            if all <= 0.0 {
                continue;
            }
            let (w, walks, miss) = (m(Mass::Writes), m(Mass::Walks), m(Mass::LlcMisses));
            for (t, s) in self.placement.shares(run.home).into_iter().enumerate() {
                if s == 0.0 {
                    continue;
                }
                if llc {
                    per.reads[t] += s * miss;
                    per.writes[t] += s * miss * (w / all);
                } else {
                    per.reads[t] += s * (all - w);
                    per.writes[t] += s * w;
                }
                if self.cfg.tiers[t].fault_on_access_ns.is_some() {
                    per.tier_faults[t] += s * walks;
                }
            }
        }
        per.walk_entries = ix.total(Mass::WalkEntries);
        per.l1_misses = ix.total(Mass::L1Misses);
        per.walks = ix.total(Mass::Walks);
        per.llc_misses = ix.total(Mass::LlcMisses);
        for (&(asid, base), rec) in &self.poison {
            if rec.hint_at.is_none() {
                per.poison_faults += ix.mass(asid, base, base + rec.bytes, Mass::Walks);
            }
        }
        if let Some(s) = &self.sampler {
            per.samples = self.event_mass(s.cfg.event) / s.cfg.period.max(1) as f64;
        }
        let events = EpochEvents {
            accesses: 1.0,
            stlb_hits: (per.l1_misses - per.walks).max(0.0),
            walk_entries: per.walk_entries,
            llc_hits: if llc { 1.0 - per.llc_misses } else { 0.0 },
            first_touch_faults: 0.0,
            poison_faults: per.poison_faults,
            samples: per.samples,
            reads: per.reads.clone(),
            writes: per.writes.clone(),
            migration_reads: vec![0.0; tiers],
            migration_writes: vec![0.0; tiers],
            tier_faults: per.tier_faults.clone(),
            all_core_stall_ns: 0.0,
        };
        let (ns, ideal) = epoch_time(&self.cfg, &events);
        per.ns = ns.max(1e-3);
        per.ideal_ns = ideal.max(1e-3);
        self.per = per;
    }

    pub(crate) fn event_mass(&self, event: thermocline_backend::SampleEvent) -> f64 {
        let Some(ix) = self.phases.get(self.phase) else {
            return 0.0;
        };
        let (kind, scale) = sample_kind(event);
        ix.total(kind) * scale
    }

    /// Runs the workload until simulated time `until_ns` or until `limit`
    /// accesses have been issued; returns false once the limit (or the end
    /// of the workload) is reached.
    pub fn advance(&mut self, until_ns: f64, limit: f64) -> bool {
        self.ensure_mapped();
        let end = limit.min(*self.phase_start.last().expect("non-empty"));
        loop {
            while self.phase + 1 < self.phase_start.len()
                && self.progress >= self.phase_start[self.phase + 1]
            {
                self.phase += 1;
                self.phase_started_ns.push(self.now_ns);
                self.stale = true;
            }
            if self.progress >= end {
                return false;
            }
            if self.now_ns >= until_ns {
                return true;
            }
            if self.stale {
                self.refresh();
            }
            let to_phase_end = self.phase_start[self.phase + 1].min(end) - self.progress;
            let by_time = (until_ns - self.now_ns) / self.per.ns;
            let (step, dt) = if by_time < to_phase_end {
                (by_time, until_ns - self.now_ns)
            } else {
                (to_phase_end, to_phase_end * self.per.ns)
            };
            self.account(step, dt);
            self.progress += step;
            self.now_ns += dt;
            self.ideal_ns += step * self.per.ideal_ns;
            if by_time >= to_phase_end {
                self.progress = self.phase_start[self.phase + 1].min(end);
            }
        }
    }

    fn account(&mut self, step: f64, dt: f64) {
        let p = &self.per;
        for t in 0..p.reads.len() {
            self.app_counters[t][0] += step * p.reads[t];
            self.app_counters[t][1] += step * p.writes[t];
            self.counters[t][0] += step * p.reads[t];
            self.counters[t][1] += step * p.writes[t];
            self.stats.tier_faults += step * p.tier_faults[t];
        }
        let s = &mut self.stats;
        s.accesses += step;
        s.l1_tlb_misses += step * p.l1_misses;
        s.walks += step * p.walks;
        s.walk_entries += step * p.walk_entries;
        s.llc_misses += step * p.llc_misses;
        s.poison_faults += step * p.poison_faults;
        if self.sampler.is_some() && p.samples > 0.0 {
            self.take_samples(step * p.samples, dt);
        }
        self.steps += 1;
    }

    fn take_samples(&mut self, mean: f64, dt: f64) {
        let Some(ix) = self.phases.get(self.phase) else {
            return;
        };
        let (now, steps, seed) = (self.now_ns, self.steps, self.seed);
        let Some(s) = self.sampler.as_mut() else {
            return;
        };
        let mut rng = Rng::keyed(seed, streams::SAMPLES, steps, 0);
        let n = poisson(mean, &mut rng);
        let (kind, _) = sample_kind(s.cfg.event);
        for _ in 0..n {
            let Some((asid, va)) = ix.locate(rng.unit(), kind) else {
                break;
            };
            self.stats.samples += 1;
            if s.buf.len() >= s.cfg.buffer {
                s.dropped += 1;
                continue;
            }
            let write = match kind {
                Mass::Writes => true,
                Mass::Reads => false,
                _ => {
                    let all = ix.mass(asid, va & !4095, (va & !4095) + 4096, Mass::All);
                    let w = ix.mass(asid, va & !4095, (va & !4095) + 4096, Mass::Writes);
                    all > 0.0 && rng.unit() * all < w
                }
            };
            let tier = self.placement.page(asid, va).map_or(0, |p| p.tier);
            s.buf.push(Sample {
                asid: thermocline_vocab::Asid(asid),
                va,
                write,
                tier: thermocline_vocab::TierId(tier),
                t_ns: (now + rng.unit() * dt) as u64,
            });
        }
    }

    /// The progress at which an entry cleared now is next set, given the
    /// rate per access `intensity(phase)` at which each phase sets it:
    /// exponential in the integrated intensity over the current and later
    /// phases, drawn from `stream` at (key, progress now).
    pub(crate) fn next_set(
        &self,
        stream: Stream,
        key: u64,
        intensity: impl Fn(&PhaseIndex) -> f64,
    ) -> f64 {
        let u = Rng::keyed_unit(self.seed, stream, key, self.progress.to_bits());
        let mut need = -u.ln();
        let mut at = self.progress;
        for k in self.phase..self.phases.len() {
            let phase_end = self.phase_start[k + 1];
            if phase_end <= at {
                continue;
            }
            let m = intensity(&self.phases[k]);
            if m > 0.0 {
                let span = phase_end - at;
                if need <= m * span {
                    return at + need / m;
                }
                need -= m * span;
            }
            at = phase_end;
        }
        f64::INFINITY
    }

    /// Expected accesses to each 2 MiB unit in the progress window
    /// `[from, to)`: the units whose expectation reaches `threshold`, as
    /// sorted, merged intervals of unit numbers `(asid, first, last + 1)`.
    pub fn hot_units(&self, from: f64, to: f64, threshold: f64) -> Vec<(u16, u64, u64)> {
        let mut spans: Vec<(usize, f64)> = Vec::new();
        for k in 0..self.phases.len() {
            let a = from.max(self.phase_start[k]);
            let b = to.min(self.phase_start[k + 1]);
            if b > a {
                spans.push((k, b - a));
            }
        }
        let total: f64 = spans.iter().map(|s| s.1).sum();
        let threshold = threshold.max(1e-9);
        let mut candidates: Vec<(u16, u64, u64)> = Vec::new();
        for &(k, _) in &spans {
            for p in self.phases[k].pieces() {
                // A unit wholly at this density over the whole window: if even
                // that misses the threshold, no unit made of such pieces is hot.
                if p.density[0] * (2u64 << 20) as f64 * total < threshold {
                    continue;
                }
                candidates.push((p.asid, p.start >> 21, ((p.end - 1) >> 21) + 1));
            }
        }
        candidates.sort_unstable();
        let mut out: Vec<(u16, u64, u64)> = Vec::new();
        let mut last: Option<(u16, u64)> = None;
        for (asid, lo, hi) in candidates {
            for unit in lo..hi {
                if last.is_some_and(|l| l >= (asid, unit)) {
                    continue;
                }
                last = Some((asid, unit));
                let count: f64 = spans
                    .iter()
                    .map(|&(k, n)| {
                        n * self.phases[k].mass(asid, unit << 21, (unit + 1) << 21, Mass::All)
                    })
                    .sum();
                if count >= threshold {
                    match out.last_mut() {
                        Some(o) if o.0 == asid && o.2 == unit => o.2 = unit + 1,
                        _ => out.push((asid, unit, unit + 1)),
                    }
                }
            }
        }
        out
    }

    /// Whether `[start, end)` of `asid` has positive mass in some phase.
    pub(crate) fn ever_hot(&self, asid: u16, start: u64, end: u64) -> bool {
        let i = self
            .ever
            .partition_point(|r| (r.asid, r.end) <= (asid, start));
        self.ever
            .get(i)
            .is_some_and(|r| r.asid == asid && r.start < end && start < r.end)
    }

    /// The next range at or after `start` (below `end`) with positive mass
    /// in some phase, clipped to `[start, end)`.
    pub(crate) fn next_ever(&self, asid: u16, start: u64, end: u64) -> Option<Range<u64>> {
        let i = self
            .ever
            .partition_point(|r| (r.asid, r.end) <= (asid, start));
        let r = self.ever.get(i)?;
        (r.asid == asid && r.start < end).then(|| r.start.max(start)..r.end.min(end))
    }
}

/// Which mass a sampled event follows, and its scale.
pub(crate) fn sample_kind(event: thermocline_backend::SampleEvent) -> (Mass, f64) {
    use thermocline_backend::SampleEvent::*;
    match event {
        RetiredLoads => (Mass::Reads, 1.0),
        RetiredStores => (Mass::Writes, 1.0),
        RetiredAll => (Mass::All, 1.0),
        // LLC-miss events: approximated by the LLC-miss mass (loads and
        // stores alike).
        LlcMissLoads | LlcMissStores | LlcMissAll => (Mass::LlcMisses, 1.0),
    }
}

/// A Poisson draw: Knuth's method below 30, a rounded normal above.
pub(crate) fn poisson(mean: f64, rng: &mut Rng) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    if mean < 30.0 {
        let l = (-mean).exp();
        let (mut k, mut p) = (0u64, 1.0);
        loop {
            p *= rng.unit();
            if p <= l {
                return k;
            }
            k += 1;
        }
    }
    let (u1, u2) = (rng.unit().max(1e-300), rng.unit());
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    (mean + z * mean.sqrt()).round().max(0.0) as u64
}
