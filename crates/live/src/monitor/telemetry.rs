//! Where the monitor's heat comes from: a small interface that each
//! telemetry source fills in, so that a new source (PEBS, say) is one more
//! implementation. None of them moves or pages out anything.

use super::Bin;
use crate::damon::{self, DamonAttrs, DamonOps, DamonSession};
use crate::pages::PageState;
use crate::procfs::Mapping;
use crate::sys::PAGE;
use crate::LiveError;

/// The page states of the bins of one read.
pub struct BinStates<'a> {
    mappings: &'a [Mapping],
    states: &'a [Vec<PageState>],
}

impl<'a> BinStates<'a> {
    /// Over a read's mappings (in address order) and their states.
    pub fn new(mappings: &'a [Mapping], states: &'a [Vec<PageState>]) -> Self {
        BinStates { mappings, states }
    }

    /// The states of the pages of `bin`.
    pub fn of(&self, bin: &Bin) -> &'a [PageState] {
        let i = self.mappings.partition_point(|m| m.start <= bin.start);
        let Some(k) = i.checked_sub(1) else {
            return &[];
        };
        let (m, st) = (&self.mappings[k], &self.states[k]);
        if bin.end > m.end {
            return &[];
        }
        let a = ((bin.start - m.start) / PAGE) as usize;
        let b = ((bin.end - m.start) / PAGE) as usize;
        st.get(a..b.min(st.len())).unwrap_or(&[])
    }
}

/// A source of heat.
pub trait Telemetry {
    /// Its name, in the view and the JSON.
    fn name(&self) -> &'static str;
    /// What its heat measures.
    fn meaning(&self) -> &'static str;
    /// Starts an interval on process `pid` (at the monitor's start and
    /// after each [`Telemetry::heat`]).
    fn begin(&mut self, pid: i32) -> Result<(), LiveError>;
    /// Looks once more during the interval, for a source whose reading
    /// covers less than an interval (the monitor calls it every
    /// [`OBSERVE_EVERY_S`] or so while it waits). Errors wait for
    /// [`Telemetry::heat`], which reports its own.
    fn observe(&mut self) {}
    /// Each bin's heat in 0..=1 over the interval that just ended
    /// (`interval_s` long; 0 before the first).
    fn heat(
        &mut self,
        bins: &[Bin],
        states: &BinStates,
        interval_s: f64,
    ) -> Result<Vec<f64>, LiveError>;
}

/// Pages brought in (faulted or swapped in) since the last read, as a
/// share of the bin's pages: an access signal for pages that were not
/// present, and no other. Always available.
pub struct PageIns;

impl Telemetry for PageIns {
    fn name(&self) -> &'static str {
        "page-ins"
    }

    fn meaning(&self) -> &'static str {
        "share of pages brought in since the last read; --writes or DAMON see more"
    }

    fn begin(&mut self, _pid: i32) -> Result<(), LiveError> {
        Ok(())
    }

    fn heat(&mut self, bins: &[Bin], _: &BinStates, _: f64) -> Result<Vec<f64>, LiveError> {
        Ok(bins
            .iter()
            .map(|b| b.came_in.unwrap_or(0) as f64 / b.pages().max(1) as f64)
            .collect())
    }
}

/// Soft-dirty bits: the share of a bin's pages written in the interval.
/// Clearing them (`clear_refs` 4) at each interval is a write to the
/// process's state that another user of soft-dirty bits (CRIU, the live
/// backend's Dirty bits) would notice: only on request (`--writes`).
pub struct SoftDirty;

impl Telemetry for SoftDirty {
    fn name(&self) -> &'static str {
        "writes"
    }

    fn meaning(&self) -> &'static str {
        "share of pages written in the interval, from soft-dirty bits"
    }

    fn begin(&mut self, pid: i32) -> Result<(), LiveError> {
        let path = format!("/proc/{pid}/clear_refs");
        std::fs::write(&path, "4").map_err(|e| LiveError::io(path, e, Some(pid)))
    }

    fn heat(&mut self, bins: &[Bin], states: &BinStates, _: f64) -> Result<Vec<f64>, LiveError> {
        Ok(bins
            .iter()
            .map(|b| {
                let st = states.of(b);
                let written = st.iter().filter(|s| s.dirty()).count();
                written as f64 / b.pages().max(1) as f64
            })
            .collect())
    }
}

/// How often, in seconds, the monitor asks its sources to look again
/// while it waits for the end of an interval.
pub const OBSERVE_EVERY_S: f64 = 0.5;

/// The kernel's DAMON on the process (vaddr), through a kdamond of this
/// process's own: a bin's heat is its bytes' mean `nr_accesses` over the
/// most there can be, averaged over the aggregation intervals snapshotted
/// during the monitor's interval (one per [`OBSERVE_EVERY_S`] and one at
/// its end). One snapshot covers only DAMON's last aggregation interval
/// (100 ms): a process that happened to be off the CPU then (a busy guest
/// once read heat 0 everywhere while the hot region was being written)
/// would look idle. DAMON clears the Accessed bits it samples (as reclaim
/// does) and moves nothing.
pub struct Damon {
    session: DamonSession,
    pid: i32,
    /// The interval's snapshots so far, each sorted by address.
    snapshots: Vec<Vec<damon::DamonRegion>>,
}

impl Damon {
    /// Starts a kdamond on `pid` with damo's intervals (5 ms samples, 100
    /// ms aggregation), only when no other kdamond exists: it never takes
    /// over another user's ([`damon::ensure_unowned`]). Needs root.
    pub fn start(pid: i32) -> Result<Self, LiveError> {
        damon::ensure_unowned(&[])?;
        let session = DamonSession::start(DamonOps::Vaddr(vec![pid]), DamonAttrs::default(), &[])?;
        Ok(Damon {
            session,
            pid,
            snapshots: Vec::new(),
        })
    }

    /// The regions of DAMON's last aggregation interval, sorted by address.
    /// DAMON keeps at least one region per live target, so an empty
    /// snapshot is a read that missed the kernel's update: ask again.
    fn snapshot(&mut self) -> Result<Vec<damon::DamonRegion>, LiveError> {
        for _ in 0..EMPTY_SNAPSHOT_READS {
            let mut regions = match self.session.regions() {
                Ok(r) => r,
                // its kdamond stops when the process exits
                Err(LiveError::Exited { .. }) => return Err(LiveError::Exited { pid: self.pid }),
                Err(e) => return Err(e),
            };
            regions.retain(|r| r.target == 0);
            if !regions.is_empty() {
                regions.sort_by_key(|r| r.start);
                return Ok(regions);
            }
        }
        Err(LiveError::Busy(format!(
            "DAMON's tried-regions snapshot of pid {} was empty {EMPTY_SNAPSHOT_READS} times in a row",
            self.pid
        )))
    }
}

/// How many times [`Damon`] asks for a snapshot before an empty one is an
/// error.
const EMPTY_SNAPSHOT_READS: usize = 3;

/// Each bin's mean access frequency under `regions` (of one target), over
/// `max` (the most `nr_accesses` can be).
pub fn damon_heat(bins: &[Bin], regions: &[damon::DamonRegion], max: u32) -> Vec<f64> {
    let max = f64::from(max.max(1));
    bins.iter()
        .map(|b| {
            let first = regions.partition_point(|r| r.end <= b.start);
            let mut sum = 0.0;
            for r in regions[first..].iter().take_while(|r| r.start < b.end) {
                let overlap = r.end.min(b.end).saturating_sub(r.start.max(b.start));
                sum += overlap as f64 * f64::from(r.nr_accesses);
            }
            (sum / (b.end - b.start).max(1) as f64 / max).clamp(0.0, 1.0)
        })
        .collect()
}

/// Each bin's [`damon_heat`] averaged over `snapshots` (none: all 0).
pub fn mean_damon_heat(bins: &[Bin], snapshots: &[Vec<damon::DamonRegion>], max: u32) -> Vec<f64> {
    let mut sum = vec![0.0; bins.len()];
    for regions in snapshots {
        for (s, h) in sum.iter_mut().zip(damon_heat(bins, regions, max)) {
            *s += h;
        }
    }
    let n = snapshots.len().max(1) as f64;
    sum.into_iter().map(|s| s / n).collect()
}

impl Telemetry for Damon {
    fn name(&self) -> &'static str {
        "damon"
    }

    fn meaning(&self) -> &'static str {
        "DAMON's access frequency, averaged over its aggregation intervals snapshotted in the interval"
    }

    fn begin(&mut self, _pid: i32) -> Result<(), LiveError> {
        self.snapshots.clear();
        Ok(())
    }

    fn observe(&mut self) {
        // a failed look leaves the interval to the others; heat's own last
        // snapshot reports what is wrong
        if let Ok(r) = self.snapshot() {
            self.snapshots.push(r);
        }
    }

    fn heat(&mut self, bins: &[Bin], _: &BinStates, _: f64) -> Result<Vec<f64>, LiveError> {
        let last = self.snapshot()?;
        self.snapshots.push(last);
        Ok(mean_damon_heat(
            bins,
            &self.snapshots,
            self.session.attrs().max_nr_accesses(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(start: u64, end: u64) -> Bin {
        Bin {
            start,
            end,
            mapping: "anon".into(),
            per_node: vec![],
            swapped: 0,
            came_in: Some(0),
            went_out: Some(0),
            moved: Some(0),
            signals: vec![],
            heat: None,
        }
    }

    fn region(start: u64, end: u64, nr_accesses: u32) -> damon::DamonRegion {
        damon::DamonRegion {
            target: 0,
            start,
            end,
            nr_accesses,
            age: 0,
        }
    }

    #[test]
    fn damon_regions_weigh_in_by_the_bytes_they_share_with_a_bin() {
        let bins = [bin(0x0, 0x4000), bin(0x4000, 0x8000), bin(0x8000, 0x9000)];
        // 0x0-0x2000 at 20 of 20, 0x2000-0x6000 at 10, 0x6000-0x10000 idle
        let regions = [
            region(0x0, 0x2000, 20),
            region(0x2000, 0x6000, 10),
            region(0x6000, 0x10000, 0),
        ];
        let h = damon_heat(&bins, &regions, 20);
        assert_eq!(h, vec![0.75, 0.25, 0.0]);
    }

    #[test]
    fn damon_heat_is_the_mean_over_the_intervals_snapshots() {
        let bins = [bin(0x0, 0x4000), bin(0x4000, 0x8000)];
        // the first bin idle in one snapshot (its process off the CPU),
        // busy in the other two; the second idle throughout
        let snapshots = [
            vec![region(0x0, 0x8000, 0)],
            vec![region(0x0, 0x4000, 20), region(0x4000, 0x8000, 0)],
            vec![region(0x0, 0x4000, 10), region(0x4000, 0x8000, 0)],
        ];
        let h = mean_damon_heat(&bins, &snapshots, 20);
        assert_eq!(h, vec![0.5, 0.0]);
        assert_eq!(mean_damon_heat(&bins, &[], 20), vec![0.0, 0.0]);
    }

    #[test]
    fn soft_dirty_heat_is_the_written_share_of_the_bin() {
        let m = [Mapping {
            start: 0x1000,
            end: 0x5000,
            read: true,
            write: true,
            shared: false,
            path: String::new(),
        }];
        let st = vec![vec![
            PageState::on(0, true),
            PageState::on(0, false),
            PageState::swapped_out(true),
            PageState::NONE,
        ]];
        let states = BinStates::new(&m, &st);
        let bins = [bin(0x1000, 0x3000), bin(0x3000, 0x5000)];
        assert_eq!(states.of(&bins[1]).len(), 2);
        let h = SoftDirty.heat(&bins, &states, 1.0).unwrap();
        assert_eq!(h, vec![0.5, 0.5]);
    }
}
