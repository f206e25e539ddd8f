//! What the run loop accumulates while it runs (report windows, scores, the
//! hot map), and the report built once from it and the driver at the end.

use crate::config::RunConfig;
use crate::driver::Driver;
use crate::error::ConfigError;
use crate::groundtruth::Score;
use crate::report::{
    ChannelReport, DamonSnapshot, DamonTrace, HotMap, MemorySystemReport, MigrationTotals, Report,
    TierReport, WearReport, Window,
};
use thermocline_managers::{HotSet, Manager};
use thermocline_model::TierSpec;
use thermocline_vocab::{RegionInfo, TierId};
use thermocline_workloads::PhaseMark;

/// Windows a report holds at most.
const MAX_WINDOWS: f64 = 1e6;
/// Hot-map cells (windows x bins) a report holds at most.
const MAX_HOT_MAP_CELLS: f64 = 1e8;

/// What the run loop accumulates: report windows, scores and the hot map.
pub struct Tally {
    win: WindowAcc,
    windows: Vec<Window>,
    hot_map: HotMapAcc,
    scores: Vec<Score>,
    next_window: f64,
    window_ns: f64,
    /// DAMON's snapshots, when `metrics.damon_regions` asks for them.
    damon: Option<DamonTrace>,
}

impl Tally {
    /// A tally of a run of `cfg` on the driver's backend, over `regions`,
    /// cutting a report window every `window_ns`.
    pub fn new(cfg: &RunConfig, d: &dyn Driver, regions: &[RegionInfo], window_ns: f64) -> Self {
        Tally {
            win: WindowAcc::new(d),
            windows: Vec::new(),
            hot_map: HotMapAcc::new(cfg, regions),
            scores: Vec::new(),
            next_window: window_ns,
            window_ns,
            damon: cfg.metrics.damon_regions.then(|| DamonTrace {
                source: "simulator".into(),
                workload_regions: regions
                    .iter()
                    .filter(|r| r.asid.0 == 0)
                    .map(|r| (r.name.clone(), r.start, r.end()))
                    .collect(),
                ..Default::default()
            }),
        }
    }

    /// Records DAMON's regions after a tick that ended an aggregation
    /// interval (`metrics.damon_regions`; a manager without regions
    /// records nothing).
    pub fn damon_regions(&mut self, t_s: f64, manager: &dyn Manager) {
        let Some(trace) = self.damon.as_mut() else {
            return;
        };
        if let Some(c) = manager.region_counts() {
            trace.max_nr_accesses = c.max_nr_accesses;
            trace.snapshots.push(DamonSnapshot {
                t_s,
                regions: c
                    .regions
                    .iter()
                    .map(|&(a, b, n)| [a, b, u64::from(n)])
                    .collect(),
            });
        }
    }

    /// Records a scored report.
    pub fn scored(&mut self, hot: &HotSet, s: Score) {
        self.hot_map.report(hot);
        self.win.scores.push(s);
        self.scores.push(s);
    }

    /// The next window boundary (simulated ns).
    pub fn next_window(&self) -> f64 {
        self.next_window
    }

    /// Fails when the clock is no longer finite, or when the windows it has
    /// passed are more than a report holds: a run that would never end or
    /// would not fit in memory.
    pub fn check_clock(&self, now_ns: f64) -> Result<(), ConfigError> {
        if !now_ns.is_finite() {
            return Err(ConfigError::invalid(
                "simulated clock",
                "ran off to infinity (check workload.compute_ns, machine.costs and the manager's parameters)",
            ));
        }
        let windows =
            self.windows.len() as f64 + ((now_ns - self.next_window) / self.window_ns).max(0.0);
        let bins = self.hot_map.map.as_ref().map_or(0, |m| m.1.len()) as f64;
        if windows > MAX_WINDOWS || windows * bins > MAX_HOT_MAP_CELLS {
            return Err(ConfigError::invalid(
                "metrics.window_s",
                format!(
                    "{:.3e} simulated s in {:.3e} s windows is more than a report holds ({MAX_WINDOWS:.0e} windows, {MAX_HOT_MAP_CELLS:.0e} hot-map cells): raise metrics.window_s (or check workload.compute_ns and machine.costs)",
                    now_ns / 1e9,
                    self.window_ns / 1e9
                ),
            ));
        }
        Ok(())
    }

    /// Closes every window the clock has passed.
    pub fn close_windows(&mut self, d: &dyn Driver, manager: &dyn Manager) {
        while d.now_ns() >= self.next_window {
            let w = self.win.close(d, manager, self.next_window, self.window_ns);
            self.windows.push(w);
            self.hot_map.close_window();
            self.next_window += self.window_ns;
        }
    }

    /// Closes the last, partial window and builds the report.
    pub fn finish(mut self, run: &RunFacts, d: &mut dyn Driver, manager: &dyn Manager) -> Report {
        let end = d.now_ns();
        let last = self.next_window - self.window_ns;
        if end > last {
            let w = self.win.close(d, manager, end, end - last);
            self.windows.push(w);
            self.hot_map.close_window();
        }
        let hot_map = self.hot_map.finish();
        let mut r = build_report(run, d, self.windows, &self.scores, hot_map);
        r.notes = manager.notes();
        r.damon = self.damon.map(|mut t| {
            t.phases = r
                .phases
                .iter()
                .zip(&r.phase_starts_s)
                .map(|(p, &s)| (p.name.clone(), s))
                .collect();
            t.end_s = r.sim_time_s;
            t
        });
        r
    }
}

/// Builds the report's hot map, if asked for.
struct HotMapAcc {
    map: Option<(HotMap, Vec<f32>)>,
}

impl HotMapAcc {
    fn new(cfg: &RunConfig, regions: &[RegionInfo]) -> Self {
        let bins = cfg.metrics.hot_map_bins;
        let ours = regions.iter().filter(|r| r.asid.0 == 0);
        let lo = ours.clone().map(|r| r.start).min();
        let hi = ours.map(|r| r.end()).max();
        HotMapAcc {
            map: match (lo, hi) {
                (Some(lo), Some(hi)) if bins > 0 => Some(HotMap::new(lo, hi, bins)),
                _ => None,
            },
        }
    }

    fn report(&mut self, hot: &HotSet) {
        if let Some((map, cur)) = &mut self.map {
            let ranges: Vec<(u16, u64, u64)> =
                hot.ranges.iter().map(|r| (r.0 .0, r.1, r.2)).collect();
            map.coverage(&ranges, cur);
        }
    }

    fn close_window(&mut self) {
        if let Some((map, cur)) = &mut self.map {
            map.rows.push(cur.clone());
        }
    }

    fn finish(self) -> Option<HotMap> {
        self.map.map(|m| m.0)
    }
}

/// Accumulates one window.
struct WindowAcc {
    accesses_at_start: u64,
    slow_accesses_at_start: u64,
    tier_faults_at_start: u64,
    scores: Vec<Score>,
}

/// The mean of `v`, or `None` when it is empty.
pub fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = v.fold((0.0, 0u32), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / f64::from(n))
}

impl WindowAcc {
    fn new(d: &dyn Driver) -> Self {
        let c = d.counters();
        WindowAcc {
            accesses_at_start: c.accesses,
            slow_accesses_at_start: c.slow_accesses,
            tier_faults_at_start: c.tier_faults,
            scores: Vec::new(),
        }
    }

    fn close(&mut self, d: &dyn Driver, manager: &dyn Manager, t_ns: f64, len_ns: f64) -> Window {
        let c = d.counters();
        let now = c.slow_accesses;
        let w = Window {
            manager: manager
                .gauges()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            t_s: t_ns / 1e9,
            resident_bytes: d.resident_bytes(),
            accesses_per_s: (c.accesses - self.accesses_at_start) as f64 / (len_ns / 1e9),
            slow_tier_accesses_per_s: (now - self.slow_accesses_at_start) as f64 / (len_ns / 1e9),
            slow_tier_faults_per_s: (c.tier_faults - self.tier_faults_at_start) as f64
                / (len_ns / 1e9),
            precision: mean(self.scores.iter().filter_map(|s| s.precision)),
            recall: mean(self.scores.iter().filter_map(|s| s.recall)),
        };
        *self = WindowAcc {
            accesses_at_start: c.accesses,
            slow_accesses_at_start: now,
            tier_faults_at_start: c.tier_faults,
            scores: Vec::new(),
        };
        w
    }
}

/// What the report says about the run beyond what the driver measured.
pub struct RunFacts<'a> {
    /// The run's configuration.
    pub cfg: &'a RunConfig,
    /// The workload's name.
    pub workload: String,
    /// The machine's name.
    pub machine: String,
    /// The machine's tiers, fastest first.
    pub tiers: &'a [TierSpec],
    /// The workload's phases.
    pub phases: Vec<PhaseMark>,
    /// The workload's footprint (bytes).
    pub footprint: u64,
    /// Asked after each look at the clock: whether to stop the run.
    pub stop: &'a dyn Fn() -> bool,
}

/// Builds the report, once, from what the driver exposes.
fn build_report(
    run: &RunFacts,
    d: &mut dyn Driver,
    windows: Vec<Window>,
    scores: &[Score],
    hot_map: Option<HotMap>,
) -> Report {
    let cfg = run.cfg;
    let sim_s = d.now_ns() / 1e9;
    let ideal_s = d.ideal_ns() / 1e9;
    let app_counters = d.app_counters();
    let resident = d.resident_bytes();
    let hot_rule = d.hot_rule(cfg.metrics.hot_threshold);
    let phase_starts_s = d.phase_starts_s().to_vec();
    let st = d.stats();
    let memsys = d.memory_system();
    let time_breakdown = d.time_breakdown();
    let tenants = d.tenants();
    let b = d.backend();
    let infos = b.tiers();
    let regions = if cfg.metrics.region_tiers {
        region_tiers(b, infos.len())
    } else {
        Vec::new()
    };
    let mut tiers = Vec::new();
    for (i, spec) in run.tiers.iter().enumerate() {
        // Time-weighted residency from the window samples.
        let mut prev_t = 0.0;
        let mut area = 0.0;
        for w in &windows {
            area += w.resident_bytes[i] as f64 * (w.t_s - prev_t);
            prev_t = w.t_s;
        }
        let all = b.tier_counters(TierId(i as u8)).unwrap_or_default();
        let dynamic = (all.reads * 512) as f64 * spec.read_pj_per_bit * 1e-12
            + (all.writes * 512) as f64 * spec.write_pj_per_bit * 1e-12;
        let standby =
            spec.standby_w_per_gb * (infos[i].capacity_bytes as f64 / (1u64 << 30) as f64) * sim_s;
        let app = app_counters[i];
        tiers.push(TierReport {
            name: spec.name.clone(),
            capacity_bytes: infos[i].capacity_bytes,
            avg_resident_bytes: if prev_t > 0.0 { area / prev_t } else { 0.0 },
            reads: app.reads,
            writes: app.writes,
            energy_j: dynamic + standby,
            lifetime_years: lifetime_years(spec, infos[i].capacity_bytes, all.writes, sim_s),
        });
    }
    let memory_system = memsys.map(|m| {
        let traffic: Vec<_> = (0..run.tiers.len())
            .map(|i| b.tier_counters(TierId(i as u8)).unwrap_or_default())
            .collect();
        let caps: Vec<u64> = infos.iter().map(|i| i.capacity_bytes).collect();
        memory_system_report(&m, run.tiers, &caps, &traffic, sim_s)
    });
    Report {
        schema_version: Default::default(),
        workload: run.workload.clone(),
        manager: cfg.run.manager.clone(),
        machine: run.machine.clone(),
        seed: cfg.run.seed,
        backend: b.kind().to_string(),
        footprint_bytes: run.footprint,
        touched_bytes: resident.iter().sum(),
        sim_time_s: sim_s,
        ideal_time_s: ideal_s,
        accesses: st.accesses,
        slowdown: if ideal_s > 0.0 {
            sim_s / ideal_s - 1.0
        } else {
            0.0
        },
        tiers,
        migrations: MigrationTotals {
            promoted_pages: st.promoted_pages,
            demoted_pages: st.demoted_pages,
            bytes: st.migrated_bytes,
        },
        manager_cpu_util: if sim_s > 0.0 {
            b.manager_ns() / 1e9 / sim_s
        } else {
            0.0
        },
        hot_rule,
        mean_precision: mean(scores.iter().filter_map(|s| s.precision)),
        mean_recall: mean(scores.iter().filter_map(|s| s.recall)),
        stats: st,
        phases: run.phases.clone(),
        phase_starts_s,
        windows,
        hot_map,
        memory_system,
        time_breakdown,
        notes: Vec::new(),
        tenants,
        regions,
        kernel_vmstat: Default::default(),
        page_allocs: page_allocs(b),
        damon: None,
    }
}

/// Pages allocated per page type over every address space, when the
/// workload has typed regions and the backend counts typed allocations (see
/// [`Report::page_allocs`]).
fn page_allocs(
    b: &dyn thermocline_backend::Backend,
) -> Option<std::collections::BTreeMap<String, u64>> {
    use thermocline_vocab::PageType;
    let regions = b.regions();
    if regions.iter().all(|r| r.page_type == PageType::Anon) {
        return None;
    }
    let mut asids: Vec<_> = regions.iter().map(|r| r.asid).collect();
    asids.sort_unstable();
    asids.dedup();
    let mut pages = [0u64; PageType::COUNT];
    for a in asids {
        let counts = b.alloc_counts(a).ok()?;
        for (p, c) in pages.iter_mut().zip(counts) {
            *p += c.requests;
        }
    }
    Some(
        PageType::ALL
            .iter()
            .map(|t| (t.name().to_string(), pages[t.index()]))
            .collect(),
    )
}

/// Largest over mean (0 when all are 0).
fn imbalance(v: &[u64]) -> f64 {
    let total: u64 = v.iter().sum();
    if total == 0 {
        return 0.0;
    }
    let max = v.iter().copied().max().unwrap_or(0) as f64;
    max / (total as f64 / v.len() as f64)
}

/// The report's memory-system section from the controllers' counts, each
/// tier's traffic (migrations included) and capacity, over `seconds`.
fn memory_system_report(
    m: &thermocline_model::memsys::MemSysStats,
    specs: &[TierSpec],
    capacities: &[u64],
    traffic: &[thermocline_backend::TierCounters],
    seconds: f64,
) -> MemorySystemReport {
    const SECONDS_PER_YEAR: f64 = 365.25 * 86_400.0;
    let channels = m
        .channels
        .iter()
        .zip(specs)
        .zip(capacities.iter().zip(traffic))
        .map(|((c, spec), (&cap, all))| {
            let bank_accesses: Vec<u64> = c
                .bank_reads
                .iter()
                .zip(&c.bank_writes)
                .map(|(r, w)| r + w)
                .collect();
            let served = c.row_hits + c.row_empty + c.row_conflicts;
            let wear = spec
                .endurance_writes
                .filter(|_| c.wear_groups > 0)
                .map(|e| {
                    let per_s = |writes: u64| {
                        (writes > 0 && seconds > 0.0).then(|| writes as f64 / seconds)
                    };
                    let bank_lines = cap as f64 / 64.0 / c.bank_wear.len().max(1) as f64;
                    let busiest = c.bank_wear.iter().copied().max().unwrap_or(0);
                    WearReport {
                        group_bytes: c.wear_group_bytes,
                        max_group_writes: c.wear_max_group_writes,
                        mean_group_writes: c.wear_total_writes as f64 / c.wear_groups as f64,
                        bank_writes: c.bank_wear.clone(),
                        lifetime_years_start_gap: per_s(busiest)
                            .map(|r| 0.95 * e * bank_lines / r / SECONDS_PER_YEAR),
                        lifetime_years_unlevelled: per_s(c.wear_max_group_writes)
                            .map(|r| e * (c.wear_group_bytes / 64) as f64 / r / SECONDS_PER_YEAR),
                    }
                });
            ChannelReport {
                tier: c.tier.clone(),
                bank_imbalance: imbalance(&bank_accesses),
                bank_accesses,
                row_hits: c.row_hits,
                row_empty: c.row_empty,
                row_conflicts: c.row_conflicts,
                row_hit_rate: if served > 0 {
                    c.row_hits as f64 / served as f64
                } else {
                    0.0
                },
                read_energy_j: (all.reads * 512) as f64 * spec.read_pj_per_bit * 1e-12,
                write_energy_j: (all.writes * 512) as f64 * spec.write_pj_per_bit * 1e-12,
                standby_energy_j: spec.standby_w_per_gb
                    * (cap as f64 / (1u64 << 30) as f64)
                    * seconds,
                wear,
            }
        })
        .collect();
    MemorySystemReport {
        llc_slab_imbalance: imbalance(&m.llc_slab_misses),
        llc_slab_misses: m.llc_slab_misses.clone(),
        channels,
    }
}

/// Memos 6.3's NVM lifetime: 95% of the average cell's lifetime when wear
/// levelling spreads `writes` (64-byte lines in `seconds`) evenly over the
/// tier's `capacity` bytes of cells that endure `spec.endurance_writes`.
fn lifetime_years(
    spec: &thermocline_model::tiers::TierSpec,
    capacity: u64,
    writes: u64,
    seconds: f64,
) -> Option<f64> {
    const LEVELLING: f64 = 0.95;
    const SECONDS_PER_YEAR: f64 = 365.25 * 86_400.0;
    let endurance = spec.endurance_writes?;
    if writes == 0 || seconds <= 0.0 {
        return None;
    }
    let bytes_per_s = writes as f64 * 64.0 / seconds;
    Some(LEVELLING * endurance * capacity as f64 / bytes_per_s / SECONDS_PER_YEAR)
}

/// Where each region's pages are now, page by page through the backend.
fn region_tiers(
    b: &dyn thermocline_backend::Backend,
    tiers: usize,
) -> Vec<crate::report::RegionTiers> {
    b.regions()
        .iter()
        .map(|r| {
            let mut pages = vec![0u64; tiers];
            let mut elsewhere = 0;
            let mut va = r.start;
            while va < r.end() {
                let (step, tier) = match b.translate(r.asid, va) {
                    Ok(Some(t)) => {
                        let next = t.size.align_down(va) + t.size.bytes();
                        (next.min(r.end()) - va, Some(t.tier))
                    }
                    _ => (4096, None),
                };
                match tier {
                    Some(t) if t.index() < tiers => pages[t.index()] += step / 4096,
                    _ => elsewhere += step / 4096,
                }
                va += step;
            }
            crate::report::RegionTiers {
                name: r.name.clone(),
                bytes: r.len,
                pages,
                elsewhere,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_model::tiers;

    #[test]
    fn lifetime_is_endurance_times_capacity_over_write_bandwidth() {
        // 128 GiB of PCM (1e7 writes per cell) written at 1 GiB/s for 10 s:
        // 0.95 x 1e7 x 128 s = 1.216e9 s, 38.5 years.
        let gib = 1u64 << 30;
        let writes = 10 * gib / 64;
        let y = lifetime_years(&tiers::pcm(), 128 * gib, writes, 10.0).unwrap();
        assert!(
            (y - 0.95e7 * 128.0 / (365.25 * 86_400.0)).abs() < 1e-9,
            "{y}"
        );
        // Twice the write rate halves it.
        let y2 = lifetime_years(&tiers::pcm(), 128 * gib, 2 * writes, 10.0).unwrap();
        assert!((y / y2 - 2.0).abs() < 1e-12);
        assert_eq!(
            lifetime_years(&tiers::dram(), 128 * gib, writes, 10.0),
            None
        );
        assert_eq!(lifetime_years(&tiers::pcm(), 128 * gib, 0, 10.0), None);
    }
}
