//! The kernel's own tiering, set up by the daemon as a baseline that
//! thermocline then only observes:
//! - **NUMA balancing in tiering mode**: `kernel.numa_balancing = 2`
//!   (NUMA_BALANCING_MEMORY_TIERING: hint faults on slow-tier pages promote
//!   those accessed soon after the scan unmapped them) and
//!   `/sys/kernel/mm/numa/demotion_enabled = true` (reclaim demotes to the
//!   next tier instead of swapping out);
//! - **DAMOS on physical addresses**, as the kernel docs' and damo's
//!   memory-tiering examples do: a kdamond of our own over the fast and slow
//!   nodes' memory, with `migrate_hot` to the fast node for regions accessed
//!   in at least `hot_min_accesses` samples per aggregation, restricted to
//!   the slow node's memory, and `migrate_cold` to the slow node for regions
//!   idle for `cold_min_age_s`, restricted to the fast node's memory (DAMOS
//!   `addr` filters, `matching` = the other node's ranges, which 6.12 has).
//!   Linux 6.12 has `migrate_hot`/`migrate_cold` and `target_nid` (6.11)
//!   but not the quota goals that would aim at a fast-node utilisation
//!   (`node_mem_used_bp`, `node_mem_free_bp`: Linux 6.16), so both schemes
//!   are bounded by a plain size quota per second instead.
//!
//! These are host-wide: the caller must have the user's leave (the
//! daemon's `[kernel] allow_host_settings`). Every sysctl or sysfs value
//! written is read first and written back when the [`HostTiering`] is
//! dropped (the daemon drops it on every exit path it controls, SIGTERM
//! included; a SIGKILL leaves them set); the kdamond is the
//! [`DamonSession`]'s, which refuses to start while anyone else's exists
//! and removes itself on drop.

use crate::damon::{DamonAttrs, DamonOps, DamonSession, Range, Scheme, SchemeStats};
use crate::numa::FrameNodes;
use crate::LiveError;
use std::path::{Path, PathBuf};

/// `kernel.numa_balancing`.
pub const NUMA_BALANCING: &str = "/proc/sys/kernel/numa_balancing";
/// Demotion in reclaim.
pub const DEMOTION_ENABLED: &str = "/sys/kernel/mm/numa/demotion_enabled";

/// Which of the kernel's tiering mechanisms to run.
#[derive(Clone, Debug, PartialEq)]
pub enum HostTieringMode {
    /// NUMA balancing's tiering mode plus demotion in reclaim.
    NumaBalancing,
    /// DAMOS migrate_hot / migrate_cold over physical addresses.
    Damos(DamosTiering),
}

/// The DAMOS schemes' thresholds.
#[derive(Clone, Debug, PartialEq)]
pub struct DamosTiering {
    /// DAMON's intervals and region bounds.
    pub attrs: DamonAttrs,
    /// A slow-node region is promoted when at least this many samples of
    /// an aggregation interval found it accessed.
    pub hot_min_accesses: u32,
    /// A fast-node region is demoted when no sample found it accessed for
    /// this long (s).
    pub cold_min_age_s: f64,
    /// Bytes each scheme may migrate per second (0: no bound).
    pub quota_bytes_per_s: u64,
}

/// Host-wide values this process wrote, with what they were before.
#[derive(Debug, Default)]
pub struct HostSettings {
    changed: Vec<(PathBuf, String)>,
}

impl HostSettings {
    /// Writes `value` to `path`, first keeping what it held (once per
    /// path, so the first value is the one restored).
    pub fn set(&mut self, path: &Path, value: &str) -> Result<(), LiveError> {
        let before = std::fs::read_to_string(path)
            .map_err(|e| LiveError::io(path.display().to_string(), e, None))?
            .trim()
            .to_string();
        if !self.changed.iter().any(|(p, _)| p == path) {
            self.changed.push((path.to_path_buf(), before));
        }
        std::fs::write(path, value)
            .map_err(|e| LiveError::io(format!("writing {value:?} to {}", path.display()), e, None))
    }

    /// What was changed: (path, the value before).
    pub fn changed(&self) -> &[(PathBuf, String)] {
        &self.changed
    }

    /// Writes every value back, the last changed first; the first failure
    /// is returned after every other value has been tried.
    pub fn restore(&mut self) -> Result<(), LiveError> {
        let mut first = None;
        while let Some((path, before)) = self.changed.pop() {
            if let Err(e) = std::fs::write(&path, &before) {
                first.get_or_insert(LiveError::io(
                    format!("restoring {before:?} to {}", path.display()),
                    e,
                    None,
                ));
            }
        }
        first.map_or(Ok(()), Err)
    }
}

impl Drop for HostSettings {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

/// The kernel's tiering, running until dropped.
pub struct HostTiering {
    settings: HostSettings,
    damon: Option<DamonSession>,
}

impl HostTiering {
    /// Sets the kernel's tiering up between `fast` and `slow` (a node of
    /// each: the fastest and slowest tiers' first nodes).
    pub fn start(mode: &HostTieringMode, fast: i32, slow: i32) -> Result<Self, LiveError> {
        let mut t = HostTiering {
            settings: HostSettings::default(),
            damon: None,
        };
        match mode {
            HostTieringMode::NumaBalancing => {
                if !Path::new(NUMA_BALANCING).exists() {
                    return Err(LiveError::Unsupported {
                        feature: "numa-balancing",
                        why: format!("{NUMA_BALANCING} is missing (CONFIG_NUMA_BALANCING)"),
                    });
                }
                if !Path::new(DEMOTION_ENABLED).exists() {
                    return Err(LiveError::Unsupported {
                        feature: "memory-tiers",
                        why: format!("{DEMOTION_ENABLED} is missing (Linux >= 5.15)"),
                    });
                }
                t.settings.set(Path::new(NUMA_BALANCING), "2")?;
                t.settings.set(Path::new(DEMOTION_ENABLED), "true")?;
                // a kernel without the tiering mode takes 2 as plain "on"
                // or refuses it: read it back
                let now = std::fs::read_to_string(NUMA_BALANCING).unwrap_or_default();
                if now.trim() != "2" {
                    return Err(LiveError::Unsupported {
                        feature: "numa-balancing",
                        why: format!(
                            "{NUMA_BALANCING} reads {:?} after writing 2 (no memory tiering mode: Linux >= 5.18)",
                            now.trim()
                        ),
                    });
                }
            }
            HostTieringMode::Damos(d) => {
                let frames = FrameNodes::read();
                let fast_ranges = frames.byte_ranges(fast);
                let slow_ranges = frames.byte_ranges(slow);
                if fast_ranges.is_empty() || slow_ranges.is_empty() {
                    return Err(LiveError::Unsupported {
                        feature: "damon",
                        why: format!(
                            "no memory blocks listed for node {fast} or {slow} under /sys/devices/system/node: DAMOS needs their physical ranges"
                        ),
                    });
                }
                let mut all: Vec<(u64, u64)> =
                    fast_ranges.iter().chain(&slow_ranges).copied().collect();
                all.sort_unstable();
                let schemes = damos_schemes(d, fast, slow, &fast_ranges, &slow_ranges);
                t.damon = Some(DamonSession::start(
                    DamonOps::Paddr(all),
                    d.attrs,
                    &schemes,
                )?);
            }
        }
        Ok(t)
    }

    /// The sysctl and sysfs values changed, with what they were.
    pub fn changed(&self) -> &[(PathBuf, String)] {
        self.settings.changed()
    }

    /// What the DAMOS schemes did so far (migrate_hot, migrate_cold); empty
    /// in the NUMA-balancing mode.
    pub fn scheme_stats(&mut self) -> Result<Vec<SchemeStats>, LiveError> {
        match self.damon.as_mut() {
            Some(s) => s.scheme_stats(),
            None => Ok(Vec::new()),
        }
    }

    /// Stops the kdamond and writes every value back.
    pub fn stop(mut self) -> Result<(), LiveError> {
        let damon = self.damon.take().map_or(Ok(()), DamonSession::stop);
        let settings = self.settings.restore();
        damon.and(settings)
    }
}

/// migrate_hot to `fast` for the slow node's memory, migrate_cold to
/// `slow` for the fast node's (each excludes the other node's ranges).
fn damos_schemes(
    d: &DamosTiering,
    fast: i32,
    slow: i32,
    fast_ranges: &[(u64, u64)],
    slow_ranges: &[(u64, u64)],
) -> Vec<Scheme> {
    let per_s = |s: &mut Scheme| {
        s.quota_bytes = d.quota_bytes_per_s;
        s.quota_reset_ms = 1000;
    };
    let mut hot = Scheme::any("migrate_hot");
    hot.nr_accesses = Range {
        min: u64::from(d.hot_min_accesses),
        max: Range::ANY.max,
    };
    hot.target_nid = Some(fast);
    hot.exclude_addr = fast_ranges.to_vec();
    per_s(&mut hot);
    let mut cold = Scheme::any("migrate_cold");
    cold.nr_accesses = Range { min: 0, max: 0 };
    let aggr_s = d.attrs.aggr_us.max(1) as f64 / 1e6;
    cold.age = Range {
        min: (d.cold_min_age_s / aggr_s).ceil() as u64,
        max: Range::ANY.max,
    };
    cold.target_nid = Some(slow);
    cold.exclude_addr = slow_ranges.to_vec();
    per_s(&mut cold);
    vec![hot, cold]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_written_back_in_reverse_and_once() {
        let dir = std::env::temp_dir().join(format!("thermocline-host-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::write(&a, "0\n").unwrap();
        std::fs::write(&b, "false\n").unwrap();
        {
            let mut s = HostSettings::default();
            s.set(&a, "2").unwrap();
            s.set(&b, "true").unwrap();
            s.set(&a, "1").unwrap();
            assert_eq!(s.changed().len(), 2);
            assert_eq!(std::fs::read_to_string(&a).unwrap(), "1");
        }
        // dropped: the values from before the first write
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "0");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "false");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn schemes_promote_from_the_slow_node_and_demote_from_the_fast_one() {
        let d = DamosTiering {
            attrs: DamonAttrs::default(),
            hot_min_accesses: 4,
            cold_min_age_s: 5.0,
            quota_bytes_per_s: 64 << 20,
        };
        let s = damos_schemes(&d, 0, 1, &[(0, 1 << 30)], &[(1 << 30, 2 << 30)]);
        assert_eq!(s[0].action, "migrate_hot");
        assert_eq!((s[0].target_nid, s[0].nr_accesses.min), (Some(0), 4));
        assert_eq!(s[0].exclude_addr, vec![(0, 1 << 30)]);
        assert_eq!(s[1].action, "migrate_cold");
        assert_eq!((s[1].target_nid, s[1].nr_accesses.max), (Some(1), 0));
        // 5 s of 100 ms aggregations
        assert_eq!(s[1].age.min, 50);
        assert_eq!(s[1].exclude_addr, vec![(1 << 30, 2 << 30)]);
        assert_eq!((s[1].quota_bytes, s[1].quota_reset_ms), (64 << 20, 1000));
    }
}
