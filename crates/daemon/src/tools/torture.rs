//! `thermocline torture`: random pages of a process moved between every
//! tier and swap as fast as the kernel lets it.

use super::ToolError;
use std::io::Write;

/// `torture`'s options.
#[derive(Clone, Copy, Debug)]
pub struct TortureOptions {
    /// The process.
    pub pid: i32,
    /// Stop after this many pages moved or paged out.
    pub moves: u64,
    /// Pages per move (at least 1).
    pub batch: usize,
    /// The seed of the random choices.
    pub seed: u64,
    /// Page out too (else move between NUMA nodes only).
    pub page_out: bool,
}

/// Tortures the process and prints what was done to `out`.
pub fn torture(o: &TortureOptions, out: &mut dyn Write) -> Result<(), ToolError> {
    let pid = o.pid;
    let t = thermocline_live::torture::torture(pid, o.moves, o.batch, o.seed, o.page_out)
        .map_err(ToolError::host(format!("torturing process {pid}")))?;
    writeln!(
        out,
        "torture: {} migrations ({} bytes) and {} page-outs of process {pid} in {} rounds ({} refused by the kernel: {} busy, {} no memory)",
        t.migrations, t.migrated_bytes, t.pageouts, t.rounds, t.failed, t.busy, t.nomem
    )?;
    Ok(())
}
