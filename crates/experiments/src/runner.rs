//! The run loop: access -> telemetry -> decision -> migration.

use crate::config::RunConfig;
use crate::groundtruth::{self, Score};
use crate::report::{HotMap, MigrationTotals, Report, TierReport, Window};
use crate::RunError;
use thermocline_backend::Backend;
use thermocline_managers::HotSet;
use thermocline_managers::Manager;
use thermocline_rate::RateMachine;
use thermocline_sim::{machine_preset, Access, Machine, MachineConfig, PerfConfig};
use thermocline_vocab::{CapacitySpec, HUGE_PAGE};
use thermocline_workloads::presets::{self as wl, WorkloadOptions};

/// Accesses handed to the machine between two looks at the clock: small
/// enough that ticks land within tens of simulated microseconds.
const BATCH: usize = 256;

/// Sees every access of a run (heatmaps). Generic, so the default observer
/// costs nothing on the per-access path.
pub trait Observer {
    /// Whether it observes anything (the rate machine has no accesses to show).
    const OBSERVES: bool = true;

    /// Called before the machine simulates `a`, at simulated time `now_ns`.
    fn on_access(&mut self, a: &Access, now_ns: f64);
}

/// The observer that observes nothing.
pub struct NoObserver;

impl Observer for NoObserver {
    const OBSERVES: bool = false;

    #[inline(always)]
    fn on_access(&mut self, _: &Access, _: f64) {}
}

/// Runs `cfg` and reports; `progress(done, total)` is called now and then.
pub fn run(cfg: &RunConfig, progress: &mut dyn FnMut(u64, u64)) -> Result<Report, RunError> {
    run_observed(cfg, progress, &mut NoObserver)
}

/// The slow tier's default capacity: the whole footprint, rounded up to 2 MiB
/// per region so that huge pages always fit.
fn default_slow_capacity(regions: &[thermocline_backend::RegionInfo]) -> u64 {
    regions
        .iter()
        .map(|r| r.len.div_ceil(HUGE_PAGE) * HUGE_PAGE)
        .sum::<u64>()
        + HUGE_PAGE
}

fn parse_capacity(what: &str, text: &str) -> Result<CapacitySpec, RunError> {
    CapacitySpec::parse(text).map_err(|e| RunError::Config(format!("{what}: {e}")))
}

/// The default machine preset.
pub const DEFAULT_MACHINE: &str = "dram+dcpmm";

/// The machine a run uses: the user's, else the one the manager needs, else
/// the default; a manager that needs a machine refuses any other.
fn resolve_machine(asked: Option<&str>, manager: &dyn Manager) -> Result<String, RunError> {
    match (asked, manager.machine()) {
        (Some(a), Some(need)) if a != need => Err(RunError::Config(format!(
            "manager {} runs on machine {need} only (it emulates that machine's slow tier); drop --machine or pick another manager",
            manager.name()
        ))),
        (Some(a), _) => Ok(a.to_string()),
        (None, Some(need)) => Ok(need.to_string()),
        (None, None) => Ok(DEFAULT_MACHINE.to_string()),
    }
}

/// Footprints above this run on the rate-driven machine when the backend is
/// `auto` and the workload has a rate description.
pub const RATE_THRESHOLD_BYTES: u64 = 64 << 30;

/// Which machine a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The exact machine: accesses one by one.
    Exact,
    /// The rate-driven machine.
    Rate,
}

/// Windows a report holds at most.
const MAX_WINDOWS: f64 = 1e6;
/// Hot-map cells (windows x bins) a report holds at most.
const MAX_HOT_MAP_CELLS: f64 = 1e8;
/// Ticks a manager may be due between two looks at the clock: far more means
/// its interval is far below the time a batch takes, or below what a tick
/// itself costs, and the run would not end.
const MAX_TICKS_AT_ONCE: u64 = 10_000;

/// Counts a tick due at once; fails past [`MAX_TICKS_AT_ONCE`].
pub(crate) fn check_ticks(due: &mut u64, manager: &dyn Manager) -> Result<(), RunError> {
    *due += 1;
    if *due > MAX_TICKS_AT_ONCE {
        return Err(RunError::Config(format!(
            "manager {} is due more than {MAX_TICKS_AT_ONCE} ticks at once: its interval is far below the time between two looks at the clock or the cost of a tick (check its parameters, workload.compute_ns and machine.costs)",
            manager.name()
        )));
    }
    Ok(())
}

/// Everything a run needs, resolved from its configuration.
pub(crate) struct Setup {
    pub(crate) manager: Box<dyn Manager>,
    pub(crate) machine_name: String,
    pub(crate) mcfg: MachineConfig,
    pub(crate) workload: thermocline_workloads::Workload,
    pub(crate) footprint: u64,
    pub(crate) window_ns: f64,
    pub(crate) limit: u64,
    pub(crate) backend: BackendKind,
}

/// The backend `cfg` asks for (`exact`, `rate` or `auto`) for a workload.
fn choose_backend(
    asked: Option<&str>,
    workload: &thermocline_workloads::Workload,
    footprint: u64,
) -> Result<BackendKind, RunError> {
    let has_rates = workload.rates.is_some();
    match asked.unwrap_or("auto") {
        "exact" => Ok(BackendKind::Exact),
        "rate" if has_rates => Ok(BackendKind::Rate),
        "rate" => Err(RunError::Config(format!(
            "workload {} has no rate description (traces, application models and sweeps exist only access by access); use --backend exact",
            workload.name
        ))),
        "auto" if has_rates && footprint > RATE_THRESHOLD_BYTES => Ok(BackendKind::Rate),
        "auto" => Ok(BackendKind::Exact),
        other => Err(RunError::Config(format!(
            "unknown backend {other:?}: exact, rate or auto"
        ))),
    }
}

/// The numbers the performance model divides by, raises to powers or adds
/// to the clock: a NaN, an infinity or a negative there would stop the clock
/// or run it off to infinity.
fn check_performance_numbers(m: &MachineConfig) -> Result<(), RunError> {
    let bad = |what: &str, why: &str| Err(RunError::Config(format!("{what} {why}")));
    if !(m.perf.mlp.is_finite() && m.perf.mlp >= 1.0) {
        return bad("machine.mlp", "must be at least 1");
    }
    if let Some(n) = m.perf.saturation_exponent {
        if !(n.is_finite() && n >= 1.0) {
            return bad(
                "machine.saturation_exponent",
                "must be a number of at least 1",
            );
        }
    }
    if !(m.perf.compute_ns.is_finite() && m.perf.compute_ns >= 0.0) {
        return bad(
            "workload.compute_ns",
            "must be a finite number of ns, at least 0 (or set workload.access_rate)",
        );
    }
    let latencies = [
        ("machine.tlb.stlb_hit_ns", m.tlb.stlb_hit_ns),
        ("machine.tlb.walk_level_ns", m.tlb.walk_level_ns),
        ("machine.llc.hit_ns", m.llc.hit_ns),
    ];
    for (k, v) in latencies {
        if !(v.is_finite() && v >= 0.0) {
            return bad(k, "must be a finite number of ns, at least 0");
        }
    }
    let c = &m.costs;
    let costs = [
        ("entry_access_ns", c.entry_access_ns),
        ("invlpg_ns", c.invlpg_ns),
        ("full_flush_ns", c.full_flush_ns),
        ("shootdown_ipi_ns", c.shootdown_ipi_ns),
        ("poison_fault_ns", c.poison_fault_ns),
        ("first_touch_fault_ns", c.first_touch_fault_ns),
        ("split_huge_ns", c.split_huge_ns),
        ("sample_ns", c.sample_ns),
    ];
    for (k, v) in costs {
        if !(v.is_finite() && v >= 0.0) {
            return bad(
                &format!("machine.costs.{k}"),
                "must be a finite number of ns, at least 0",
            );
        }
    }
    if !(c.huge_copy_gbps.is_finite() && c.huge_copy_gbps > 0.0) {
        return bad("machine.costs.huge_copy_gbps", "must be positive");
    }
    let row_ok = |r: &(f64, f64, f64)| {
        r.0.is_finite() && r.0 > 0.0 && [r.1, r.2].iter().all(|v| v.is_finite() && *v >= 0.0)
    };
    if !c.migration_table.iter().all(row_ok) {
        return bad(
            "machine.costs.migration_table",
            "must list [batch pages > 0, move us >= 0, walk us >= 0] rows",
        );
    }
    Ok(())
}

fn setup(cfg: &RunConfig) -> Result<Setup, RunError> {
    let r = &cfg.run;
    let manager =
        thermocline_managers::registry::build(&r.manager, cfg.manager_params(&r.manager))?;
    if let Some(t) = manager.tick_ns().filter(|&t| t < 1_000) {
        return Err(RunError::Config(format!(
            "manager {} would tick every {t} ns: at least 1 us (check its period parameters)",
            r.manager
        )));
    }
    let machine_name = resolve_machine(r.machine.as_deref(), manager.as_ref())?;
    let preset = machine_preset(&machine_name).ok_or_else(|| {
        RunError::Config(format!(
            "unknown machine {machine_name:?} (see `thermocline list`)"
        ))
    })?;
    let mut tiers = (preset.tiers)();
    let mlp = cfg
        .machine
        .mlp
        .or(preset.mlp)
        .unwrap_or(PerfConfig::default().mlp);
    let opts = WorkloadOptions {
        seed: r.seed,
        access_rate: cfg.workload.access_rate,
        compute_ns: cfg.workload.compute_ns,
        thp: cfg.workload.thp,
        base_va: cfg.workload.base_va,
        fast_read_ns: tiers[0].read_ns,
        mlp,
    };
    let workload = wl::load(&r.workload, &opts)?;
    let footprint = workload.footprint_bytes();

    let fast_spec = match &r.fast_capacity {
        Some(t) => parse_capacity("fast capacity", t)?,
        None => manager
            .default_fast_capacity()
            .or(preset.fast_capacity.map(CapacitySpec::Bytes))
            .unwrap_or(CapacitySpec::PercentOfFootprint(50.0)),
    };
    let mut fast = fast_spec.resolve(footprint);
    if matches!(fast_spec, CapacitySpec::PercentOfFootprint(p) if p >= 100.0) {
        // "All of it" must hold every page even when regions start mid-2 MiB.
        fast = fast.max(default_slow_capacity(&workload.regions));
    }
    if fast < 4096 {
        return Err(RunError::Config(format!(
            "fast capacity {fast} B is below one 4 KiB page"
        )));
    }
    let slow = match &cfg.machine.slow_capacity {
        Some(t) => parse_capacity("machine.slow_capacity", t)?.resolve(footprint),
        None => default_slow_capacity(&workload.regions),
    };
    if fast + slow < footprint {
        return Err(RunError::Config(format!(
            "tiers of {fast} + {slow} B cannot hold the {footprint} B footprint"
        )));
    }
    tiers[0].capacity_bytes = fast;
    for t in tiers.iter_mut().skip(1) {
        t.capacity_bytes = slow;
    }
    let mcfg = MachineConfig {
        tiers,
        tlb: cfg.machine.tlb.clone(),
        llc: cfg.machine.llc.clone(),
        perf: PerfConfig {
            mlp,
            compute_ns: workload.compute_ns,
            threads: workload.threads,
            saturation_exponent: cfg
                .machine
                .saturation_exponent
                .or(preset.saturation_exponent),
        },
        costs: cfg.machine.costs.clone(),
        seed: r.seed,
    };
    check_performance_numbers(&mcfg)?;
    let backend = choose_backend(r.backend.as_deref(), &workload, footprint)?;

    let window_ns = cfg.metrics.window_s * 1e9;
    if !(window_ns.is_finite() && window_ns >= 1e3) {
        return Err(RunError::Config(
            "metrics.window_s must be at least 1 us".into(),
        ));
    }
    if cfg.metrics.hot_map_bins > 1 << 16 {
        return Err(RunError::Config(
            "metrics.hot_map_bins must be at most 65536".into(),
        ));
    }
    let limit = match r.duration_s {
        Some(d) if d.is_finite() && d > 0.0 => {
            ((d * workload.access_rate * workload.threads as f64) as u64)
                .min(workload.total_accesses)
        }
        Some(_) => {
            return Err(RunError::Config(
                "duration must be a positive number of seconds".into(),
            ))
        }
        None => workload.total_accesses,
    };

    Ok(Setup {
        manager,
        machine_name,
        mcfg,
        workload,
        footprint,
        window_ns,
        limit,
        backend,
    })
}

/// Runs `cfg`, showing every access to `obs` (exact machine only).
pub fn run_observed<O: Observer>(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    obs: &mut O,
) -> Result<Report, RunError> {
    run_with(cfg, progress, obs, &mut |_, _| {})
}

/// Runs `cfg`, handing every hot set the manager reports (with the time in
/// simulated seconds) to `on_report`.
pub fn run_reporting(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    on_report: &mut dyn FnMut(f64, &HotSet),
) -> Result<Report, RunError> {
    run_with(cfg, progress, &mut NoObserver, on_report)
}

fn run_with<O: Observer>(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    obs: &mut O,
    on_report: &mut dyn FnMut(f64, &HotSet),
) -> Result<Report, RunError> {
    let s = setup(cfg)?;
    match s.backend {
        BackendKind::Exact => run_exact(cfg, s, progress, obs, on_report),
        BackendKind::Rate => {
            if O::OBSERVES {
                return Err(RunError::Config(
                    "access heatmaps need the exact machine (--backend exact); the rate machine simulates no individual access".into(),
                ));
            }
            crate::rate_runner::run_rate(cfg, s, progress, on_report)
        }
    }
}

fn run_exact<O: Observer>(
    cfg: &RunConfig,
    s: Setup,
    progress: &mut dyn FnMut(u64, u64),
    obs: &mut O,
    on_report: &mut dyn FnMut(f64, &HotSet),
) -> Result<Report, RunError> {
    let Setup {
        mut manager,
        machine_name,
        mcfg,
        mut workload,
        footprint,
        window_ns,
        limit,
        ..
    } = s;
    let mut m = Machine::new(mcfg, workload.regions.clone())
        .map_err(|e| RunError::Config(e.to_string()))?;
    manager.start(&mut m)?;
    let tick_ns = manager.tick_ns().map(|t| t.max(1) as f64);
    let mut next_tick = tick_ns.unwrap_or(f64::INFINITY);
    let mut tally = Tally::new(cfg, &m, &workload.regions, window_ns);
    let mut buf = [Access::default(); BATCH];
    let mut done = 0u64;
    let mut batches = 0u64;
    progress(0, limit);
    while done < limit {
        while tally.phase_starts_s.len() < workload.phases.len()
            && workload.phases[tally.phase_starts_s.len()].first_access <= done
        {
            tally.phase_starts_s.push(m.time_ns() / 1e9);
        }
        let want = ((limit - done) as usize).min(BATCH);
        let n = workload.stream.fill(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        for a in &buf[..n] {
            obs.on_access(a, m.time_ns());
            m.access(*a);
        }
        m.settle();
        done += n as u64;
        tally.check_clock(m.time_ns())?;
        let mut due = 0;
        while m.time_ns() >= next_tick {
            check_ticks(&mut due, manager.as_ref())?;
            if let Some(hot) = manager.tick(&mut m)? {
                on_report(m.time_ns() / 1e9, &hot);
                let s = groundtruth::score(&mut m, &hot, cfg.metrics.hot_threshold);
                tally.scored(&hot, s);
            }
            m.settle();
            next_tick += tick_ns.expect("finite only with ticks");
        }
        tally.close_windows(&m, manager.as_ref());
        batches += 1;
        if batches.is_multiple_of(1024) {
            progress(done, limit);
        }
    }
    progress(done, limit);
    let mut report = tally.finish(cfg, &workload, &m, manager.as_ref(), footprint);
    report.machine = machine_name;
    Ok(report)
}

/// What both run loops accumulate: report windows, scores, the hot map and
/// phase start times.
pub(crate) struct Tally {
    win: WindowAcc,
    windows: Vec<Window>,
    hot_map: HotMapAcc,
    scores: Vec<Score>,
    pub(crate) phase_starts_s: Vec<f64>,
    next_window: f64,
    window_ns: f64,
}

impl Tally {
    pub(crate) fn new<M: SimView>(
        cfg: &RunConfig,
        m: &M,
        regions: &[thermocline_backend::RegionInfo],
        window_ns: f64,
    ) -> Self {
        Tally {
            win: WindowAcc::new(m),
            windows: Vec::new(),
            hot_map: HotMapAcc::new(cfg, regions),
            scores: Vec::new(),
            phase_starts_s: Vec::new(),
            next_window: window_ns,
            window_ns,
        }
    }

    /// Records a scored report.
    pub(crate) fn scored(&mut self, hot: &HotSet, s: Score) {
        self.hot_map.report(hot);
        self.win.scores.push(s);
        self.scores.push(s);
    }

    /// The next window boundary (simulated ns).
    pub(crate) fn next_window(&self) -> f64 {
        self.next_window
    }

    /// Fails when the clock is no longer finite, or when the windows it has
    /// passed are more than a report holds: a run that would never end or
    /// would not fit in memory.
    pub(crate) fn check_clock(&self, now_ns: f64) -> Result<(), RunError> {
        if !now_ns.is_finite() {
            return Err(RunError::Config(
                "the simulated clock ran off to infinity (check workload.compute_ns, machine.costs and the manager's parameters)".into(),
            ));
        }
        let windows =
            self.windows.len() as f64 + ((now_ns - self.next_window) / self.window_ns).max(0.0);
        let bins = self.hot_map.map.as_ref().map_or(0, |m| m.1.len()) as f64;
        if windows > MAX_WINDOWS || windows * bins > MAX_HOT_MAP_CELLS {
            return Err(RunError::Config(format!(
                "{:.3e} simulated s in {:.3e} s windows is more than a report holds ({MAX_WINDOWS:.0e} windows, {MAX_HOT_MAP_CELLS:.0e} hot-map cells): raise metrics.window_s (or check workload.compute_ns and machine.costs)",
                now_ns / 1e9,
                self.window_ns / 1e9
            )));
        }
        Ok(())
    }

    /// Closes every window the clock has passed.
    pub(crate) fn close_windows<M: SimView>(&mut self, m: &M, manager: &dyn Manager) {
        while m.time_ns() >= self.next_window {
            let w = self.win.close(m, manager, self.next_window, self.window_ns);
            self.windows.push(w);
            self.hot_map.close_window();
            self.next_window += self.window_ns;
        }
    }

    /// Closes the last, partial window and builds the report.
    pub(crate) fn finish<M: SimView>(
        mut self,
        cfg: &RunConfig,
        workload: &thermocline_workloads::Workload,
        m: &M,
        manager: &dyn Manager,
        footprint: u64,
    ) -> Report {
        let end = m.time_ns();
        let last = self.next_window - self.window_ns;
        if end > last {
            let w = self.win.close(m, manager, end, end - last);
            self.windows.push(w);
            self.hot_map.close_window();
        }
        let mut report = build_report(cfg, workload, m, self.windows, &self.scores, footprint);
        report.phase_starts_s = self.phase_starts_s;
        report.hot_map = self.hot_map.finish();
        report
    }
}

/// Builds the report's hot map, if asked for.
struct HotMapAcc {
    map: Option<(HotMap, Vec<f32>)>,
}

impl HotMapAcc {
    fn new(cfg: &RunConfig, regions: &[thermocline_backend::RegionInfo]) -> Self {
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

/// What reports read from a simulated machine, on either backend.
pub(crate) trait SimView: Backend {
    fn time_ns(&self) -> f64;
    fn ideal_time_ns(&self) -> f64;
    fn app_counters(&self) -> Vec<thermocline_backend::TierCounters>;
    fn resident_bytes(&self) -> Vec<u64>;
    fn stats(&self) -> thermocline_sim::MachineStats;
    fn config(&self) -> &MachineConfig;
    /// The ground-truth rule, for the report.
    fn hot_rule(&self, threshold: u64) -> String;
}

impl SimView for Machine {
    fn time_ns(&self) -> f64 {
        Machine::time_ns(self)
    }
    fn ideal_time_ns(&self) -> f64 {
        Machine::ideal_time_ns(self)
    }
    fn app_counters(&self) -> Vec<thermocline_backend::TierCounters> {
        Machine::app_counters(self).to_vec()
    }
    fn resident_bytes(&self) -> Vec<u64> {
        Machine::resident_bytes(self)
    }
    fn stats(&self) -> thermocline_sim::MachineStats {
        Machine::stats(self).clone()
    }
    fn config(&self) -> &MachineConfig {
        Machine::config(self)
    }
    fn hot_rule(&self, threshold: u64) -> String {
        format!(
            "a 2 MiB unit is hot if it received >= {} accesses since the manager's previous report",
            threshold.max(1)
        )
    }
}

impl SimView for RateMachine {
    fn time_ns(&self) -> f64 {
        RateMachine::time_ns(self)
    }
    fn ideal_time_ns(&self) -> f64 {
        RateMachine::ideal_time_ns(self)
    }
    fn app_counters(&self) -> Vec<thermocline_backend::TierCounters> {
        RateMachine::app_counters(self)
    }
    fn resident_bytes(&self) -> Vec<u64> {
        RateMachine::resident_bytes(self)
    }
    fn stats(&self) -> thermocline_sim::MachineStats {
        RateMachine::stats(self)
    }
    fn config(&self) -> &MachineConfig {
        RateMachine::config(self)
    }
    fn hot_rule(&self, threshold: u64) -> String {
        format!(
            "a 2 MiB unit is hot if its expected accesses since the manager's previous report (from the workload's rates) are >= {}",
            threshold.max(1)
        )
    }
}

/// Accumulates one window.
struct WindowAcc {
    accesses_at_start: u64,
    slow_accesses_at_start: u64,
    tier_faults_at_start: u64,
    scores: Vec<Score>,
}

fn slow_accesses<M: SimView>(m: &M) -> u64 {
    m.app_counters()
        .iter()
        .skip(1)
        .map(|c| c.reads + c.writes)
        .sum()
}

pub(crate) fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = v.fold((0.0, 0u32), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / f64::from(n))
}

impl WindowAcc {
    fn new<M: SimView>(m: &M) -> Self {
        WindowAcc {
            accesses_at_start: m.stats().accesses,
            slow_accesses_at_start: slow_accesses(m),
            tier_faults_at_start: m.stats().tier_faults,
            scores: Vec::new(),
        }
    }

    fn close<M: SimView>(
        &mut self,
        m: &M,
        manager: &dyn Manager,
        t_ns: f64,
        len_ns: f64,
    ) -> Window {
        let now = slow_accesses(m);
        let w = Window {
            manager: manager
                .gauges()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            t_s: t_ns / 1e9,
            resident_bytes: m.resident_bytes(),
            accesses_per_s: (m.stats().accesses - self.accesses_at_start) as f64 / (len_ns / 1e9),
            slow_tier_accesses_per_s: (now - self.slow_accesses_at_start) as f64 / (len_ns / 1e9),
            slow_tier_faults_per_s: (m.stats().tier_faults - self.tier_faults_at_start) as f64
                / (len_ns / 1e9),
            precision: mean(self.scores.iter().filter_map(|s| s.precision)),
            recall: mean(self.scores.iter().filter_map(|s| s.recall)),
        };
        *self = WindowAcc {
            accesses_at_start: m.stats().accesses,
            slow_accesses_at_start: now,
            tier_faults_at_start: m.stats().tier_faults,
            scores: Vec::new(),
        };
        w
    }
}

fn build_report<M: SimView>(
    cfg: &RunConfig,
    workload: &thermocline_workloads::Workload,
    m: &M,
    windows: Vec<Window>,
    scores: &[Score],
    footprint: u64,
) -> Report {
    let sim_s = m.time_ns() / 1e9;
    let ideal_s = m.ideal_time_ns() / 1e9;
    let infos = m.tiers();
    let mut tiers = Vec::new();
    for (i, spec) in m.config().tiers.iter().enumerate() {
        // Time-weighted residency from the window samples.
        let mut prev_t = 0.0;
        let mut area = 0.0;
        for w in &windows {
            area += w.resident_bytes[i] as f64 * (w.t_s - prev_t);
            prev_t = w.t_s;
        }
        let all = m
            .tier_counters(thermocline_vocab::TierId(i as u8))
            .unwrap_or_default();
        let dynamic = (all.reads * 512) as f64 * spec.read_pj_per_bit * 1e-12
            + (all.writes * 512) as f64 * spec.write_pj_per_bit * 1e-12;
        let standby =
            spec.standby_w_per_gb * (infos[i].capacity_bytes as f64 / (1u64 << 30) as f64) * sim_s;
        let app = m.app_counters()[i];
        tiers.push(TierReport {
            name: spec.name.clone(),
            capacity_bytes: infos[i].capacity_bytes,
            avg_resident_bytes: if prev_t > 0.0 { area / prev_t } else { 0.0 },
            reads: app.reads,
            writes: app.writes,
            energy_j: dynamic + standby,
        });
    }
    let st = m.stats().clone();
    Report {
        workload: workload.name.clone(),
        manager: cfg.run.manager.clone(),
        machine: String::new(),
        seed: cfg.run.seed,
        backend: m.kind().to_string(),
        footprint_bytes: footprint,
        touched_bytes: m.resident_bytes().iter().sum(),
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
            Backend::manager_ns(m) / 1e9 / sim_s
        } else {
            0.0
        },
        hot_rule: m.hot_rule(cfg.metrics.hot_threshold),
        mean_precision: mean(scores.iter().filter_map(|s| s.precision)),
        mean_recall: mean(scores.iter().filter_map(|s| s.recall)),
        stats: st,
        phases: workload.phases.clone(),
        phase_starts_s: Vec::new(),
        windows,
        hot_map: None,
    }
}
