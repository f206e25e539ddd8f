//! The live subcommands: `probe`, `daemon`, `exec`, `masim`, `torture`,
//! `damon-record`.

use anyhow::Context;
use clap::Args;
use thermocline_live::probe;

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
    if pid.is_none() && !ranges.is_empty() {
        anyhow::bail!("--range needs --pid");
    }
    let p = probe::probe_ranges(pid, ranges).with_context(|| match pid {
        Some(pid) => format!("probing this host and process {pid}"),
        None => "probing this host".to_string(),
    })?;
    if json {
        println!("{}", serde_json::to_string_pretty(&p)?);
    } else {
        print!("{}", probe::table(&p));
    }
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
    let t = thermocline_live::torture::torture(pid, moves, batch, seed, page_out)
        .with_context(|| format!("torturing process {pid}"))?;
    println!(
        "torture: {} migrations ({} bytes) and {} page-outs of process {pid} in {} rounds ({} refused by the kernel: {} busy, {} no memory)",
        t.migrations, t.migrated_bytes, t.pageouts, t.rounds, t.failed, t.busy, t.nomem
    );
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

/// `masim`'s memory failed verification (exit 3: the memory, not the
/// input, is wrong).
#[derive(Debug)]
pub struct MasimCorrupted {
    failed: usize,
    total: usize,
    corrupted_bytes: u64,
    lost_writes: u64,
}

impl std::fmt::Display for MasimCorrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "masim: {} of {} verifications failed (the last: {} corrupted bytes, {} lost writes)",
            self.failed, self.total, self.corrupted_bytes, self.lost_writes
        )
    }
}

impl std::error::Error for MasimCorrupted {}

pub fn masim_cmd(a: MasimArgs) -> anyhow::Result<()> {
    use thermocline_live::masim;
    let text = std::fs::read_to_string(&a.config)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", a.config))?;
    let cfg = masim::parse(&text, &a.config)?;
    let opts = masim::Options {
        seed: a.seed,
        loops: a.loops,
        size_scale: a.size_scale,
        time_scale: a.time_scale,
        burst: masim::DEFAULT_BURST,
        ready: a.ready.map(Into::into),
        report: a.report.map(Into::into),
    };
    let r = masim::run(
        &cfg,
        &a.config,
        &opts,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
    )?;
    if !r.clean {
        let last = r.verifications.last();
        return Err(MasimCorrupted {
            failed: r.verifications.iter().filter(|v| !v.clean()).count(),
            total: r.verifications.len(),
            corrupted_bytes: last.map_or(0, |v| v.corrupted_bytes),
            lost_writes: last.map_or(0, |v| v.lost_writes),
        }
        .into());
    }
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
    use std::io::Write;
    use thermocline_live::damon::{DamonAttrs, DamonOps, DamonSession};
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, stop.clone())?;
    }
    let attrs = DamonAttrs {
        sample_us: a.sample_us,
        aggr_us: a.aggr_us,
        update_us: a.update_us,
        min_regions: a.min_regions,
        max_regions: a.max_regions,
    };
    let mut s = DamonSession::start(DamonOps::Vaddr(vec![a.pid]), attrs, &[])
        .with_context(|| format!("starting DAMON on process {}", a.pid))?;
    let start = std::time::Instant::now();
    let out = std::io::stdout();
    let mut out = out.lock();
    while !stop.load(std::sync::atomic::Ordering::Relaxed)
        && a.duration.is_none_or(|d| start.elapsed().as_secs_f64() < d)
    {
        let regions = match s.regions() {
            Ok(r) => r,
            // the process exited: its kdamond stopped
            Err(thermocline_live::LiveError::Exited { .. }) => break,
            Err(e) => return Err(e).context("reading DAMON's regions"),
        };
        // t_s: seconds since the kdamond started; clock_s: CLOCK_MONOTONIC,
        // to line the snapshot up with other processes' times
        let line = serde_json::json!({
            "t_s": start.elapsed().as_secs_f64(),
            "clock_s": thermocline_live::sys::monotonic_s(),
            "regions": regions,
        });
        serde_json::to_writer(&mut out, &line)?;
        writeln!(out)?;
    }
    out.flush()?;
    s.stop().context("stopping DAMON")?;
    Ok(())
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
    thermocline_live::monitor::parse_width(s)
}

/// `thermocline monitor --pid P`: a live view of where a process's pages
/// are and how hot they are, until the process exits or SIGINT/SIGTERM.
pub fn monitor_cmd(a: MonitorArgs) -> anyhow::Result<()> {
    use std::io::{IsTerminal, Write};
    use std::sync::atomic::{AtomicBool, Ordering};
    use thermocline_live::monitor::{render, telemetry, Binning, Monitor};
    if a.pid <= 0 {
        anyhow::bail!("--pid must be a process id (> 0), got {}", a.pid);
    }
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, stop.clone())?;
    }
    let mut sources: Vec<Box<dyn telemetry::Telemetry>> = Vec::new();
    let mut notes = Vec::new();
    if !a.no_damon && thermocline_live::monitor::alive(a.pid) {
        match telemetry::Damon::start(a.pid) {
            Ok(d) => sources.push(Box::new(d)),
            Err(e) => notes.push(format!("damon not used: {e}")),
        }
    }
    if a.writes {
        sources.push(Box::new(telemetry::SoftDirty));
    }
    sources.push(Box::new(telemetry::PageIns));
    let binning = a.bin.map_or(Binning::Mapping, Binning::Width);
    let mut m = Monitor::new(a.pid, binning, sources, notes)
        .with_context(|| format!("monitoring process {}", a.pid))?;
    let terminal = std::io::stdout().is_terminal() && !a.once && !a.json;
    let out = std::io::stdout();
    loop {
        let began = std::time::Instant::now();
        while began.elapsed().as_secs_f64() < a.interval {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            if !thermocline_live::monitor::alive(a.pid) {
                break;
            }
            let left = a.interval - began.elapsed().as_secs_f64();
            std::thread::sleep(std::time::Duration::from_secs_f64(left.clamp(0.0, 0.05)));
        }
        let view = match m.sample() {
            Ok(v) => v,
            Err(thermocline_live::LiveError::Exited { .. }) => {
                eprintln!("monitor: process {} exited", a.pid);
                return Ok(());
            }
            Err(e) => return Err(e).with_context(|| format!("monitoring process {}", a.pid)),
        };
        let mut o = out.lock();
        if a.json {
            writeln!(o, "{}", serde_json::to_string(&view)?)?;
        } else if terminal {
            use crossterm::{cursor, execute, terminal};
            let rows = terminal::size().map_or(24, |(_, h)| h as usize);
            // header (4 lines), notes, and a line for "... more bins"
            let room = rows.saturating_sub(5 + view.notes.len()).max(1);
            execute!(
                o,
                cursor::MoveTo(0, 0),
                terminal::Clear(terminal::ClearType::All)
            )?;
            // raw text lines need a carriage return only in raw mode, which
            // is not used: Ctrl-C stays a signal
            write!(
                o,
                "{}",
                render::text(&view, render::Bars::Blocks, Some(room))
            )?;
        } else {
            writeln!(o, "{}", render::text(&view, render::Bars::Ascii, None))?;
        }
        o.flush()?;
        if a.once {
            return Ok(());
        }
    }
}
