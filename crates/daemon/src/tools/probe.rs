//! `thermocline probe`: what this host offers a tiering daemon, and where a
//! process's pages are.

use super::ToolError;
use std::io::Write;
use thermocline_live::probe;

/// `probe`'s options.
#[derive(Clone, Debug, Default)]
pub struct ProbeOptions {
    /// Also look at this process.
    pub pid: Option<i32>,
    /// With `pid`: the address ranges (start, end) whose pages to locate.
    pub ranges: Vec<(u64, u64)>,
    /// JSON instead of a table.
    pub json: bool,
}

/// Probes the host (and the process) and prints the result to `out`.
pub fn probe(o: &ProbeOptions, out: &mut dyn Write) -> Result<(), ToolError> {
    if o.pid.is_none() && !o.ranges.is_empty() {
        return Err(ToolError::Input("--range needs --pid".into()));
    }
    let p = probe::probe_ranges(o.pid, &o.ranges).map_err(ToolError::host(match o.pid {
        Some(pid) => format!("probing this host and process {pid}"),
        None => "probing this host".to_string(),
    }))?;
    if o.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&p)?)?;
    } else {
        write!(out, "{}", probe::table(&p))?;
    }
    Ok(())
}
