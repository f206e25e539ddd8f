//! PEBS-like sampling of retired loads and stores (paper 002, sections 3.3
//! and 6.1.1: MEM_INST_RETIRED.ALL_LOADS / ALL_STORES driven by `perf` at
//! 5 kHz (moderate) or 10 kHz (aggressive)), tracked at 2 MiB granularity as
//! in HeMem.
//!
//! Like perf's frequency mode, the sampling period is re-estimated every
//! 10 ms so that samples arrive at `freq_hz`; like the kernel, the rate is
//! throttled to `perf_event_max_sample_rate` (100 000/s) and to
//! `perf_cpu_time_max_percent` (25%) of one core spent handling samples.
//! Every profiling window (200 ms) the 2 MiB units with at least
//! `hot_min_samples` samples are reported, each counted by its samples.
//!
//! Inferred: one sampling stream for the process (the paper does not say
//! per CPU or per process); the starting period (10 007 events).
//!
//! Samples come from the workload's accesses only. A real masim also
//! retires a load of its pre-drawn random-number table per access
//! (masim.c, `rndints` read by `rndint()`), which PEBS samples too: about
//! half the samples land in a few 2 MiB units outside the heap, reported
//! hot every window. That is the likeliest source of the paper's 0.81
//! precision on the needle (25 hot units beside 4-6 such units) and is not
//! modelled (issue #20; telescope_claims.rs).

use super::{hot_set, Costs};
use crate::schemes::{SchemeParams, SchemeSet};
use crate::telemetry::{Counted, Migration};
use crate::{HotSet, Manager};
use serde::Deserialize;
use std::collections::BTreeMap;
use thermocline_backend::{Backend, BackendError, Sample, SampleEvent, SamplingConfig};
use thermocline_vocab::Asid;

/// Parameters.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PebsParams {
    /// Target samples per second (perf -F).
    pub freq_hz: f64,
    /// Profiling window (ms).
    pub report_ms: f64,
    /// A unit is hot with at least this many samples in the window.
    pub hot_min_samples: f64,
    /// kernel.perf_event_max_sample_rate.
    pub max_sample_rate: f64,
    /// kernel.perf_cpu_time_max_percent.
    pub cpu_time_max_percent: f64,
    /// Samples the buffer holds between two drains.
    pub buffer: usize,
    /// Migration rules (off by default).
    pub migration: Migration,
    /// Schemes acting on the profile (none by default).
    pub schemes: Vec<SchemeParams>,
}

impl PebsParams {
    /// The paper's configurations.
    pub fn at(freq_hz: f64) -> Self {
        PebsParams {
            freq_hz,
            ..Self::default()
        }
    }
}

impl Default for PebsParams {
    fn default() -> Self {
        PebsParams {
            freq_hz: 5_000.0,
            report_ms: 200.0,
            hot_min_samples: 1.0,
            max_sample_rate: 100_000.0,
            cpu_time_max_percent: 25.0,
            buffer: 4096,
            migration: Migration::default(),
            schemes: Vec::new(),
        }
    }
}

const TICK_NS: u64 = 10_000_000;
const START_PERIOD: u64 = 10_007;

/// The sampler.
pub struct Pebs {
    name: &'static str,
    p: PebsParams,
    period: u64,
    since_report_ns: u64,
    /// Samples per (asid, 2 MiB unit) in the window.
    units: BTreeMap<(Asid, u64), f64>,
    buf: Vec<Sample>,
    samples: u64,
    dropped: u64,
    costs: Costs,
    schemes: SchemeSet,
}

impl Pebs {
    /// A sampler with `p`, named `name`.
    pub fn new(name: &'static str, p: PebsParams) -> Self {
        Pebs {
            name,
            p,
            period: START_PERIOD,
            since_report_ns: 0,
            units: BTreeMap::new(),
            buf: Vec::new(),
            samples: 0,
            dropped: 0,
            costs: Costs::default(),
            schemes: SchemeSet::default(),
        }
    }

    fn config(&self) -> SamplingConfig {
        SamplingConfig {
            event: SampleEvent::RetiredAll,
            period: self.period,
            buffer: self.p.buffer,
        }
    }
}

impl Manager for Pebs {
    fn name(&self) -> &'static str {
        self.name
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        let mut g = self.costs.gauges();
        g.push(("samples_count", self.samples as f64));
        g.push(("dropped_count", self.dropped as f64));
        g.push(("period", self.period as f64));
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
        b.sampling()
            .and_then(|x| x.set_sampling(Some(self.config())))
    }

    fn tick_ns(&self) -> Option<u64> {
        Some(TICK_NS)
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        self.buf.clear();
        let before = b.manager_ns();
        self.dropped += b.sampling()?.drain_samples(&mut self.buf)?;
        let n = self.buf.len();
        let ns_per_sample = (b.manager_ns() - before) / n.max(1) as f64;
        self.samples += n as u64;
        for s in &self.buf {
            *self.units.entry((s.asid, s.va >> 21)).or_insert(0.0) += 1.0;
        }
        // Frequency mode: aim the next tick at freq_hz, within the throttle.
        let tick_s = TICK_NS as f64 / 1e9;
        let events_per_s = n.max(1) as f64 * self.period as f64 / tick_s;
        let cost_cap = if ns_per_sample > 0.0 {
            self.p.cpu_time_max_percent / 100.0 / (ns_per_sample * 1e-9)
        } else {
            f64::INFINITY
        };
        let rate = self.p.freq_hz.min(self.p.max_sample_rate).min(cost_cap);
        let period = (events_per_s / rate).round().max(1.0) as u64;
        if period != self.period {
            self.period = period;
            b.sampling()?.set_sampling(Some(self.config()))?;
        }
        self.since_report_ns += TICK_NS;
        if (self.since_report_ns as f64) + 0.5 < self.p.report_ms * 1e6 {
            self.costs.update(b);
            return Ok(None);
        }
        self.since_report_ns = 0;
        let profile: Vec<Counted> = std::mem::take(&mut self.units)
            .into_iter()
            .map(|((asid, unit), count)| Counted {
                asid,
                start: unit << 21,
                end: (unit + 1) << 21,
                count,
            })
            .collect();
        self.costs.migrated_bytes += self.p.migration.apply(b, &profile)?;
        // samples have no ceiling: the window's busiest unit is the scale
        let max = profile.iter().map(|c| c.count).fold(1.0, f64::max);
        let aggregation_ns = (self.p.report_ms * 1e6) as u64;
        self.costs.migrated_bytes += self.schemes.apply(b, &profile, max, aggregation_ns)?;
        self.costs.update(b);
        Ok(Some(hot_set(&profile, self.p.hot_min_samples)))
    }
}
