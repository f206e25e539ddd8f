//! `thermocline daemon`: a manager tiering real processes through the one
//! run loop, with the live driver, quotas, dry-run, Prometheus metrics,
//! JSON-lines logs, a clean stop on SIGTERM and a reload on SIGHUP (the
//! binary sets the flags; this module reads them). `thermocline exec` is
//! the same daemon on a command it starts from its own command line
//! ([`exec`]): it forwards SIGINT/SIGTERM to the command and ends when the
//! command does.
//!
//! This crate also holds what runs a configuration on a real kernel from
//! the host: the live host's driver of the run loop ([`live_driver`]) and
//! the QEMU guest's orchestration ([`guest`]), which registers itself with
//! the engine as the `guest` backend ([`guest::install`]), and the work of
//! the CLI's other live commands (`probe`, `torture`, `masim`,
//! `damon-record`, `monitor`: [`tools`]), so that the binaries never call
//! the live backend themselves.
#![deny(missing_docs)]

pub mod config;
pub mod guest;
mod host;
pub mod live_driver;
pub mod metrics;
pub mod tools;

use crate::live_driver::{LiveDriver, LiveEnd, Quota};
use config::DaemonConfig;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use thermocline_backend::MemPolicy;
use thermocline_engine::error::{ConfigError, RunError};
use thermocline_engine::report::Report;
use thermocline_engine::runner::run_loop;
use thermocline_engine::tally::RunFacts;
use thermocline_live::backend::{LinuxBackend, LiveOptions, LiveTier, TargetSpec};
use thermocline_live::launch::{self, KernelPolicy};
use thermocline_live::LiveError;

/// The signals' flags, set by the binary's handlers.
#[derive(Clone, Default)]
pub struct Flags {
    /// SIGTERM / SIGINT: stop cleanly.
    pub stop: Arc<AtomicBool>,
    /// SIGHUP: re-read the config and start the manager again.
    pub reload: Arc<AtomicBool>,
    /// `exec` only: the number of a signal received (SIGINT, SIGTERM) to
    /// send on to the command; 0 when there is none.
    pub forward: Arc<AtomicUsize>,
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

/// How `exec` ended.
pub struct ExecOutcome {
    /// The report of the last run (since the last reload); `None` when the
    /// command ended before the manager started.
    pub report: Option<Report>,
    /// Why tiering ended.
    pub ended: LiveEnd,
    /// The command's exit status.
    pub status: ExitStatus,
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

/// Reads the config at `path`, with `pid` (the command line's) as its
/// target if given.
fn load(path: &str, pid: Option<i32>) -> Result<DaemonConfig, RunError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::InFile {
        file: path.to_string(),
        msg: e.to_string(),
    })?;
    Ok(config::parse_for(path, &text, pid)?)
}

/// A live error on `what`: a host failure keeps its kind to the CLI.
fn live_error(what: &str, e: LiveError) -> RunError {
    host::live_error(what, e)
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

/// Refuses a config that leaves nothing to tier between on this host,
/// saying what is missing: fewer than two tiers (one NUMA node with memory
/// and no compressed tier, say), a configured node without memory, or a
/// compressed tier without swap.
pub fn check_tiering(cfg: &DaemonConfig) -> Result<(), RunError> {
    let nodes = thermocline_live::numa::nodes().map_err(|e| live_error("[tiers]", e))?;
    let ids: Vec<i32> = nodes.iter().map(|n| n.id).collect();
    let list = |ids: &[i32]| {
        ids.iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let node_tiers = match &cfg.tiers.nodes {
        Some(tiers) => {
            if let Some(n) = tiers.iter().flatten().find(|n| !ids.contains(n)) {
                return Err(ConfigError::invalid(
                    "[tiers] nodes",
                    format!(
                        "node {n} has no memory on this host (nodes with memory: {})",
                        list(&ids)
                    ),
                )
                .into());
            }
            tiers.len()
        }
        None => thermocline_live::backend::default_tiers()
            .map_err(|e| live_error("[tiers]", e))?
            .len(),
    };
    if cfg.tiers.compressed {
        let p = thermocline_live::probe::features_only()
            .map_err(|e| live_error("[tiers] compressed", e))?;
        for f in ["swap", "process-madvise"] {
            if !p.has(f) {
                let detail = p
                    .features
                    .iter()
                    .find(|x| x.name == f)
                    .map_or(String::new(), |x| format!(": {}", x.detail));
                return Err(ConfigError::invalid(
                    "[tiers] compressed",
                    format!("the compressed tier needs {f}, which this host lacks{detail}"),
                )
                .into());
            }
        }
    }
    if node_tiers + usize::from(cfg.tiers.compressed) < 2 {
        let have = if ids.len() == 1 {
            format!("one NUMA node with memory (node {})", list(&ids))
        } else {
            format!("one tier holding every node ({})", list(&ids))
        };
        return Err(ConfigError::invalid(
            "tiering",
            format!(
                "nothing to tier between on this host: {have} and no compressed tier; it needs a second memory tier (a NUMA node with memory, such as a CPU-less CXL or PMEM node: see `thermocline probe`) or a compressed tier (--compressed, or [tiers] compressed = true, with a swap device such as zram)"
            ),
        )
        .into());
    }
    Ok(())
}

/// The allocation policy a command started for `cfg` starts under: the
/// manager's [`launch_policy`](thermocline_managers::Manager::launch_policy)
/// (the baselines'), and the kernel policy that gives it on this host's
/// tiers; `(None, None)` for the other managers. Also checks the manager's
/// parameters. A policy the kernel cannot give is an error.
fn launch_policy(
    cfg: &DaemonConfig,
) -> Result<(Option<MemPolicy>, Option<KernelPolicy>), RunError> {
    let name = &cfg.manager.name;
    let manager =
        thermocline_managers::registry::build(name, cfg.manager.params.clone(), cfg.manager.seed)
            .map_err(|e| ConfigError::invalid("[manager]", e.to_string()))?;
    let tiers = live_options(cfg, None)
        .resolve_tiers()
        .map_err(|e| live_error("[tiers]", e))?;
    let Some(policy) = manager.launch_policy(tiers.len()) else {
        return Ok((None, None));
    };
    let fast_has_cpus =
        thermocline_live::backend::fast_has_cpus(&tiers).map_err(|e| live_error("[tiers]", e))?;
    let kernel = launch::kernel_policy(policy, &tiers, fast_has_cpus).map_err(|e| {
        let why = format!("{name} places pages by the policy a command starts under ({policy:?}), which cannot run here: {e}");
        match e.host_kind() {
            Some(kind) => RunError::Host {
                kind,
                what: "[manager]".into(),
                message: why,
            },
            None => ConfigError::invalid("[manager]", why).into(),
        }
    })?;
    Ok((Some(policy), kernel))
}

/// Starts `cmd` in `dir` under `policy` (`what` names the setting in
/// errors).
fn spawn(
    cmd: &[String],
    dir: &Path,
    policy: Option<KernelPolicy>,
    start: Instant,
    what: &str,
) -> Result<Child, RunError> {
    let Some((prog, args)) = cmd.split_first() else {
        return Err(ConfigError::invalid(what, "an empty command").into());
    };
    let mut command = Command::new(prog);
    command.args(args).current_dir(dir);
    let c = launch::under(command, policy)
        .spawn()
        .map_err(|e| ConfigError::invalid(what, format!("{prog}: {e}")))?;
    log(
        start,
        "info",
        "started",
        serde_json::json!({
            "pid": c.id(),
            "command": cmd,
            "mempolicy": policy.map_or("default".to_string(), |p| p.describe()),
        }),
    );
    Ok(c)
}

/// Re-reads a config on SIGHUP, given the one in force.
pub type Reloader<'a> = dyn FnMut(&DaemonConfig) -> Result<DaemonConfig, RunError> + 'a;

/// Runs the daemon with the config at `path` until its targets exit, its
/// duration passes, or `flags.stop` is set; `flags.reload` re-reads the
/// config and starts the manager again.
pub fn run(path: &str, pid: Option<i32>, flags: Flags) -> Result<Outcome, RunError> {
    let start = Instant::now();
    // the command line's pid replaces the file's target
    let mut cfg = load(path, pid)?;
    if !cfg.ignored.is_empty() {
        log(
            start,
            "info",
            "run config",
            serde_json::json!({"config": path, "manager": cfg.manager.name, "ignored": cfg.ignored, "why": "settings of a simulated run"}),
        );
    }
    check_tiering(&cfg)?;
    let mut child: Option<Child> = None;
    let mut launched = None;
    let spec = match (&cfg.target.pid, &cfg.target.cgroup, &cfg.target.exec) {
        (Some(pid), _, _) => TargetSpec::Pid(*pid),
        (_, Some(dir), _) => TargetSpec::Cgroup(dir.into()),
        (_, _, Some(cmd)) => {
            // the command runs in the config file's directory, so that a
            // config and the files it names travel together
            let dir = Path::new(path)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let (policy, kernel) = launch_policy(&cfg)?;
            let c = spawn(cmd, dir, kernel, start, "[target] exec")?;
            let pid = c.id() as i32;
            child = Some(c);
            launched = policy;
            TargetSpec::Pid(pid)
        }
        _ => {
            return Err(
                ConfigError::invalid("[target]", "needs exactly one of pid, cgroup, exec").into(),
            )
        }
    };
    let mut reload = |now: &DaemonConfig| {
        load(path, pid).map(|mut c| {
            if pid.is_some() {
                c.target = now.target.clone();
            }
            c
        })
    };
    let target = Target {
        spec,
        launched_under: launched,
    };
    let result = serve(&mut cfg, &target, &flags, start, &mut reload, path);
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
    write_report(&cfg, &report)?;
    Ok(Outcome {
        report,
        ended,
        child: child_status,
    })
}

/// `thermocline exec`: starts `cmd` in the current directory and tiers it
/// with `cfg` (its `[target]` is the command) until it exits, forwarding
/// the signals the binary records in `flags.forward`; `reload` re-reads the
/// config on SIGHUP (`source` names it in the log). Checks that the host
/// has something to tier between and that the manager's parameters are
/// valid before the command starts. When tiering ends first (a
/// `duration_s`, a failure), the command runs on and is waited for.
pub fn exec(
    mut cfg: DaemonConfig,
    cmd: &[String],
    flags: Flags,
    reload: &mut Reloader,
    source: &str,
) -> Result<ExecOutcome, RunError> {
    let start = Instant::now();
    // the manager's parameters first, then the host, then the policy
    thermocline_managers::registry::build(
        &cfg.manager.name,
        cfg.manager.params.clone(),
        cfg.manager.seed,
    )
    .map_err(|e| ConfigError::invalid("[manager]", e.to_string()))?;
    check_tiering(&cfg)?;
    let (policy, kernel) = launch_policy(&cfg)?;
    let mut child = spawn(cmd, Path::new("."), kernel, start, "exec")?;
    let pid = child.id() as i32;
    // While the run loop has the main thread, a watcher sends the signals
    // on. The command is reaped only after the watcher has stopped, so the
    // pid it signals is always the command's (a zombie at worst).
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (done, forward) = (done.clone(), flags.forward.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                forward_pending(&forward, pid, start);
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let target = Target {
        spec: TargetSpec::Pid(pid),
        launched_under: policy,
    };
    let result = serve(&mut cfg, &target, &flags, start, reload, source);
    done.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    let (report, ended) = match result {
        Ok((report, ended)) => (Some(report), ended),
        Err(e) => match child.try_wait() {
            // the command ended while the manager attached to it or ran:
            // what failed is said, the command's code is what counts
            Ok(Some(_)) => {
                log(
                    start,
                    "info",
                    "tiering ended",
                    serde_json::json!({"why": e.to_string(), "then": "the command had exited"}),
                );
                (None, LiveEnd::Failed(e.to_string()))
            }
            _ => {
                // it cannot be tiered: it is stopped, never left running
                // untiered behind an error
                let _ = thermocline_live::sys::terminate(pid);
                let _ = child.wait();
                return Err(e);
            }
        },
    };
    if ended != LiveEnd::TargetExited {
        log(
            start,
            "info",
            "tiering ended",
            serde_json::json!({"why": format!("{ended:?}"), "then": "waiting for the command"}),
        );
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {
                forward_pending(&flags.forward, pid, start);
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(_) => {
                break child.wait().map_err(|e| {
                    ConfigError::invalid("exec", format!("waiting for process {pid}: {e}"))
                })?
            }
        }
    };
    log(
        start,
        "info",
        "stopped",
        serde_json::json!({
            "why": format!("{ended:?}"),
            "exit_code": status.code(),
            "signal": std::os::unix::process::ExitStatusExt::signal(&status),
            "moved_bytes": report.as_ref().map_or(0, |r| r.migrations.bytes),
        }),
    );
    if let Some(r) = &report {
        write_report(&cfg, r)?;
    }
    Ok(ExecOutcome {
        report,
        ended,
        status,
    })
}

/// Sends on a signal the binary recorded, if any.
fn forward_pending(forward: &AtomicUsize, pid: i32, start: Instant) {
    let sig = forward.swap(0, Ordering::Relaxed);
    if sig != 0 {
        let r = thermocline_live::sys::signal(pid, sig as i32);
        log(
            start,
            "info",
            "forwarded",
            serde_json::json!({"signal": sig, "pid": pid, "delivered": r.is_ok()}),
        );
    }
}

fn write_report(cfg: &DaemonConfig, report: &Report) -> Result<(), RunError> {
    if let Some(p) = &cfg.daemon.report {
        let text = serde_json::to_string_pretty(report).map_err(|e| RunError::Output {
            path: p.clone(),
            msg: e.to_string(),
        })?;
        std::fs::write(p, text).map_err(|e| RunError::Output {
            path: p.clone(),
            msg: e.to_string(),
        })?;
    }
    Ok(())
}

/// What the daemon tiers: its processes, and the allocation policy the
/// command was started under when the daemon started it.
struct Target {
    spec: TargetSpec,
    launched_under: Option<MemPolicy>,
}

/// The live backend's options for `cfg`.
fn live_options(cfg: &DaemonConfig, launched_under: Option<MemPolicy>) -> LiveOptions {
    LiveOptions {
        tiers: tiers_of(cfg),
        compressed_tier: cfg.tiers.compressed,
        dry_run: cfg.daemon.dry_run,
        launched_under,
    }
}

/// Serves metrics and runs the manager on `target` until the run ends for
/// another reason than a reload; a reload re-reads the config with
/// `reload` and starts the manager again.
fn serve(
    cfg: &mut DaemonConfig,
    target: &Target,
    flags: &Flags,
    start: Instant,
    reload: &mut Reloader,
    source: &str,
) -> Result<(Report, LiveEnd), RunError> {
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
    loop {
        match run_once(cfg, target, flags, &shared, start)? {
            (_, LiveEnd::Reload) => {
                flags.reload.store(false, Ordering::Relaxed);
                let reloaded = reload(cfg).and_then(|c| {
                    // a started command keeps the policy it started under
                    if target.launched_under.is_some()
                        && launch_policy(&c)?.0 != target.launched_under
                    {
                        return Err(ConfigError::invalid(
                            "[manager]",
                            format!(
                                "the command was started under {:?}, which a running process's policy cannot change from; restart to use {}",
                                target.launched_under, c.manager.name
                            ),
                        )
                        .into());
                    }
                    Ok(c)
                });
                match reloaded {
                    Ok(c) if c.target == cfg.target => {
                        log(
                            start,
                            "info",
                            "reloaded",
                            serde_json::json!({"config": source}),
                        );
                        *cfg = c;
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
            }
            done => return Ok(done),
        }
    }
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
    let Some(key) = thermocline_managers::registry::traits(manager).measured_slow_access else {
        return;
    };
    if !params.contains_key(key) {
        if let Some(ns) =
            thermocline_live::probe::measure_refault_ns(thermocline_live::probe::COST_PAGES)
        {
            params.insert(key.into(), toml::Value::Float(ns.round()));
            let mut fields = serde_json::Map::new();
            fields.insert(format!("{manager}.{key}"), ns.round().into());
            fields.insert(
                "from".into(),
                "the cost of a refault from swap on this host".into(),
            );
            log(start, "info", "measured", serde_json::Value::Object(fields));
        }
    }
}

fn run_once(
    cfg: &DaemonConfig,
    target: &Target,
    flags: &Flags,
    shared: &metrics::Shared,
    start: Instant,
) -> Result<(Report, LiveEnd), RunError> {
    let spec = &target.spec;
    let opts = live_options(cfg, target.launched_under);
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
        thermocline_managers::registry::build(&cfg.manager.name, params.clone(), cfg.manager.seed)
            .map_err(|e| ConfigError::invalid("[manager]", e.to_string()))?;
    if let Some(p) = manager.launch_policy(b.live_tiers().len()) {
        if !b.policy_in_force(p) {
            let name = &cfg.manager.name;
            return Err(ConfigError::invalid(
                "[manager]",
                format!("{name} places pages only by the allocation policy a process starts under ({p:?}), and a running process's policy cannot be set from outside: start the command under it with `thermocline exec --manager {name} -- CMD` or `[target] exec`"),
            )
            .into());
        }
    }
    // the kernel's own tiering, set up now and undone when this is dropped
    let mut host = host::start(cfg, &params, &b, start)?;
    let vmstat_before = host::vmstat();
    let mut run_cfg = thermocline_engine::config::load(None, &[])?;
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
        // the daemon stops on its own signals
        stop: &|| false,
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
                    "thp": {"splits": c.splits, "collapses": c.collapses},
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
    let mut report = report;
    report.kernel_vmstat = host::vmstat_since(&vmstat_before);
    if let Some(h) = host.take() {
        host::stop(h, start);
    }
    let ended = d.ended().clone();
    if let LiveEnd::Failed(why) = &ended {
        log(start, "error", "failed", serde_json::json!({"why": why}));
    }
    Ok((report, ended))
}
