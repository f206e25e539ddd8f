//! Array sweeps: threads stream through their share of several arrays in
//! lockstep, each array with its own intensity and read/write mix. This is
//! the shape of Ambix's microbenchmarks (../shared/papers/004_5016d0e3a63ff357.txt,
//! sections 3.2-3.3: IWB, PB) and of the NPB-like models.
//!
//! Each step, every thread visits `lines_per_step` consecutive lines of its
//! slice of every array (wrapping), reading each line `reads` times and then
//! writing it `writes` times (a written line is read first: "one read one
//! write", as IWB counts it). Before the sweep, a load phase writes one line
//! of every 4 KiB page in `init_order`, so that first-touch policies place
//! arrays in that order.

use crate::WorkloadError;
use crate::{Access, LoadPhase, Pending};

/// One array of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepArray {
    /// Name in reports.
    pub name: String,
    /// Bytes.
    pub bytes: u64,
    /// Loads per visited line.
    pub reads: u32,
    /// Stores per visited line (after the loads).
    pub writes: u32,
    /// Lines visited per thread per step (the array's relative intensity).
    pub lines_per_step: u32,
}

/// A whole sweep workload.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSpec {
    /// The arrays, in address order.
    pub arrays: Vec<SweepArray>,
    /// Threads.
    pub threads: usize,
    /// Order in which the load phase first touches the arrays.
    pub init_order: Vec<usize>,
    /// Accesses of the sweep phase.
    pub accesses: u64,
}

impl SweepSpec {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if self.arrays.is_empty() || self.threads == 0 || self.threads > 1024 {
            return Err(WorkloadError::Invalid(
                "a sweep needs arrays and 1..=1024 threads".into(),
            ));
        }
        for a in &self.arrays {
            if a.bytes < 64 * self.threads as u64 || a.reads + a.writes == 0 {
                return Err(WorkloadError::Invalid(format!(
                    "array {}: too small or never accessed",
                    a.name
                )));
            }
        }
        if self.init_order.iter().any(|&i| i >= self.arrays.len()) {
            return Err(WorkloadError::Invalid(
                "init_order names a missing array".into(),
            ));
        }
        Ok(())
    }

    /// (base, bytes) of the arrays at `bases`, in first-touch order.
    fn init_ranges(&self, bases: &[u64]) -> Vec<(u64, u64)> {
        self.init_order
            .iter()
            .map(|&i| (bases[i], self.arrays[i].bytes))
            .collect()
    }

    /// Accesses of the load phase.
    pub fn load_accesses(&self) -> u64 {
        let sizes: Vec<(u64, u64)> = self
            .init_order
            .iter()
            .map(|&i| (0, self.arrays[i].bytes))
            .collect();
        LoadPhase::accesses(&sizes)
    }

    /// Loads and stores per step of one thread.
    pub fn accesses_per_step(&self) -> (u64, u64) {
        self.arrays.iter().fold((0, 0), |(r, w), a| {
            let n = u64::from(a.lines_per_step);
            (
                r + n * u64::from(a.reads.max(u32::from(a.writes > 0))),
                w + n * u64::from(a.writes),
            )
        })
    }
}

/// Generates a sweep's accesses.
pub struct SweepStream {
    spec: SweepSpec,
    bases: Vec<u64>,
    /// Per thread and array: next line offset within the thread's slice.
    cursor: Vec<Vec<u64>>,
    load: LoadPhase,
    left: u64,
    pending: Pending,
    next_thread: usize,
}

impl SweepStream {
    /// A stream over arrays laid out at `bases`.
    pub fn new(spec: SweepSpec, bases: Vec<u64>) -> Self {
        let cursor = vec![vec![0; spec.arrays.len()]; spec.threads];
        SweepStream {
            load: LoadPhase::new(spec.init_ranges(&bases)),
            left: spec.accesses,
            cursor,
            bases,
            pending: Pending::default(),
            next_thread: 0,
            spec,
        }
    }

    /// Appends the accesses of one step of thread `t` to `out`.
    fn step(&mut self, t: usize, out: &mut Vec<Access>) {
        let threads = self.spec.threads as u64;
        for (i, a) in self.spec.arrays.iter().enumerate() {
            let lines = a.bytes / 64;
            let slice = lines / threads;
            let first = slice * t as u64;
            let reads = a.reads.max(u32::from(a.writes > 0));
            for _ in 0..a.lines_per_step {
                let c = &mut self.cursor[t][i];
                let va = self.bases[i] + (first + *c) * 64;
                *c = (*c + 1) % slice.max(1);
                for _ in 0..reads {
                    out.push(Access {
                        va,
                        asid: 0,
                        core: t as u16,
                        write: false,
                    });
                }
                for _ in 0..a.writes {
                    out.push(Access {
                        va,
                        asid: 0,
                        core: t as u16,
                        write: true,
                    });
                }
            }
        }
    }

    /// Fills `buf`; returns how many accesses were written (0 at the end).
    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> usize {
        let mut n = self
            .load
            .fill(buf, &mut self.next_thread, self.spec.threads);
        while n < buf.len() && self.left > 0 {
            if self.pending.is_empty() {
                let t = self.next_thread;
                self.next_thread = (t + 1) % self.spec.threads;
                let mut p = std::mem::take(&mut self.pending);
                self.step(t, p.refill());
                self.pending = p;
            }
            let take = self.pending.drain(&mut buf[n..], self.left);
            self.left -= take as u64;
            n += take;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pb() -> SweepSpec {
        SweepSpec {
            arrays: vec![
                SweepArray {
                    name: "read".into(),
                    bytes: 1 << 20,
                    reads: 1,
                    writes: 0,
                    lines_per_step: 1,
                },
                SweepArray {
                    name: "write".into(),
                    bytes: 1 << 20,
                    reads: 0,
                    writes: 1,
                    lines_per_step: 1,
                },
            ],
            threads: 4,
            init_order: vec![1, 0],
            accesses: 30_000,
        }
    }

    #[test]
    fn pb_sweeps_two_reads_per_write_and_loads_in_order() {
        let s = pb();
        s.validate().unwrap();
        assert_eq!(s.accesses_per_step(), (2, 1));
        let bases = vec![1 << 30, 2 << 30];
        let mut st = SweepStream::new(s.clone(), bases.clone());
        let mut buf = vec![Access::default(); 100_000];
        let n = st.fill(&mut buf);
        assert_eq!(n as u64, s.load_accesses() + 30_000);
        // The write array is first touched first.
        assert!(buf[..256].iter().all(|a| a.va >= 2 << 30 && a.write));
        assert!(buf[256..512].iter().all(|a| a.va < 2 << 30));
        let sweep = &buf[512..n];
        let writes = sweep.iter().filter(|a| a.write).count();
        assert_eq!(writes, 10_000);
        // Every store follows a load of the same line.
        for w in sweep.windows(2) {
            if w[1].write {
                assert!(!w[0].write && w[0].va == w[1].va);
            }
        }
        // Threads stay in their slices: thread t of 4 in quarter t.
        for a in sweep {
            let base = if a.va >= 2 << 30 { bases[1] } else { bases[0] };
            assert_eq!((a.va - base) / (256 << 10), u64::from(a.core));
        }
        assert_eq!(st.fill(&mut buf), 0);
    }
}
