//! A migration plan over counted regions: the rules Telescope's evaluation
//! migrates by (paper 002_98026fdc393d1867.txt, section 6.3.2), which every
//! region-counting technique may follow (Telescope's, DAMON, the linear
//! scans, PEBS-like sampling) and which Ambix's and the kernel tiering's
//! configurations reuse.

use super::Counted;
use serde::Deserialize;
use thermocline_backend::{Backend, BackendError};
use thermocline_vocab::{Asid, TierId};

/// Telescope's migration rules (paper 002_98026fdc393d1867.txt, section
/// 6.3.2): hot regions to the fast tier, hottest first, within a budget.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Migration {
    /// Migrate at all (off: pure telemetry, as in the microbenchmarks).
    pub enabled: bool,
    /// Initialise the data in the slowest tier (the paper's KV setup).
    pub start_in_slow: bool,
    /// No migration before this many simulated seconds (warm-up: 150 s).
    pub warmup_s: f64,
    /// A region is hot if its access count is greater than this (5).
    pub hot_count: f64,
    /// Regions this large or larger are skipped (4 GiB).
    pub max_region_bytes: u64,
    /// At most this many bytes migrated per profiling window (10 GiB).
    pub max_bytes_per_window: u64,
}

impl Default for Migration {
    fn default() -> Self {
        Migration {
            enabled: false,
            start_in_slow: true,
            warmup_s: 150.0,
            hot_count: 5.0,
            max_region_bytes: 4 << 30,
            max_bytes_per_window: 10 << 30,
        }
    }
}

impl Migration {
    /// Called at start: binds every address space to the slowest tier if
    /// asked. Where the backend cannot set another process's allocation
    /// policy (a live host: the process has already touched its memory),
    /// the pages it has are moved there instead, and pages it touches later
    /// are placed by the kernel's default policy.
    pub fn start(&self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if self.enabled && self.start_in_slow {
            let slow = TierId((b.tiers().len() - 1) as u8);
            let mut asids: Vec<Asid> = b.regions().iter().map(|r| r.asid).collect();
            asids.dedup();
            for a in asids {
                match b.set_policy(a, thermocline_backend::MemPolicy::Bind { tier: slow }) {
                    Ok(()) => {}
                    Err(BackendError::Unsupported(
                        thermocline_backend::Capability::AllocPolicy,
                    )) => {
                        let ranges: Vec<(u64, u64)> = b
                            .regions()
                            .iter()
                            .filter(|r| r.asid == a)
                            .map(|r| (r.start, r.len))
                            .collect();
                        for (start, len) in ranges {
                            b.migrate_range(a, start, len, slow, u64::MAX)?;
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// Applies the rules to one window's profile: hot regions (count above
    /// `hot_count`, smaller than `max_region_bytes`), hottest first, to the
    /// fast tier until `max_bytes_per_window`. Returns bytes moved.
    pub fn apply(&self, b: &mut dyn Backend, profile: &[Counted]) -> Result<u64, BackendError> {
        if !self.enabled || (b.now_ns() as f64) < self.warmup_s * 1e9 {
            return Ok(0);
        }
        let mut hot: Vec<&Counted> = profile
            .iter()
            .filter(|c| c.count > self.hot_count && c.end - c.start < self.max_region_bytes)
            .collect();
        hot.sort_by(|a, b| b.count.total_cmp(&a.count).then(a.start.cmp(&b.start)));
        let mut moved = 0u64;
        for c in hot {
            if moved >= self.max_bytes_per_window {
                break;
            }
            let left = self.max_bytes_per_window - moved;
            moved += b
                .migrate_range(c.asid, c.start, c.end - c.start, TierId(0), left)?
                .bytes;
        }
        Ok(moved)
    }
}
