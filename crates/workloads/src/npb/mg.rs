//! NPB MG, executed: `MG/mg.c` of NPB 3.0 (OpenMP C), ported routine for
//! routine: `zran3` (NPB's generator, +1 at the ten largest and -1 at the ten
//! smallest points), the V-cycle `mg3P` (`rprj3` down, `psinv` on the
//! coarsest grid, `interp`, `resid`, `psinv` up), `comm3`'s periodic borders,
//! `norm2u3`, and `main`'s sequence (one untimed cycle, re-initialisation,
//! then `nit` cycles). Class S gives NPB's `rnm2` (0.530770700573e-04) within
//! NPB's own tolerance (1e-8), by the same code that emits the accesses.
//!
//! What differs from the C program, and why:
//! - Levels of `u` and `r` are stored one after the other in one array each,
//!   finest first, as NPB's Fortran (and 3.4, which the paper ran) lays them
//!   out (`ir(k)`); the C version mallocs every row.
//! - Grids are cubes of `n = 2^lt` points a side (as every NPB class is), so
//!   the coarsest grid is 2^3 and the branches of `rprj3` and `interp` for a
//!   one-point grid (`m = 3`) are never taken; they are not ported.
//! - `zran3` runs on thread 0 (it is serial in the C program too, except its
//!   zeroing, which is parallel here as there).
//! - The norms `main` only prints (of `v` after `zran3`, of `r` before the
//!   cycles) are not computed; the one it verifies, after the last cycle, is.
//! - Sizes between cubes: the grid may be stretched in z by a whole factor
//!   (`nz_factor`), which NPB's code allows (class U) and which only the
//!   footprint knob uses; verification is on the classes' cubes.
//! - Run length: see [`super`] (a budget of accesses; the timed section
//!   repeats when `nit` cycles are done).
//!
//! Accesses are recorded a grid row at a time: a loop's unit of work is one
//! `(i3, i2)` row; it touches every line of each row it reads or writes,
//! except rows the same thread touched in the same way in its previous unit
//! (which a cache of a few rows holds: the stencils' neighbours in `i2`).
//! Simulated arrays, in first-touch order: `u` (zeroed first), `v` (`zran3`),
//! `r` (the first `resid`).

use super::{randlc, share};
use super::{Feed, Kernel};
use crate::{Access, LoadPhase, WorkloadError};

/// MG's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct MgParams {
    /// log2 of the grid's side in x and y (levels).
    pub lt: u32,
    /// The grid's z side in multiples of its x side (1: a cube, as every
    /// NPB class is; more: a box, to reach footprints between cubes).
    pub nz_factor: usize,
    /// Timed V-cycles.
    pub nit: usize,
}

impl MgParams {
    /// NPB's class `c` and its published `rnm2` (`mg.c`, `main`).
    pub fn class(c: char) -> Option<(MgParams, f64)> {
        let (lt, nit, rnm2) = match c {
            'S' => (5, 4, 0.530_770_700_573e-04),
            'W' => (6, 40, 0.250_391_406_439e-17),
            'A' => (8, 4, 0.243_336_530_9e-5),
            'B' => (8, 20, 0.180_056_440_132e-5),
            'C' => (9, 20, 0.570_674_826_298e-06),
            _ => return None,
        };
        Some((
            MgParams {
                lt,
                nz_factor: 1,
                nit,
            },
            rnm2,
        ))
    }

    /// The largest cube whose arrays take at most `bytes` (at least 2^3),
    /// stretched in z by the whole factor that comes nearest `bytes`, with
    /// class B's 20 cycles and S(b) smoother.
    pub fn for_footprint(bytes: u64) -> MgParams {
        let mut lt = 3;
        while lt < 10 && Grid::bytes(lt + 1, 1) <= bytes {
            lt += 1;
        }
        let cube = Grid::bytes(lt, 1) as f64;
        let nz_factor = ((bytes as f64 / cube).round() as usize).clamp(1, 64);
        MgParams {
            lt,
            nz_factor,
            nit: 20,
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if !(2..=10).contains(&self.lt) || !(1..=64).contains(&self.nz_factor) || self.nit == 0 {
            return Err(WorkloadError::Invalid(
                "npb mg: lt must be in 2..=10, nz_factor in 1..=64 and nit at least 1".into(),
            ));
        }
        if Grid::bytes(self.lt, self.nz_factor) > 64 << 30 {
            return Err(WorkloadError::Invalid(
                "npb mg: the grid would take more than 64 GiB".into(),
            ));
        }
        Ok(())
    }
}

/// Grid geometry: level `k` (1..=lt) has `m(k) = 2^k + 2` points in x and y
/// and `m3(k) = q 2^k + 2` in z (with the borders), at offset `off[k]` in `u`
/// and `r`.
struct Grid {
    lt: usize,
    m: Vec<usize>,
    m3: Vec<usize>,
    off: Vec<usize>,
    /// Elements of `u` (and `r`): all levels.
    total: usize,
}

impl Grid {
    fn new(lt: u32, q: usize) -> Grid {
        let lt = lt as usize;
        let mut m = vec![0; lt + 1];
        let mut m3 = vec![0; lt + 1];
        let mut off = vec![0; lt + 1];
        let mut at = 0;
        for k in (1..=lt).rev() {
            m[k] = (1 << k) + 2;
            m3[k] = q * (1 << k) + 2;
            off[k] = at;
            at += m[k] * m[k] * m3[k];
        }
        Grid {
            lt,
            m,
            m3,
            off,
            total: at,
        }
    }

    /// Points of level `k`, borders included.
    fn cells(&self, k: usize) -> usize {
        self.m[k] * self.m[k] * self.m3[k]
    }

    /// Bytes of `u`, `v` and `r`.
    fn bytes(lt: u32, q: usize) -> u64 {
        let g = Grid::new(lt, q);
        ((2 * g.total + g.cells(g.lt)) * 8) as u64
    }

    #[inline]
    fn at(&self, k: usize, i3: usize, i2: usize) -> usize {
        let m = self.m[k];
        self.off[k] + (i3 * m + i2) * m
    }
}

// Arrays.
const U: usize = 0;
const V: usize = 1;
const R: usize = 2;
const NAMES: [&str; 3] = ["u", "v", "r"];

/// One parallel loop (or serial piece) of the program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    /// z = 0 on array `0` at level `1`.
    Zero3(usize, usize),
    /// zran3's fill of v with NPB's generator (thread 0, row by row).
    ZranFill,
    /// zran3's search for the ten largest and smallest (thread 0).
    ZranSearch,
    /// zran3's +1/-1 points.
    ZranSet,
    /// comm3 axes 1 and 2 on array, level.
    Comm3a(usize, usize),
    /// comm3 axis 3 on array, level.
    Comm3b(usize, usize),
    /// r(k) = v - A u(k), `v` from array V or R (at level k).
    Resid(usize, usize),
    /// u(k) += C r(k).
    Psinv(usize),
    /// r(k-1) = P r(k).
    Rprj3(usize),
    /// u(k) += Q u(k-1).
    Interp(usize),
    /// norm of r(lt): the verified value when it ends a benchmark.
    Norm2,
}

/// An MG run: the kernel's state and the stream of its accesses.
pub struct MgStream {
    g: Grid,
    u: Vec<f64>,
    v: Vec<f64>,
    r: Vec<f64>,
    a: [f64; 4],
    c: [f64; 4],
    threads: usize,
    bases: [u64; 3],
    /// The benchmark: `setup` ops, then the timed ops (repeated).
    program: Vec<Op>,
    /// First op of the timed section.
    timed: usize,
    op: usize,
    /// Per thread: (outer, inner) cursor and end of its outer share.
    cursor: Vec<(usize, usize)>,
    end: Vec<usize>,
    next_thread: usize,
    partial: Vec<f64>,
    /// Rows touched per thread in this unit and the previous one:
    /// (array, row start, write).
    rows_now: Vec<Vec<(usize, usize, bool)>>,
    rows_prev: Vec<Vec<(usize, usize, bool)>>,
    scratch: [Vec<f64>; 3],
    /// zran3's generator state.
    x0: f64,
    x1: f64,
    ten: [[f64; 2]; 10],
    jten: [[[usize; 3]; 2]; 10],
    rnm2: f64,
    passes: usize,
    verified: Option<f64>,
    feed: Feed,
}

const A5: f64 = 1_220_703_125.0;

/// `power` in `mg.c`: `a^n mod 2^46` by NPB's generator.
fn power(a: f64, n: usize) -> f64 {
    let mut p = 1.0;
    let mut nj = n;
    let mut aj = a;
    while nj != 0 {
        if nj % 2 == 1 {
            randlc(&mut p, aj);
        }
        let a2 = aj;
        randlc(&mut aj, a2);
        nj /= 2;
    }
    p
}

impl MgStream {
    /// An MG run of `accesses` kernel accesses by `threads` threads, its
    /// arrays (`u`, `v`, `r`) at `bases`.
    pub fn new(
        params: MgParams,
        threads: usize,
        bases: &[u64],
        accesses: u64,
    ) -> Result<MgStream, WorkloadError> {
        params.validate()?;
        if threads == 0 || threads > 1024 {
            return Err(WorkloadError::Invalid(
                "npb mg: threads must be in 1..=1024".into(),
            ));
        }
        let &[bu, bv, br] = bases else {
            return Err(WorkloadError::Invalid(format!(
                "npb mg: {} bases given for 3 arrays",
                bases.len()
            )));
        };
        let g = Grid::new(params.lt, params.nz_factor);
        let lt = g.lt;
        let fine = g.cells(lt);
        let sizes = Self::sizes_of(&g);
        let load = LoadPhase::new(vec![(bu, sizes[U]), (bv, sizes[V]), (br, sizes[R])]);
        // The S(a) smoother for classes S, W and A, S(b) otherwise.
        let c = if matches!((lt, params.nit), (5, 4) | (6, 40) | (8, 4)) {
            [-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0]
        } else {
            [-3.0 / 17.0, 1.0 / 33.0, -1.0 / 61.0, 0.0]
        };
        let mut program = vec![Op::Zero3(U, lt)];
        Self::zran3(&mut program, lt);
        program.extend([Op::Resid(V, lt), Op::Comm3a(R, lt), Op::Comm3b(R, lt)]);
        Self::mg3p(&mut program, lt);
        program.extend([Op::Resid(V, lt), Op::Comm3a(R, lt), Op::Comm3b(R, lt)]);
        program.push(Op::Zero3(U, lt));
        Self::zran3(&mut program, lt);
        let timed = program.len();
        program.extend([Op::Resid(V, lt), Op::Comm3a(R, lt), Op::Comm3b(R, lt)]);
        for _ in 0..params.nit {
            Self::mg3p(&mut program, lt);
            program.extend([Op::Resid(V, lt), Op::Comm3a(R, lt), Op::Comm3b(R, lt)]);
        }
        program.push(Op::Norm2);
        let m = g.m[lt];
        let mut s = MgStream {
            u: vec![0.0; g.total],
            v: vec![0.0; fine],
            r: vec![0.0; g.total],
            a: [-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0],
            c,
            threads,
            bases: [bu, bv, br],
            program,
            timed,
            op: 0,
            cursor: vec![(0, 0); threads],
            end: vec![0; threads],
            next_thread: 0,
            partial: vec![0.0; threads],
            rows_now: vec![Vec::with_capacity(32); threads],
            rows_prev: vec![Vec::with_capacity(32); threads],
            scratch: [vec![0.0; m], vec![0.0; m], vec![0.0; m]],
            x0: 0.0,
            x1: 0.0,
            ten: [[0.0; 2]; 10],
            jten: [[[0; 3]; 2]; 10],
            rnm2: 0.0,
            passes: 0,
            verified: None,
            feed: Feed::new(load, accesses),
            g,
        };
        s.start_op();
        Ok(s)
    }

    fn sizes_of(g: &Grid) -> [u64; 3] {
        let page = |n: usize| ((n * 8) as u64).div_ceil(4096) * 4096;
        [page(g.total), page(g.cells(g.lt)), page(g.total)]
    }

    /// (name, bytes) of the arrays a run with `params` maps.
    pub fn plan(params: &MgParams) -> Result<Vec<(String, u64)>, WorkloadError> {
        params.validate()?;
        let s = Self::sizes_of(&Grid::new(params.lt, params.nz_factor));
        Ok(NAMES
            .iter()
            .zip(s)
            .map(|(n, b)| (n.to_string(), b))
            .collect())
    }

    /// Accesses of the load phase.
    pub fn load_accesses(&self) -> u64 {
        let s = Self::sizes_of(&self.g);
        LoadPhase::accesses(&[(0, s[0]), (0, s[1]), (0, s[2])])
    }

    /// `rnm2` when the first whole benchmark has finished.
    pub fn verified_rnm2(&self) -> Option<f64> {
        self.verified
    }

    fn zran3(p: &mut Vec<Op>, lt: usize) {
        p.extend([
            Op::Zero3(V, lt),
            Op::ZranFill,
            Op::ZranSearch,
            Op::Zero3(V, lt),
            Op::ZranSet,
            Op::Comm3a(V, lt),
            Op::Comm3b(V, lt),
        ]);
    }

    fn mg3p(p: &mut Vec<Op>, lt: usize) {
        for k in (2..=lt).rev() {
            p.extend([Op::Rprj3(k), Op::Comm3a(R, k - 1), Op::Comm3b(R, k - 1)]);
        }
        p.extend([
            Op::Zero3(U, 1),
            Op::Psinv(1),
            Op::Comm3a(U, 1),
            Op::Comm3b(U, 1),
        ]);
        for k in 2..lt {
            p.extend([
                Op::Zero3(U, k),
                Op::Interp(k),
                Op::Resid(R, k),
                Op::Comm3a(R, k),
                Op::Comm3b(R, k),
                Op::Psinv(k),
                Op::Comm3a(U, k),
                Op::Comm3b(U, k),
            ]);
        }
        p.extend([
            Op::Interp(lt),
            Op::Resid(V, lt),
            Op::Comm3a(R, lt),
            Op::Comm3b(R, lt),
            Op::Psinv(lt),
            Op::Comm3a(U, lt),
            Op::Comm3b(U, lt),
        ]);
    }

    /// The loop bounds of an op: (outer range, inner range, serial).
    fn bounds(&self, op: Op) -> ((usize, usize), (usize, usize), bool) {
        let lt = self.g.lt;
        let m = |k: usize| self.g.m[k];
        let m3 = |k: usize| self.g.m3[k];
        match op {
            Op::Zero3(_, k) => ((0, m3(k)), (0, m(k)), false),
            Op::ZranFill => ((1, m3(lt) - 1), (1, m(lt) - 1), true),
            Op::ZranSearch => ((1, m3(lt) - 1), (1, m(lt) - 1), true),
            Op::ZranSet => ((0, 1), (0, 1), true),
            Op::Comm3a(_, k) => ((1, m3(k) - 1), (0, 1), false),
            Op::Comm3b(_, k) => ((0, m(k)), (0, 1), false),
            Op::Resid(_, k) | Op::Psinv(k) => ((1, m3(k) - 1), (1, m(k) - 1), false),
            Op::Rprj3(k) => ((1, m3(k - 1) - 1), (1, m(k - 1) - 1), false),
            Op::Interp(k) => ((0, m3(k - 1) - 1), (0, m(k - 1) - 1), false),
            Op::Norm2 => ((1, m3(lt) - 1), (1, m(lt) - 1), false),
        }
    }

    fn start_op(&mut self) {
        let op = self.program[self.op];
        let ((lo, hi), (ilo, _), serial) = self.bounds(op);
        for t in 0..self.threads {
            let (a, b) = if serial {
                if t == 0 {
                    (lo, hi)
                } else {
                    (hi, hi)
                }
            } else {
                let (a, b) = share(hi - lo, self.threads, t);
                (lo + a, lo + b)
            };
            self.cursor[t] = (a, ilo);
            self.end[t] = b;
            self.rows_now[t].clear();
            self.rows_prev[t].clear();
        }
        self.next_thread = 0;
        match op {
            Op::ZranFill => {
                self.x0 = 314_159_265.0;
                randlc(&mut self.x0, power(A5, 0));
            }
            Op::ZranSearch => {
                for i in 0..10 {
                    self.ten[i] = [1.0, 0.0];
                    self.jten[i] = [[0; 3]; 2];
                }
            }
            _ => {}
        }
    }

    /// Records that thread `t` reads (or writes) row `(k, i3, i2)` of `arr`.
    fn row(&mut self, out: &mut Vec<Access>, t: usize, arr: usize, at: usize, write: bool) {
        let key = (arr, at, write);
        if self.rows_now[t].contains(&key) || self.rows_prev[t].contains(&key) {
            return;
        }
        self.rows_now[t].push(key);
        let m = self.row_len(arr, at);
        let first = (self.bases[arr] + at as u64 * 8) >> 6;
        let last = (self.bases[arr] + (at + m) as u64 * 8 - 1) >> 6;
        for line in first..=last {
            out.push(Access {
                va: line << 6,
                asid: 0,
                core: t as u16,
                write,
            });
        }
    }

    /// Elements in the row starting at `at` (its level's side).
    fn row_len(&self, arr: usize, at: usize) -> usize {
        if arr == V {
            return self.g.m[self.g.lt];
        }
        (1..=self.g.lt)
            .find(|&k| at >= self.g.off[k] && at < self.g.off[k] + self.g.cells(k))
            .map_or(1, |k| self.g.m[k])
    }

    /// One unit (row) of thread `t`.
    fn unit(&mut self, t: usize, out: &mut Vec<Access>) {
        let op = self.program[self.op];
        let (_, (ilo, ihi), _) = self.bounds(op);
        let (i3, i2) = self.cursor[t];
        self.cursor[t] = if i2 + 1 < ihi {
            (i3, i2 + 1)
        } else {
            (i3 + 1, ilo)
        };
        let prev = std::mem::take(&mut self.rows_prev[t]);
        let mut now = std::mem::take(&mut self.rows_now[t]);
        std::mem::swap(&mut self.rows_prev[t], &mut now);
        self.rows_now[t] = prev;
        self.rows_now[t].clear();
        let lt = self.g.lt;
        match op {
            Op::Zero3(arr, k) => {
                let at = self.at(arr, k, i3, i2);
                let m = self.g.m[k];
                self.arr_mut(arr)[at..at + m].fill(0.0);
                self.row(out, t, arr, at, true);
            }
            Op::ZranFill => {
                let (a1, a2) = (
                    power(A5, self.g.m[lt] - 2),
                    power(A5, (self.g.m[lt] - 2).pow(2)),
                );
                if i2 == 1 {
                    self.x1 = self.x0;
                }
                let at = self.g.at(lt, i3, i2) - self.g.off[lt];
                let mut xx = self.x1;
                for i1 in 1..self.g.m[lt] - 1 {
                    self.v[at + i1] = randlc(&mut xx, A5);
                }
                self.row(out, t, V, at, true);
                randlc(&mut self.x1, a1);
                if i2 + 2 == self.g.m[lt] {
                    randlc(&mut self.x0, a2);
                }
            }
            Op::ZranSearch => {
                let at = self.g.at(lt, i3, i2) - self.g.off[lt];
                self.row(out, t, V, at, false);
                for i1 in 1..self.g.m[lt] - 1 {
                    let z = self.v[at + i1];
                    if z > self.ten[0][1] {
                        self.ten[0][1] = z;
                        self.jten[0][1] = [i1, i2, i3];
                        self.bubble(1);
                    }
                    if z < self.ten[0][0] {
                        self.ten[0][0] = z;
                        self.jten[0][0] = [i1, i2, i3];
                        self.bubble(0);
                    }
                }
            }
            Op::ZranSet => {
                for ind in [0, 1] {
                    for i in (0..10).rev() {
                        let [i1, i2, i3] = self.jten[i][ind];
                        let at = self.g.at(lt, i3, i2) - self.g.off[lt];
                        self.v[at + i1] = if ind == 0 { -1.0 } else { 1.0 };
                        self.row(out, t, V, at, true);
                    }
                }
            }
            Op::Comm3a(arr, k) => {
                let m = self.g.m[k];
                for j2 in 1..m - 1 {
                    let at = self.at(arr, k, i3, j2);
                    let z = self.arr_mut(arr);
                    z[at + m - 1] = z[at + 1];
                    z[at] = z[at + m - 2];
                    self.row(out, t, arr, at, false);
                    self.row(out, t, arr, at, true);
                }
                let (top, one, low, last) = (
                    self.at(arr, k, i3, m - 1),
                    self.at(arr, k, i3, 1),
                    self.at(arr, k, i3, 0),
                    self.at(arr, k, i3, m - 2),
                );
                let z = self.arr_mut(arr);
                z.copy_within(one..one + m, top);
                z.copy_within(last..last + m, low);
                for (at, w) in [(one, false), (top, true), (last, false), (low, true)] {
                    self.row(out, t, arr, at, w);
                }
            }
            Op::Comm3b(arr, k) => {
                // The outer index of this loop is i2.
                let (m, m3) = (self.g.m[k], self.g.m3[k]);
                let (top, one, low, last) = (
                    self.at(arr, k, m3 - 1, i3),
                    self.at(arr, k, 1, i3),
                    self.at(arr, k, 0, i3),
                    self.at(arr, k, m3 - 2, i3),
                );
                let z = self.arr_mut(arr);
                z.copy_within(one..one + m, top);
                z.copy_within(last..last + m, low);
                for (at, w) in [(one, false), (top, true), (last, false), (low, true)] {
                    self.row(out, t, arr, at, w);
                }
            }
            Op::Resid(src, k) => self.resid_row(out, t, src, k, i3, i2),
            Op::Psinv(k) => self.psinv_row(out, t, k, i3, i2),
            Op::Rprj3(k) => self.rprj3_row(out, t, k, i3, i2),
            Op::Interp(k) => self.interp_row(out, t, k, i3, i2),
            Op::Norm2 => {
                let at = self.g.at(lt, i3, i2);
                self.row(out, t, R, at, false);
                let m = self.g.m[lt];
                for i1 in 1..m - 1 {
                    let x = self.r[at + i1];
                    self.partial[t] += x * x;
                }
            }
        }
    }

    fn at(&self, arr: usize, k: usize, i3: usize, i2: usize) -> usize {
        if arr == V {
            self.g.at(k, i3, i2) - self.g.off[k]
        } else {
            self.g.at(k, i3, i2)
        }
    }

    fn arr_mut(&mut self, arr: usize) -> &mut Vec<f64> {
        match arr {
            U => &mut self.u,
            V => &mut self.v,
            _ => &mut self.r,
        }
    }

    fn bubble(&mut self, ind: usize) {
        for i in 0..9 {
            let swap = if ind == 1 {
                self.ten[i][ind] > self.ten[i + 1][ind]
            } else {
                self.ten[i][ind] < self.ten[i + 1][ind]
            };
            if !swap {
                return;
            }
            let (a, b) = (self.ten[i][ind], self.ten[i + 1][ind]);
            self.ten[i][ind] = b;
            self.ten[i + 1][ind] = a;
            let (a, b) = (self.jten[i][ind], self.jten[i + 1][ind]);
            self.jten[i][ind] = b;
            self.jten[i + 1][ind] = a;
        }
    }

    fn resid_row(
        &mut self,
        out: &mut Vec<Access>,
        t: usize,
        src: usize,
        k: usize,
        i3: usize,
        i2: usize,
    ) {
        let m = self.g.m[k];
        let g = &self.g;
        let row = |a: usize, b: usize| g.at(k, a, b);
        let (c, n, s, up, dn) = (
            row(i3, i2),
            row(i3, i2 + 1),
            row(i3, i2 - 1),
            row(i3 + 1, i2),
            row(i3 - 1, i2),
        );
        let (dn_s, dn_n, up_s, up_n) = (
            row(i3 - 1, i2 - 1),
            row(i3 - 1, i2 + 1),
            row(i3 + 1, i2 - 1),
            row(i3 + 1, i2 + 1),
        );
        let [u1, u2, _] = &mut self.scratch;
        let u = &self.u;
        for i1 in 0..m {
            u1[i1] = u[s + i1] + u[n + i1] + u[dn + i1] + u[up + i1];
            u2[i1] = u[dn_s + i1] + u[dn_n + i1] + u[up_s + i1] + u[up_n + i1];
        }
        let a = self.a;
        for i1 in 1..m - 1 {
            let vv = if src == V {
                self.v[c - g.off[k] + i1]
            } else {
                self.r[c + i1]
            };
            self.r[c + i1] = vv
                - a[0] * u[c + i1]
                - a[2] * (u2[i1] + u1[i1 - 1] + u1[i1 + 1])
                - a[3] * (u2[i1 - 1] + u2[i1 + 1]);
        }
        for at in [s, n, dn, up, dn_s, dn_n, up_s, up_n, c] {
            self.row(out, t, U, at, false);
        }
        if src == V {
            let off = self.g.off[k];
            self.row(out, t, V, c - off, false);
        } else {
            self.row(out, t, R, c, false);
        }
        self.row(out, t, R, c, true);
    }

    fn psinv_row(&mut self, out: &mut Vec<Access>, t: usize, k: usize, i3: usize, i2: usize) {
        let m = self.g.m[k];
        let g = &self.g;
        let row = |a: usize, b: usize| g.at(k, a, b);
        let (c, n, s, up, dn) = (
            row(i3, i2),
            row(i3, i2 + 1),
            row(i3, i2 - 1),
            row(i3 + 1, i2),
            row(i3 - 1, i2),
        );
        let (dn_s, dn_n, up_s, up_n) = (
            row(i3 - 1, i2 - 1),
            row(i3 - 1, i2 + 1),
            row(i3 + 1, i2 - 1),
            row(i3 + 1, i2 + 1),
        );
        let [r1, r2, _] = &mut self.scratch;
        let r = &self.r;
        for i1 in 0..m {
            r1[i1] = r[s + i1] + r[n + i1] + r[dn + i1] + r[up + i1];
            r2[i1] = r[dn_s + i1] + r[dn_n + i1] + r[up_s + i1] + r[up_n + i1];
        }
        let cc = self.c;
        for i1 in 1..m - 1 {
            self.u[c + i1] = self.u[c + i1]
                + cc[0] * r[c + i1]
                + cc[1] * (r[c + i1 - 1] + r[c + i1 + 1] + r1[i1])
                + cc[2] * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
        }
        for at in [s, n, dn, up, dn_s, dn_n, up_s, up_n, c] {
            self.row(out, t, R, at, false);
        }
        self.row(out, t, U, c, false);
        self.row(out, t, U, c, true);
    }

    /// r(k-1) row (j3, j2) from r(k).
    fn rprj3_row(&mut self, out: &mut Vec<Access>, t: usize, k: usize, j3: usize, j2: usize) {
        let mj = self.g.m[k - 1];
        let (i3, i2) = (2 * j3 - 1, 2 * j2 - 1);
        let g = &self.g;
        let row = |a: usize, b: usize| g.at(k, a, b);
        let [x1, y1, _] = &mut self.scratch;
        // Level k-1 follows level k: read the one, write the other.
        let (r, coarse) = self.r.split_at_mut(g.off[k - 1]);
        let r = &*r;
        for j1 in 1..mj {
            let i1 = 2 * j1 - 1;
            x1[i1] = r[row(i3 + 1, i2) + i1]
                + r[row(i3 + 1, i2 + 2) + i1]
                + r[row(i3, i2 + 1) + i1]
                + r[row(i3 + 2, i2 + 1) + i1];
            y1[i1] = r[row(i3, i2) + i1]
                + r[row(i3 + 2, i2) + i1]
                + r[row(i3, i2 + 2) + i1]
                + r[row(i3 + 2, i2 + 2) + i1];
        }
        let s = g.at(k - 1, j3, j2);
        for j1 in 1..mj - 1 {
            let i1 = 2 * j1 - 1;
            let y2 = r[row(i3, i2) + i1 + 1]
                + r[row(i3 + 2, i2) + i1 + 1]
                + r[row(i3, i2 + 2) + i1 + 1]
                + r[row(i3 + 2, i2 + 2) + i1 + 1];
            let x2 = r[row(i3 + 1, i2) + i1 + 1]
                + r[row(i3 + 1, i2 + 2) + i1 + 1]
                + r[row(i3, i2 + 1) + i1 + 1]
                + r[row(i3 + 2, i2 + 1) + i1 + 1];
            let c = row(i3 + 1, i2 + 1);
            coarse[s - g.off[k - 1] + j1] = 0.5 * r[c + i1 + 1]
                + 0.25 * (r[c + i1] + r[c + i1 + 2] + x2)
                + 0.125 * (x1[i1] + x1[i1 + 2] + y2)
                + 0.0625 * (y1[i1] + y1[i1 + 2]);
        }
        for a in 0..3 {
            for b in 0..3 {
                let at = self.g.at(k, i3 + a, i2 + b);
                self.row(out, t, R, at, false);
            }
        }
        self.row(out, t, R, s, true);
    }

    /// u(k) rows (2 i3 .. 2 i3 + 1, 2 i2 .. 2 i2 + 1) from u(k-1) row (i3, i2).
    fn interp_row(&mut self, out: &mut Vec<Access>, t: usize, k: usize, i3: usize, i2: usize) {
        let mm = self.g.m[k - 1];
        let g = &self.g;
        let z = |a: usize, b: usize| g.at(k - 1, a, b);
        let (z00, z01, z10, z11) = (z(i3, i2), z(i3, i2 + 1), z(i3 + 1, i2), z(i3 + 1, i2 + 1));
        let [z1, z2, z3] = &mut self.scratch;
        let u = &mut self.u;
        for i1 in 0..mm {
            z1[i1] = u[z01 + i1] + u[z00 + i1];
            z2[i1] = u[z10 + i1] + u[z00 + i1];
            z3[i1] = u[z11 + i1] + u[z10 + i1] + z1[i1];
        }
        let f = |a: usize, b: usize| g.at(k, a, b);
        let (f00, f01, f10, f11) = (
            f(2 * i3, 2 * i2),
            f(2 * i3, 2 * i2 + 1),
            f(2 * i3 + 1, 2 * i2),
            f(2 * i3 + 1, 2 * i2 + 1),
        );
        for i1 in 0..mm - 1 {
            u[f00 + 2 * i1] += u[z00 + i1];
            u[f00 + 2 * i1 + 1] += 0.5 * (u[z00 + i1 + 1] + u[z00 + i1]);
        }
        for i1 in 0..mm - 1 {
            u[f01 + 2 * i1] += 0.5 * z1[i1];
            u[f01 + 2 * i1 + 1] += 0.25 * (z1[i1] + z1[i1 + 1]);
        }
        for i1 in 0..mm - 1 {
            u[f10 + 2 * i1] += 0.5 * z2[i1];
            u[f10 + 2 * i1 + 1] += 0.25 * (z2[i1] + z2[i1 + 1]);
        }
        for i1 in 0..mm - 1 {
            u[f11 + 2 * i1] += 0.25 * z3[i1];
            u[f11 + 2 * i1 + 1] += 0.125 * (z3[i1] + z3[i1 + 1]);
        }
        for at in [z00, z01, z10, z11] {
            self.row(out, t, U, at, false);
        }
        for at in [f00, f01, f10, f11] {
            self.row(out, t, U, at, false);
            self.row(out, t, U, at, true);
        }
    }

    /// The barrier at the end of an op.
    fn finish_op(&mut self) {
        if self.program[self.op] == Op::Norm2 {
            let s: f64 = self.partial.iter().sum();
            self.partial.fill(0.0);
            let lt = self.g.lt;
            let n = ((self.g.m[lt] - 2).pow(2) * (self.g.m3[lt] - 2)) as f64;
            self.rnm2 = (s / n).sqrt();
            if self.verified.is_none() {
                self.verified = Some(self.rnm2);
            }
            self.passes += 1;
        }
        self.op += 1;
        if self.op == self.program.len() {
            // The timed section again, from a fresh u and v.
            self.op = self.timed - 8;
        }
        self.start_op();
    }
}

impl Kernel for MgStream {
    fn threads(&self) -> usize {
        self.threads
    }

    fn next_thread(&mut self) -> &mut usize {
        &mut self.next_thread
    }

    fn has_work(&self, t: usize) -> bool {
        self.cursor[t].0 < self.end[t]
    }

    fn unit(&mut self, t: usize, out: &mut Vec<Access>) {
        MgStream::unit(self, t, out)
    }

    fn barrier(&mut self) {
        self.finish_op()
    }

    fn feed(&mut self) -> &mut Feed {
        &mut self.feed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(p: MgParams, threads: usize) -> (f64, u64, u64) {
        let bases = [1u64 << 32, 2 << 32, 3 << 32];
        let mut s = MgStream::new(p, threads, &bases, u64::MAX).unwrap();
        let mut buf = vec![Access::default(); 1 << 16];
        let (mut r, mut w) = (0, 0);
        while s.verified_rnm2().is_none() {
            let n = s.fill(&mut buf);
            assert!(n > 0);
            for a in &buf[..n] {
                if a.write {
                    w += 1;
                } else {
                    r += 1;
                }
            }
        }
        (s.verified_rnm2().unwrap_or(f64::NAN), r, w)
    }

    #[test]
    fn class_w_verifies() {
        let (p, want) = MgParams::class('W').unwrap();
        let (rnm2, ..) = run(p, 8);
        assert!((rnm2 / want - 1.0).abs() < 1e-6, "{rnm2:e} vs {want:e}");
    }

    #[test]
    fn boxes_run_and_accesses_stay_in_the_arrays() {
        let p = MgParams {
            lt: 4,
            nz_factor: 3,
            nit: 2,
        };
        let plan = MgStream::plan(&p).unwrap();
        let (rnm2, r, w) = run(p.clone(), 5);
        assert!(rnm2.is_finite() && rnm2 > 0.0 && r > w);
        let bases = [1u64 << 32, 2 << 32, 3 << 32];
        let mut s1 = MgStream::new(p.clone(), 5, &bases, 200_000).unwrap();
        let mut s2 = MgStream::new(p, 5, &bases, 200_000).unwrap();
        let mut b1 = vec![Access::default(); 1 << 20];
        let mut b2 = vec![Access::default(); 1 << 20];
        let n1 = s1.fill(&mut b1);
        assert_eq!(n1 as u64, s1.load_accesses() + 200_000);
        let n2 = s2.fill(&mut b2);
        assert_eq!(b1[..n1], b2[..n2]);
        for a in &b1[..n1] {
            let i = bases.iter().rposition(|&b| b <= a.va).unwrap();
            assert!(a.va < bases[i] + plan[i].1, "{a:?} outside {}", plan[i].0);
        }
    }

    #[test]
    fn footprint_follows_the_size_asked_for() {
        for (gib, lo, hi) in [(0.8, 0.9, 1.1), (1.5, 0.8, 1.2), (3.5, 0.9, 1.1)] {
            let want = (gib * (1u64 << 30) as f64) as u64;
            let p = MgParams::for_footprint(want);
            let got: u64 = MgStream::plan(&p).unwrap().iter().map(|a| a.1).sum();
            let ratio = got as f64 / want as f64;
            assert!((lo..hi).contains(&ratio), "{gib} GiB: {ratio} ({p:?})");
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        let bases = [1u64 << 32, 2 << 32, 3 << 32];
        for (lt, q, nit) in [(1, 1, 4), (11, 1, 4), (5, 0, 4), (5, 1, 0), (10, 64, 1)] {
            let p = MgParams {
                lt,
                nz_factor: q,
                nit,
            };
            assert!(MgStream::new(p, 1, &bases, 10).is_err());
        }
        let (p, _) = MgParams::class('S').unwrap();
        assert!(MgStream::new(p.clone(), 0, &bases, 10).is_err());
        assert!(MgStream::new(p, 1, &bases[..2], 10).is_err());
    }

    #[test]
    fn class_s_verifies() {
        let (p, want) = MgParams::class('S').unwrap();
        for threads in [1, 4, 32] {
            let (rnm2, r, w) = run(p.clone(), threads);
            assert!(r > 2 * w, "{r} reads, {w} writes");
            assert!(
                (rnm2 - want).abs() <= 1e-8,
                "{threads}: {rnm2:e} vs {want:e}"
            );
            assert!(
                (rnm2 / want - 1.0).abs() < 1e-9,
                "{threads}: {rnm2:e} vs {want:e}"
            );
        }
    }
}
