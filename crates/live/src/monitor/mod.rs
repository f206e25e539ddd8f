//! `thermocline monitor`: where a process's pages are (per NUMA node and
//! tier, swapped) and how hot each part of it is, read-only.
//!
//! The view is a list of bins: each private anonymous mapping, or each
//! fixed-width, address-aligned slice of one. Per bin: present pages per
//! node, swapped pages, the pages that came in, went out or changed node
//! since the last read, and a heat in 0..=1 from the telemetry sources
//! ([`telemetry`]): DAMON when the host lets this process run a kdamond of
//! its own, soft-dirty write rates when asked for (`--writes`), and always
//! the pages brought in (page-ins). Process-wide: the fault counters and the
//! host's memory pressure (PSI) over the interval.
//!
//! Nothing here moves or pages out a page: the reads are /proc/PID/maps,
//! the pagemap and `move_pages` without target nodes (which only answers
//! where each page is). The one write to the process's state is optional:
//! `--writes` clears its soft-dirty bits (`clear_refs` 4) at each interval,
//! which another user of soft-dirty bits (CRIU, the live backend's Dirty
//! bits) would notice.

pub mod render;
pub mod telemetry;

use crate::numa;
use crate::pagemap::Pagemap;
use crate::pages::{read_mapping, PageState};
use crate::procfs::{self, Mapping};
use crate::sys::PAGE;
use crate::LiveError;
use serde::Serialize;
use std::collections::HashMap;
use telemetry::Telemetry;

/// One bin of the view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bin {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// The mapping it is part of (`[heap]`, `[stack]`, `anon`).
    pub mapping: String,
    /// Present pages per node, in the order of [`View::nodes`].
    pub per_node: Vec<u64>,
    /// Pages swapped out (zram, or other swap).
    pub swapped: u64,
    /// Pages present now and not at the previous read (faulted in or
    /// swapped in); `None` at the first read.
    pub came_in: Option<u64>,
    /// Pages present at the previous read and not now (paged out, freed).
    pub went_out: Option<u64>,
    /// Pages present at both reads, on another node now.
    pub moved: Option<u64>,
    /// Each telemetry source's heat (0..=1), by source name.
    pub signals: Vec<(String, f64)>,
    /// The heat shown: the first source's (see [`View::heat_source`]).
    pub heat: Option<f64>,
}

impl Bin {
    /// Pages in the bin.
    pub fn pages(&self) -> u64 {
        (self.end - self.start) / PAGE
    }
}

/// A node's column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeColumn {
    /// The node.
    pub id: i32,
    /// Its memory tier as the kernel names it (`memory_tier4`), if any.
    pub tier: Option<String>,
}

/// Process-wide rates over the interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Rates {
    /// Minor page faults per second.
    pub minor_faults_per_s: f64,
    /// Major page faults (swap-ins) per second.
    pub major_faults_per_s: f64,
    /// Share of the interval some task of the host stalled on memory (PSI).
    pub pressure_some: Option<f64>,
    /// Share of the interval every task stalled on memory (PSI).
    pub pressure_full: Option<f64>,
}

/// One look at the process.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct View {
    /// The process.
    pub pid: i32,
    /// Its command name.
    pub comm: String,
    /// Seconds since the monitor started.
    pub t_s: f64,
    /// The interval the rates and heats are over (s).
    pub interval_s: f64,
    /// The node columns.
    pub nodes: Vec<NodeColumn>,
    /// The source of the heat shown, and what it means.
    pub heat_source: Option<String>,
    /// Rates over the interval (`None` at the first read).
    pub rates: Option<Rates>,
    /// The bins, in address order.
    pub bins: Vec<Bin>,
    /// What the sources could not do (DAMON busy, say).
    pub notes: Vec<String>,
}

/// How to cut mappings into bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binning {
    /// One bin per mapping.
    Mapping,
    /// Bins of this many bytes (a multiple of 4 KiB), aligned to multiples
    /// of it in the address space, so they stay put as mappings grow.
    Width(u64),
}

/// Parses a bin width: a size (`2MiB`, `64k`, bytes) of whole 4 KiB pages.
pub fn parse_width(s: &str) -> Result<u64, String> {
    match thermocline_vocab::parse_size(s) {
        Ok(b) if b.0 >= PAGE && b.0 % PAGE == 0 => Ok(b.0),
        _ => Err(format!(
            "expected a size of whole 4 KiB pages (e.g. 2MiB, 64KiB), got {s:?}"
        )),
    }
}

/// The bins of `mappings` (their states in `states`, one per page), with
/// per-node counts over `nodes` and changes against `prev` (the previous
/// read's states by mapping start). Mappings with no page present or
/// swapped are left out.
pub fn bins(
    mappings: &[Mapping],
    states: &[Vec<PageState>],
    prev: Option<&HashMap<u64, Vec<PageState>>>,
    nodes: &[i32],
    binning: Binning,
) -> Vec<Bin> {
    let mut out = Vec::new();
    for (m, st) in mappings.iter().zip(states) {
        if !st.iter().any(|s| s.node().is_some() || s.swapped()) {
            continue;
        }
        let before = prev.map(|p| p.get(&m.start));
        let cuts: Vec<(u64, u64)> = match binning {
            Binning::Mapping => vec![(m.start, m.end)],
            Binning::Width(w) => {
                let w = w.max(PAGE) / PAGE * PAGE;
                let mut v = Vec::new();
                let mut a = m.start;
                while a < m.end {
                    let b = ((a / w) + 1).saturating_mul(w).min(m.end);
                    v.push((a, b));
                    a = b;
                }
                v
            }
        };
        for (a, b) in cuts {
            let (i, j) = (
                ((a - m.start) / PAGE) as usize,
                ((b - m.start) / PAGE) as usize,
            );
            let mut per_node = vec![0u64; nodes.len()];
            let mut swapped = 0;
            for s in &st[i.min(st.len())..j.min(st.len())] {
                if let Some(n) = s.node() {
                    if let Some(k) = nodes.iter().position(|&x| x == n) {
                        per_node[k] += 1;
                    }
                } else if s.swapped() {
                    swapped += 1;
                }
            }
            let (came_in, went_out, moved) = match before {
                None => (None, None, None),
                Some(None) => {
                    // a new mapping: everything in it came in
                    let present = per_node.iter().sum();
                    (Some(present), Some(0), Some(0))
                }
                Some(Some(old)) => {
                    let (mut cin, mut out, mut mv) = (0, 0, 0);
                    for k in i..j {
                        let now = st.get(k).and_then(|s| s.node());
                        let then = old.get(k).and_then(|s| s.node());
                        match (then, now) {
                            (None, Some(_)) => cin += 1,
                            (Some(_), None) => out += 1,
                            (Some(x), Some(y)) if x != y => mv += 1,
                            _ => {}
                        }
                    }
                    (Some(cin), Some(out), Some(mv))
                }
            };
            out.push(Bin {
                start: a,
                end: b,
                mapping: label(m),
                per_node,
                swapped,
                came_in,
                went_out,
                moved,
                signals: Vec::new(),
                heat: None,
            });
        }
    }
    out
}

fn label(m: &Mapping) -> String {
    if m.path.is_empty() {
        "anon".into()
    } else {
        m.path.clone()
    }
}

/// What one read of the process gives.
pub struct Read {
    /// Its writable private anonymous mappings.
    pub mappings: Vec<Mapping>,
    /// Their pages' states.
    pub states: Vec<Vec<PageState>>,
    /// Its fault counters.
    pub faults: procfs::Faults,
    /// The host's memory pressure then.
    pub pressure: Option<procfs::Pressure>,
}

/// Reads the process's mappings, pages, faults, and the host's pressure.
pub fn read(pid: i32, pagemap: &Pagemap) -> Result<Read, LiveError> {
    let mappings: Vec<Mapping> = procfs::maps(pid)?
        .into_iter()
        .filter(|m| m.is_anonymous() && m.write)
        .collect();
    let mut states = Vec::with_capacity(mappings.len());
    for m in &mappings {
        let mut s = Vec::new();
        read_mapping(pid, pagemap, m, &mut s)?;
        states.push(s);
    }
    Ok(Read {
        mappings,
        states,
        faults: procfs::faults(pid)?,
        pressure: std::fs::read_to_string("/proc/pressure/memory")
            .ok()
            .and_then(|t| procfs::parse_pressure(&t)),
    })
}

/// Whether `pid` exists and is not a zombie (a zombie has no mappings
/// left to show).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rfind(')')
            .is_some_and(|i| !s[i + 1..].trim_start().starts_with(['Z', 'X']))
    })
}

/// The host's nodes with memory and their kernel tiers.
pub fn node_columns() -> Result<Vec<NodeColumn>, LiveError> {
    let tiers = numa::kernel_tiers().unwrap_or_default();
    Ok(numa::nodes()?
        .iter()
        .map(|n| NodeColumn {
            id: n.id,
            tier: tiers
                .iter()
                .find(|t| t.nodes.contains(&n.id))
                .map(|t| format!("memory_tier{}", t.rank)),
        })
        .collect())
}

/// The monitor of one process: reads it at each [`Monitor::sample`] and
/// makes the view of the interval since the one before.
pub struct Monitor {
    pid: i32,
    comm: String,
    pagemap: Pagemap,
    nodes: Vec<NodeColumn>,
    binning: Binning,
    sources: Vec<Box<dyn Telemetry>>,
    notes: Vec<String>,
    last: Option<(std::time::Instant, Read)>,
    start: std::time::Instant,
}

impl Monitor {
    /// Attaches to `pid` (ptrace-read access to its pagemap) with the
    /// `sources` of heat, best first; `notes` say what was left out and
    /// why. The first interval starts now.
    pub fn new(
        pid: i32,
        binning: Binning,
        mut sources: Vec<Box<dyn Telemetry>>,
        notes: Vec<String>,
    ) -> Result<Self, LiveError> {
        let pagemap = Pagemap::open(pid)?;
        let comm = procfs::read(
            std::path::Path::new(&format!("/proc/{pid}/comm")),
            Some(pid),
        )?
        .trim()
        .to_string();
        for s in &mut sources {
            s.begin(pid)?;
        }
        let first = read(pid, &pagemap)?;
        Ok(Monitor {
            pid,
            comm,
            pagemap,
            nodes: node_columns()?,
            binning,
            sources,
            notes,
            last: Some((std::time::Instant::now(), first)),
            start: std::time::Instant::now(),
        })
    }

    /// Lets each source look again while the interval runs (see
    /// [`telemetry::Telemetry::observe`]).
    pub fn observe(&mut self) {
        for s in &mut self.sources {
            s.observe();
        }
    }

    /// Reads the process again: the view of the interval since the last
    /// read, then the next interval starts. `Exited` once it is gone.
    pub fn sample(&mut self) -> Result<View, LiveError> {
        if !alive(self.pid) {
            return Err(LiveError::Exited { pid: self.pid });
        }
        let now = std::time::Instant::now();
        let r = read(self.pid, &self.pagemap)?;
        let ids: Vec<i32> = self.nodes.iter().map(|n| n.id).collect();
        let (interval_s, prev_states, rates) = match &self.last {
            Some((t, last)) => {
                let dt = now.duration_since(*t).as_secs_f64().max(1e-9);
                let prev: HashMap<u64, Vec<PageState>> = last
                    .mappings
                    .iter()
                    .zip(&last.states)
                    .map(|(m, s)| (m.start, s.clone()))
                    .collect();
                let share = |a: u64, b: u64| (b.saturating_sub(a)) as f64 / 1e6 / dt;
                let rates = Rates {
                    minor_faults_per_s: r.faults.minor.saturating_sub(last.faults.minor) as f64
                        / dt,
                    major_faults_per_s: r.faults.major.saturating_sub(last.faults.major) as f64
                        / dt,
                    pressure_some: r
                        .pressure
                        .zip(last.pressure)
                        .map(|(n, o)| share(o.some_us, n.some_us)),
                    pressure_full: r
                        .pressure
                        .zip(last.pressure)
                        .map(|(n, o)| share(o.full_us, n.full_us)),
                };
                (dt, Some(prev), Some(rates))
            }
            None => (0.0, None, None),
        };
        let mut bins = bins(
            &r.mappings,
            &r.states,
            prev_states.as_ref(),
            &ids,
            self.binning,
        );
        let states = telemetry::BinStates::new(&r.mappings, &r.states);
        let mut notes = self.notes.clone();
        let mut shown = None;
        for s in &mut self.sources {
            match s.heat(&bins, &states, interval_s) {
                Ok(h) => {
                    for (b, v) in bins.iter_mut().zip(h) {
                        b.signals.push((s.name().to_string(), v));
                        if shown.is_none() || shown == Some(s.name()) {
                            b.heat = Some(v);
                        }
                    }
                    if shown.is_none() {
                        shown = Some(s.name());
                    }
                }
                Err(LiveError::Exited { pid }) if pid == self.pid => {
                    return Err(LiveError::Exited { pid })
                }
                Err(e) => notes.push(format!("{}: {e}", s.name())),
            }
            s.begin(self.pid)?;
        }
        let heat_source = shown.and_then(|n| {
            self.sources
                .iter()
                .find(|s| s.name() == n)
                .map(|s| format!("{} ({})", s.name(), s.meaning()))
        });
        self.last = Some((now, r));
        Ok(View {
            pid: self.pid,
            comm: self.comm.clone(),
            t_s: (now.duration_since(self.start).as_secs_f64() * 1e3).round() / 1e3,
            interval_s: (interval_s * 1e3).round() / 1e3,
            nodes: self.nodes.clone(),
            heat_source,
            rates,
            bins,
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anon(start: u64, pages: u64) -> Mapping {
        Mapping {
            start,
            end: start + pages * PAGE,
            read: true,
            write: true,
            shared: false,
            path: String::new(),
        }
    }

    #[test]
    fn a_mapping_is_cut_at_multiples_of_the_width() {
        // 6 pages from 0x3000: bins [0x3000, 0x4000), [0x4000, 0x8000), [0x8000, 0x9000)
        let m = [anon(0x3000, 6)];
        let st = vec![vec![
            PageState::on(0, false),
            PageState::on(1, false),
            PageState::on(1, false),
            PageState::swapped_out(false),
            PageState::NONE,
            PageState::on(0, true),
        ]];
        let b = bins(&m, &st, None, &[0, 1], Binning::Width(0x4000));
        let spans: Vec<(u64, u64)> = b.iter().map(|b| (b.start, b.end)).collect();
        assert_eq!(
            spans,
            vec![(0x3000, 0x4000), (0x4000, 0x8000), (0x8000, 0x9000)]
        );
        assert_eq!(b[0].per_node, vec![1, 0]);
        assert_eq!(b[1].per_node, vec![0, 2]);
        assert_eq!(b[1].swapped, 1);
        assert_eq!(b[2].per_node, vec![1, 0]);
        assert!(b.iter().all(|b| b.came_in.is_none()));
        let whole = bins(&m, &st, None, &[0, 1], Binning::Mapping);
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0].per_node, vec![2, 2]);
        assert_eq!(whole[0].pages(), 6);
    }

    #[test]
    fn changes_since_the_last_read_are_counted_per_bin() {
        let m = [anon(0x10000, 4), anon(0x40000, 2)];
        let old = HashMap::from([(
            0x10000,
            vec![
                PageState::NONE,
                PageState::on(0, false),
                PageState::on(0, false),
                PageState::on(1, false),
            ],
        )]);
        let st = vec![
            vec![
                PageState::on(0, false),
                PageState::swapped_out(false),
                PageState::on(1, false),
                PageState::on(1, false),
            ],
            vec![PageState::on(0, false), PageState::NONE],
        ];
        let b = bins(&m, &st, Some(&old), &[0, 1], Binning::Mapping);
        assert_eq!(
            (b[0].came_in, b[0].went_out, b[0].moved),
            (Some(1), Some(1), Some(1))
        );
        // the second mapping is new: its present page came in
        assert_eq!(
            (b[1].came_in, b[1].went_out, b[1].moved),
            (Some(1), Some(0), Some(0))
        );
    }

    #[test]
    fn empty_mappings_are_left_out() {
        let m = [anon(0x1000, 2), anon(0x9000, 1)];
        let st = vec![vec![PageState::NONE; 2], vec![PageState::on(0, false)]];
        let b = bins(&m, &st, None, &[0], Binning::Mapping);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].start, 0x9000);
    }

    #[test]
    fn own_process_is_monitored_read_only() {
        let v = vec![5u8; 64 * PAGE as usize];
        let mut m = Monitor::new(
            std::process::id() as i32,
            Binning::Mapping,
            vec![Box::new(telemetry::PageIns)],
            Vec::new(),
        )
        .unwrap();
        let view = m.sample().unwrap();
        assert!(!view.bins.is_empty());
        assert!(view.rates.is_some());
        assert_eq!(
            view.heat_source
                .as_deref()
                .map(|s| s.starts_with("page-ins")),
            Some(true)
        );
        assert!(view
            .bins
            .iter()
            .all(|b| b.heat.is_some_and(|h| (0.0..=1.0).contains(&h))));
        assert_eq!(v[7], 5);
    }
}
