//! NPB kernels executed, not sketched: the NAS Parallel Benchmarks' data
//! structures and loops, ported to Rust from the NPB 3.0 OpenMP C sources
//! (`CG/cg.c`, `MG/mg.c`, `FT/ft.c`, `BT/bt.c`, `common/c_randdp.c`;
//! github.com/benchmark-subsetting/NPB3.0-omp-C),
//! run for real while the stream records the memory accesses they make.
//!
//! The numbers a kernel computes are the benchmark's: class S is checked
//! against NPB's published verification value in the unit tests, through the
//! same code path that emits the accesses. The accesses are those of the
//! arrays the loops read and write, at cache-line granularity:
//!
//! - **Threads.** Loops are split as OpenMP's static schedule splits them:
//!   thread `t` of `T` owns a contiguous `1/T` of the index range. The stream
//!   interleaves the threads one unit of work at a time (a matrix row, or up
//!   to eight vector elements), and a loop ends (the barrier) when every
//!   thread has finished its share; the serial code between loops (scalars)
//!   runs then.
//! - **Lines** (CG; MG, FT and BT record whole grid rows, FFT blocks or
//!   lines of points, see [`mg`], [`ft`], [`bt`]). Within one loop, a
//!   thread touches each 64-byte line of an array once for reads and once
//!   for writes while it stays on that line
//!   (an L1 would hold it); leaving the line and coming back, or a new loop,
//!   touches it again. An indirect read (CG's `p[colidx[k]]`) is an access
//!   unless it falls on the line the same thread's previous indirect read of
//!   that array touched.
//! - **First touch.** Before the kernel runs, a load phase stores to every
//!   4 KiB page of the arrays in the order the program first writes them, so
//!   that first-touch placement sees the program's order.
//! - **Length.** A run is a budget of accesses; the stream executes the
//!   benchmark's iterations in order and, when the benchmark's own iteration
//!   count is done, starts its timed section again, until the budget is
//!   spent. The benchmark's full length at the paper's sizes is minutes of
//!   machine time; simulating that access by access is not affordable, so the
//!   budget caps it (and says so in each preset).
//!
//! **Sizes.** NPB's classes fix the problem; Ambix (../shared/papers/004_5016d0e3a63ff357.txt,
//! section 5.4) "directly modif[ies] the parametrizations" so that footprints
//! are about 0.8x, 1.5x and 3.5x DRAM. We do the same: each kernel keeps the
//! class parameters that shape its structure (CG: class C's `nonzer` and
//! `shift`; MG: class B's cycles and smoother; FT: class B's steps; BT: the
//! 200 steps of classes A to C and the `dt` of the class whose grid is the
//! nearest at least as fine) and derives the matrix order (CG) or the grid
//! (MG: the largest cube that fits, stretched in z by a whole factor; FT: the
//! power-of-two box nearest in size; BT: the largest cube that fits) from the
//! footprint asked for,
//! relative to [`crate::ambix::DRAM_NOMINAL`] (the paper's 32 GB scaled 1/32).

pub mod bt;
pub mod cg;
pub mod ft;
pub mod mg;

use crate::{Access, LoadPhase, Pending, WorkloadError};
use thermocline_vocab::RegionInfo;

/// The kernels that are executed (the others are still the sweep sketches of
/// [`crate::ambix::npb`]).
pub const KERNELS: [&str; 4] = ["cg", "mg", "ft", "bt"];

/// The largest footprint asked of a kernel, in multiples of
/// [`crate::ambix::DRAM_NOMINAL`]: the arrays are real, so the host needs about
/// as much memory as the simulated footprint.
pub const MAX_SIZE_X: f64 = 8.0;

/// A kernel run: which kernel, its footprint relative to DRAM, threads and
/// the access budget after the load phase.
#[derive(Clone, Debug, PartialEq)]
pub struct NpbSpec {
    /// `cg`, `mg`, `ft` or `bt`.
    pub kernel: &'static str,
    /// Footprint in multiples of [`crate::ambix::DRAM_NOMINAL`].
    pub size_x: f64,
    /// Threads (OpenMP static schedule).
    pub threads: usize,
    /// Accesses after the load phase.
    pub accesses: u64,
}

/// A running kernel.
pub enum NpbStream {
    /// CG.
    Cg(Box<cg::CgStream>),
    /// MG.
    Mg(Box<mg::MgStream>),
    /// FT.
    Ft(Box<ft::FtStream>),
    /// BT.
    Bt(Box<bt::BtStream>),
}

impl NpbStream {
    /// Fills `buf`; returns how many accesses were written (0 at the end).
    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> usize {
        match self {
            NpbStream::Cg(s) => s.fill(buf),
            NpbStream::Mg(s) => s.fill(buf),
            NpbStream::Ft(s) => s.fill(buf),
            NpbStream::Bt(s) => s.fill(buf),
        }
    }

    /// Accesses of the load phase.
    pub fn load_accesses(&self) -> u64 {
        match self {
            NpbStream::Cg(s) => s.load_accesses(),
            NpbStream::Mg(s) => s.load_accesses(),
            NpbStream::Ft(s) => s.load_accesses(),
            NpbStream::Bt(s) => s.load_accesses(),
        }
    }
}

/// Builds a kernel run: its regions (laid out as [`crate::lay_out`] does) and
/// its stream.
pub fn build(spec: &NpbSpec, thp: bool) -> Result<(Vec<RegionInfo>, NpbStream), WorkloadError> {
    if !(spec.size_x.is_finite() && spec.size_x > 0.0 && spec.size_x <= MAX_SIZE_X) {
        return Err(WorkloadError::Invalid(format!(
            "npb {}: size must be a multiple of DRAM in (0, {MAX_SIZE_X}], got {}",
            spec.kernel, spec.size_x
        )));
    }
    let bytes = (spec.size_x * crate::ambix::DRAM_NOMINAL as f64) as u64;
    match spec.kernel {
        "cg" => {
            let p = cg::CgParams::for_footprint(bytes);
            let (regions, s) = cg::CgStream::build(p, spec.threads, spec.accesses, thp)?;
            Ok((regions, NpbStream::Cg(Box::new(s))))
        }
        "mg" => {
            let p = mg::MgParams::for_footprint(bytes);
            let regions = crate::lay_out(&mg::MgStream::plan(&p)?, thp);
            let bases: Vec<u64> = regions.iter().map(|r| r.start).collect();
            let s = mg::MgStream::new(p, spec.threads, &bases, spec.accesses)?;
            Ok((regions, NpbStream::Mg(Box::new(s))))
        }
        "ft" => {
            let p = ft::FtParams::for_footprint(bytes);
            let regions = crate::lay_out(&ft::FtStream::plan(&p)?, thp);
            let bases: Vec<u64> = regions.iter().map(|r| r.start).collect();
            let s = ft::FtStream::new(p, spec.threads, &bases, spec.accesses)?;
            Ok((regions, NpbStream::Ft(Box::new(s))))
        }
        "bt" => {
            let p = bt::BtParams::for_footprint(bytes);
            let regions = crate::lay_out(&bt::BtStream::plan(&p)?, thp);
            let bases: Vec<u64> = regions.iter().map(|r| r.start).collect();
            let s = bt::BtStream::new(p, spec.threads, &bases, spec.accesses)?;
            Ok((regions, NpbStream::Bt(Box::new(s))))
        }
        k => Err(WorkloadError::Invalid(format!(
            "npb kernel {k:?} is not executed (known: {})",
            KERNELS.join(", ")
        ))),
    }
}

/// A kernel's stream as the shared scheduler drives it: OpenMP's static
/// schedule, the threads interleaved one unit of work at a time, and a
/// loop's barrier once no thread has work left in it.
pub(crate) trait Kernel {
    /// Threads.
    fn threads(&self) -> usize;
    /// The thread whose turn it is next (round robin).
    fn next_thread(&mut self) -> &mut usize;
    /// Whether thread `t` has work left in the current loop.
    fn has_work(&self, t: usize) -> bool;
    /// Emits thread `t`'s next unit of work.
    fn unit(&mut self, t: usize, out: &mut Vec<Access>);
    /// Every thread finished the loop: the serial code after it, then the
    /// next loop.
    fn barrier(&mut self);
    /// The load phase and the access budget.
    fn feed(&mut self) -> &mut Feed;
    /// Runs before each step (CG assembles its matrix on first use).
    fn prepare(&mut self) {}

    /// Fills `buf`, load phase first; returns how many accesses were
    /// written (0 at the end).
    fn fill(&mut self, buf: &mut [Access]) -> usize
    where
        Self: Sized,
    {
        fill(self, buf)
    }
}

/// Runs `k` until at least one access is pending.
fn step<K: Kernel>(k: &mut K, out: &mut Vec<Access>) {
    k.prepare();
    let threads = k.threads();
    while out.is_empty() {
        let t0 = *k.next_thread();
        let found = (0..threads)
            .map(|i| (t0 + i) % threads)
            .find(|&t| k.has_work(t));
        match found {
            Some(t) => {
                *k.next_thread() = (t + 1) % threads;
                k.unit(t, out);
            }
            None => k.barrier(),
        }
    }
}

/// [`Kernel::fill`].
fn fill<K: Kernel>(k: &mut K, buf: &mut [Access]) -> usize {
    let threads = k.threads();
    let mut feed = std::mem::take(k.feed());
    let n = feed.fill(buf, threads, |out| step(k, out));
    *k.feed() = feed;
    n
}

/// NPB's linear congruential generator `x <- a x mod 2^46`, exactly as
/// `randlc` in `common/c_randdp.c` computes it in double precision; returns
/// `x * 2^-46` after the update.
pub fn randlc(x: &mut f64, a: f64) -> f64 {
    const R23: f64 = 1.0 / 8_388_608.0;
    const R46: f64 = R23 * R23;
    const T23: f64 = 8_388_608.0;
    const T46: f64 = T23 * T23;
    let t1 = R23 * a;
    let a1 = t1.trunc();
    let a2 = a - T23 * a1;
    let t1 = R23 * *x;
    let x1 = t1.trunc();
    let x2 = *x - T23 * x1;
    let t1 = a1 * x2 + a2 * x1;
    let t2 = (R23 * t1).trunc();
    let z = t1 - T23 * t2;
    let t3 = T23 * z + a2 * x2;
    let t4 = (R46 * t3).trunc();
    *x = t3 - T46 * t4;
    R46 * *x
}

/// A simulated array: its base address and element size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Array {
    pub(crate) base: u64,
    pub(crate) elem: u64,
}

/// Emits one thread's accesses, deduplicated per line as the module doc says.
/// Holds, per thread and array, the line last read, last written and last
/// read indirectly.
pub(crate) struct Lines {
    arrays: Vec<Array>,
    /// [thread * arrays + array] -> (last read line, last written line,
    /// last gathered line); `u64::MAX` for none.
    last: Vec<[u64; 3]>,
}

impl Lines {
    pub(crate) fn new(arrays: Vec<Array>, threads: usize) -> Self {
        let n = arrays.len() * threads;
        Lines {
            arrays,
            last: vec![[u64::MAX; 3]; n],
        }
    }

    /// Forgets every thread's lines (a loop ended).
    pub(crate) fn barrier(&mut self) {
        self.last.fill([u64::MAX; 3]);
    }

    #[inline]
    fn touch(&mut self, out: &mut Vec<Access>, t: usize, a: usize, i: usize, kind: usize) {
        let arr = self.arrays[a];
        let va = arr.base + i as u64 * arr.elem;
        let line = va >> 6;
        let slot = &mut self.last[t * self.arrays.len() + a][kind];
        if *slot != line {
            *slot = line;
            out.push(Access {
                va: line << 6,
                asid: 0,
                core: t as u16,
                write: kind == 1,
            });
        }
    }

    /// Thread `t` reads element `i` of array `a`.
    #[inline]
    pub(crate) fn read(&mut self, out: &mut Vec<Access>, t: usize, a: usize, i: usize) {
        self.touch(out, t, a, i, 0);
    }

    /// Thread `t` writes element `i` of array `a`.
    #[inline]
    pub(crate) fn write(&mut self, out: &mut Vec<Access>, t: usize, a: usize, i: usize) {
        self.touch(out, t, a, i, 1);
    }

    /// Thread `t` reads element `i` of array `a` through an index array.
    #[inline]
    pub(crate) fn gather(&mut self, out: &mut Vec<Access>, t: usize, a: usize, i: usize) {
        self.touch(out, t, a, i, 2);
    }
}

/// Thread `t`'s share `[lo, hi)` of `0..n` under OpenMP's static schedule.
pub(crate) fn share(n: usize, threads: usize, t: usize) -> (usize, usize) {
    let chunk = n.div_ceil(threads.max(1));
    ((t * chunk).min(n), ((t + 1) * chunk).min(n))
}

/// What every kernel's stream hands out: its load phase first, then the
/// accesses its `step` generates, up to an access budget.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    load: LoadPhase,
    /// The load phase's round-robin thread counter.
    load_core: usize,
    /// Accesses left in the budget after the load phase.
    left: u64,
    pending: Pending,
}

impl Feed {
    pub(crate) fn new(load: LoadPhase, budget: u64) -> Self {
        Feed {
            load,
            load_core: 0,
            left: budget,
            pending: Pending::default(),
        }
    }

    /// Fills `buf`; `step` generates at least one access into an empty
    /// vector. Returns how many accesses were written (0 at the end).
    pub(crate) fn fill(
        &mut self,
        buf: &mut [Access],
        threads: usize,
        mut step: impl FnMut(&mut Vec<Access>),
    ) -> usize {
        let mut n = self.load.fill(buf, &mut self.load_core, threads);
        while n < buf.len() && self.left > 0 {
            if self.pending.is_empty() {
                step(self.pending.refill());
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

    #[test]
    fn randlc_matches_the_lcg_in_integers() {
        // x_{k+1} = a x_k mod 2^46, checked in exact integer arithmetic.
        let a = 1_220_703_125u64;
        let (mut x, mut xi) = (314_159_265.0f64, 314_159_265u128);
        for _ in 0..1000 {
            let r = randlc(&mut x, a as f64);
            xi = xi * u128::from(a) % (1u128 << 46);
            assert_eq!(x, xi as f64);
            assert_eq!(r, xi as f64 / (1u64 << 46) as f64);
        }
    }

    #[test]
    fn shares_cover_the_range_once() {
        for (n, t) in [(10, 3), (7, 8), (1400, 32), (0, 4)] {
            let mut next = 0;
            for i in 0..t {
                let (lo, hi) = share(n, t, i);
                assert_eq!(lo.max(next), next.max(lo));
                assert!(lo <= hi);
                if hi > lo {
                    assert_eq!(lo, next);
                    next = hi;
                }
            }
            assert_eq!(next, n);
        }
    }
}
