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
use crate::{next_mod, Access, LoadPhase, Pending};

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
            if a.bytes < 64 * self.threads as u64
                || a.reads + a.writes == 0
                || a.lines_per_step == 0
            {
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

/// Accesses generated at a time, a whole number of steps: one step is only
/// a few accesses, too few to hand out one step at a time.
const STEPS_AT_LEAST: usize = 1024;

/// Generates a sweep's accesses.
pub struct SweepStream {
    spec: SweepSpec,
    bases: Vec<u64>,
    /// Per array: lines in each thread's slice.
    slice: Vec<u64>,
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
        let threads = spec.threads.max(1) as u64;
        let slice = spec.arrays.iter().map(|a| a.bytes / 64 / threads).collect();
        SweepStream {
            slice,
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
        let cursors = &mut self.cursor[t];
        for (i, a) in self.spec.arrays.iter().enumerate() {
            let first = self.slice[i] * t as u64;
            let wrap = self.slice[i].max(1);
            let reads = a.reads.max(u32::from(a.writes > 0));
            for _ in 0..a.lines_per_step {
                let c = &mut cursors[i];
                let va = self.bases[i] + (first + *c) * 64;
                *c = next_mod(*c, wrap);
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
                // steps thread after thread, as one at a time would give
                // them; those past `left` are never handed out
                let mut p = std::mem::take(&mut self.pending);
                let out = p.refill();
                while out.len() < STEPS_AT_LEAST && (out.len() as u64) < self.left {
                    let t = self.next_thread;
                    self.next_thread = next_mod(t, self.spec.threads);
                    self.step(t, out);
                }
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

    /// The sweep as its doc describes it, one access at a time: the
    /// reference the batched stream must equal.
    fn reference(s: &SweepSpec, bases: &[u64]) -> Vec<Access> {
        let mut out = Vec::new();
        let mut core = 0;
        for &i in &s.init_order {
            for off in (0..s.arrays[i].bytes).step_by(4096) {
                out.push(Access {
                    va: bases[i] + off,
                    asid: 0,
                    core: core as u16,
                    write: true,
                });
                core = (core + 1) % s.threads;
            }
        }
        let load = out.len();
        let threads = s.threads as u64;
        let mut cursor = vec![vec![0u64; s.arrays.len()]; s.threads];
        let mut t = core;
        while ((out.len() - load) as u64) < s.accesses {
            for (i, a) in s.arrays.iter().enumerate() {
                let slice = a.bytes / 64 / threads;
                for _ in 0..a.lines_per_step {
                    let va = bases[i] + (slice * t as u64 + cursor[t][i]) * 64;
                    cursor[t][i] = (cursor[t][i] + 1) % slice.max(1);
                    for k in 0..a.reads.max(u32::from(a.writes > 0)) + a.writes {
                        let write = k >= a.reads.max(u32::from(a.writes > 0));
                        out.push(Access {
                            va,
                            asid: 0,
                            core: t as u16,
                            write,
                        });
                    }
                }
            }
            t = (t + 1) % s.threads;
        }
        out.truncate(load + s.accesses as usize);
        out
    }

    proptest::proptest! {
        #[test]
        fn the_stream_is_the_reference_sweep_whatever_the_buffer(
            arrays in proptest::collection::vec((1u64..64, 0u32..3, 0u32..3, 1u32..5), 1..4),
            threads in 1usize..9,
            accesses in 0u64..5000,
            buf_len in 1usize..3000,
        ) {
            let spec = SweepSpec {
                arrays: arrays
                    .iter()
                    .enumerate()
                    .map(|(i, &(kib, reads, writes, lines))| SweepArray {
                        name: format!("a{i}"),
                        bytes: kib * 4096,
                        reads: reads.max(u32::from(writes == 0)),
                        writes,
                        lines_per_step: lines,
                    })
                    .collect(),
                threads,
                init_order: (0..arrays.len()).rev().collect(),
                accesses,
            };
            spec.validate().unwrap();
            let bases: Vec<u64> = (0..arrays.len() as u64).map(|i| (i + 1) << 30).collect();
            let mut st = SweepStream::new(spec.clone(), bases.clone());
            let mut buf = vec![Access::default(); buf_len];
            let mut got = Vec::new();
            loop {
                let n = st.fill(&mut buf);
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            proptest::prop_assert_eq!(got, reference(&spec, &bases));
        }
    }

    #[test]
    fn an_array_never_visited_is_refused() {
        let mut s = pb();
        s.arrays[0].lines_per_step = 0;
        assert!(s.validate().is_err());
    }
}
