//! Resolving a configuration once into everything a run needs: the manager,
//! the machine description, the loaded workload, the backend and the limits.
//! Every check of the user's input happens here, before anything runs.

use crate::config::RunConfig;
use crate::error::{ConfigError, RunError};
use crate::validate;
use thermocline_managers::schemes::SchemeParams;
use thermocline_managers::Manager;
use thermocline_model::{machine_preset, MachineConfig, PerfConfig};
use thermocline_vocab::{CapacitySpec, RegionInfo, HUGE_PAGE};
use thermocline_workloads::presets::{self as wl, WorkloadOptions};
use thermocline_workloads::Workload;

/// The slow tier's default capacity: the whole footprint, rounded up to 2 MiB
/// per region so that huge pages always fit.
fn default_slow_capacity(regions: &[RegionInfo]) -> u64 {
    regions
        .iter()
        .map(|r| r.len.div_ceil(HUGE_PAGE) * HUGE_PAGE)
        .sum::<u64>()
        + HUGE_PAGE
}

fn parse_capacity(what: &str, text: &str) -> Result<CapacitySpec, RunError> {
    CapacitySpec::parse(text).map_err(|e| ConfigError::invalid(what, e.to_string()).into())
}

/// The default machine preset.
pub const DEFAULT_MACHINE: &str = "dram+dcpmm";

/// The machine a run uses: the user's, else the one the manager needs, else
/// the default; a manager that needs a machine refuses any other.
pub fn resolve_machine(asked: Option<&str>, manager: &dyn Manager) -> Result<String, RunError> {
    match (asked, manager.machine()) {
        (Some(a), Some(need)) if a != need => Err(ConfigError::invalid(
            "machine",
            format!(
                "manager {} runs on machine {need} only (it emulates that machine's slow tier); drop --machine or pick another manager",
                manager.name()
            ),
        )
        .into()),
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

/// Everything a run needs, resolved from its configuration.
pub struct Setup {
    /// The manager, built with its parameters.
    pub manager: Box<dyn Manager>,
    /// The machine's name (a preset, or the manager's own machine).
    pub machine_name: String,
    /// The machine, tiers sized for the run.
    pub mcfg: MachineConfig,
    /// The workload, ready to run.
    pub workload: Workload,
    /// The workload's footprint (bytes).
    pub footprint: u64,
    /// The report window (simulated ns).
    pub window_ns: f64,
    /// The accesses the run is limited to.
    pub limit: u64,
    /// The simulated machine it runs on.
    pub backend: BackendKind,
    /// The manager's parameters as built (every default filled in).
    pub params: toml::Table,
    /// Its schemes (none for a manager without any).
    pub schemes: Vec<SchemeParams>,
    /// One line per scheme that can never match in this run.
    pub warnings: Vec<String>,
}

/// Where a configuration runs: on a simulated machine of this process, or
/// on a backend that runs it elsewhere ([`crate::runner::RemoteBackend`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The exact or the rate machine ([`choose_backend`] picks which).
    Simulated,
    /// `run.backend = "guest"`: a real kernel in the QEMU guest.
    Remote,
}

/// Where `cfg` runs: the one place the `guest` backend's name is read.
pub fn placement_of(cfg: &RunConfig) -> Placement {
    match cfg.run.backend.as_deref() {
        Some("guest") => Placement::Remote,
        _ => Placement::Simulated,
    }
}

/// A capacity as a configuration writes it: bytes, or a percentage.
pub(crate) fn capacity_text(c: CapacitySpec) -> String {
    match c {
        CapacitySpec::Bytes(b) => b.to_string(),
        CapacitySpec::PercentOfFootprint(p) => format!("{p}%"),
    }
}

/// The backend `cfg` asks for (`exact`, `rate` or `auto`) for a workload.
fn choose_backend(
    asked: Option<&str>,
    workload: &Workload,
    footprint: u64,
) -> Result<BackendKind, RunError> {
    let has_rates = workload.rates.is_some();
    match asked.unwrap_or("auto") {
        "exact" => Ok(BackendKind::Exact),
        "rate" if has_rates => Ok(BackendKind::Rate),
        "rate" => Err(ConfigError::invalid(
            "backend",
            format!(
                "workload {} has no rate description (traces, application models and sweeps exist only access by access); use --backend exact",
                workload.name
            ),
        )
        .into()),
        "auto" if has_rates && footprint > RATE_THRESHOLD_BYTES => Ok(BackendKind::Rate),
        "auto" => Ok(BackendKind::Exact),
        other => Err(ConfigError::invalid(
            "backend",
            format!("unknown backend {other:?}: exact, rate or auto (guest: `thermocline run` and `reproduce` only)"),
        )
        .into()),
    }
}

/// A memory system must be valid for the machine's tiers, sit behind an
/// LLC, and run on the exact machine (the rate machine has no model of it).
fn check_memory_system(m: &MachineConfig, backend: BackendKind) -> Result<(), RunError> {
    let Some(mem) = m.memory_system() else {
        return Ok(());
    };
    let bad = |msg: String| Err(ConfigError::invalid("machine.memory", msg).into());
    let caps: Vec<u64> = m.tiers.iter().map(|t| t.capacity_bytes).collect();
    if let Err(msg) = mem.check(&caps) {
        return bad(msg);
    }
    if m.llc.bytes == 0 {
        return bad("needs an LLC (machine.llc.bytes > 0): its controllers serve LLC misses and write-backs".into());
    }
    if backend == BackendKind::Rate {
        return bad("the rate machine does not model channels, banks or row buffers: use --backend exact (or machine.memory.enabled=false)".into());
    }
    Ok(())
}

/// The numbers the performance model divides by, raises to powers or adds
/// to the clock: a NaN, an infinity or a negative there would stop the clock
/// or run it off to infinity.
fn check_performance_numbers(m: &MachineConfig) -> Result<(), RunError> {
    let bad = |what: &str, why: &str| Err(ConfigError::invalid(what, why).into());
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

/// Resolves `cfg` into everything its run needs, checking it as it goes.
pub fn setup(cfg: &RunConfig) -> Result<Setup, RunError> {
    set_up(cfg).map_err(|e| validate::locate(cfg, e))
}

/// [`setup`], its errors not yet located.
fn set_up(cfg: &RunConfig) -> Result<Setup, RunError> {
    let r = &cfg.run;
    let built = thermocline_managers::registry::build_shown(
        &r.manager,
        cfg.manager_params(&r.manager),
        r.seed,
    )
    .map_err(|e| validate::manager_error(cfg, &r.manager, e))?;
    let (manager, params) = (built.manager, built.params);
    let schemes = validate::schemes_of(&params);
    if let Some(t) = manager.tick_ns().filter(|&t| t < 1_000) {
        return Err(ConfigError::invalid(
            format!("manager {}", r.manager),
            format!("would tick every {t} ns: at least 1 us (check its period parameters)"),
        )
        .into());
    }
    let machine_name = resolve_machine(r.machine.as_deref(), manager.as_ref())?;
    let preset = machine_preset(&machine_name).ok_or_else(|| ConfigError::UnknownName {
        kind: "machine",
        name: machine_name.clone(),
        listing: "list",
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
        masim_burst: cfg.workload.masim_burst,
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
        // say where the size came from: a default the user never gave, a
        // percentage of a footprint smaller than they think
        let from = match (&r.fast_capacity, fast_spec) {
            (None, spec) => format!(
                " ({}, the default, of the {footprint} B footprint: give --fast-capacity a size of at least 4KiB)",
                capacity_text(spec)
            ),
            (Some(_), CapacitySpec::PercentOfFootprint(_)) => {
                format!(" (of the {footprint} B footprint)")
            }
            (Some(_), CapacitySpec::Bytes(_)) => String::new(),
        };
        return Err(ConfigError::invalid(
            "fast capacity",
            format!("{fast} B is below one 4 KiB page{from}"),
        )
        .into());
    }
    let slow = match &cfg.machine.slow_capacity {
        Some(t) => parse_capacity("machine.slow_capacity", t)?.resolve(footprint),
        None => default_slow_capacity(&workload.regions),
    };
    let below: Vec<u64> = match &cfg.machine.tier_capacities {
        None => vec![slow; tiers.len() - 1],
        Some(list) => {
            if list.len() != tiers.len() - 1 {
                return Err(ConfigError::invalid(
                    "machine.tier_capacities",
                    format!(
                        "{} capacities for the {} tiers after the fast one",
                        list.len(),
                        tiers.len() - 1
                    ),
                )
                .into());
            }
            list.iter()
                .map(|t| parse_capacity("machine.tier_capacities", t).map(|c| c.resolve(footprint)))
                .collect::<Result<_, _>>()?
        }
    };
    let (key, held) = if cfg.machine.tier_capacities.is_some() {
        ("machine.tier_capacities", below.iter().sum::<u64>())
    } else {
        ("machine.slow_capacity", slow)
    };
    if fast + held < footprint {
        return Err(ConfigError::invalid(
            key,
            format!("tiers of {fast} + {held} B cannot hold the {footprint} B footprint"),
        )
        .into());
    }
    validate::check_tiers(cfg, &r.manager, &schemes, tiers.len())?;
    tiers[0].capacity_bytes = fast;
    for (t, bytes) in tiers.iter_mut().skip(1).zip(below) {
        t.capacity_bytes = bytes;
    }
    // A preset's LLC and memory system apply unless the configuration
    // gives its own: each `machine.llc` key given replaces the preset's
    // (so `machine.llc.bytes=0` turns its LLC off); any `machine.memory`
    // key replaces the whole memory system (the paper's defaults plus the
    // keys given).
    let llc = cfg
        .machine
        .llc
        .over(&preset.llc.clone().unwrap_or_default());
    let memory = cfg
        .machine
        .memory
        .clone()
        .or_else(|| preset.memory.map(|f| f()));
    let mcfg = MachineConfig {
        tiers,
        tlb: cfg.machine.tlb.clone(),
        llc,
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
        memory,
    };
    check_performance_numbers(&mcfg)?;
    let backend = choose_backend(r.backend.as_deref(), &workload, footprint)?;
    check_memory_system(&mcfg, backend)?;

    let window_ns = cfg.metrics.window_s * 1e9;
    if !(window_ns.is_finite() && window_ns >= 1e3) {
        return Err(ConfigError::invalid("metrics.window_s", "must be at least 1 us").into());
    }
    if cfg.metrics.hot_map_bins > 1 << 16 {
        return Err(ConfigError::invalid("metrics.hot_map_bins", "must be at most 65536").into());
    }
    let limit = match r.duration_s {
        Some(d) if d.is_finite() && d > 0.0 => {
            ((d * workload.access_rate * workload.threads as f64) as u64)
                .min(workload.total_accesses)
        }
        Some(_) => {
            return Err(
                ConfigError::invalid("duration", "must be a positive number of seconds").into(),
            )
        }
        None => workload.total_accesses,
    };

    let shape = validate::RunShape {
        regions: &workload.regions,
        duration_s: limit as f64 / (workload.access_rate * workload.threads.max(1) as f64),
    };
    let mut warnings = validate::never_matching(cfg, &r.manager, &schemes, &shape);
    let whole = default_slow_capacity(&workload.regions);
    if fast > whole {
        warnings.push(format!(
            "fast capacity {} is more than the {} footprint: every page fits in the fast tier, so there is nothing to tier",
            thermocline_vocab::ByteSize(fast),
            thermocline_vocab::ByteSize(footprint)
        ));
    }
    Ok(Setup {
        params,
        schemes,
        warnings,
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
