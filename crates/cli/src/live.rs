//! The live subcommands: `probe`, `daemon`, `exec`, `masim`, `torture`,
//! `damon-record`, `monitor`: their flags, and a call each to the daemon
//! crate, which does the work (`thermocline_daemon::tools` for all but
//! `daemon` and `exec`).

use clap::Args;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use thermocline_daemon::tools;

/// Parses `START-END` (hex with 0x, or decimal).
pub fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let num = |t: &str| match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    };
    match s
        .split_once('-')
        .map(|(a, b)| (num(a.trim()), num(b.trim())))
    {
        Some((Some(a), Some(b))) if a < b => Ok((a, b)),
        _ => Err(format!(
            "{s:?} is not START-END with START < END (e.g. 0x7f0000000000-0x7f0000400000)"
        )),
    }
}

/// `thermocline probe [--pid P [--range A-B]...] [--json]`.
pub fn probe_cmd(pid: Option<i32>, ranges: &[(u64, u64)], json: bool) -> anyhow::Result<()> {
    let o = tools::probe::ProbeOptions {
        pid,
        ranges: ranges.to_vec(),
        json,
    };
    tools::probe::probe(&o, &mut Print::Out)?;
    Ok(())
}

/// `thermocline daemon --config FILE`: exits 0 when its targets exit or it
/// is stopped, the exit code of the command it started when that failed,
/// 1 when reading the targets failed.
pub fn daemon_cmd(config: &str, pid: Option<i32>) -> anyhow::Result<i32> {
    use thermocline_daemon as daemon;
    use thermocline_daemon::live_driver::LiveEnd;
    let flags = daemon::Flags::default();
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, flags.stop.clone())?;
    }
    signal_hook::flag::register(signal_hook::consts::SIGHUP, flags.reload.clone())?;
    let out = daemon::run(config, pid, flags.clone())?;
    let r = &out.report;
    println!(
        "daemon: {} on {} for {:.1} s ended ({:?}): moved {} pages to the fastest tier and {} to slower ones ({:.1} MiB), daemon CPU {:.2}% of a core",
        r.manager,
        r.workload,
        r.sim_time_s,
        out.ended,
        r.migrations.promoted_pages,
        r.migrations.demoted_pages,
        r.migrations.bytes as f64 / (1 << 20) as f64,
        r.manager_cpu_util * 100.0
    );
    if !r.kernel_vmstat.is_empty() {
        let counters: Vec<String> = r
            .kernel_vmstat
            .iter()
            .map(|(k, v)| format!("{k} +{v}"))
            .collect();
        println!(
            "daemon: the kernel's counters over the run: {}",
            counters.join(", ")
        );
    }
    Ok(match (&out.ended, out.child) {
        (LiveEnd::Failed(_), _) => 1,
        (_, Some(s)) if !s.success() => s.code().unwrap_or(1),
        _ => 0,
    })
}

/// `exec`'s options.
#[derive(Args)]
pub struct ExecArgs {
    /// A daemon config (see examples/live-thermostat.toml) whose `[target]`
    /// is left out: the command is the target (`[target]` may only set
    /// `settle_s`). The flags below apply on top of it.
    #[arg(long, value_name = "FILE.toml")]
    config: Option<String>,
    /// The manager (see `thermocline list`); needed without --config.
    #[arg(long)]
    manager: Option<String>,
    /// A manager parameter, as in `run --set`: MANAGER.KEY=VALUE, e.g.
    /// `thermostat.scan_period_s=2`; repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Decide and log, move nothing.
    #[arg(long)]
    dry_run: bool,
    /// Serve Prometheus metrics here (e.g. 127.0.0.1:9477); without
    /// --config, nowhere unless given.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<String>,
    /// Add a compressed (swap, e.g. zram) tier after the NUMA node tiers.
    #[arg(long)]
    compressed: bool,
    /// The command to start and tier, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// `thermocline exec [OPTIONS] -- CMD [ARGS...]`: the command's exit code,
/// or 128 + the signal that killed it, as shells report it.
pub fn exec_cmd(a: ExecArgs) -> anyhow::Result<i32> {
    use thermocline_daemon::{self as daemon, config};
    let flags = config::ExecFlags {
        manager: a.manager,
        sets: a.sets,
        dry_run: a.dry_run,
        metrics: a.metrics,
        compressed: a.compressed,
    };
    let load = |path: Option<&str>| -> Result<config::DaemonConfig, thermocline_engine::RunError> {
        let text = match path {
            Some(p) => Some(std::fs::read_to_string(p).map_err(|e| {
                thermocline_engine::ConfigError::InFile {
                    file: p.to_string(),
                    msg: e.to_string(),
                }
            })?),
            None => None,
        };
        let file = path.zip(text.as_deref());
        Ok(config::exec_config(file, &flags)?)
    };
    let cfg = load(a.config.as_deref())?;
    let sig = daemon::Flags::default();
    for s in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register_usize(s, sig.forward.clone(), s as usize)?;
    }
    signal_hook::flag::register(signal_hook::consts::SIGHUP, sig.reload.clone())?;
    let source = a
        .config
        .clone()
        .unwrap_or_else(|| "the command line".into());
    let mut reload = |_: &config::DaemonConfig| load(a.config.as_deref());
    let out = daemon::exec(cfg, &a.command, sig, &mut reload, &source)?;
    let code = exit_code(out.status);
    match &out.report {
        Some(r) => eprintln!(
            "exec: {} on {} for {:.1} s ended ({:?}): moved {} pages to the fastest tier and {} to slower ones ({:.1} MiB), CPU {:.2}% of a core; the command exited with {code}",
            r.manager,
            a.command.join(" "),
            r.sim_time_s,
            out.ended,
            r.migrations.promoted_pages,
            r.migrations.demoted_pages,
            r.migrations.bytes as f64 / (1 << 20) as f64,
            r.manager_cpu_util * 100.0
        ),
        None => eprintln!(
            "exec: tiering {} ended early ({:?}); the command exited with {code}",
            a.command.join(" "),
            out.ended
        ),
    }
    Ok(code)
}

/// An exit status as a shell reports it: the code, or 128 + the signal.
fn exit_code(s: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => c,
        (None, Some(sig)) => 128 + sig,
        (None, None) => 1,
    }
}

/// `thermocline torture --pid P --moves N [--no-page-out]`.
pub fn torture_cmd(
    pid: i32,
    moves: u64,
    batch: usize,
    seed: u64,
    page_out: bool,
) -> anyhow::Result<()> {
    let o = tools::torture::TortureOptions {
        pid,
        moves,
        batch,
        seed,
        page_out,
    };
    tools::torture::torture(&o, &mut Print::Out)?;
    Ok(())
}

/// `masim`'s options.
#[derive(Args)]
pub struct MasimArgs {
    /// MASIM config file.
    config: String,
    /// Seed of the regions' content and of every draw.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run the phase list this many times, over the same memory.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    loops: u32,
    /// Multiply every region's size (rounded up to whole 4 KiB pages, at
    /// least one), e.g. 0.01 to fit a 1 GiB config into a small guest.
    #[arg(long, default_value_t = 1.0, value_parser = positive_factor)]
    size_scale: f64,
    /// Multiply every phase's duration (0: one burst per phase).
    #[arg(long, default_value_t = 1.0, value_parser = factor)]
    time_scale: f64,
    /// Write the pid here once the regions are ready.
    #[arg(long, value_name = "FILE")]
    ready: Option<String>,
    /// Write a JSON summary here at the end (phases, accesses per region,
    /// verifications).
    #[arg(long, value_name = "FILE.json")]
    report: Option<String>,
}

/// A finite factor >= 0.
fn factor(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("expected a number >= 0, got {s:?}")),
    }
}

/// A finite factor > 0.
fn positive_factor(s: &str) -> Result<f64, String> {
    match factor(s) {
        Ok(x) if x > 0.0 => Ok(x),
        _ => Err(format!("expected a number > 0, got {s:?}")),
    }
}

/// `thermocline masim CONFIG`: exits 3 when its memory failed verification
/// ([`tools::ToolError::Corrupted`]).
pub fn masim_cmd(a: MasimArgs) -> anyhow::Result<()> {
    let o = tools::masim::MasimOptions {
        config: a.config,
        seed: a.seed,
        loops: a.loops,
        size_scale: a.size_scale,
        time_scale: a.time_scale,
        ready: a.ready.map(Into::into),
        report: a.report.map(Into::into),
    };
    tools::masim::masim(&o, &mut std::io::stdout().lock(), &mut std::io::stderr())?;
    Ok(())
}

/// `thermocline damon-record`.
#[derive(Args, Clone, Debug)]
pub struct DamonRecordArgs {
    /// The process.
    #[arg(long)]
    pub pid: i32,
    /// Stop after this many seconds (default: when the process exits).
    #[arg(long)]
    pub duration: Option<f64>,
    /// DAMON's sampling interval (µs).
    #[arg(long, default_value_t = 5_000)]
    pub sample_us: u64,
    /// DAMON's aggregation interval (µs).
    #[arg(long, default_value_t = 100_000)]
    pub aggr_us: u64,
    /// DAMON's interval for re-reading the mappings (µs).
    #[arg(long, default_value_t = 1_000_000)]
    pub update_us: u64,
    /// Fewest regions.
    #[arg(long, default_value_t = 10)]
    pub min_regions: u64,
    /// Most regions.
    #[arg(long, default_value_t = 1000)]
    pub max_regions: u64,
}

/// `thermocline damon-record --pid P`: JSON lines until the process exits,
/// the duration passes, or SIGINT/SIGTERM.
pub fn damon_record_cmd(a: DamonRecordArgs) -> anyhow::Result<()> {
    let stop = stop_on_signals()?;
    let o = tools::damon_record::DamonRecordOptions {
        pid: a.pid,
        duration: a.duration,
        sample_us: a.sample_us,
        aggr_us: a.aggr_us,
        update_us: a.update_us,
        min_regions: a.min_regions,
        max_regions: a.max_regions,
    };
    tools::damon_record::damon_record(&o, &stop, &mut std::io::stdout().lock())?;
    Ok(())
}

/// A flag that SIGTERM and SIGINT set.
fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, stop.clone())?;
    }
    Ok(stop)
}

/// `monitor`'s options.
#[derive(Args)]
pub struct MonitorArgs {
    /// The process to watch (read-only: nothing of it is moved or paged out).
    #[arg(long)]
    pid: i32,
    /// Seconds between reads.
    #[arg(long, default_value_t = 1.0, value_parser = interval)]
    interval: f64,
    /// One interval, printed as plain lines, then exit.
    #[arg(long)]
    once: bool,
    /// One JSON object per interval (a line each) instead of text.
    #[arg(long)]
    json: bool,
    /// Also count the pages written per interval from soft-dirty bits: this
    /// clears the process's soft-dirty bits (clear_refs 4) at every
    /// interval, which another soft-dirty user (CRIU, `thermocline daemon`
    /// with a manager that reads Dirty bits) would notice.
    #[arg(long)]
    writes: bool,
    /// Cut mappings into bins of this size, aligned to multiples of it
    /// (e.g. 2MiB); default: one bin per mapping.
    #[arg(long, value_name = "SIZE", value_parser = bin_width)]
    bin: Option<u64>,
    /// Do not start a kdamond even where DAMON is available.
    #[arg(long)]
    no_damon: bool,
}

/// Seconds in (0, 3600].
fn interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 3600.0 => Ok(x),
        _ => Err(format!("expected seconds in (0, 3600], got {s:?}")),
    }
}

/// A bin width: a size that is a whole number of 4 KiB pages.
fn bin_width(s: &str) -> Result<u64, String> {
    tools::monitor::parse_width(s)
}

/// `thermocline monitor --pid P`: a live view of where a process's pages
/// are and how hot they are, until the process exits or SIGINT/SIGTERM.
pub fn monitor_cmd(a: MonitorArgs) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    let o = tools::monitor::MonitorOptions {
        pid: a.pid,
        interval: a.interval,
        once: a.once,
        json: a.json,
        writes: a.writes,
        bin: a.bin,
        no_damon: a.no_damon,
        terminal: std::io::stdout().is_terminal(),
    };
    let stop = stop_on_signals()?;
    tools::monitor::monitor(&o, &stop, &mut std::io::stdout(), &mut Print::Err)?;
    Ok(())
}

/// Standard output or error as `print!` and `eprint!` write them: a write
/// that fails panics as they do (and the panic hook ends quietly when the
/// reader of stdout went away, as for `| head`).
enum Print {
    Out,
    Err,
}

impl std::io::Write for Print {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (done, name) = match self {
            Print::Out => (std::io::stdout().write_all(buf), "stdout"),
            Print::Err => (std::io::stderr().write_all(buf), "stderr"),
        };
        if let Err(e) = done {
            panic!("failed printing to {name}: {e}");
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Print::Out => std::io::stdout().flush(),
            Print::Err => std::io::stderr().flush(),
        }
    }
}
