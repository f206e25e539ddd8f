//! NPB BT, executed: `BT/bt.c` of NPB 3.0 (OpenMP C), ported routine for
//! routine: `set_constants`, `initialize` (transfinite interpolation of the
//! exact solution, then its faces), `lhsinit`, `exact_solution`/`exact_rhs`
//! (the forcing term), and `adi`'s time step: `compute_rhs` (fluxes and
//! fourth-order dissipation along each axis), `x_solve`, `y_solve`,
//! `z_solve` (each `lhsx`/`lhsy`/`lhsz` building the flux and viscous
//! Jacobians `fjac`, `njac` and the 5x5 block-tridiagonal `lhs`, then the
//! block Thomas sweep `*_solve_cell` with `binvcrhs`, `binvrhs`, `matvec_sub`,
//! `matmul_sub`, then `*_backsubstitute`) and `add`; then `verify`
//! (`error_norm`, `compute_rhs`, `rhs_norm`). `main`'s order is kept: one
//! untimed step, re-initialisation, then `niter` timed steps. Class S (12^3,
//! 60 steps, dt 0.01) gives NPB's five residual norms (`xcrref`) and five
//! error norms (`xceref`) within NPB's own epsilon (1e-8), by the same code
//! that emits the accesses.
//!
//! NPB is NASA's (NAS Parallel Benchmarks); the OpenMP C version is RWCP's
//! (Omni) translation of NPB 2.3, structured as 3.0 by UVSQ, as published by
//! github.com/benchmark-subsetting/NPB3.0-omp-C.
//!
//! The arrays are `bt.c`'s, with its padding (`IMAX/2*2+1` points a side,
//! `(IMAX+1)/2*2+1` for `u`). In NPB 3.0 they are all per-grid: `u`, `rhs`
//! (5 per point), `forcing` (6), `us`, `vs`, `ws`, `qs`, `rho_i`, `square`
//! (1), `lhs` (3 5x5 blocks per point, 75), and also the Jacobians `fjac` and
//! `njac` (25 per point; 3.0 keeps them for the whole grid, where later NPB
//! versions keep only a line of them); only `cuf`, `q`, `ue` and `buf`
//! (`exact_rhs`'s, one line, thread-private) are per-line work arrays. That
//! makes 147 doubles (1176 bytes) a point.
//!
//! What differs from the C program, and why:
//! - `tmp1`, `tmp2`, `tmp3` are shared globals in `bt.c` that every thread
//!   writes inside `lhsx`/`lhsy`/`lhsz`'s parallel loops (a data race, which
//!   works in practice because compilers keep them in registers between the
//!   write and the reads); here each point computes its own, which is what
//!   the code means.
//! - `verify`'s norms are sums in the C program's order (serial there too).
//! - The grid is a cube of `n` points a side, `8 <= n <= 1024` (every class
//!   is a cube, the smallest 12 a side); the arrays are sized for `n` itself,
//!   with `bt.c`'s padding, as `npbparams.h` would be after `setparams`, so
//!   `initialize`'s `IMAX` loop is the grid.
//! - The footprint knob picks `n` (see [`BtParams::for_footprint`]) and
//!   keeps the classes' 200 steps and a class's `dt`; only the classes'
//!   grids are verified (S in the tests).
//! - `cuf`, `q`, `ue`, `buf` (one line each, thread-private, cache-resident)
//!   are not simulated, as FT's scratch blocks are not.
//! - Run length: see [`super`] (a budget of accesses; the timed section, from
//!   the second `initialize`, repeats when `niter` steps and `verify` are
//!   done).
//!
//! Threads follow `bt.c`'s `#pragma omp for` loops under OpenMP's static
//! schedule: each loop (a barrier region; `nowait` chains are one region in
//! which a thread goes on to its share of the next loop) splits its outer
//! index into contiguous shares. The solvers' serial loops over the sweep
//! direction around a `#pragma omp for` (`for (i = 1; i < isize; i++)` in
//! `x_solve_cell`, its y and z twins, and the back substitutions of x and y)
//! make one barrier region per plane, as in the C program. `verify` is called outside any
//! parallel region, so its loops (and its `compute_rhs`) run on thread 0.
//!
//! Accesses are recorded a unit of work at a time, as MG's rows: a unit is
//! one iteration of a loop's two outer levels (or of its outer level, for
//! two-deep nests), with the innermost loop inside it: a grid row along `k`
//! (contiguous in every array), or a line along `i` or `j` (`lhsx`,
//! `exact_rhs`, the `dt` scaling, `z_solve_cell`), touching each point of it.
//! A unit touches each 64-byte line of what it reads once and of what it
//! writes once, except lines the same thread read (wrote) in its previous
//! unit of the same loop (the neighbouring rows or points a cache holds).
//! Simulated arrays, in first-touch order: `u` (`initialize`), `lhs`
//! (`lhsinit`), `forcing` (`exact_rhs`), `rho_i`, `us`, `vs`, `ws`, `square`,
//! `qs`, `rhs` (`compute_rhs`), `fjac`, `njac` (`lhsx`).

use super::share;
use super::{Feed, Kernel};
use crate::{Access, LoadPhase, WorkloadError};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// BT's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BtParams {
    /// Grid points a side (`grid_points`, a cube).
    pub n: usize,
    /// Time steps (`niter`).
    pub niter: usize,
    /// Time step (`dt`).
    pub dt: f64,
}

/// NPB's published norms for a class: residual (`xcrref`) and error
/// (`xceref`).
pub type BtReference = ([f64; 5], [f64; 5]);

/// BT's classes: grid, steps, dt (`npbparams.h` as `setparams` writes it).
const CLASSES: [(char, usize, usize, f64); 5] = [
    ('S', 12, 60, 0.01),
    ('W', 24, 200, 0.8e-3),
    ('A', 64, 200, 0.8e-3),
    ('B', 102, 200, 3.0e-4),
    ('C', 162, 200, 1.0e-4),
];

impl BtParams {
    /// NPB's class `c` and its published norms (`bt.c`, `verify`; the
    /// literals as NPB prints them, some with more digits than a double).
    #[allow(clippy::excessive_precision)]
    pub fn class(c: char) -> Option<(BtParams, BtReference)> {
        let &(_, n, niter, dt) = CLASSES.iter().find(|x| x.0 == c)?;
        let refs = match c {
            'S' => (
                [
                    1.703_428_370_954_131_1e-01,
                    1.297_525_207_003_409_7e-02,
                    3.252_792_698_948_605_5e-02,
                    2.643_642_127_516_680_1e-02,
                    1.921_178_413_174_443_0e-01,
                ],
                [
                    4.997_691_334_581_157_9e-04,
                    4.519_566_678_296_192_7e-05,
                    7.397_376_517_292_135_7e-05,
                    7.382_123_863_243_973_1e-05,
                    8.926_963_098_749_144_6e-04,
                ],
            ),
            'W' => (
                [
                    0.112_559_040_934_4e+03,
                    0.118_000_759_573_1e+02,
                    0.271_032_976_784_6e+02,
                    0.246_917_493_766_9e+02,
                    0.263_842_787_431_7e+03,
                ],
                [
                    0.441_965_573_600_8e+01,
                    0.463_853_126_000_2e+00,
                    0.101_155_174_996_7e+01,
                    0.923_587_872_994_4e+00,
                    0.101_804_583_771_8e+02,
                ],
            ),
            'A' => (
                [
                    1.080_634_671_463_726_4e+02,
                    1.131_973_090_122_081_3e+01,
                    2.597_435_451_158_246_5e+01,
                    2.366_562_254_467_891_0e+01,
                    2.527_896_321_174_834_4e+02,
                ],
                [
                    4.234_841_604_052_502_5e+00,
                    4.439_028_249_699_569_8e-01,
                    9.669_248_013_634_565_0e-01,
                    8.830_206_303_976_547_4e-01,
                    9.737_990_177_082_927_8e+00,
                ],
            ),
            'B' => (
                [
                    1.423_359_722_928_725_4e+03,
                    9.933_052_259_015_023_8e+01,
                    3.564_602_564_453_528_5e+02,
                    3.248_544_795_908_409_2e+02,
                    3.270_754_125_465_936_3e+03,
                ],
                [
                    5.296_984_714_093_685_6e+01,
                    4.463_289_611_567_066_8e+00,
                    1.312_257_334_221_017_4e+01,
                    1.200_692_532_355_914_4e+01,
                    1.245_957_615_103_598_6e+02,
                ],
            ),
            _ => (
                [
                    0.623_981_165_517_646_15e+04,
                    0.507_932_391_904_239_64e+03,
                    0.154_235_300_930_135_96e+04,
                    0.133_023_879_292_911_90e+04,
                    0.116_040_874_284_364_55e+05,
                ],
                [
                    0.164_620_083_690_912_65e+03,
                    0.114_971_079_038_243_13e+02,
                    0.412_074_462_074_615_08e+02,
                    0.370_876_510_596_941_67e+02,
                    0.362_110_530_518_412_65e+03,
                ],
            ),
        };
        Some((BtParams { n, niter, dt }, refs))
    }

    /// The largest cube whose arrays take at most `bytes` (at least class S's
    /// 12 points a side), with the steps and `dt` of the smallest class whose
    /// grid is at least as fine (class C's beyond 162): BT is implicit, but
    /// `dt` must still shrink as the grid is refined, as the classes do.
    pub fn for_footprint(bytes: u64) -> BtParams {
        let mut n = 12;
        while n < 1024 && Dims::new(n + 1).bytes() <= bytes {
            n += 1;
        }
        let &(_, _, niter, dt) = CLASSES
            .iter()
            .find(|c| c.1 >= n)
            .unwrap_or(&CLASSES[CLASSES.len() - 1]);
        BtParams { n, niter, dt }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if !(8..=1024).contains(&self.n)
            || self.niter == 0
            || !(self.dt.is_finite() && self.dt > 0.0)
        {
            return Err(WorkloadError::Invalid(
                "npb bt: n must be in 8..=1024, niter at least 1 and dt positive".into(),
            ));
        }
        if Dims::new(self.n).bytes() > 64 << 30 {
            return Err(WorkloadError::Invalid(
                "npb bt: the grid would take more than 64 GiB".into(),
            ));
        }
        Ok(())
    }
}

// Arrays, in first-touch order.
const U: usize = 0;
const LHS: usize = 1;
const FORCING: usize = 2;
const RHO_I: usize = 3;
const US: usize = 4;
const VS: usize = 5;
const WS: usize = 6;
const SQUARE: usize = 7;
const QS: usize = 8;
const RHS: usize = 9;
const FJAC: usize = 10;
const NJAC: usize = 11;
const NAMES: [&str; 12] = [
    "u", "lhs", "forcing", "rho_i", "us", "vs", "ws", "square", "qs", "rhs", "fjac", "njac",
];

/// `bt.c`'s array shapes for a grid of `n` points a side.
#[derive(Clone, Copy, Debug)]
struct Dims {
    n: usize,
    /// `IMAX/2*2+1`.
    p: usize,
    /// `(IMAX+1)/2*2+1` (`u`).
    pu: usize,
}

impl Dims {
    fn new(n: usize) -> Dims {
        Dims {
            n,
            p: n / 2 * 2 + 1,
            pu: n.div_ceil(2) * 2 + 1,
        }
    }

    /// Elements of each array.
    fn elems(&self) -> [usize; 12] {
        let p3 = self.p * self.p * self.p;
        let jac = self.p * self.p * self.n * 25;
        [
            self.pu * self.pu * self.pu * 5,
            p3 * 75,
            p3 * 6,
            p3,
            p3,
            p3,
            p3,
            p3,
            p3,
            p3 * 5,
            jac,
            jac,
        ]
    }

    /// Bytes of each array, in whole pages.
    fn sizes(&self) -> [u64; 12] {
        self.elems().map(|e| ((e * 8) as u64).div_ceil(4096) * 4096)
    }

    fn bytes(&self) -> u64 {
        self.sizes().iter().sum()
    }

    /// Scalar arrays (`us`, ..., `square`): `[i][j][k]`.
    #[inline]
    fn s(&self, i: usize, j: usize, k: usize) -> usize {
        (i * self.p + j) * self.p + k
    }

    /// `u[i][j][k][0]`.
    #[inline]
    fn u(&self, i: usize, j: usize, k: usize) -> usize {
        ((i * self.pu + j) * self.pu + k) * 5
    }

    /// `rhs[i][j][k][0]`.
    #[inline]
    fn r(&self, i: usize, j: usize, k: usize) -> usize {
        self.s(i, j, k) * 5
    }

    /// `forcing[i][j][k][0]`.
    #[inline]
    fn f(&self, i: usize, j: usize, k: usize) -> usize {
        self.s(i, j, k) * 6
    }

    /// `lhs[i][j][k][AA][0][0]`.
    #[inline]
    fn l(&self, i: usize, j: usize, k: usize) -> usize {
        self.s(i, j, k) * 75
    }

    /// `fjac[i][j][k][0][0]` (and `njac`).
    #[inline]
    fn jac(&self, i: usize, j: usize, k: usize) -> usize {
        ((i * self.p + j) * self.n + k) * 25
    }
}

/// `set_constants`.
#[derive(Clone, Debug)]
struct Consts {
    ce: [[f64; 13]; 5],
    dt: f64,
    dnm1: [f64; 3],
    /// `tx1, ty1, tz1`; `tx2, ...`.
    t1: [f64; 3],
    t2: [f64; 3],
    /// `dx1..dx5`, `dy..`, `dz..`.
    dd: [[f64; 5]; 3],
    /// `dx1tx1..dx5tx1`, ...
    ddt: [[f64; 5]; 3],
    /// `xxcon1..xxcon5`, `yycon..`, `zzcon..`.
    con: [[f64; 5]; 3],
    dssp: f64,
    c1: f64,
    c2: f64,
    c3: f64,
    c4: f64,
    c3c4: f64,
    c1345: f64,
    con43: f64,
}

impl Consts {
    fn new(n: usize, dt: f64) -> Consts {
        let ce = [
            [
                2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3,
            ],
            [
                1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5,
            ],
            [
                2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4,
            ],
            [
                2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3,
            ],
            [
                5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2,
            ],
        ];
        let (c1, c2, c3, c4, c5) = (1.4, 0.4, 0.1, 1.0, 1.4);
        let d = 1.0 / (n - 1) as f64;
        let dnm1 = [d, d, d];
        let c1c5 = c1 * c5;
        let c3c4 = c3 * c4;
        let c1345 = c1c5 * c3c4;
        let conz1 = 1.0 - c1c5;
        let t1 = dnm1.map(|x| 1.0 / (x * x));
        let t2 = dnm1.map(|x| 1.0 / (2.0 * x));
        let t3 = dnm1.map(|x| 1.0 / x);
        let dd = [[0.75; 5], [0.75; 5], [1.0; 5]];
        let dssp = 0.25 * f64::max(dd[0][0], f64::max(dd[1][0], dd[2][0]));
        let con43 = 4.0 / 3.0;
        let con16 = 1.0 / 6.0;
        let mut ddt = [[0.0; 5]; 3];
        let mut con = [[0.0; 5]; 3];
        for a in 0..3 {
            for m in 0..5 {
                ddt[a][m] = dd[a][m] * t1[a];
            }
            let c3c4t3 = c3c4 * t3[a];
            con[a] = [
                c3c4t3 * con43 * t3[a],
                c3c4t3 * t3[a],
                c3c4t3 * conz1 * t3[a],
                c3c4t3 * con16 * t3[a],
                c3c4t3 * c1c5 * t3[a],
            ];
        }
        Consts {
            ce,
            dt,
            dnm1,
            t1,
            t2,
            dd,
            ddt,
            con,
            dssp,
            c1,
            c2,
            c3,
            c4,
            c3c4,
            c1345,
            con43,
        }
    }

    /// `exact_solution`.
    fn exact(&self, xi: f64, eta: f64, zeta: f64) -> [f64; 5] {
        let ce = &self.ce;
        std::array::from_fn(|m| {
            ce[m][0]
                + xi * (ce[m][1] + xi * (ce[m][4] + xi * (ce[m][7] + xi * ce[m][10])))
                + eta * (ce[m][2] + eta * (ce[m][5] + eta * (ce[m][8] + eta * ce[m][11])))
                + zeta * (ce[m][3] + zeta * (ce[m][6] + zeta * (ce[m][9] + zeta * ce[m][12])))
        })
    }
}

/// `lhsx`'s, `lhsy`'s or `lhsz`'s flux (`fjac`) and viscous (`njac`)
/// Jacobians at a point whose `u` is `u`, along `axis`, exactly as `bt.c`
/// writes them (each direction has its own association of products).
fn jacobians(k: &Consts, axis: usize, u: &[f64]) -> ([f64; 25], [f64; 25]) {
    let (c1, c2, c3, c4, c3c4, c1345, con43) = (k.c1, k.c2, k.c3, k.c4, k.c3c4, k.c1345, k.con43);
    let (u0, u1, u2, u3, u4) = (u[0], u[1], u[2], u[3], u[4]);
    let t1 = 1.0 / u0;
    let t2 = t1 * t1;
    let t3 = t1 * t2;
    let mut f = [0.0; 25];
    let mut n = [0.0; 25];
    match axis {
        0 => {
            f[1] = 1.0;
            f[5] = -(u1 * t2 * u1) + c2 * 0.50 * (u1 * u1 + u2 * u2 + u3 * u3) * t2;
            f[6] = (2.0 - c2) * (u1 / u0);
            f[7] = -c2 * (u2 * t1);
            f[8] = -c2 * (u3 * t1);
            f[9] = c2;
            f[10] = -(u1 * u2) * t2;
            f[11] = u2 * t1;
            f[12] = u1 * t1;
            f[15] = -(u1 * u3) * t2;
            f[16] = u3 * t1;
            f[18] = u1 * t1;
            f[20] = (c2 * (u1 * u1 + u2 * u2 + u3 * u3) * t2 - c1 * (u4 * t1)) * (u1 * t1);
            f[21] = c1 * u4 * t1 - 0.50 * c2 * (3.0 * u1 * u1 + u2 * u2 + u3 * u3) * t2;
            f[22] = -c2 * (u2 * u1) * t2;
            f[23] = -c2 * (u3 * u1) * t2;
            f[24] = c1 * (u1 * t1);
            n[5] = -con43 * c3c4 * t2 * u1;
            n[6] = con43 * c3c4 * t1;
            n[10] = -c3c4 * t2 * u2;
            n[12] = c3c4 * t1;
            n[15] = -c3c4 * t2 * u3;
            n[18] = c3c4 * t1;
            n[20] = -(con43 * c3c4 - c1345) * t3 * (u1 * u1)
                - (c3c4 - c1345) * t3 * (u2 * u2)
                - (c3c4 - c1345) * t3 * (u3 * u3)
                - c1345 * t2 * u4;
            n[21] = (con43 * c3c4 - c1345) * t2 * u1;
            n[22] = (c3c4 - c1345) * t2 * u2;
            n[23] = (c3c4 - c1345) * t2 * u3;
            n[24] = c1345 * t1;
        }
        1 => {
            f[2] = 1.0;
            f[5] = -(u1 * u2) * t2;
            f[6] = u2 * t1;
            f[7] = u1 * t1;
            f[10] = -(u2 * u2 * t2) + 0.50 * c2 * ((u1 * u1 + u2 * u2 + u3 * u3) * t2);
            f[11] = -c2 * u1 * t1;
            f[12] = (2.0 - c2) * u2 * t1;
            f[13] = -c2 * u3 * t1;
            f[14] = c2;
            f[15] = -(u2 * u3) * t2;
            f[17] = u3 * t1;
            f[18] = u2 * t1;
            f[20] = (c2 * (u1 * u1 + u2 * u2 + u3 * u3) * t2 - c1 * u4 * t1) * u2 * t1;
            f[21] = -c2 * u1 * u2 * t2;
            f[22] = c1 * u4 * t1 - 0.50 * c2 * ((u1 * u1 + 3.0 * u2 * u2 + u3 * u3) * t2);
            f[23] = -c2 * (u2 * u3) * t2;
            f[24] = c1 * u2 * t1;
            n[5] = -c3c4 * t2 * u1;
            n[6] = c3c4 * t1;
            n[10] = -con43 * c3c4 * t2 * u2;
            n[12] = con43 * c3c4 * t1;
            n[15] = -c3c4 * t2 * u3;
            n[18] = c3c4 * t1;
            n[20] = -(c3c4 - c1345) * t3 * (u1 * u1)
                - (con43 * c3c4 - c1345) * t3 * (u2 * u2)
                - (c3c4 - c1345) * t3 * (u3 * u3)
                - c1345 * t2 * u4;
            n[21] = (c3c4 - c1345) * t2 * u1;
            n[22] = (con43 * c3c4 - c1345) * t2 * u2;
            n[23] = (c3c4 - c1345) * t2 * u3;
            n[24] = c1345 * t1;
        }
        _ => {
            f[3] = 1.0;
            f[5] = -(u1 * u3) * t2;
            f[6] = u3 * t1;
            f[8] = u1 * t1;
            f[10] = -(u2 * u3) * t2;
            f[12] = u3 * t1;
            f[13] = u2 * t1;
            f[15] = -(u3 * u3 * t2) + 0.50 * c2 * ((u1 * u1 + u2 * u2 + u3 * u3) * t2);
            f[16] = -c2 * u1 * t1;
            f[17] = -c2 * u2 * t1;
            f[18] = (2.0 - c2) * u3 * t1;
            f[19] = c2;
            f[20] = (c2 * (u1 * u1 + u2 * u2 + u3 * u3) * t2 - c1 * (u4 * t1)) * (u3 * t1);
            f[21] = -c2 * (u1 * u3) * t2;
            f[22] = -c2 * (u2 * u3) * t2;
            f[23] = c1 * (u4 * t1) - 0.50 * c2 * ((u1 * u1 + u2 * u2 + 3.0 * u3 * u3) * t2);
            f[24] = c1 * u3 * t1;
            n[5] = -c3c4 * t2 * u1;
            n[6] = c3c4 * t1;
            n[10] = -c3c4 * t2 * u2;
            n[12] = c3c4 * t1;
            n[15] = -con43 * c3c4 * t2 * u3;
            // `con43 * c3 * c4`, not `con43 * c3c4`, in `lhsz`.
            n[18] = con43 * c3 * c4 * t1;
            n[20] = -(c3c4 - c1345) * t3 * (u1 * u1)
                - (c3c4 - c1345) * t3 * (u2 * u2)
                - (con43 * c3c4 - c1345) * t3 * (u3 * u3)
                - c1345 * t2 * u4;
            n[21] = (c3c4 - c1345) * t2 * u1;
            n[22] = (c3c4 - c1345) * t2 * u2;
            n[23] = (con43 * c3c4 - c1345) * t2 * u3;
            n[24] = c1345 * t1;
        }
    }
    (f, n)
}

/// The three blocks (`AA`, `BB`, `CC`) of `lhs` at a point from the
/// Jacobians of its neighbours (`fm`, `nm`: previous; `fp`, `np`: next) and
/// its own `nc`, along `axis` (`lhsx`'s second loop and its y, z twins).
#[allow(clippy::too_many_arguments)]
fn lhs_blocks(
    k: &Consts,
    axis: usize,
    out: &mut [f64],
    fm: &[f64],
    nm: &[f64],
    nc: &[f64],
    fp: &[f64],
    np: &[f64],
) {
    let tmp1 = k.dt * k.t1[axis];
    let tmp2 = k.dt * k.t2[axis];
    let d = k.dd[axis];
    for (m, &dm) in d.iter().enumerate() {
        for q in 0..5 {
            let e = m * 5 + q;
            let (mut a, mut b, mut c) = (
                -tmp2 * fm[e] - tmp1 * nm[e],
                tmp1 * 2.0 * nc[e],
                tmp2 * fp[e] - tmp1 * np[e],
            );
            if m == q {
                a -= tmp1 * dm;
                b = 1.0 + tmp1 * 2.0 * nc[e] + tmp1 * 2.0 * dm;
                c -= tmp1 * dm;
            }
            out[e] = a;
            out[25 + e] = b;
            out[50 + e] = c;
        }
    }
}

/// `matvec_sub`: `b = b - a x`.
fn matvec_sub(a: &[f64], x: &[f64], b: &mut [f64]) {
    for i in 0..5 {
        b[i] = b[i]
            - a[i * 5] * x[0]
            - a[i * 5 + 1] * x[1]
            - a[i * 5 + 2] * x[2]
            - a[i * 5 + 3] * x[3]
            - a[i * 5 + 4] * x[4];
    }
}

/// `matmul_sub`: `c = c - a b`.
fn matmul_sub(a: &[f64], b: &[f64], c: &mut [f64]) {
    for j in 0..5 {
        for i in 0..5 {
            c[i * 5 + j] = c[i * 5 + j]
                - a[i * 5] * b[j]
                - a[i * 5 + 1] * b[5 + j]
                - a[i * 5 + 2] * b[10 + j]
                - a[i * 5 + 3] * b[15 + j]
                - a[i * 5 + 4] * b[20 + j];
        }
    }
}

/// `binvcrhs` (with `c`) and `binvrhs` (without): Gauss-Jordan elimination
/// of the 5x5 block `l` without pivoting, applied to `c` and `r`, in
/// `bt.c`'s order (row `p` scaled, then every other row in order).
fn binv(l: &mut [f64; 25], mut c: Option<&mut [f64; 25]>, r: &mut [f64; 5]) {
    for p in 0..5 {
        let pivot = 1.00 / l[p * 5 + p];
        for s in p + 1..5 {
            l[p * 5 + s] *= pivot;
        }
        if let Some(c) = c.as_deref_mut() {
            for s in 0..5 {
                c[p * 5 + s] *= pivot;
            }
        }
        r[p] *= pivot;
        for q in (0..5).filter(|&q| q != p) {
            let coeff = l[q * 5 + p];
            for s in p + 1..5 {
                l[q * 5 + s] -= coeff * l[p * 5 + s];
            }
            if let Some(c) = c.as_deref_mut() {
                for s in 0..5 {
                    c[q * 5 + s] -= coeff * c[p * 5 + s];
                }
            }
            r[q] -= coeff * r[p];
        }
    }
}

/// One barrier region of the program: a `#pragma omp for` loop, or a chain
/// of `nowait` loops ended by one without.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    /// `initialize`: `u = 1` everywhere.
    InitOnes,
    /// `initialize`: the interpolated values.
    InitInterp,
    /// `initialize`: the two faces normal to an axis (`nowait` chain).
    InitFaces(usize),
    /// `lhsinit`: zero `lhs`.
    LhsZero,
    /// `lhsinit`: ones on `BB`'s diagonal.
    LhsDiag,
    /// `exact_rhs`: zero `forcing`.
    ForcingZero,
    /// `exact_rhs`: flux differences along an axis.
    Forcing(usize),
    /// `exact_rhs`: change the sign of `forcing`.
    ForcingNegate,
    /// `compute_rhs`: `rho_i`, `us`, ..., `qs`, then `rhs = forcing`.
    Prims,
    /// `compute_rhs`: fluxes along an axis.
    Flux(usize),
    /// `compute_rhs`: fourth-order dissipation along an axis (five loops).
    Diss(usize),
    /// `compute_rhs`: `rhs *= dt`.
    ScaleDt,
    /// `lhsy`, `lhsz`: the Jacobians.
    Jac(usize),
    /// `lhsx` (Jacobians and blocks, one loop), `lhsy`, `lhsz` (blocks).
    Lhs(usize),
    /// `*_solve_cell`: one plane of the forward sweep.
    Cell(usize, usize),
    /// `*_backsubstitute`: one plane (x, y) or all (z).
    Back(usize, usize),
    /// `add`.
    Add,
    /// `verify`'s `error_norm` (serial).
    ErrorNorm,
    /// `verify`'s `rhs_norm` (serial).
    RhsNorm,
}

/// One loop of an op: which part of it, its outer range (split among the
/// threads) and its middle range (inside a thread's share; `(0, 1)` when the
/// unit is a whole outer iteration).
#[derive(Clone, Copy, Debug)]
struct Loop {
    part: usize,
    outer: (usize, usize),
    middle: (usize, usize),
}

/// A thread's place in the current op: loop, outer index and the end of its
/// share, middle index.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    l: usize,
    o: usize,
    end: usize,
    m: usize,
}

/// A grid point `(i, j, k)`.
type Point = (usize, usize, usize);

/// A span of an array a unit reads or writes: (array, first element,
/// elements, write).
type Span = (usize, usize, usize, bool);

/// A multiplicative hash for line numbers (the sets below are hot).
#[derive(Default, Clone, Copy)]
struct LineHash(u64);

impl Hasher for LineHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Seen = HashSet<u64, BuildHasherDefault<LineHash>>;

/// A BT run: the benchmark's state and the stream of its accesses.
pub struct BtStream {
    params: BtParams,
    d: Dims,
    k: Consts,
    a: [Vec<f64>; 12],
    /// `exact_rhs`'s thread-private lines: `ue`, `buf`, `cuf`, `q`.
    ue: Vec<[f64; 5]>,
    buf: Vec<[f64; 5]>,
    cuf: Vec<f64>,
    q: Vec<f64>,
    threads: usize,
    bases: [u64; 12],
    /// The benchmark: (op, serial); the timed section restarts at `restart`.
    program: Vec<(Op, bool)>,
    restart: usize,
    op: usize,
    loops: Vec<Loop>,
    serial: bool,
    cursor: Vec<Cursor>,
    next_thread: usize,
    spans: Vec<Span>,
    /// Per thread: lines (`line << 1 | write`) of this unit and the previous.
    now: Vec<Seen>,
    prev: Vec<Seen>,
    /// `verify`'s sums, then its norms.
    sums: [f64; 5],
    xce: [f64; 5],
    verified: Option<([f64; 5], [f64; 5])>,
    feed: Feed,
}

fn rec(sp: &mut Vec<Span>, arr: usize, at: usize, len: usize, write: bool) {
    sp.push((arr, at, len, write));
}

impl BtStream {
    /// A BT run of `accesses` kernel accesses by `threads` threads, its
    /// arrays (in [`BtStream::plan`]'s order) at `bases`.
    pub fn new(
        params: BtParams,
        threads: usize,
        bases: &[u64],
        accesses: u64,
    ) -> Result<BtStream, WorkloadError> {
        params.validate()?;
        if threads == 0 || threads > 1024 {
            return Err(WorkloadError::Invalid(
                "npb bt: threads must be in 1..=1024".into(),
            ));
        }
        let bases: [u64; 12] = bases.try_into().map_err(|_| {
            WorkloadError::Invalid(format!("npb bt: {} bases given for 12 arrays", bases.len()))
        })?;
        let d = Dims::new(params.n);
        let sizes = d.sizes();
        let load = LoadPhase::new(bases.iter().copied().zip(sizes).collect());
        let elems = d.elems();
        let (program, restart) = Self::program(params.n, params.niter);
        let n = params.n;
        let mut s = BtStream {
            k: Consts::new(n, params.dt),
            a: std::array::from_fn(|i| vec![0.0; elems[i]]),
            ue: vec![[0.0; 5]; n],
            buf: vec![[0.0; 5]; n],
            cuf: vec![0.0; n],
            q: vec![0.0; n],
            threads,
            bases,
            program,
            restart,
            op: 0,
            loops: Vec::new(),
            serial: false,
            cursor: vec![Cursor::default(); threads],
            next_thread: 0,
            spans: Vec::with_capacity(64),
            now: vec![Seen::default(); threads],
            prev: vec![Seen::default(); threads],
            sums: [0.0; 5],
            xce: [0.0; 5],
            verified: None,
            feed: Feed::new(load, accesses),
            params,
            d,
        };
        s.start_op();
        Ok(s)
    }

    /// (name, bytes) of the arrays a run with `params` maps, in first-touch
    /// order.
    pub fn plan(params: &BtParams) -> Result<Vec<(String, u64)>, WorkloadError> {
        params.validate()?;
        let s = Dims::new(params.n).sizes();
        Ok(NAMES
            .iter()
            .zip(s)
            .map(|(n, b)| (n.to_string(), b))
            .collect())
    }

    /// Accesses of the load phase.
    pub fn load_accesses(&self) -> u64 {
        let r: Vec<(u64, u64)> = self.d.sizes().iter().map(|&b| (0, b)).collect();
        LoadPhase::accesses(&r)
    }

    /// `verify`'s (`xcr`, `xce`) when the first whole benchmark has finished.
    pub fn verified_norms(&self) -> Option<([f64; 5], [f64; 5])> {
        self.verified
    }

    /// The parameters.
    pub fn params(&self) -> &BtParams {
        &self.params
    }

    fn initialize(p: &mut Vec<(Op, bool)>) {
        for op in [
            Op::InitOnes,
            Op::InitInterp,
            Op::InitFaces(0),
            Op::InitFaces(1),
            Op::InitFaces(2),
        ] {
            p.push((op, false));
        }
    }

    fn compute_rhs(p: &mut Vec<(Op, bool)>, serial: bool) {
        p.push((Op::Prims, serial));
        for a in 0..3 {
            p.push((Op::Flux(a), serial));
            p.push((Op::Diss(a), serial));
        }
        p.push((Op::ScaleDt, serial));
    }

    fn adi(p: &mut Vec<(Op, bool)>, n: usize) {
        Self::compute_rhs(p, false);
        p.push((Op::Lhs(0), false));
        p.extend((0..n).map(|i| (Op::Cell(0, i), false)));
        p.extend((0..n - 1).rev().map(|i| (Op::Back(0, i), false)));
        p.push((Op::Jac(1), false));
        p.push((Op::Lhs(1), false));
        p.extend((0..n).map(|j| (Op::Cell(1, j), false)));
        p.extend((0..n - 1).rev().map(|j| (Op::Back(1, j), false)));
        p.push((Op::Jac(2), false));
        p.push((Op::Lhs(2), false));
        p.extend((0..n).map(|k| (Op::Cell(2, k), false)));
        p.push((Op::Back(2, 0), false));
        p.push((Op::Add, false));
    }

    /// `main`: set-up, one untimed step, re-initialisation (where the timed
    /// section restarts), `niter` steps, `verify`.
    fn program(n: usize, niter: usize) -> (Vec<(Op, bool)>, usize) {
        let mut p = Vec::new();
        Self::initialize(&mut p);
        p.push((Op::LhsZero, false));
        p.push((Op::LhsDiag, false));
        p.push((Op::ForcingZero, false));
        for a in 0..3 {
            p.push((Op::Forcing(a), false));
        }
        p.push((Op::ForcingNegate, false));
        Self::adi(&mut p, n);
        let restart = p.len();
        Self::initialize(&mut p);
        for _ in 0..niter {
            Self::adi(&mut p, n);
        }
        p.push((Op::ErrorNorm, true));
        Self::compute_rhs(&mut p, true);
        p.push((Op::RhsNorm, true));
        (p, restart)
    }

    /// The loops of an op.
    fn loops_of(&self, op: Op) -> Vec<Loop> {
        let n = self.d.n;
        let l = |part, outer, middle| Loop {
            part,
            outer,
            middle,
        };
        let (all, a, one) = ((0, n), (1, n - 1), (0, 1));
        match op {
            Op::InitOnes
            | Op::InitInterp
            | Op::LhsZero
            | Op::LhsDiag
            | Op::ForcingZero
            | Op::ErrorNorm => vec![l(0, all, all)],
            Op::InitFaces(_) => vec![l(0, all, one), l(1, all, one)],
            Op::Prims => vec![l(0, all, all), l(1, all, all)],
            Op::Forcing(_)
            | Op::ForcingNegate
            | Op::Flux(_)
            | Op::ScaleDt
            | Op::Lhs(_)
            | Op::Add
            | Op::RhsNorm
            | Op::Back(2, _) => vec![l(0, a, a)],
            Op::Diss(axis) => {
                let mid = match axis {
                    0 => l(2, (3, n - 3), a),
                    1 => l(2, a, (3, n - 3)),
                    _ => l(2, a, a),
                };
                let edge = if axis == 2 { a } else { one };
                vec![
                    l(0, a, edge),
                    l(1, a, edge),
                    mid,
                    l(3, a, edge),
                    l(4, a, edge),
                ]
            }
            Op::Jac(1) => vec![l(0, a, all)],
            Op::Jac(_) => vec![l(0, a, a)],
            Op::Cell(..) | Op::Back(..) => vec![l(0, a, one)],
        }
    }

    fn start_op(&mut self) {
        let (op, serial) = self.program[self.op];
        self.loops = self.loops_of(op);
        self.serial = serial;
        for t in 0..self.threads {
            self.cursor[t] = Cursor {
                l: 0,
                o: 0,
                end: 0,
                m: 0,
            };
            self.enter(t);
            self.now[t].clear();
            self.prev[t].clear();
        }
        self.next_thread = 0;
        if matches!(op, Op::ErrorNorm | Op::RhsNorm) {
            self.sums = [0.0; 5];
        }
    }

    /// Puts thread `t` at the start of its share of loop `cursor.l`, or of
    /// the next loop with work for it.
    fn enter(&mut self, t: usize) {
        let c = &mut self.cursor[t];
        while c.l < self.loops.len() {
            let lp = self.loops[c.l];
            let (lo, hi) = lp.outer;
            let (a, b) = if hi <= lo || lp.middle.1 <= lp.middle.0 {
                (0, 0)
            } else if self.serial {
                if t == 0 {
                    (0, hi - lo)
                } else {
                    (0, 0)
                }
            } else {
                share(hi - lo, self.threads, t)
            };
            if a < b {
                *c = Cursor {
                    l: c.l,
                    o: lo + a,
                    end: lo + b,
                    m: lp.middle.0,
                };
                return;
            }
            c.l += 1;
        }
    }

    /// The barrier at the end of an op.
    fn finish_op(&mut self) {
        let (op, _) = self.program[self.op];
        let div = (self.d.n - 2) as f64;
        let norms = |s: [f64; 5]| s.map(|x| (x / div / div / div).sqrt());
        match op {
            Op::ErrorNorm => self.xce = norms(self.sums),
            Op::RhsNorm => {
                let xcr = norms(self.sums).map(|x| x / self.k.dt);
                if self.verified.is_none() {
                    self.verified = Some((xcr, self.xce));
                }
            }
            _ => {}
        }
        self.op += 1;
        if self.op == self.program.len() {
            self.op = self.restart;
        }
        self.start_op();
    }

    /// One unit of thread `t`: runs it and records its accesses.
    fn unit(&mut self, t: usize, out: &mut Vec<Access>) {
        let c = self.cursor[t];
        let lp = self.loops[c.l];
        {
            let c = &mut self.cursor[t];
            c.m += 1;
            if c.m >= lp.middle.1 {
                c.m = lp.middle.0;
                c.o += 1;
            }
            if c.o >= c.end {
                c.l += 1;
                self.enter(t);
            }
        }
        let (op, _) = self.program[self.op];
        self.spans.clear();
        self.exec(op, lp.part, c.o, c.m);
        // Lines of this unit, except those of the previous one.
        std::mem::swap(&mut self.now[t], &mut self.prev[t]);
        self.now[t].clear();
        let (now, prev) = (&mut self.now[t], &self.prev[t]);
        for &(arr, at, len, write) in &self.spans {
            if len == 0 {
                continue;
            }
            let base = self.bases[arr];
            let first = (base + at as u64 * 8) >> 6;
            let last = (base + (at + len) as u64 * 8 - 1) >> 6;
            for line in first..=last {
                let key = line << 1 | u64::from(write);
                if now.insert(key) && !prev.contains(&key) {
                    out.push(Access {
                        va: line << 6,
                        asid: 0,
                        core: t as u16,
                        write,
                    });
                }
            }
        }
    }

    /// Runs one unit of `op` (loop `part`, outer index `o`, middle `m`),
    /// recording its spans.
    // The component loops index several arrays at once, as in `bt.c`.
    #[allow(clippy::needless_range_loop)]
    fn exec(&mut self, op: Op, part: usize, o: usize, m: usize) {
        let d = self.d;
        let n = d.n;
        match op {
            Op::InitOnes => {
                let at = d.u(o, m, 0);
                self.a[U][at..at + n * 5].fill(1.0);
                rec(&mut self.spans, U, at, n * 5, true);
            }
            Op::InitInterp => {
                let k = &self.k;
                let (i, j) = (o, m);
                let xi = i as f64 * k.dnm1[0];
                let eta = j as f64 * k.dnm1[1];
                for kk in 0..n {
                    let zeta = kk as f64 * k.dnm1[2];
                    let mut pface = [[[0.0; 5]; 3]; 2];
                    for (ix, pf) in pface.iter_mut().enumerate() {
                        pf[0] = k.exact(ix as f64, eta, zeta);
                    }
                    for (iy, pf) in pface.iter_mut().enumerate() {
                        pf[1] = k.exact(xi, iy as f64, zeta);
                    }
                    for (iz, pf) in pface.iter_mut().enumerate() {
                        pf[2] = k.exact(xi, eta, iz as f64);
                    }
                    let at = d.u(i, j, kk);
                    for c in 0..5 {
                        let pxi = xi * pface[1][0][c] + (1.0 - xi) * pface[0][0][c];
                        let peta = eta * pface[1][1][c] + (1.0 - eta) * pface[0][1][c];
                        let pzeta = zeta * pface[1][2][c] + (1.0 - zeta) * pface[0][2][c];
                        self.a[U][at + c] =
                            pxi + peta + pzeta - pxi * peta - pxi * pzeta - peta * pzeta
                                + pxi * peta * pzeta;
                    }
                }
                rec(&mut self.spans, U, d.u(i, j, 0), n * 5, true);
            }
            Op::InitFaces(axis) => {
                let k = &self.k;
                let edge = if part == 0 { 0 } else { n - 1 };
                let side = if part == 0 { 0.0 } else { 1.0 };
                for x in 0..n {
                    let (i, j, kk) = match axis {
                        0 => (edge, o, x),
                        1 => (o, edge, x),
                        _ => (o, x, edge),
                    };
                    let c = [
                        i as f64 * k.dnm1[0],
                        j as f64 * k.dnm1[1],
                        kk as f64 * k.dnm1[2],
                    ];
                    let mut c = c;
                    c[axis] = side;
                    let t = k.exact(c[0], c[1], c[2]);
                    let at = d.u(i, j, kk);
                    self.a[U][at..at + 5].copy_from_slice(&t);
                    if axis == 2 {
                        rec(&mut self.spans, U, at, 5, true);
                    }
                }
                if axis != 2 {
                    let at = if axis == 0 {
                        d.u(edge, o, 0)
                    } else {
                        d.u(o, edge, 0)
                    };
                    rec(&mut self.spans, U, at, n * 5, true);
                }
            }
            Op::LhsZero => {
                let at = d.l(o, m, 0);
                self.a[LHS][at..at + n * 75].fill(0.0);
                rec(&mut self.spans, LHS, at, n * 75, true);
            }
            Op::LhsDiag => {
                for kk in 0..n {
                    let at = d.l(o, m, kk) + 25;
                    for c in 0..5 {
                        self.a[LHS][at + c * 5 + c] = 1.0;
                    }
                    rec(&mut self.spans, LHS, at, 25, true);
                }
            }
            Op::ForcingZero => {
                let at = d.f(o, m, 0);
                for kk in 0..n {
                    self.a[FORCING][at + kk * 6..at + kk * 6 + 5].fill(0.0);
                }
                rec(&mut self.spans, FORCING, at, (n - 1) * 6 + 5, true);
            }
            Op::Forcing(axis) => self.forcing_line(axis, o, m),
            Op::ForcingNegate => {
                for kk in 1..n - 1 {
                    let at = d.f(o, m, kk);
                    for c in 0..5 {
                        self.a[FORCING][at + c] = -self.a[FORCING][at + c];
                    }
                }
                let (at, len) = (d.f(o, m, 1), (n - 3) * 6 + 5);
                rec(&mut self.spans, FORCING, at, len, false);
                rec(&mut self.spans, FORCING, at, len, true);
            }
            Op::Prims => {
                let (i, j) = (o, m);
                if part == 0 {
                    for kk in 0..n {
                        let u = &self.a[U][d.u(i, j, kk)..d.u(i, j, kk) + 5];
                        let rho_inv = 1.0 / u[0];
                        let sq = 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) * rho_inv;
                        let vals = [
                            rho_inv,
                            u[1] * rho_inv,
                            u[2] * rho_inv,
                            u[3] * rho_inv,
                            sq,
                            sq * rho_inv,
                        ];
                        let s = d.s(i, j, kk);
                        for (arr, v) in [RHO_I, US, VS, WS, SQUARE, QS].into_iter().zip(vals) {
                            self.a[arr][s] = v;
                        }
                    }
                    rec(&mut self.spans, U, d.u(i, j, 0), n * 5, false);
                    for arr in [RHO_I, US, VS, WS, SQUARE, QS] {
                        rec(&mut self.spans, arr, d.s(i, j, 0), n, true);
                    }
                } else {
                    for kk in 0..n {
                        let (f, r) = (d.f(i, j, kk), d.r(i, j, kk));
                        for c in 0..5 {
                            self.a[RHS][r + c] = self.a[FORCING][f + c];
                        }
                    }
                    rec(
                        &mut self.spans,
                        FORCING,
                        d.f(i, j, 0),
                        (n - 1) * 6 + 5,
                        false,
                    );
                    rec(&mut self.spans, RHS, d.r(i, j, 0), n * 5, true);
                }
            }
            Op::Flux(axis) => self.flux_row(axis, o, m),
            Op::Diss(axis) => self.diss(axis, part, o, m),
            Op::ScaleDt => {
                let (j, kk) = (o, m);
                let dt = self.k.dt;
                for c in 0..5 {
                    for i in 1..n - 1 {
                        let r = d.r(i, j, kk) + c;
                        self.a[RHS][r] *= dt;
                    }
                }
                for i in 1..n - 1 {
                    rec(&mut self.spans, RHS, d.r(i, j, kk), 5, false);
                    rec(&mut self.spans, RHS, d.r(i, j, kk), 5, true);
                }
            }
            Op::Jac(axis) => {
                let (i, j) = (o, m);
                let (k0, k1) = if axis == 1 { (1, n - 1) } else { (0, n) };
                for kk in k0..k1 {
                    let at = d.u(i, j, kk);
                    let (f, nj) = jacobians(&self.k, axis, &self.a[U][at..at + 5]);
                    let ja = d.jac(i, j, kk);
                    self.a[FJAC][ja..ja + 25].copy_from_slice(&f);
                    self.a[NJAC][ja..ja + 25].copy_from_slice(&nj);
                }
                rec(&mut self.spans, U, d.u(i, j, k0), (k1 - k0) * 5, false);
                for arr in [FJAC, NJAC] {
                    rec(&mut self.spans, arr, d.jac(i, j, k0), (k1 - k0) * 25, true);
                }
            }
            Op::Lhs(axis) => self.lhs_line(axis, o, m),
            Op::Cell(axis, plane) => self.cell(axis, plane, o),
            Op::Back(axis, plane) => self.back(axis, plane, o, m),
            Op::Add => {
                let (i, j) = (o, m);
                for kk in 1..n - 1 {
                    let (u, r) = (d.u(i, j, kk), d.r(i, j, kk));
                    for c in 0..5 {
                        self.a[U][u + c] += self.a[RHS][r + c];
                    }
                }
                let (at, len) = (d.u(i, j, 1), (n - 2) * 5);
                rec(&mut self.spans, U, at, len, false);
                rec(&mut self.spans, U, at, len, true);
                rec(&mut self.spans, RHS, d.r(i, j, 1), (n - 2) * 5, false);
            }
            Op::ErrorNorm => {
                let k = &self.k;
                let (i, j) = (o, m);
                let xi = i as f64 * k.dnm1[0];
                let eta = j as f64 * k.dnm1[1];
                for kk in 0..n {
                    let zeta = kk as f64 * k.dnm1[2];
                    let ex = k.exact(xi, eta, zeta);
                    let at = d.u(i, j, kk);
                    for c in 0..5 {
                        let add = self.a[U][at + c] - ex[c];
                        self.sums[c] += add * add;
                    }
                }
                rec(&mut self.spans, U, d.u(i, j, 0), n * 5, false);
            }
            Op::RhsNorm => {
                let (i, j) = (o, m);
                for kk in 1..n - 1 {
                    let at = d.r(i, j, kk);
                    for c in 0..5 {
                        let add = self.a[RHS][at + c];
                        self.sums[c] += add * add;
                    }
                }
                rec(&mut self.spans, RHS, d.r(i, j, 1), (n - 2) * 5, false);
            }
        }
    }

    /// Index of point `x` along `axis` of the line through `(o, m)` (the other
    /// two coordinates, in order).
    #[inline]
    fn along(axis: usize, o: usize, m: usize, x: usize) -> (usize, usize, usize) {
        match axis {
            0 => (x, o, m),
            1 => (o, x, m),
            _ => (o, m, x),
        }
    }

    /// `exact_rhs`'s flux differences and dissipation along one line.
    #[allow(clippy::needless_range_loop)]
    fn forcing_line(&mut self, axis: usize, o: usize, m: usize) {
        let d = self.d;
        let n = d.n;
        let k = &self.k;
        let ax = axis + 1;
        let (ue, buf, cuf, q) = (&mut self.ue, &mut self.buf, &mut self.cuf, &mut self.q);
        for x in 0..n {
            let (i, j, kk) = Self::along(axis, o, m, x);
            let dtemp = k.exact(
                i as f64 * k.dnm1[0],
                j as f64 * k.dnm1[1],
                kk as f64 * k.dnm1[2],
            );
            ue[x] = dtemp;
            let dtpp = 1.0 / dtemp[0];
            for c in 1..=4 {
                buf[x][c] = dtpp * dtemp[c];
            }
            cuf[x] = buf[x][ax] * buf[x][ax];
            let (b1, b2) = match ax {
                1 => (2, 3),
                2 => (1, 3),
                _ => (1, 2),
            };
            buf[x][0] = cuf[x] + buf[x][b1] * buf[x][b1] + buf[x][b2] * buf[x][b2];
            q[x] = 0.5 * (buf[x][1] * ue[x][1] + buf[x][2] * ue[x][2] + buf[x][3] * ue[x][3]);
        }
        let t2 = k.t2[axis];
        let con = k.con[axis];
        let dd = k.ddt[axis];
        let (c1, c2) = (k.c1, k.c2);
        let fo = &mut self.a[FORCING];
        let st = |v: &dyn Fn(usize) -> f64, x: usize| v(x + 1) - 2.0 * v(x) + v(x - 1);
        for x in 1..n - 1 {
            let (i, j, kk) = Self::along(axis, o, m, x);
            let at = d.f(i, j, kk);
            let (p, mm) = (x + 1, x - 1);
            fo[at] = fo[at] - t2 * (ue[p][ax] - ue[mm][ax]) + dd[0] * st(&|y| ue[y][0], x);
            for c in 1..=3 {
                fo[at + c] = if c == ax {
                    fo[at + c]
                        - t2 * ((ue[p][c] * buf[p][ax] + c2 * (ue[p][4] - q[p]))
                            - (ue[mm][c] * buf[mm][ax] + c2 * (ue[mm][4] - q[mm])))
                        + con[0] * st(&|y| buf[y][c], x)
                        + dd[c] * st(&|y| ue[y][c], x)
                } else {
                    fo[at + c] - t2 * (ue[p][c] * buf[p][ax] - ue[mm][c] * buf[mm][ax])
                        + con[1] * st(&|y| buf[y][c], x)
                        + dd[c] * st(&|y| ue[y][c], x)
                };
            }
            fo[at + 4] = fo[at + 4]
                - t2 * (buf[p][ax] * (c1 * ue[p][4] - c2 * q[p])
                    - buf[mm][ax] * (c1 * ue[mm][4] - c2 * q[mm]))
                + 0.5 * con[2] * st(&|y| buf[y][0], x)
                + con[3] * st(&|y| cuf[y], x)
                + con[4] * st(&|y| buf[y][4], x)
                + dd[4] * st(&|y| ue[y][4], x);
        }
        // Fourth-order dissipation.
        let dssp = k.dssp;
        for c in 0..5 {
            for x in 1..n - 1 {
                let (i, j, kk) = Self::along(axis, o, m, x);
                let at = d.f(i, j, kk) + c;
                let e = |y: usize| ue[y][c];
                let v = if x == 1 {
                    5.0 * e(1) - 4.0 * e(2) + e(3)
                } else if x == 2 {
                    -4.0 * e(1) + 6.0 * e(2) - 4.0 * e(3) + e(4)
                } else if x == n - 3 {
                    e(x - 2) - 4.0 * e(x - 1) + 6.0 * e(x) - 4.0 * e(x + 1)
                } else if x == n - 2 {
                    e(x - 2) - 4.0 * e(x - 1) + 5.0 * e(x)
                } else {
                    e(x - 2) - 4.0 * e(x - 1) + 6.0 * e(x) - 4.0 * e(x + 1) + e(x + 2)
                };
                fo[at] -= dssp * v;
            }
        }
        for x in 1..n - 1 {
            let (i, j, kk) = Self::along(axis, o, m, x);
            rec(&mut self.spans, FORCING, d.f(i, j, kk), 5, false);
            rec(&mut self.spans, FORCING, d.f(i, j, kk), 5, true);
        }
    }

    /// `compute_rhs`'s fluxes along `axis` for row `(i, j)`.
    fn flux_row(&mut self, axis: usize, i: usize, j: usize) {
        let d = self.d;
        let n = d.n;
        let k = &self.k;
        let ax = axis + 1;
        let (t2, con, dd, c1, c2, con43) =
            (k.t2[axis], k.con[axis], k.ddt[axis], k.c1, k.c2, k.con43);
        let [u, _, _, rho, us, vs, ws, sq, qs, rhs, _, _] = &mut self.a;
        let vels: [&Vec<f64>; 3] = [&*us, &*vs, &*ws];
        let v = vels[axis];
        for kk in 1..n - 1 {
            let (pi, pj, pk) = Self::along(axis, 0, 0, 1);
            let (p, c, mm) = (
                (i + pi, j + pj, kk + pk),
                (i, j, kk),
                (i - pi, j - pj, kk - pk),
            );
            let (sp, sc, sm) = (
                d.s(p.0, p.1, p.2),
                d.s(c.0, c.1, c.2),
                d.s(mm.0, mm.1, mm.2),
            );
            let (up, uc, um) = (
                d.u(p.0, p.1, p.2),
                d.u(c.0, c.1, c.2),
                d.u(mm.0, mm.1, mm.2),
            );
            let r = d.r(i, j, kk);
            let (vc, vp, vm) = (v[sc], v[sp], v[sm]);
            let ust = |x: usize| u[up + x] - 2.0 * u[uc + x] + u[um + x];
            rhs[r] = rhs[r] + dd[0] * ust(0) - t2 * (u[up + ax] - u[um + ax]);
            for x in 1..=3 {
                rhs[r + x] = if x == ax {
                    rhs[r + x] + dd[x] * ust(x) + con[1] * con43 * (vp - 2.0 * vc + vm)
                        - t2 * (u[up + x] * vp - u[um + x] * vm
                            + (u[up + 4] - sq[sp] - u[um + 4] + sq[sm]) * c2)
                } else {
                    let w = vels[x - 1];
                    rhs[r + x] + dd[x] * ust(x) + con[1] * (w[sp] - 2.0 * w[sc] + w[sm])
                        - t2 * (u[up + x] * vp - u[um + x] * vm)
                };
            }
            rhs[r + 4] = rhs[r + 4]
                + dd[4] * ust(4)
                + con[2] * (qs[sp] - 2.0 * qs[sc] + qs[sm])
                + con[3] * (vp * vp - 2.0 * vc * vc + vm * vm)
                + con[4] * (u[up + 4] * rho[sp] - 2.0 * u[uc + 4] * rho[sc] + u[um + 4] * rho[sm])
                - t2 * ((c1 * u[up + 4] - c2 * sq[sp]) * vp - (c1 * u[um + 4] - c2 * sq[sm]) * vm);
        }
        let sp = &mut self.spans;
        let scal = [US, VS, WS, QS, RHO_I, SQUARE];
        if axis == 2 {
            rec(sp, U, d.u(i, j, 0), n * 5, false);
            for arr in scal {
                rec(sp, arr, d.s(i, j, 0), n, false);
            }
        } else {
            let (pi, pj, _) = Self::along(axis, 0, 0, 1);
            for (a, b) in [(i - pi, j - pj), (i, j), (i + pi, j + pj)] {
                rec(sp, U, d.u(a, b, 1), (n - 2) * 5, false);
                for arr in scal {
                    if (a, b) != (i, j) || arr != SQUARE {
                        rec(sp, arr, d.s(a, b, 1), n - 2, false);
                    }
                }
            }
        }
        rec(sp, RHS, d.r(i, j, 1), (n - 2) * 5, false);
        rec(sp, RHS, d.r(i, j, 1), (n - 2) * 5, true);
    }

    /// `compute_rhs`'s fourth-order dissipation along `axis`, loop `part`
    /// (0: the first point, 1: the second, 2: the interior, 3, 4: the last
    /// two), unit `(o, m)`.
    fn diss(&mut self, axis: usize, part: usize, o: usize, m: usize) {
        let d = self.d;
        let n = d.n;
        let dssp = self.k.dssp;
        let (offs, coef): (&[isize], &[f64]) = match part {
            0 => (&[0, 1, 2], &[5.0, -4.0, 1.0]),
            1 => (&[-1, 0, 1, 2], &[-4.0, 6.0, -4.0, 1.0]),
            2 => (&[-2, -1, 0, 1, 2], &[1.0, -4.0, 6.0, -4.0, 1.0]),
            3 => (&[-2, -1, 0, 1], &[1.0, -4.0, 6.0, -4.0]),
            _ => (&[-2, -1, 0], &[1.0, -4.0, 5.0]),
        };
        let fixed = [1, 2, 0, n - 3, n - 2][part];
        // The points of the unit: (i, j, k range).
        let (i, j, ks): (usize, usize, (usize, usize)) = match (axis, part) {
            (0, 2) | (1, 2) => (o, m, (1, n - 1)),
            (0, _) => (fixed, o, (1, n - 1)),
            (1, _) => (o, fixed, (1, n - 1)),
            (_, 2) => (o, m, (3, n - 3)),
            _ => (o, m, (fixed, fixed + 1)),
        };
        let step = |p: (usize, usize, usize), off: isize| -> (usize, usize, usize) {
            let mv = |x: usize| (x as isize + off) as usize;
            match axis {
                0 => (mv(p.0), p.1, p.2),
                1 => (p.0, mv(p.1), p.2),
                _ => (p.0, p.1, mv(p.2)),
            }
        };
        let [u, .., rhs, _, _] = &mut self.a;
        for kk in ks.0..ks.1 {
            let r = d.r(i, j, kk);
            for c in 0..5 {
                let mut acc = 0.0;
                for (x, (&off, &cf)) in offs.iter().zip(coef).enumerate() {
                    let q = step((i, j, kk), off);
                    let v = cf * u[d.u(q.0, q.1, q.2) + c];
                    acc = if x == 0 { v } else { acc + v };
                }
                rhs[r + c] -= dssp * acc;
            }
        }
        let sp = &mut self.spans;
        let len = ks.1 - ks.0;
        if axis == 2 {
            let lo = (ks.0 as isize + offs[0]) as usize;
            let hi = (ks.1 as isize - 1 + offs[offs.len() - 1]) as usize;
            rec(sp, U, d.u(i, j, lo), (hi + 1 - lo) * 5, false);
        } else {
            for &off in offs {
                let q = step((i, j, ks.0), off);
                rec(sp, U, d.u(q.0, q.1, q.2), len * 5, false);
            }
        }
        rec(sp, RHS, d.r(i, j, ks.0), len * 5, false);
        rec(sp, RHS, d.r(i, j, ks.0), len * 5, true);
    }

    /// `lhsx` for line `(j, k)` (Jacobians along it, then its blocks), or
    /// `lhsy`'s, `lhsz`'s blocks for row `(i, j)`.
    fn lhs_line(&mut self, axis: usize, o: usize, m: usize) {
        let d = self.d;
        let n = d.n;
        let k = &self.k;
        let [u, lhs, .., fjac, njac] = &mut self.a;
        let sp = &mut self.spans;
        if axis == 0 {
            let (j, kk) = (o, m);
            for i in 0..n {
                let at = d.u(i, j, kk);
                let (f, nj) = jacobians(k, 0, &u[at..at + 5]);
                let ja = d.jac(i, j, kk);
                fjac[ja..ja + 25].copy_from_slice(&f);
                njac[ja..ja + 25].copy_from_slice(&nj);
                rec(sp, U, at, 5, false);
                rec(sp, FJAC, ja, 25, true);
                rec(sp, NJAC, ja, 25, true);
            }
        }
        // The points of the line or row.
        let pts = |x: usize| match axis {
            0 => (x, o, m),
            _ => (o, m, x),
        };
        for x in 1..n - 1 {
            let (i, j, kk) = pts(x);
            let (pm, pp) = match axis {
                0 => ((i - 1, j, kk), (i + 1, j, kk)),
                1 => ((i, j - 1, kk), (i, j + 1, kk)),
                _ => ((i, j, kk - 1), (i, j, kk + 1)),
            };
            let (am, ac, ap) = (
                d.jac(pm.0, pm.1, pm.2),
                d.jac(i, j, kk),
                d.jac(pp.0, pp.1, pp.2),
            );
            let at = d.l(i, j, kk);
            lhs_blocks(
                k,
                axis,
                &mut lhs[at..at + 75],
                &fjac[am..am + 25],
                &njac[am..am + 25],
                &njac[ac..ac + 25],
                &fjac[ap..ap + 25],
                &njac[ap..ap + 25],
            );
            if axis == 0 {
                for (arr, a) in [(FJAC, am), (NJAC, am), (NJAC, ac), (FJAC, ap), (NJAC, ap)] {
                    rec(sp, arr, a, 25, false);
                }
                rec(sp, LHS, at, 75, true);
            }
        }
        match axis {
            0 => {}
            1 => {
                let (i, j) = (o, m);
                for b in [j - 1, j + 1] {
                    rec(sp, FJAC, d.jac(i, b, 1), (n - 2) * 25, false);
                }
                for b in [j - 1, j, j + 1] {
                    rec(sp, NJAC, d.jac(i, b, 1), (n - 2) * 25, false);
                }
                rec(sp, LHS, d.l(i, j, 1), (n - 2) * 75, true);
            }
            _ => {
                let (i, j) = (o, m);
                rec(sp, FJAC, d.jac(i, j, 0), n * 25, false);
                rec(sp, NJAC, d.jac(i, j, 0), n * 25, false);
                rec(sp, LHS, d.l(i, j, 1), (n - 2) * 75, true);
            }
        }
    }

    /// The point of plane `plane` along `axis` on the line `(o, x)`.
    #[inline]
    fn plane_point(axis: usize, plane: usize, o: usize, x: usize) -> (usize, usize, usize) {
        match axis {
            0 => (plane, o, x),
            1 => (o, plane, x),
            _ => (o, x, plane),
        }
    }

    /// `*_solve_cell` for plane `plane` of `axis`, unit `o` (a row along k,
    /// or for z a line along j).
    fn cell(&mut self, axis: usize, plane: usize, o: usize) {
        let d = self.d;
        let n = d.n;
        let last = n - 1;
        let (lhs_v, rest) = self.a.split_at_mut(LHS + 1);
        let lhs = &mut lhs_v[LHS];
        let rhs = &mut rest[RHS - LHS - 1];
        let sp = &mut self.spans;
        for x in 1..n - 1 {
            let (i, j, kk) = Self::plane_point(axis, plane, o, x);
            let at = d.l(i, j, kk);
            let r = d.r(i, j, kk);
            let mut bb = [0.0; 25];
            let mut cc = [0.0; 25];
            let mut rr = [0.0; 5];
            bb.copy_from_slice(&lhs[at + 25..at + 50]);
            cc.copy_from_slice(&lhs[at + 50..at + 75]);
            rr.copy_from_slice(&rhs[r..r + 5]);
            if plane > 0 {
                let (pi, pj, pk) = Self::plane_point(axis, plane - 1, o, x);
                let (pa, pr) = (d.l(pi, pj, pk), d.r(pi, pj, pk));
                let aa = &lhs[at..at + 25];
                matvec_sub(aa, &rhs[pr..pr + 5], &mut rr);
                matmul_sub(aa, &lhs[pa + 50..pa + 75], &mut bb);
                rec(sp, LHS, pa + 50, 25, false);
                rec(sp, RHS, pr, 5, false);
            }
            if plane < last {
                binv(&mut bb, Some(&mut cc), &mut rr);
            } else {
                binv(&mut bb, None, &mut rr);
            }
            lhs[at + 25..at + 50].copy_from_slice(&bb);
            lhs[at + 50..at + 75].copy_from_slice(&cc);
            rhs[r..r + 5].copy_from_slice(&rr);
            if plane > 0 {
                rec(sp, LHS, at, 75, false);
            } else {
                rec(sp, LHS, at + 25, 50, false);
            }
            rec(sp, LHS, at + 25, 50, true);
            rec(sp, RHS, r, 5, false);
            rec(sp, RHS, r, 5, true);
        }
    }

    /// `*_backsubstitute`: plane `plane` of x or y (unit: row `o`), or z's
    /// row `(o, m)` from `k = n - 2` down to 0.
    fn back(&mut self, axis: usize, plane: usize, o: usize, m: usize) {
        let d = self.d;
        let n = d.n;
        let (lhs_v, rest) = self.a.split_at_mut(LHS + 1);
        let lhs = &lhs_v[LHS];
        let rhs = &mut rest[RHS - LHS - 1];
        let sp = &mut self.spans;
        let pts: Vec<(Point, Point)> = if axis == 2 {
            (0..n - 1)
                .rev()
                .map(|kk| ((o, m, kk), (o, m, kk + 1)))
                .collect()
        } else {
            (1..n - 1)
                .map(|x| {
                    (
                        Self::plane_point(axis, plane, o, x),
                        Self::plane_point(axis, plane + 1, o, x),
                    )
                })
                .collect()
        };
        for ((i, j, kk), (ni, nj, nk)) in pts {
            let at = d.l(i, j, kk) + 50;
            let (r, nr) = (d.r(i, j, kk), d.r(ni, nj, nk));
            for c in 0..5 {
                for q in 0..5 {
                    rhs[r + c] -= lhs[at + c * 5 + q] * rhs[nr + q];
                }
            }
            rec(sp, LHS, at, 25, false);
            rec(sp, RHS, nr, 5, false);
            rec(sp, RHS, r, 5, false);
            rec(sp, RHS, r, 5, true);
        }
    }
}

impl Kernel for BtStream {
    fn threads(&self) -> usize {
        self.threads
    }

    fn next_thread(&mut self) -> &mut usize {
        &mut self.next_thread
    }

    fn has_work(&self, t: usize) -> bool {
        self.cursor[t].l < self.loops.len()
    }

    fn unit(&mut self, t: usize, out: &mut Vec<Access>) {
        BtStream::unit(self, t, out)
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

    fn bases() -> Vec<u64> {
        (1..=12).map(|i| (i as u64) << 36).collect()
    }

    /// Runs the whole benchmark once through `fill` (every access generated
    /// and counted); returns its norms and (reads, writes).
    fn run(p: BtParams, threads: usize) -> (([f64; 5], [f64; 5]), u64, u64) {
        let mut s = BtStream::new(p, threads, &bases(), u64::MAX).unwrap();
        let mut buf = vec![Access::default(); 1 << 16];
        let (mut r, mut w) = (0, 0);
        while s.verified_norms().is_none() {
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
        (s.verified_norms().unwrap(), r, w)
    }

    #[test]
    fn class_s_verifies() {
        let (p, (xcrref, xceref)) = BtParams::class('S').unwrap();
        let ((xcr, xce), r, w) = run(p, 4);
        eprintln!("xcr {xcr:?}\nxce {xce:?}\n{r} reads, {w} writes");
        assert!(r > w, "{r} reads, {w} writes");
        for m in 0..5 {
            let dr = ((xcr[m] - xcrref[m]) / xcrref[m]).abs();
            let de = ((xce[m] - xceref[m]) / xceref[m]).abs();
            assert!(dr <= 1e-8, "xcr[{m}] {:e} vs {:e}", xcr[m], xcrref[m]);
            assert!(de <= 1e-8, "xce[{m}] {:e} vs {:e}", xce[m], xceref[m]);
        }
    }

    #[test]
    fn threads_do_not_change_the_numbers_and_accesses_stay_in_the_arrays() {
        let p = BtParams {
            n: 9,
            niter: 2,
            dt: 0.01,
        };
        let (one, ..) = run(p.clone(), 1);
        let (many, ..) = run(p.clone(), 5);
        assert_eq!(one, many);
        let plan = BtStream::plan(&p).unwrap();
        let b = bases();
        let mut s1 = BtStream::new(p.clone(), 5, &b, 300_000).unwrap();
        let mut s2 = BtStream::new(p, 5, &b, 300_000).unwrap();
        let mut b1 = vec![Access::default(); 1 << 20];
        let mut b2 = vec![Access::default(); 1 << 20];
        let n1 = s1.fill(&mut b1);
        assert_eq!(n1 as u64, s1.load_accesses() + 300_000);
        let n2 = s2.fill(&mut b2);
        assert_eq!(b1[..n1], b2[..n2]);
        let mut cores = [0u64; 5];
        for a in &b1[..n1] {
            let i = b.iter().rposition(|&x| x <= a.va).unwrap();
            assert!(a.va < b[i] + plan[i].1, "{a:?} outside {}", plan[i].0);
            cores[a.core as usize] += 1;
        }
        assert!(cores.iter().all(|&c| c > 0), "{cores:?}");
    }

    #[test]
    fn the_load_phase_follows_first_touch() {
        let p = BtParams {
            n: 8,
            niter: 1,
            dt: 0.01,
        };
        let b = bases();
        let mut s = BtStream::new(p, 2, &b, 0).unwrap();
        let mut buf = vec![Access::default(); 1 << 16];
        let n = s.fill(&mut buf);
        assert_eq!(n as u64, s.load_accesses());
        let order: Vec<usize> = buf[..n]
            .iter()
            .map(|a| b.iter().rposition(|&x| x <= a.va).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(order[0], U);
        assert_eq!(plan_names()[1], "lhs");
    }

    fn plan_names() -> Vec<String> {
        BtStream::plan(&BtParams::class('S').unwrap().0)
            .unwrap()
            .into_iter()
            .map(|x| x.0)
            .collect()
    }

    #[test]
    fn footprint_follows_the_size_asked_for() {
        for (gib, n) in [(0.8, 89), (1.5, 110), (3.5, 147)] {
            let want = (gib * (1u64 << 30) as f64) as u64;
            let p = BtParams::for_footprint(want);
            let got: u64 = BtStream::plan(&p).unwrap().iter().map(|a| a.1).sum();
            assert!(got <= want, "{gib} GiB: {got} ({p:?})");
            let next = Dims::new(p.n + 1).bytes();
            assert!(next > want, "{gib} GiB: n {} is not the largest", p.n);
            assert_eq!(p.n, n, "{gib} GiB");
            assert_eq!(p.niter, 200);
        }
        assert_eq!(BtParams::for_footprint(0).n, 12);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let b = bases();
        for (n, niter, dt) in [
            (7, 1, 0.01),
            (1025, 1, 0.01),
            (12, 0, 0.01),
            (12, 1, 0.0),
            (12, 1, f64::NAN),
        ] {
            assert!(BtStream::new(BtParams { n, niter, dt }, 1, &b, 10).is_err());
        }
        let (p, _) = BtParams::class('S').unwrap();
        assert!(BtStream::new(p.clone(), 0, &b, 10).is_err());
        assert!(BtStream::new(p, 1, &b[..11], 10).is_err());
    }
}
