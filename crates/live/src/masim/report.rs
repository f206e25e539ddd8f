//! What a run did, as JSON for the daemon's tests, and the files it writes.

use super::verify::Verification;
use super::MasimError;
use crate::LiveError;
use serde::Serialize;
use std::path::Path;

/// One phase as it ran.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseReport {
    /// Pass over the phase list (0-based, `--loops`).
    #[serde(rename = "loop")]
    pub loop_index: u32,
    /// The phase's name line.
    pub name: String,
    /// Its start, seconds since the run started.
    pub start_s: f64,
    /// How long it ran (whole bursts, so at least its duration).
    pub wall_s: f64,
    /// Patterns drawn.
    pub bursts: u64,
    /// Accesses made.
    pub accesses: u64,
}

/// One region and the accesses made to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegionReport {
    /// Its name.
    pub name: String,
    /// Its size as allocated (whole pages).
    pub bytes: u64,
    /// Its pages.
    pub pages: u64,
    /// Loads made to it.
    pub reads: u64,
    /// Stores made to it.
    pub writes: u64,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The config's path, as given.
    pub config: String,
    /// This process.
    pub pid: u32,
    /// `--seed`.
    pub seed: u64,
    /// `--loops`.
    pub loops: u32,
    /// `--size-scale`.
    pub size_scale: f64,
    /// `--time-scale`.
    pub time_scale: f64,
    /// Accesses per drawn pattern.
    pub burst: u64,
    /// When the regions were ready, seconds since the run started.
    pub ready_s: f64,
    /// When the run started on CLOCK_MONOTONIC (s): with it, the phases'
    /// `start_s` line up with other processes' times (`reproduce
    /// live-damon` sets them beside DAMON's trace events).
    pub start_clock_s: f64,
    /// The regions.
    pub regions: Vec<RegionReport>,
    /// The phases in the order they ran.
    pub phases: Vec<PhaseReport>,
    /// Loads over all regions.
    pub reads: u64,
    /// Stores over all regions.
    pub writes: u64,
    /// Seconds spent in phases.
    pub phases_s: f64,
    /// Accesses per second of phase time.
    pub accesses_per_s: f64,
    /// Every verification, the one at the end last.
    pub verifications: Vec<Verification>,
    /// Whether every verification was clean.
    pub clean: bool,
}

/// Writes `text` to `path` so that it appears whole: a watcher polling for
/// the file never reads half of it.
pub(super) fn write_whole(path: &Path, text: &str) -> Result<(), MasimError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = Path::new(&tmp);
    let fail = |what: &Path, e| LiveError::io(what.display().to_string(), e, None);
    std::fs::write(tmp, text).map_err(|e| fail(tmp, e))?;
    std::fs::rename(tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(tmp);
        fail(path, e)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_appear_whole_and_errors_name_them() {
        let p = std::env::temp_dir().join(format!("tc-masim-{}-whole", std::process::id()));
        write_whole(&p, "123\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "123\n");
        std::fs::remove_file(&p).unwrap();
        let e = write_whole(Path::new("/nonexistent/dir/ready"), "1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/dir/ready"), "{e}");
    }
}
