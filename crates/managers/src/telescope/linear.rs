//! Linear Accessed-bit scanning as Telescope measured it (paper 002, section
//! 3.1, Figure 3): a kernel thread walks the whole address space, testing and
//! clearing the Accessed bit of every leaf entry, 256 MB at a time, and sleeps
//! 0 ms (aggressive), 10 ms (moderate) or 100 ms (conservative) after each
//! batch. A page is in the profile if its bit was set when a pass reached
//! it, i.e. it was accessed since the previous pass cleared it: a profile
//! needs two passes, and the first pass (every bit set by initialisation) is
//! discarded. The latest complete profile is reported every profiling window
//! (200 ms, as for the other techniques).
//!
//! Calibrated: Figure 3's CPU utilisations and scan times for a 5 TB heap
//! (moderate: 19.5% of a core for 5.2 min; conservative: 2.78% for 37 min)
//! both put a scan's CPU time at ~61 s, i.e. ~45 ns per 4 KiB entry. The
//! backend charges an entry read; `extra_entry_ns` (25 ns) is the rest of
//! the per-entry work of the paper's kernel thread. Figure 3's aggressive
//! mode (49% CPU, 110 s per scan) is not modelled: with no sleep our thread
//! runs at 100% and a scan takes its CPU time, ~60 s.
//!
//! Inferred: the TLB is flushed after each batch (one range flush, a full
//! flush above Linux's ceiling), so the next pass sees accesses that hit the
//! TLB; a batch's duration is the CPU time the backend charges for it.

use super::{hot_set, Costs};
use crate::schemes::{SchemeParams, SchemeSet};
use crate::telemetry::{Counted, Migration};
use crate::{HotSet, Manager};
use serde::Deserialize;
use thermocline_backend::{Backend, BackendError, Flush};
use thermocline_vocab::Asid;

/// Parameters.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinearScanParams {
    /// Bytes of address space per batch (256 MiB).
    pub batch_bytes: u64,
    /// Sleep after each batch (ms): 0, 10 or 100 by mode.
    pub sleep_ms: f64,
    /// Profiling window (ms) at which the latest profile is reported.
    pub report_ms: f64,
    /// CPU time per entry scanned beyond the backend's entry read (ns).
    pub extra_entry_ns: f64,
    /// Migration rules (off by default).
    pub migration: Migration,
    /// Schemes acting on the profile (none by default).
    pub schemes: Vec<SchemeParams>,
}

impl LinearScanParams {
    /// The paper's modes.
    pub fn mode(sleep_ms: f64) -> Self {
        LinearScanParams {
            sleep_ms,
            ..Self::default()
        }
    }
}

impl Default for LinearScanParams {
    fn default() -> Self {
        LinearScanParams {
            batch_bytes: 256 << 20,
            sleep_ms: 10.0,
            report_ms: 200.0,
            extra_entry_ns: 25.0,
            migration: Migration::default(),
            schemes: Vec::new(),
        }
    }
}

/// The scanner.
pub struct LinearScan {
    name: &'static str,
    p: LinearScanParams,
    /// (asid, start, end, leaf page bytes) of every region, in scan order.
    spans: Vec<(Asid, u64, u64, u64)>,
    span: usize,
    cursor: u64,
    passes: u64,
    next_batch_ns: f64,
    since_report_ns: f64,
    /// Pages found accessed in the current pass, as merged ranges.
    current: Vec<Counted>,
    /// The last complete profile.
    profile: Vec<Counted>,
    costs: Costs,
    schemes: SchemeSet,
    buf: Vec<u64>,
}

/// Ticks of the scanning thread: it checks whether a batch is due every 1 ms.
const TICK_NS: u64 = 1_000_000;

impl LinearScan {
    /// A scanner with `p`, named `name`.
    pub fn new(name: &'static str, p: LinearScanParams) -> Self {
        LinearScan {
            name,
            p,
            spans: Vec::new(),
            span: 0,
            cursor: 0,
            passes: 0,
            next_batch_ns: 0.0,
            since_report_ns: 0.0,
            current: Vec::new(),
            profile: Vec::new(),
            costs: Costs::default(),
            schemes: SchemeSet::default(),
            buf: Vec::new(),
        }
    }

    /// Complete passes so far.
    pub fn passes(&self) -> u64 {
        self.passes
    }

    fn batch(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let Some(&(asid, _, end, page)) = self.spans.get(self.span) else {
            return Ok(());
        };
        let len = self.p.batch_bytes.min(end - self.cursor);
        self.buf.clear();
        let read = b.scan_accessed(asid, self.cursor, len, true, &mut self.buf)?;
        b.charge_manager(read as f64 * self.p.extra_entry_ns);
        b.flush_tlb(
            asid,
            Flush::Range {
                start: self.cursor,
                len,
            },
        )?;
        self.costs.bits_flipped += self.buf.len() as u64;
        // Leaf size from the region's THP setting (a split huge page would
        // be reported whole).
        for &va in &self.buf {
            match self.current.last_mut() {
                Some(c) if c.asid == asid && c.end == va => c.end = va + page,
                _ => self.current.push(Counted {
                    asid,
                    start: va,
                    end: va + page,
                    count: 1.0,
                }),
            }
        }
        self.cursor += len;
        if self.cursor >= end {
            self.span += 1;
            if let Some(&(_, s, _, _)) = self.spans.get(self.span) {
                self.cursor = s;
            } else {
                self.span = 0;
                self.cursor = self.spans[0].1;
                self.passes += 1;
                let found = std::mem::take(&mut self.current);
                if self.passes >= 2 {
                    self.profile = found;
                }
            }
        }
        Ok(())
    }
}

impl Manager for LinearScan {
    fn name(&self) -> &'static str {
        self.name
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        let mut g = self.costs.gauges();
        g.push(("passes_count", self.passes as f64));
        g.extend(self.schemes.gauges());
        g
    }

    fn notes(&self) -> Vec<String> {
        self.schemes.notes()
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.p.migration.start(b)?;
        self.schemes = SchemeSet::start(&self.p.schemes, b)?;
        self.costs.ns_at_start = b.manager_ns();
        self.spans = b
            .regions()
            .iter()
            .map(|r| (r.asid, r.start, r.end(), if r.thp { 2 << 20 } else { 4096 }))
            .collect();
        self.spans.sort_by_key(|s| (s.0, s.1));
        if let Some(s) = self.spans.first() {
            self.cursor = s.1;
        }
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some(TICK_NS)
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        let now = b.now_ns() as f64;
        while !self.spans.is_empty() && self.next_batch_ns <= now {
            let before = b.manager_ns();
            self.batch(b)?;
            let cpu = b.manager_ns() - before;
            let step = cpu + self.p.sleep_ms * 1e6;
            self.next_batch_ns = self.next_batch_ns.max(now - TICK_NS as f64) + step;
            if step <= 0.0 {
                // A batch that takes no time (zero costs, no sleep): one a
                // tick, or this loop would never end.
                break;
            }
        }
        self.since_report_ns += TICK_NS as f64;
        if self.since_report_ns + 0.5 < self.p.report_ms * 1e6 {
            return Ok(None);
        }
        self.since_report_ns = 0.0;
        self.costs.migrated_bytes += self.p.migration.apply(b, &self.profile)?;
        // a pass's count is whether it found the page accessed: at most 1
        let aggregation_ns = (self.p.report_ms * 1e6) as u64;
        self.costs.migrated_bytes += self.schemes.apply(b, &self.profile, 1.0, aggregation_ns)?;
        self.costs.update(b);
        Ok(Some(hot_set(&self.profile, 1.0)))
    }
}
