//! A run's host memory (its peak resident set), estimated before it runs,
//! so that a scheduler can place runs by memory: each Ray task of
//! `sweep --ray` asks for its cell's estimate.
//!
//! The terms are structural, their constants measured
//! (`benchsuite/cell-memory.sh` records the ratio of measured peak to
//! estimate): over 103 runs of 30 workloads and 12 managers on both
//! machines, peak RSS was about 8.5 MB plus, on the exact machine, about
//! 20 B per touched 4 KiB page (touched pages never exceed the footprint)
//! and up to 50 B more per page for the managers that keep per-page state
//! (Memos, AutoNUMA tiering, kstaled, HeteroOS-LRU); duration and metrics
//! windows added about 1 KB a window. The executed NPB kernels hold their
//! real arrays (about the footprint). On the rate machine the managers'
//! region and sample state stays under 250 MB, except a linear scan's,
//! which grows with the pages accessed (about 40 B each). Each term is
//! rounded up, so that the estimate is a bound, never knowingly low, and
//! often high: at 5866c2e `benchsuite/cell-memory.sh` measured 35x on
//! telescope-subtb-100g (it touches 10 of its 100 GiB) and 90x on a linear
//! scan over memcached-ycsb capped at 30 s (its state grows with time).

use thermocline_engine::config::RunConfig;
use thermocline_engine::error::RunError;
use thermocline_engine::setup::{self, BackendKind};
use thermocline_workloads::Stream;

const MIB: u64 = 1 << 20;
/// The process, the machine and the report's fixed part.
const BASE: u64 = 16 * MIB;
/// Exact machine, per 4 KiB page of the footprint: the machine's page
/// state (20 B per touched page measured), per-page manager state (up to
/// 50 B) and workload state (up to 15 B measured, on heteroos-memlat).
const EXACT_PER_PAGE: u64 = 80;
/// Rate machine: the managers' regions, samples and histograms.
const RATE_MANAGER_STATE: u64 = 256 * MIB;
/// Rate machine, a linear scan's state per 4 KiB page accessed.
const LINEAR_SCAN_PER_PAGE: u64 = 40;
/// Per metrics window (measured about 1-3 KB).
const PER_WINDOW: u64 = 4 << 10;

/// The estimated peak host memory of the run `cfg` (bytes).
pub fn estimate_bytes(cfg: &RunConfig) -> Result<u64, RunError> {
    let s = setup::setup(cfg)?;
    let pages = s.footprint.div_ceil(4096);
    let rate = s.workload.access_rate * s.workload.threads.max(1) as f64;
    let duration_ns = s.limit as f64 / rate * 1e9;
    let windows = (duration_ns / s.window_ns).ceil().min(1e9) as u64 + 1;
    let mut bytes = BASE + PER_WINDOW * windows;
    match s.backend {
        BackendKind::Exact => {
            bytes += EXACT_PER_PAGE * pages;
            // an executed kernel holds its arrays, a quarter more for slack
            if matches!(s.workload.stream, Stream::Npb(_)) {
                bytes += s.footprint + s.footprint / 4;
            }
        }
        BackendKind::Rate => {
            bytes += RATE_MANAGER_STATE;
            // the linear-scan family keeps a record per page it saw
            // accessed: bounded by the pages any phase accesses
            if thermocline_managers::registry::traits(&cfg.run.manager).per_page_records {
                bytes += LINEAR_SCAN_PER_PAGE * accessed_pages(&s.workload);
            }
        }
    }
    Ok(bytes)
}

/// 4 KiB pages that some phase of a rate workload accesses (the union of
/// its segments), or the footprint's where it has no rates.
fn accessed_pages(w: &thermocline_workloads::Workload) -> u64 {
    let Some(profile) = &w.rates else {
        return w.footprint_bytes().div_ceil(4096);
    };
    let mut spans: Vec<(thermocline_vocab::Asid, u64, u64)> = profile
        .phases
        .iter()
        .flat_map(|p| &p.segments)
        .filter(|s| s.share > 0.0)
        .map(|s| (s.asid, s.start, s.end()))
        .collect();
    spans.sort_unstable();
    let mut pages = 0;
    let mut open: Option<(thermocline_vocab::Asid, u64, u64)> = None;
    for (asid, start, end) in spans {
        match open {
            Some((a, s, e)) if a == asid && start <= e => open = Some((a, s, e.max(end))),
            _ => {
                if let Some((_, s, e)) = open {
                    pages += (e - s).div_ceil(4096);
                }
                open = Some((asid, start, end));
            }
        }
    }
    if let Some((_, s, e)) = open {
        pages += (e - s).div_ceil(4096);
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_engine::config;

    fn estimate(sets: &[&str]) -> u64 {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        estimate_bytes(&config::load(None, &sets).unwrap()).unwrap()
    }

    #[test]
    fn the_estimate_follows_the_footprint_the_machine_and_the_kernel() {
        let small = estimate(&[
            "run.workload=\"telescope-subtb-1g\"",
            "run.backend=\"exact\"",
        ]);
        let large = estimate(&[
            "run.workload=\"telescope-subtb-100g\"",
            "run.backend=\"exact\"",
        ]);
        // 99 GiB more footprint, 80 B per 4 KiB page of it
        assert_eq!(large - small, 99 * (1 << 30) / 4096 * 80);
        // the rate machine keeps no page state
        let rated = estimate(&[
            "run.workload=\"telescope-subtb-100g\"",
            "run.backend=\"rate\"",
        ]);
        assert!(rated < 300 * MIB, "{rated}");
        // an executed kernel holds its arrays; its sketch does not
        let cg = estimate(&["run.workload=\"npb-cg-small\""]);
        let sketch = estimate(&["run.workload=\"npb-cg-sketch-small\""]);
        assert!(cg > sketch + (800 << 20), "{cg} {sketch}");
        // a linear scan on the rate machine: a record per page accessed
        let scan = estimate(&[
            "run.workload=\"telescope-needle\"",
            "run.manager=\"linear-scan-moderate\"",
        ]);
        let other = estimate(&[
            "run.workload=\"telescope-needle\"",
            "run.manager=\"telescope-bounded\"",
        ]);
        assert!(scan > other, "{scan} {other}");
    }
}
