//! `thermocline damon-record`: the kernel's own DAMON on a process, a JSON
//! line per snapshot of its regions.

use super::ToolError;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use thermocline_live::damon::{DamonAttrs, DamonOps, DamonSession};
use thermocline_live::LiveError;

/// `damon-record`'s options.
#[derive(Clone, Copy, Debug)]
pub struct DamonRecordOptions {
    /// The process.
    pub pid: i32,
    /// Stop after this many seconds (`None`: when the process exits).
    pub duration: Option<f64>,
    /// DAMON's sampling interval (µs).
    pub sample_us: u64,
    /// DAMON's aggregation interval (µs).
    pub aggr_us: u64,
    /// DAMON's interval for re-reading the mappings (µs).
    pub update_us: u64,
    /// Fewest regions.
    pub min_regions: u64,
    /// Most regions.
    pub max_regions: u64,
}

/// Starts a kdamond on the process and writes a JSON line per snapshot to
/// `out` until the process exits, the duration passes, or `stop` is set;
/// removes the kdamond at the end.
pub fn damon_record(
    o: &DamonRecordOptions,
    stop: &AtomicBool,
    out: &mut dyn Write,
) -> Result<(), ToolError> {
    let attrs = DamonAttrs {
        sample_us: o.sample_us,
        aggr_us: o.aggr_us,
        update_us: o.update_us,
        min_regions: o.min_regions,
        max_regions: o.max_regions,
    };
    let mut s = DamonSession::start(DamonOps::Vaddr(vec![o.pid]), attrs, &[]).map_err(
        ToolError::host(format!("starting DAMON on process {}", o.pid)),
    )?;
    let start = std::time::Instant::now();
    while !stop.load(Ordering::Relaxed)
        && o.duration.is_none_or(|d| start.elapsed().as_secs_f64() < d)
    {
        let regions = match s.regions() {
            Ok(r) => r,
            // the process exited: its kdamond stopped
            Err(LiveError::Exited { .. }) => break,
            Err(e) => return Err(ToolError::host("reading DAMON's regions")(e)),
        };
        // t_s: seconds since the kdamond started; clock_s: CLOCK_MONOTONIC,
        // to line the snapshot up with other processes' times
        let line = serde_json::json!({
            "t_s": start.elapsed().as_secs_f64(),
            "clock_s": thermocline_live::sys::monotonic_s(),
            "regions": regions,
        });
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)?;
    }
    out.flush()?;
    s.stop().map_err(ToolError::host("stopping DAMON"))?;
    Ok(())
}
