//! Workloads: where accesses come from.
//!
//! A [`Workload`] is a description (regions, threads, compute time per access,
//! how many accesses) plus a [`Stream`] that fills batches of accesses. The
//! stream is an enum, so the per-access path dispatches statically and a batch
//! is a reused buffer: generating an access allocates nothing.
//!
//! Sources: MASIM configs ([`masim`]), synthetic distributions ([`synthetic`]),
//! thermocline's binary traces ([`trace`]) and valgrind-lackey output
//! ([`lackey`]); named presets are in [`presets`].
#![deny(missing_docs)]

pub mod ambix;
pub mod convert;
pub mod heteroos;
pub mod lackey;
pub mod masim;
pub mod memos;
pub mod mix;
pub mod models;
pub mod npb;
pub mod presets;
pub mod rates;
pub mod sweep;
pub mod synthetic;
pub mod telescope;
pub mod thermostat;
pub mod trace;
mod zipf;

pub use rates::PhaseMark;
pub use thermocline_vocab::Access;
use thermocline_vocab::{MemEvent, RegionInfo};

/// A workload that could not be loaded: names the file and line where it can.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// A syntax or semantic error at a line of a file.
    #[error("{file}:{line}: {msg}")]
    AtLine {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// A file-level problem (unreadable, truncated, wrong magic).
    #[error("{file}: {msg}")]
    File {
        /// The file.
        file: String,
        /// What is wrong.
        msg: String,
    },
    /// A bad parameter or unknown name.
    #[error("{0}")]
    Invalid(String),
}

/// Accesses per second each thread issues when MASIM phases and synthetic
/// durations are turned into access counts (a nominal rate; simulated time
/// then comes from the performance model).
pub const DEFAULT_ACCESS_RATE: f64 = 10e6;

/// A workload ready to run.
pub struct Workload {
    /// Name for reports.
    pub name: String,
    /// Mapped regions (address space 0 unless the source says otherwise).
    pub regions: Vec<RegionInfo>,
    /// Threads (one core each).
    pub threads: usize,
    /// Nominal accesses per second per thread.
    pub access_rate: f64,
    /// Core time per access per thread (ns), excluding memory stalls.
    pub compute_ns: f64,
    /// Accesses the stream will produce (all threads).
    pub total_accesses: u64,
    /// Phase boundaries.
    pub phases: Vec<PhaseMark>,
    /// The generator.
    pub stream: Stream,
    /// The same workload as access rates, for the rate-driven machine; `None`
    /// for sources that only exist access by access (traces, application
    /// models, sweeps).
    pub rates: Option<rates::RateProfile>,
}

impl Workload {
    /// Bytes of virtual memory mapped by the regions.
    pub fn footprint_bytes(&self) -> u64 {
        self.regions.iter().map(|r| r.len).sum()
    }
}

/// Fills batches of accesses. An enum so that the per-access path is static.
pub enum Stream {
    /// A MASIM config.
    Masim(masim::MasimStream),
    /// A synthetic distribution.
    Synthetic(synthetic::SyntheticStream),
    /// An application model.
    Model(Box<models::ModelStream>),
    /// Array sweeps.
    Sweep(sweep::SweepStream),
    /// A binary trace file.
    Trace(trace::TraceReader),
    /// A valgrind-lackey text trace, streamed from disk.
    Lackey(Box<lackey::LackeyReader>),
    /// Accesses held in memory (imported lackey traces, tests).
    Memory(MemoryStream),
    /// A rate profile replayed access by access.
    Rate(rates::RateStream),
    /// An NPB kernel, executed.
    Npb(Box<npb::NpbStream>),
    /// A HeteroOS-like page-typed model (accesses and memory events).
    Hetero(Box<heteroos::HeteroStream>),
    /// Several workloads at once, each in its own address space.
    Mix(Box<mix::MixStream>),
}

impl Stream {
    /// Writes up to `buf.len()` accesses into `buf`; returns how many (0 at the end).
    #[inline]
    pub fn fill(&mut self, buf: &mut [Access]) -> Result<usize, WorkloadError> {
        match self {
            Stream::Masim(s) => Ok(s.fill(buf)),
            Stream::Synthetic(s) => Ok(s.fill(buf)),
            Stream::Model(s) => Ok(s.fill(buf)),
            Stream::Sweep(s) => Ok(s.fill(buf)),
            Stream::Trace(s) => s.fill(buf),
            Stream::Lackey(s) => s.fill(buf),
            Stream::Memory(s) => Ok(s.fill(buf)),
            Stream::Rate(s) => Ok(s.fill(buf)),
            Stream::Npb(s) => Ok(s.fill(buf)),
            Stream::Hetero(s) => Ok(s.fill(buf)),
            Stream::Mix(s) => s.fill(buf),
        }
    }

    /// The tenants of a mix (each component in its own address space);
    /// none for any other stream.
    pub fn tenants(&self) -> &[mix::Tenant] {
        match self {
            Stream::Mix(m) => m.tenants(),
            _ => &[],
        }
    }

    /// [`Stream::fill`], and the memory events that come before and between
    /// those accesses pushed onto `events` (cleared first) in order, each
    /// with the index in `buf` of the access it precedes (the count
    /// returned, for events after the last access). At the end of the
    /// stream it returns 0 with no event.
    #[inline]
    pub fn fill_with_events(
        &mut self,
        buf: &mut [Access],
        events: &mut Vec<(usize, MemEvent)>,
    ) -> Result<usize, WorkloadError> {
        events.clear();
        match self {
            Stream::Memory(s) => Ok(s.fill_with_events(buf, events)),
            Stream::Hetero(s) => Ok(s.fill_with_events(buf, events)),
            Stream::Mix(s) => s.fill_with_events(buf, events),
            // No other source issues memory events.
            _ => self.fill(buf),
        }
    }
}

/// A stream over accesses (and memory events) in memory.
pub struct MemoryStream {
    accesses: Vec<Access>,
    pos: usize,
    /// (index of the access it precedes, event), in order.
    events: Vec<(usize, MemEvent)>,
    next_event: usize,
}

impl MemoryStream {
    /// A stream replaying `accesses`.
    pub fn new(accesses: Vec<Access>) -> Self {
        MemoryStream {
            accesses,
            pos: 0,
            events: Vec::new(),
            next_event: 0,
        }
    }

    /// A stream replaying `accesses` with `events`, each given with the
    /// index of the access it precedes (`accesses.len()` for the end).
    pub fn with_events(
        accesses: Vec<Access>,
        events: Vec<(usize, MemEvent)>,
    ) -> Result<Self, WorkloadError> {
        let mut last = 0;
        for (at, ev) in &events {
            if *at < last || *at > accesses.len() {
                return Err(WorkloadError::Invalid(format!(
                    "memory event {ev:?} at access {at}: events must be in order and at most at access {}",
                    accesses.len()
                )));
            }
            ev.check().map_err(WorkloadError::Invalid)?;
            last = *at;
        }
        Ok(MemoryStream {
            events,
            ..MemoryStream::new(accesses)
        })
    }

    fn fill(&mut self, buf: &mut [Access]) -> usize {
        let n = buf.len().min(self.accesses.len() - self.pos);
        buf[..n].copy_from_slice(&self.accesses[self.pos..self.pos + n]);
        self.pos += n;
        n
    }

    fn fill_with_events(&mut self, buf: &mut [Access], out: &mut Vec<(usize, MemEvent)>) -> usize {
        let start = self.pos;
        let n = self.fill(buf);
        // Events before each handed-out access, and those at the end of the
        // stream once its last access is out.
        let end = if self.pos == self.accesses.len() {
            usize::MAX
        } else {
            self.pos
        };
        while let Some(&(at, ev)) = self.events.get(self.next_event) {
            if at >= end {
                break;
            }
            out.push((at - start, ev));
            self.next_event += 1;
        }
        n
    }
}

/// Accesses generated an operation (or step) at a time and handed out in
/// order, so a generator can emit more accesses than a buffer holds.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    accesses: Vec<Access>,
    at: usize,
}

impl Pending {
    /// Whether everything generated has been handed out.
    pub(crate) fn is_empty(&self) -> bool {
        self.at == self.accesses.len()
    }

    /// Empties the buffer for the next batch (call when `is_empty`).
    pub(crate) fn refill(&mut self) -> &mut Vec<Access> {
        self.accesses.clear();
        self.at = 0;
        &mut self.accesses
    }

    /// Copies pending accesses into `buf`, at most `left`; returns how many.
    pub(crate) fn drain(&mut self, buf: &mut [Access], left: u64) -> usize {
        let take = (self.accesses.len() - self.at)
            .min(buf.len())
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        buf[..take].copy_from_slice(&self.accesses[self.at..self.at + take]);
        self.at += take;
        take
    }
}

/// `(x + 1) % n`, dividing only when it wraps: the generators' round-robin
/// counters, which advance once every few accesses.
#[inline]
pub(crate) fn next_mod<T>(x: T, n: T) -> T
where
    T: Copy + PartialOrd + std::ops::Add<Output = T> + std::ops::Rem<Output = T> + From<u8>,
{
    let next = x + T::from(1);
    if next >= n {
        next % n
    } else {
        next
    }
}

/// A load phase: one store to every 4 KiB page of some ranges, in order, the
/// threads taking turns, as an application populates its data.
#[derive(Debug, Default)]
pub(crate) struct LoadPhase {
    /// (base address, bytes) of each range, in touch order.
    ranges: Vec<(u64, u64)>,
    range: usize,
    at: u64,
}

impl LoadPhase {
    pub(crate) fn new(ranges: Vec<(u64, u64)>) -> Self {
        LoadPhase {
            ranges,
            range: 0,
            at: 0,
        }
    }

    /// Accesses the phase makes in all.
    pub(crate) fn accesses(ranges: &[(u64, u64)]) -> u64 {
        ranges.iter().map(|r| r.1.div_ceil(4096)).sum()
    }

    /// Fills `buf` with the next touches; `core` is the round-robin thread
    /// counter the caller keeps going afterwards. Returns how many.
    pub(crate) fn fill(&mut self, buf: &mut [Access], core: &mut usize, threads: usize) -> usize {
        let mut n = 0;
        while n < buf.len() && self.range < self.ranges.len() {
            let (base, bytes) = self.ranges[self.range];
            if self.at >= bytes {
                self.range += 1;
                self.at = 0;
                continue;
            }
            buf[n] = Access {
                va: base + self.at,
                asid: 0,
                core: *core as u16,
                write: true,
            };
            *core = next_mod(*core, threads);
            self.at += 4096;
            n += 1;
        }
        n
    }
}

/// Compute time per access that makes an all-fast, TLB-hitting run issue
/// `rate` accesses per second per thread: `1/rate - fast_read_ns / mlp`, at least 0.
pub fn compute_ns_for_rate(rate: f64, fast_read_ns: f64, mlp: f64) -> f64 {
    (1e9 / rate - fast_read_ns / mlp).max(0.0)
}

/// Where the first region of a workload is mapped by default.
pub const DEFAULT_BASE_VA: u64 = 1 << 30;

/// Places regions of the given sizes in one address space: 2 MiB-aligned,
/// from 1 GiB up, with a 2 MiB gap between regions (as mmap would leave them).
pub fn lay_out(sizes: &[(String, u64)], thp: bool) -> Vec<RegionInfo> {
    lay_out_at(sizes, thp, DEFAULT_BASE_VA)
}

/// [`lay_out`] from `base` (2 MiB-aligned) instead of 1 GiB.
pub fn lay_out_at(sizes: &[(String, u64)], thp: bool, base: u64) -> Vec<RegionInfo> {
    let mut va = base;
    sizes
        .iter()
        .map(|(name, len)| {
            let len = len.div_ceil(4096) * 4096;
            let r = RegionInfo {
                asid: thermocline_vocab::Asid(0),
                name: name.clone(),
                start: va,
                len,
                page_type: thermocline_vocab::PageType::Anon,
                thp,
            };
            va += len.div_ceil(2 << 20) * (2 << 20) + (2 << 20);
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_vocab::Asid;

    fn release(page: u64) -> MemEvent {
        MemEvent::Release {
            asid: Asid(0),
            start: page * 4096,
            len: 4096,
        }
    }

    /// Accesses 0..n, each at its own page, so an access's index is its page.
    fn accesses(n: u64) -> Vec<Access> {
        (0..n)
            .map(|i| Access {
                va: i * 4096,
                ..Access::default()
            })
            .collect()
    }

    #[test]
    fn events_come_out_before_the_access_they_precede_across_batches() {
        let events = vec![
            (0, release(0)),
            (3, release(1)),
            (3, release(2)),
            (5, release(3)),
        ];
        let mut s = Stream::Memory(MemoryStream::with_events(accesses(5), events).unwrap());
        let mut buf = [Access::default(); 2];
        let mut out = Vec::new();
        let mut seen = Vec::new();
        let mut handed = 0u64;
        loop {
            let n = s.fill_with_events(&mut buf, &mut out).unwrap();
            for &(at, ev) in &out {
                // The global index of the access the event precedes.
                seen.push((handed + at as u64, ev));
            }
            if n == 0 && out.is_empty() {
                break;
            }
            handed += n as u64;
        }
        assert_eq!(
            seen,
            vec![
                (0, release(0)),
                (3, release(1)),
                (3, release(2)),
                (5, release(3))
            ]
        );
        assert_eq!(handed, 5);
    }

    #[test]
    fn events_out_of_order_or_misaligned_are_refused() {
        assert!(
            MemoryStream::with_events(accesses(2), vec![(1, release(0)), (0, release(0))]).is_err()
        );
        assert!(MemoryStream::with_events(accesses(2), vec![(3, release(0))]).is_err());
        let odd = MemEvent::IoDone {
            asid: Asid(0),
            start: 10,
            len: 4096,
        };
        assert!(MemoryStream::with_events(accesses(2), vec![(0, odd)]).is_err());
    }
}
