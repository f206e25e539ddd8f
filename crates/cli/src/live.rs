//! The live subcommands: `probe`, `daemon`, `masim`, `torture`,
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
    use thermocline_experiments::daemon;
    use thermocline_experiments::live_driver::LiveEnd;
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
    Ok(match (&out.ended, out.child) {
        (LiveEnd::Failed(_), _) => 1,
        (_, Some(s)) if !s.success() => s.code().unwrap_or(1),
        _ => 0,
    })
}

/// `thermocline torture --pid P --moves N`.
pub fn torture_cmd(pid: i32, moves: u64, batch: usize, seed: u64) -> anyhow::Result<()> {
    let t = thermocline_live::torture::torture(pid, moves, batch, seed)
        .with_context(|| format!("torturing process {pid}"))?;
    println!(
        "torture: {} migrations and {} page-outs of process {pid} in {} rounds ({} refused by the kernel: {} busy, {} no memory)",
        t.migrations, t.pageouts, t.rounds, t.failed, t.busy, t.nomem
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
