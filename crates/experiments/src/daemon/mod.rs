//! `thermocline daemon`: a manager tiering real processes through the one
//! run loop, with the live driver, quotas, dry-run, Prometheus metrics,
//! JSON-lines logs, a clean stop on SIGTERM and a reload on SIGHUP (the
//! binary sets the flags; this module reads them).

pub mod config;
pub mod metrics;

use crate::error::{ConfigError, RunError};
use crate::live_driver::{LiveDriver, LiveEnd, Quota};
use crate::report::Report;
use crate::runner::run_loop;
use crate::tally::RunFacts;
use config::DaemonConfig;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use thermocline_live::backend::{LinuxBackend, LiveOptions, LiveTier, TargetSpec};
use thermocline_live::LiveError;

/// The signals' flags, set by the binary's handlers.
#[derive(Clone, Default)]
pub struct Flags {
    /// SIGTERM / SIGINT: stop cleanly.
    pub stop: Arc<AtomicBool>,
    /// SIGHUP: re-read the config and start the manager again.
    pub reload: Arc<AtomicBool>,
}

/// How the daemon ended.
pub struct Outcome {
    /// The report of the last run (since the last reload).
    pub report: Report,
    /// Why it ended.
    pub ended: LiveEnd,
    /// The exit status of the command it started, if it started one.
    pub child: Option<ExitStatus>,
}

/// One JSON line on stderr: `t_s`, `level`, `event`, then `fields`.
pub fn log(start: Instant, level: &str, event: &str, fields: serde_json::Value) {
    let mut line = serde_json::json!({
        "t_s": (start.elapsed().as_secs_f64() * 1e3).round() / 1e3,
        "level": level,
        "event": event,
    });
    if let (Some(l), serde_json::Value::Object(f)) = (line.as_object_mut(), fields) {
        l.extend(f);
    }
    eprintln!("{line}");
}

fn load(path: &str) -> Result<DaemonConfig, RunError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::InFile {
        file: path.to_string(),
        msg: e.to_string(),
    })?;
    Ok(config::parse(path, &text)?)
}

fn live_error(what: &str, e: LiveError) -> RunError {
    ConfigError::invalid(what, e.to_string()).into()
}

fn tiers_of(cfg: &DaemonConfig) -> Option<Vec<LiveTier>> {
    cfg.tiers.nodes.as_ref().map(|nodes| {
        nodes
            .iter()
            .enumerate()
            .map(|(i, n)| LiveTier {
                name: format!("tier{i}"),
                nodes: n.clone(),
                compressed: false,
            })
            .collect()
    })
}

/// The model tiers the report names (a live host has no energy or
/// endurance model: those report zero).
fn report_tiers(b: &LinuxBackend) -> Vec<thermocline_model::TierSpec> {
    b.live_tiers()
        .iter()
        .map(|t| thermocline_model::TierSpec {
            name: t.name.clone(),
            read_pj_per_bit: 0.0,
            write_pj_per_bit: 0.0,
            standby_w_per_gb: 0.0,
            ..thermocline_model::tiers::dram()
        })
        .collect()
}

/// Runs the daemon with the config at `path` until its targets exit, its
/// duration passes, or `flags.stop` is set; `flags.reload` re-reads the
/// config and starts the manager again.
pub fn run(path: &str, pid: Option<i32>, flags: Flags) -> Result<Outcome, RunError> {
    let start = Instant::now();
    let mut cfg = load(path)?;
    if let Some(pid) = pid {
        // the command line's pid replaces the file's target
        cfg.target = config::TargetSection {
            pid: Some(pid),
            ..Default::default()
        };
    }
    let mut child: Option<Child> = None;
    let spec = match (&cfg.target.pid, &cfg.target.cgroup, &cfg.target.exec) {
        (Some(pid), _, _) => TargetSpec::Pid(*pid),
        (_, Some(dir), _) => TargetSpec::Cgroup(dir.into()),
        (_, _, Some(cmd)) => {
            // the command runs in the config file's directory, so that a
            // config and the files it names travel together
            let dir = std::path::Path::new(path)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let c = Command::new(&cmd[0])
                .args(&cmd[1..])
                .current_dir(dir)
                .spawn()
                .map_err(|e| ConfigError::invalid("[target] exec", format!("{}: {e}", cmd[0])))?;
            let pid = c.id() as i32;
            log(
                start,
                "info",
                "started",
                serde_json::json!({"pid": pid, "command": cmd}),
            );
            child = Some(c);
            TargetSpec::Pid(pid)
        }
        _ => unreachable!("config::parse checks that one target is given"),
    };
    let shared: metrics::Shared = Arc::new(Mutex::new(String::new()));
    if !cfg.daemon.metrics.is_empty() {
        let addr = metrics::serve(&cfg.daemon.metrics, shared.clone()).map_err(|e| {
            ConfigError::invalid("[daemon] metrics", format!("{}: {e}", cfg.daemon.metrics))
        })?;
        log(
            start,
            "info",
            "metrics",
            serde_json::json!({"address": addr.to_string()}),
        );
    }
    let result = loop {
        let outcome = run_once(&cfg, &spec, &flags, &shared, start);
        match outcome {
            Ok((report, LiveEnd::Reload)) => {
                flags.reload.store(false, Ordering::Relaxed);
                match load(path).map(|mut c| {
                    if pid.is_some() {
                        c.target = cfg.target.clone();
                    }
                    c
                }) {
                    Ok(c) if c.target == cfg.target => {
                        log(
                            start,
                            "info",
                            "reloaded",
                            serde_json::json!({"config": path}),
                        );
                        cfg = c;
                    }
                    Ok(_) => log(
                        start,
                        "error",
                        "reload refused",
                        serde_json::json!({"why": "the target cannot change on reload; restart the daemon"}),
                    ),
                    Err(e) => log(
                        start,
                        "error",
                        "reload refused",
                        serde_json::json!({"why": e.to_string()}),
                    ),
                }
                drop(report);
            }
            Ok((report, ended)) => break Ok((report, ended)),
            Err(e) => break Err(e),
        }
    };
    // a command the daemon started is stopped with it, never orphaned
    let child_status = child.map(|mut c| {
        if matches!(c.try_wait(), Ok(None)) {
            let _ = thermocline_live::sys::terminate(c.id() as i32);
        }
        c.wait()
    });
    let child_status = match child_status {
        Some(Ok(s)) => Some(s),
        _ => None,
    };
    let (report, ended) = result?;
    log(
        start,
        "info",
        "stopped",
        serde_json::json!({"why": format!("{ended:?}"), "moved_bytes": report.migrations.bytes}),
    );
    if let Some(p) = &cfg.daemon.report {
        let text = serde_json::to_string_pretty(&report).expect("reports serialize");
        std::fs::write(p, text).map_err(|e| RunError::Output {
            path: p.clone(),
            msg: e.to_string(),
        })?;
    }
    Ok(Outcome {
        report,
        ended,
        child: child_status,
    })
}

/// Waits until `pid`'s resident anonymous memory has stayed the same for
/// `settle_s` (at most 60 s), so that a starting target's mappings are all
/// there when the manager reads them.
fn settle(pid: i32, settle_s: f64, start: Instant) {
    if settle_s <= 0.0 {
        return;
    }
    let began = Instant::now();
    let mut last = None;
    let mut same_since = Instant::now();
    while began.elapsed().as_secs_f64() < 60.0 {
        let Ok(now) = thermocline_live::procfs::rollup(pid).map(|r| r.anonymous) else {
            return;
        };
        if last != Some(now) {
            last = Some(now);
            same_since = Instant::now();
        } else if same_since.elapsed().as_secs_f64() >= settle_s {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    log(
        start,
        "info",
        "settled",
        serde_json::json!({"pid": pid, "anonymous_bytes": last, "waited_s": (began.elapsed().as_secs_f64() * 10.0).round() / 10.0}),
    );
}

/// Parameters a live host measures when the config leaves them out:
/// Thermostat's cost of a slow access, t_s, is the cost of a refault here
/// (its counts are refaults: see the live backend's docs).
fn measured_params(manager: &str, params: &mut toml::Table, start: Instant) {
    if manager.starts_with("thermostat") && !params.contains_key("slow_access_ns") {
        if let Some(ns) =
            thermocline_live::probe::measure_refault_ns(thermocline_live::probe::COST_PAGES)
        {
            params.insert("slow_access_ns".into(), toml::Value::Float(ns.round()));
            log(
                start,
                "info",
                "measured",
                serde_json::json!({"thermostat.slow_access_ns": ns.round(), "from": "the cost of a refault from swap on this host"}),
            );
        }
    }
}

fn run_once(
    cfg: &DaemonConfig,
    spec: &TargetSpec,
    flags: &Flags,
    shared: &metrics::Shared,
    start: Instant,
) -> Result<(Report, LiveEnd), RunError> {
    let opts = LiveOptions {
        tiers: tiers_of(cfg),
        compressed_tier: cfg.tiers.compressed,
        dry_run: cfg.daemon.dry_run,
    };
    if let TargetSpec::Pid(pid) = spec {
        settle(*pid, cfg.target.settle_s.unwrap_or(1.0), start);
    }
    let b = LinuxBackend::new(spec.clone(), opts).map_err(|e| live_error("[target]", e))?;
    let tiers = report_tiers(&b);
    log(
        start,
        "info",
        "attached",
        serde_json::json!({
            "pids": b.processes().iter().map(|p| p.pid).collect::<Vec<_>>(),
            "tiers": b.live_tiers().iter().map(|t| serde_json::json!({"name": t.name, "nodes": t.nodes, "compressed": t.compressed})).collect::<Vec<_>>(),
            "regions": thermocline_backend::Backend::regions(&b).len(),
            "manager": cfg.manager.name,
            "dry_run": cfg.daemon.dry_run,
        }),
    );
    let mut params = cfg.manager.params.clone();
    measured_params(&cfg.manager.name, &mut params, start);
    let manager =
        thermocline_managers::registry::build(&cfg.manager.name, params, cfg.manager.seed)
            .map_err(|e| ConfigError::invalid("[manager]", e.to_string()))?;
    let mut run_cfg = crate::config::load(None, &[]).expect("the default config loads");
    run_cfg.run.manager = cfg.manager.name.clone();
    run_cfg.run.workload = format!("{spec:?}");
    run_cfg.run.seed = cfg.manager.seed;
    run_cfg.metrics.window_s = cfg.daemon.window_s;
    let footprint = thermocline_backend::Backend::regions(&b)
        .iter()
        .map(|r| r.len)
        .sum();
    let facts = RunFacts {
        cfg: &run_cfg,
        workload: run_cfg.run.workload.clone(),
        machine: "linux".into(),
        tiers: &tiers,
        phases: Vec::new(),
        footprint,
    };
    let quota = Quota {
        max_mb_per_s: cfg.quota.max_mb_per_s,
        max_share_per_tick: cfg.quota.max_share_per_tick,
    };
    let mut d = LiveDriver::new(
        b,
        cfg.daemon.duration_s,
        (flags.stop.clone(), flags.reload.clone()),
        quota,
        cfg.daemon.sample_interval_s,
    );
    let dry_run = cfg.daemon.dry_run;
    let shared = shared.clone();
    let window = cfg.daemon.window_s;
    let mut next_log = 0.0;
    d.publish_with(Box::new(move |b, m| {
        let text = metrics::render(b, m, dry_run);
        if let Ok(mut s) = shared.lock() {
            *s = text;
        }
        let t = b.elapsed_ns() as f64 / 1e9;
        if t >= next_log {
            next_log = t + window;
            let c = b.counters();
            log(
                start,
                "info",
                "window",
                serde_json::json!({
                    "resident_bytes": b.resident_bytes(),
                    "resident_read_at_s": (b.resident_read_at_ns() as f64 / 1e6).round() / 1e3,
                    "moved_bytes": c.moved_bytes,
                    "would_move_pages": c.would_move,
                    "failed": {"busy": c.failed_busy, "nomem": c.failed_nomem, "access": c.failed_access, "quota": c.failed_quota},
                    "sampling_pageouts": c.sampling_pageouts,
                    "refaults": c.refaults,
                    "cpu_s": b.cpu_ns() as f64 / 1e9,
                    "gauges": m.gauges().into_iter().filter(|(_, v)| v.is_finite()).collect::<std::collections::BTreeMap<_, _>>(),
                }),
            );
        }
    }));
    let regions = thermocline_backend::Backend::regions(d.live()).to_vec();
    let window_ns = cfg.daemon.window_s * 1e9;
    let report = run_loop(
        &facts,
        &mut d,
        manager,
        &regions,
        window_ns,
        &mut |_, _| {},
        &mut |_, _| {},
    )?;
    let ended = d.ended().clone();
    if let LiveEnd::Failed(why) = &ended {
        log(start, "error", "failed", serde_json::json!({"why": why}));
    }
    Ok((report, ended))
}
