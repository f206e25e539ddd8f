//! `thermocline masim`: a MASIM config executed for real on memory that
//! checks itself.

use super::ToolError;
use std::io::Write;
use std::path::PathBuf;
use thermocline_live::masim;

/// `masim`'s options.
#[derive(Clone, Debug)]
pub struct MasimOptions {
    /// The MASIM config file.
    pub config: String,
    /// Seed of the regions' content and of every draw.
    pub seed: u64,
    /// Times the phase list runs, over the same memory (at least 1).
    pub loops: u32,
    /// Factor on every region's size.
    pub size_scale: f64,
    /// Factor on every phase's duration (0: one burst per phase).
    pub time_scale: f64,
    /// Write the pid here once the regions are ready.
    pub ready: Option<PathBuf>,
    /// Write a JSON summary here at the end.
    pub report: Option<PathBuf>,
}

/// `masim`'s memory failed verification (the memory, not the input, is
/// wrong).
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

/// Runs the config: the ready and verification lines go to `out`, the
/// phase lines to `log`; [`ToolError::Corrupted`] when a verification
/// failed.
pub fn masim(o: &MasimOptions, out: &mut dyn Write, log: &mut dyn Write) -> Result<(), ToolError> {
    let text = std::fs::read_to_string(&o.config)
        .map_err(|e| ToolError::Input(format!("{}: cannot read: {e}", o.config)))?;
    let cfg = masim::parse(&text, &o.config).map_err(|e| ToolError::Masim(Box::new(e)))?;
    let opts = masim::Options {
        seed: o.seed,
        loops: o.loops,
        size_scale: o.size_scale,
        time_scale: o.time_scale,
        burst: masim::DEFAULT_BURST,
        ready: o.ready.clone(),
        report: o.report.clone(),
    };
    let r =
        masim::run(&cfg, &o.config, &opts, out, log).map_err(|e| ToolError::Masim(Box::new(e)))?;
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
