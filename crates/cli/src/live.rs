//! The live subcommands: `probe` (and, as they land, `daemon`, `monitor`).

use anyhow::Context;
use thermocline_live::probe;

/// `thermocline probe [--pid P] [--json]`.
pub fn probe_cmd(pid: Option<i32>, json: bool) -> anyhow::Result<()> {
    let p = probe::probe(pid).with_context(|| match pid {
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
        "torture: {} migrations and {} page-outs of process {pid} in {} rounds ({} refused by the kernel)",
        t.migrations, t.pageouts, t.rounds, t.failed
    );
    Ok(())
}
