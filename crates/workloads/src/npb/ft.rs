//! NPB FT, executed: `FT/ft.c` of NPB 3.0 (OpenMP C), ported routine for
//! routine: `compute_indexmap` and the exponentials, `compute_initial_conditions`
//! (NPB's generator, `ipow46`), `fft_init`, the blocked 1-D FFTs along each
//! axis (`cffts1`, `cffts2`, `cffts3`: 16 lines of the grid copied to a
//! scratch block, Swarztrauber's Stockham variant `cfftz`/`fftz2`, copied
//! back), `evolve` and `checksum`, in `main`'s order (one untimed forward
//! transform, then the timed set-up, forward transform and `niter`
//! evolve/inverse/checksum steps). Class S gives NPB's six checksums to
//! NPB's own tolerance (1e-12 relative), by the same code that emits the
//! accesses.
//!
//! What differs from the C program, and why:
//! - The checksum is summed in one order (C: per-thread sums added in a
//!   critical section, in whatever order threads arrive).
//! - Grids must have `nx >= ny >= nz >= 16`, powers of two (every class
//!   does): the roots of unity are built for `nx`, and the FFT blocks are 16
//!   lines wide.
//! - The scratch blocks (`y0`, `y1`, 16 lines each, private to a thread and
//!   cache-resident) are not simulated; the accesses are those of `u0`, `u1`,
//!   `u2`, `indexmap` and `ex`.
//! - Run length: see [`super`] (a budget of accesses; the timed section
//!   repeats when `niter` steps are done).
//!
//! Accesses are recorded a unit of work at a time: a row of the grid (set-up,
//! `evolve`) or an FFT block (16 rows along x, or a 16-element strip of every
//! row along y or z), touching each line of what it reads and writes once.
//! Simulated arrays, in first-touch order: `indexmap`, `ex`, `u1`, `u0`, `u2`.

use super::{randlc, share};
use super::{Feed, Kernel};
use crate::{Access, LoadPhase, WorkloadError};

/// FT's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FtParams {
    /// Grid sides (powers of two, `nx >= ny >= nz >= 16`).
    pub nx: usize,
    /// y side.
    pub ny: usize,
    /// z side.
    pub nz: usize,
    /// Time steps.
    pub niter: usize,
}

/// FFT block width (`FFTBLOCK`).
const BLOCK: usize = 16;
const SEED: f64 = 314_159_265.0;
const A: f64 = 1_220_703_125.0;
const PI: f64 = std::f64::consts::PI;
const ALPHA: f64 = 1.0e-6;

impl FtParams {
    /// NPB's class `c` and its published checksums (`ft.c`, `verify`).
    pub fn class(c: char) -> Option<(FtParams, Vec<(f64, f64)>)> {
        let (nx, ny, nz, niter, sums): (usize, usize, usize, usize, &[(f64, f64)]) = match c {
            'S' => (
                64,
                64,
                64,
                6,
                &[
                    (5.546_087_004_964e2, 4.845_363_331_978e2),
                    (5.546_385_409_189e2, 4.865_304_269_511e2),
                    (5.546_148_406_171e2, 4.883_910_722_336e2),
                    (5.545_423_607_415e2, 4.901_273_169_046e2),
                    (5.544_255_039_624e2, 4.917_475_857_993e2),
                    (5.542_683_411_902e2, 4.932_597_244_941e2),
                ],
            ),
            'W' => (
                128,
                128,
                32,
                6,
                &[
                    (5.673_612_178_944e2, 5.293_246_849_175e2),
                    (5.631_436_885_271e2, 5.282_149_986_629e2),
                    (5.594_024_089_970e2, 5.270_996_558_037e2),
                    (5.560_698_047_020e2, 5.260_027_904_925e2),
                    (5.530_898_991_250e2, 5.249_400_845_633e2),
                    (5.504_159_734_538e2, 5.239_212_247_086e2),
                ],
            ),
            _ => return None,
        };
        Some((FtParams { nx, ny, nz, niter }, sums.to_vec()))
    }

    /// The power-of-two grid (`nx >= ny >= nz`, doubling x, then y, then z,
    /// from 32^3; class B's 20 steps) whose arrays come nearest `bytes`, in
    /// ratio.
    pub fn for_footprint(bytes: u64) -> FtParams {
        let mut p = FtParams {
            nx: 32,
            ny: 32,
            nz: 32,
            niter: 20,
        };
        let off = |p: &FtParams| (Self::bytes(p) as f64 / bytes.max(1) as f64).ln().abs();
        loop {
            let mut next = p.clone();
            if next.ny < next.nx {
                next.ny *= 2;
            } else if next.nz < next.ny {
                next.nz *= 2;
            } else {
                next.nx *= 2;
            }
            if next.nx > 4096 || off(&next) >= off(&p) {
                return p;
            }
            p = next;
        }
    }

    fn points(&self) -> usize {
        self.nx * self.ny * self.nz
    }

    fn expmax(&self) -> usize {
        self.niter * (self.nx * self.nx / 4 + self.ny * self.ny / 4 + self.nz * self.nz / 4)
    }

    fn bytes(p: &FtParams) -> u64 {
        (p.points() * (3 * 16 + 4) + (p.expmax() + 1) * 8) as u64
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let pow2 = |n: usize| n.is_power_of_two() && (BLOCK..=4096).contains(&n);
        if !(pow2(self.nx) && pow2(self.ny) && pow2(self.nz))
            || self.nx < self.ny
            || self.ny < self.nz
            || self.niter == 0
            || self.niter > 1000
        {
            return Err(WorkloadError::Invalid(
                "npb ft: sides must be powers of two in 16..=4096 with nx >= ny >= nz, niter in 1..=1000"
                    .into(),
            ));
        }
        if Self::bytes(self) > 64 << 30 {
            return Err(WorkloadError::Invalid(
                "npb ft: the grid would take more than 64 GiB".into(),
            ));
        }
        Ok(())
    }
}

// Arrays.
const U0: usize = 0;
const U1: usize = 1;
const U2: usize = 2;
const IMAP: usize = 3;
const EX: usize = 4;
/// (name, element bytes), in address order.
const ARRAYS: [(&str, u64); 5] = [
    ("u0", 16),
    ("u1", 16),
    ("u2", 16),
    ("indexmap", 4),
    ("ex", 8),
];

/// One parallel loop (or serial piece) of the program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    /// indexmap, over i (outer) and j.
    Indexmap,
    /// The exponentials (thread 0, 512 at a time).
    Ex,
    /// Initial conditions into u1 (thread 0, row by row).
    Init,
    /// FFT along x: direction, source, destination.
    Fft1(i32, usize, usize),
    /// FFT along y.
    Fft2(i32, usize, usize),
    /// FFT along z.
    Fft3(i32, usize, usize),
    /// u1 = u0 ex^(t indexmap).
    Evolve(usize),
    /// checksum of u2 at step t.
    Checksum(usize),
}

/// An FT run: the kernel's state and the stream of its accesses.
pub struct FtStream {
    p: FtParams,
    u: [Vec<[f64; 2]>; 3],
    imap: Vec<u32>,
    ex: Vec<f64>,
    roots: Vec<[f64; 2]>,
    y0: Vec<[f64; 2]>,
    y1: Vec<[f64; 2]>,
    threads: usize,
    bases: [u64; 5],
    program: Vec<Op>,
    timed: usize,
    op: usize,
    cursor: Vec<(usize, usize)>,
    end: Vec<usize>,
    next_thread: usize,
    /// Generator state of `compute_initial_conditions`.
    start: f64,
    x0: f64,
    an: f64,
    sums: Vec<(f64, f64)>,
    verified: Option<Vec<(f64, f64)>>,
    feed: Feed,
}

/// `ipow46`: `a^exponent mod 2^46` by NPB's generator.
fn ipow46(a: f64, exponent: usize) -> f64 {
    if exponent == 0 {
        return 1.0;
    }
    let (mut q, mut r, mut n) = (a, 1.0, exponent);
    while n > 1 {
        if n % 2 == 0 {
            let qq = q;
            randlc(&mut q, qq);
            n /= 2;
        } else {
            randlc(&mut r, q);
            n -= 1;
        }
    }
    randlc(&mut r, q);
    r
}

/// `fftz2`: the l-th pass of the Stockham FFT on `BLOCK` columns.
fn fftz2(is: i32, l: u32, m: u32, n: usize, u: &[[f64; 2]], x: &[[f64; 2]], y: &mut [[f64; 2]]) {
    let n1 = n / 2;
    let lk = 1usize << (l - 1);
    let li = 1usize << (m - l);
    let lj = 2 * lk;
    let ku = li;
    for i in 0..li {
        let i11 = i * lk;
        let i12 = i11 + n1;
        let i21 = i * lj;
        let i22 = i21 + lk;
        let u1 = if is >= 1 {
            u[ku + i]
        } else {
            [u[ku + i][0], -u[ku + i][1]]
        };
        for k in 0..lk {
            for j in 0..BLOCK {
                let x11 = x[(i11 + k) * BLOCK + j];
                let x21 = x[(i12 + k) * BLOCK + j];
                y[(i21 + k) * BLOCK + j] = [x11[0] + x21[0], x11[1] + x21[1]];
                y[(i22 + k) * BLOCK + j] = [
                    u1[0] * (x11[0] - x21[0]) - u1[1] * (x11[1] - x21[1]),
                    u1[0] * (x11[1] - x21[1]) + u1[1] * (x11[0] - x21[0]),
                ];
            }
        }
    }
}

/// `cfftz`: `BLOCK` FFTs of length `n = 2^m` on `x` (result in `x`).
fn cfftz(is: i32, m: u32, n: usize, u: &[[f64; 2]], x: &mut [[f64; 2]], y: &mut [[f64; 2]]) {
    let mut l = 1;
    while l <= m {
        fftz2(is, l, m, n, u, x, y);
        if l == m {
            break;
        }
        fftz2(is, l + 1, m, n, u, y, x);
        l += 2;
    }
    if m % 2 == 1 {
        x[..n * BLOCK].copy_from_slice(&y[..n * BLOCK]);
    }
}

impl FtStream {
    /// An FT run of `accesses` kernel accesses by `threads` threads, its
    /// arrays at `bases` (in [`FtStream::plan`] order).
    pub fn new(
        p: FtParams,
        threads: usize,
        bases: &[u64],
        accesses: u64,
    ) -> Result<FtStream, WorkloadError> {
        p.validate()?;
        if threads == 0 || threads > 1024 {
            return Err(WorkloadError::Invalid(
                "npb ft: threads must be in 1..=1024".into(),
            ));
        }
        let &[b0, b1, b2, b3, b4] = bases else {
            return Err(WorkloadError::Invalid(format!(
                "npb ft: {} bases given for 5 arrays",
                bases.len()
            )));
        };
        let sizes = Self::sizes(&p);
        let load = LoadPhase::new(
            [IMAP, EX, U1, U0, U2]
                .iter()
                .map(|&i| (bases[i], sizes[i]))
                .collect(),
        );
        // fft_init(nx)
        let m = p.nx.trailing_zeros();
        let mut roots = vec![[0.0; 2]; p.nx];
        roots[0] = [f64::from(m), 0.0];
        let (mut ku, mut ln) = (1, 1);
        for _ in 1..=m {
            let t = PI / ln as f64;
            for i in 0..ln {
                let ti = i as f64 * t;
                roots[i + ku] = [ti.cos(), ti.sin()];
            }
            ku += ln;
            ln *= 2;
        }
        let mut program = Vec::new();
        let setup = [
            Op::Indexmap,
            Op::Ex,
            Op::Init,
            Op::Fft1(1, U1, U1),
            Op::Fft2(1, U1, U1),
            Op::Fft3(1, U1, U0),
        ];
        program.extend(setup);
        let timed = program.len();
        program.extend(setup);
        for t in 1..=p.niter {
            program.extend([
                Op::Evolve(t),
                Op::Fft3(-1, U1, U1),
                Op::Fft2(-1, U1, U1),
                Op::Fft1(-1, U1, U2),
                Op::Checksum(t),
            ]);
        }
        let n = p.points();
        let mut s = FtStream {
            u: [vec![[0.0; 2]; n], vec![[0.0; 2]; n], vec![[0.0; 2]; n]],
            imap: vec![0; n],
            ex: vec![0.0; p.expmax() + 1],
            roots,
            y0: vec![[0.0; 2]; p.nx * BLOCK],
            y1: vec![[0.0; 2]; p.nx * BLOCK],
            threads,
            bases: [b0, b1, b2, b3, b4],
            program,
            timed,
            op: 0,
            cursor: vec![(0, 0); threads],
            end: vec![0; threads],
            next_thread: 0,
            start: 0.0,
            x0: 0.0,
            an: 0.0,
            sums: vec![(0.0, 0.0); p.niter + 1],
            verified: None,
            feed: Feed::new(load, accesses),
            p,
        };
        s.start_op();
        Ok(s)
    }

    fn sizes(p: &FtParams) -> [u64; 5] {
        let page = |b: usize| (b as u64).div_ceil(4096) * 4096;
        let n = p.points();
        [
            page(n * 16),
            page(n * 16),
            page(n * 16),
            page(n * 4),
            page((p.expmax() + 1) * 8),
        ]
    }

    /// (name, bytes) of the arrays a run with `p` maps.
    pub fn plan(p: &FtParams) -> Result<Vec<(String, u64)>, WorkloadError> {
        p.validate()?;
        Ok(ARRAYS
            .iter()
            .zip(Self::sizes(p))
            .map(|(&(n, _), b)| (n.to_string(), b))
            .collect())
    }

    /// Accesses of the load phase.
    pub fn load_accesses(&self) -> u64 {
        let s = Self::sizes(&self.p);
        LoadPhase::accesses(&s.iter().map(|&b| (0, b)).collect::<Vec<_>>())
    }

    /// The checksums of the first whole benchmark, once it has finished.
    pub fn verified_sums(&self) -> Option<&[(f64, f64)]> {
        self.verified.as_deref()
    }

    /// (outer range, inner range, serial) of an op.
    fn bounds(&self, op: Op) -> ((usize, usize), (usize, usize), bool) {
        let p = &self.p;
        match op {
            Op::Indexmap => ((0, p.nx), (0, p.ny), false),
            Op::Ex => ((0, (p.expmax() + 1).div_ceil(512)), (0, 1), true),
            Op::Init => ((0, p.nz), (0, p.ny), true),
            Op::Fft1(..) => ((0, p.nz), (0, p.ny / BLOCK), false),
            Op::Fft2(..) => ((0, p.nz), (0, p.nx / BLOCK), false),
            Op::Fft3(..) => ((0, p.ny), (0, p.nx / BLOCK), false),
            Op::Evolve(_) => ((0, p.nz), (0, p.ny), false),
            Op::Checksum(_) => ((0, 1), (0, 1), true),
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
        }
        self.next_thread = 0;
        if op == Op::Init {
            self.start = SEED;
            randlc(&mut self.start, ipow46(A, 0));
            self.an = ipow46(A, 2 * self.p.nx * self.p.ny);
        }
    }

    /// Thread `t` touches elements `lo..lo + n` of `arr`.
    fn span(&self, out: &mut Vec<Access>, t: usize, arr: usize, lo: usize, n: usize, write: bool) {
        let elem = ARRAYS[arr].1;
        let first = (self.bases[arr] + lo as u64 * elem) >> 6;
        let last = (self.bases[arr] + (lo + n) as u64 * elem - 1) >> 6;
        for line in first..=last {
            out.push(Access {
                va: line << 6,
                asid: 0,
                core: t as u16,
                write,
            });
        }
    }

    fn at(&self, k: usize, j: usize, i: usize) -> usize {
        (k * self.p.ny + j) * self.p.nx + i
    }

    /// One unit of thread `t`.
    fn unit(&mut self, t: usize, out: &mut Vec<Access>) {
        let op = self.program[self.op];
        let (_, (ilo, ihi), _) = self.bounds(op);
        let (o, inner) = self.cursor[t];
        self.cursor[t] = if inner + 1 < ihi {
            (o, inner + 1)
        } else {
            (o + 1, ilo)
        };
        let (nx, ny, nz) = (self.p.nx, self.p.ny, self.p.nz);
        match op {
            Op::Indexmap => {
                let (i, j) = (o, inner);
                let wrap = |a: usize, n: usize| ((a + n / 2) % n) as i64 - (n / 2) as i64;
                let ij2 = wrap(i, nx).pow(2) + wrap(j, ny).pow(2);
                for k in 0..nz {
                    let at = self.at(k, j, i);
                    self.imap[at] = (wrap(k, nz).pow(2) + ij2) as u32;
                    self.span(out, t, IMAP, at, 1, true);
                }
            }
            Op::Ex => {
                let lo = o * 512;
                let hi = (lo + 512).min(self.ex.len());
                let e1 = (-4.0 * ALPHA * PI * PI).exp();
                for i in lo..hi {
                    self.ex[i] = match i {
                        0 => 1.0,
                        1 => e1,
                        _ => self.ex[i - 1] * e1,
                    };
                }
                self.span(out, t, EX, lo, hi - lo, true);
            }
            Op::Init => {
                let (k, j) = (o, inner);
                if j == 0 {
                    self.x0 = self.start;
                }
                let at = self.at(k, j, 0);
                for i in 0..nx {
                    let re = randlc(&mut self.x0, A);
                    let im = randlc(&mut self.x0, A);
                    self.u[1][at + i] = [re, im];
                }
                self.span(out, t, U1, at, nx, true);
                if j + 1 == ny {
                    let an = self.an;
                    randlc(&mut self.start, an);
                }
            }
            Op::Fft1(is, src, dst) => {
                let (k, jj) = (o, inner * BLOCK);
                for j in 0..BLOCK {
                    let at = self.at(k, jj + j, 0);
                    for i in 0..nx {
                        self.y0[i * BLOCK + j] = self.u[src][at + i];
                    }
                    self.span(out, t, src, at, nx, false);
                }
                cfftz(
                    is,
                    nx.trailing_zeros(),
                    nx,
                    &self.roots,
                    &mut self.y0,
                    &mut self.y1,
                );
                for j in 0..BLOCK {
                    let at = self.at(k, jj + j, 0);
                    for i in 0..nx {
                        self.u[dst][at + i] = self.y0[i * BLOCK + j];
                    }
                    self.span(out, t, dst, at, nx, true);
                }
            }
            Op::Fft2(is, src, dst) => {
                let (k, ii) = (o, inner * BLOCK);
                for j in 0..ny {
                    let at = self.at(k, j, ii);
                    self.y0[j * BLOCK..(j + 1) * BLOCK]
                        .copy_from_slice(&self.u[src][at..at + BLOCK]);
                    self.span(out, t, src, at, BLOCK, false);
                }
                cfftz(
                    is,
                    ny.trailing_zeros(),
                    ny,
                    &self.roots,
                    &mut self.y0,
                    &mut self.y1,
                );
                for j in 0..ny {
                    let at = self.at(k, j, ii);
                    self.u[dst][at..at + BLOCK]
                        .copy_from_slice(&self.y0[j * BLOCK..(j + 1) * BLOCK]);
                    self.span(out, t, dst, at, BLOCK, true);
                }
            }
            Op::Fft3(is, src, dst) => {
                let (j, ii) = (o, inner * BLOCK);
                for k in 0..nz {
                    let at = self.at(k, j, ii);
                    self.y0[k * BLOCK..(k + 1) * BLOCK]
                        .copy_from_slice(&self.u[src][at..at + BLOCK]);
                    self.span(out, t, src, at, BLOCK, false);
                }
                cfftz(
                    is,
                    nz.trailing_zeros(),
                    nz,
                    &self.roots,
                    &mut self.y0,
                    &mut self.y1,
                );
                for k in 0..nz {
                    let at = self.at(k, j, ii);
                    self.u[dst][at..at + BLOCK]
                        .copy_from_slice(&self.y0[k * BLOCK..(k + 1) * BLOCK]);
                    self.span(out, t, dst, at, BLOCK, true);
                }
            }
            Op::Evolve(step) => {
                let (k, j) = (o, inner);
                let at = self.at(k, j, 0);
                self.span(out, t, U0, at, nx, false);
                self.span(out, t, IMAP, at, nx, false);
                let mut last = usize::MAX;
                for i in 0..nx {
                    let e = step * self.imap[at + i] as usize;
                    let f = self.ex[e];
                    let [re, im] = self.u[0][at + i];
                    self.u[1][at + i] = [re * f, im * f];
                    if e / 8 != last {
                        last = e / 8;
                        self.span(out, t, EX, e, 1, false);
                    }
                }
                self.span(out, t, U1, at, nx, true);
            }
            Op::Checksum(step) => {
                let (mut re, mut im) = (0.0, 0.0);
                for j in 1..=1024 {
                    let q = j % nx;
                    let r = (3 * j) % ny;
                    let s = (5 * j) % nz;
                    let at = self.at(s, r, q);
                    re += self.u[2][at][0];
                    im += self.u[2][at][1];
                    self.span(out, t, U2, at, 1, false);
                }
                let n = self.p.points() as f64;
                self.sums[step] = (re / n, im / n);
            }
        }
    }

    fn finish_op(&mut self) {
        if let Op::Checksum(step) = self.program[self.op] {
            if step == self.p.niter && self.verified.is_none() {
                self.verified = Some(self.sums[1..].to_vec());
            }
        }
        self.op += 1;
        if self.op == self.program.len() {
            self.op = self.timed;
        }
        self.start_op();
    }
}

impl Kernel for FtStream {
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
        FtStream::unit(self, t, out)
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

    fn run(p: FtParams, threads: usize) -> (Vec<(f64, f64)>, u64, u64) {
        let bases: Vec<u64> = (1..=5).map(|i| i << 36).collect();
        let mut s = FtStream::new(p, threads, &bases, u64::MAX).unwrap();
        let mut buf = vec![Access::default(); 1 << 16];
        let (mut r, mut w) = (0, 0);
        while s.verified_sums().is_none() {
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
        (s.verified_sums().unwrap_or(&[]).to_vec(), r, w)
    }

    fn check(class: char, threads: usize) -> (u64, u64) {
        let (p, want) = FtParams::class(class).unwrap();
        let (got, r, w) = run(p, threads);
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            for (a, b) in [(g.0, w.0), (g.1, w.1)] {
                assert!(
                    ((a - b) / b).abs() <= 1e-12,
                    "class {class}, {threads} threads, step {}: {a:.12e} vs {b:.12e}",
                    i + 1
                );
            }
        }
        (r, w)
    }

    #[test]
    fn class_s_verifies() {
        for threads in [1, 4, 32] {
            let (r, w) = check('S', threads);
            assert!(r > w, "{r} reads, {w} writes");
        }
    }

    #[test]
    fn class_w_verifies() {
        check('W', 8);
    }

    #[test]
    fn accesses_stay_in_the_arrays_and_are_deterministic() {
        let p = FtParams {
            nx: 64,
            ny: 32,
            nz: 16,
            niter: 2,
        };
        let plan = FtStream::plan(&p).unwrap();
        let bases: Vec<u64> = (1..=5).map(|i| i << 36).collect();
        let mut s1 = FtStream::new(p.clone(), 3, &bases, 300_000).unwrap();
        let mut s2 = FtStream::new(p, 3, &bases, 300_000).unwrap();
        let mut b1 = vec![Access::default(); 1 << 20];
        let mut b2 = vec![Access::default(); 1 << 20];
        let n1 = s1.fill(&mut b1);
        let n2 = s2.fill(&mut b2);
        assert_eq!(n1 as u64, s1.load_accesses() + 300_000);
        assert_eq!(b1[..n1], b2[..n2]);
        for a in &b1[..n1] {
            let i = bases.iter().rposition(|&b| b <= a.va).unwrap();
            assert!(a.va < bases[i] + plan[i].1, "{a:?} outside {}", plan[i].0);
            assert!(a.core < 3);
        }
        // First touch: indexmap, then ex.
        assert_eq!(b1[0].va, bases[IMAP]);
        assert_eq!(s1.fill(&mut b1), 0);
    }

    #[test]
    fn footprint_follows_the_size_asked_for() {
        for gib in [0.8, 1.5, 3.5] {
            let want = (gib * (1u64 << 30) as f64) as u64;
            let p = FtParams::for_footprint(want);
            let got: u64 = FtStream::plan(&p).unwrap().iter().map(|a| a.1).sum();
            let ratio = got as f64 / want as f64;
            assert!((0.9..1.15).contains(&ratio), "{gib} GiB: {ratio} ({p:?})");
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        let bases: Vec<u64> = (1..=5).map(|i| i << 36).collect();
        for (nx, ny, nz, niter) in [
            (64, 64, 8, 6),
            (64, 128, 64, 6),
            (64, 64, 48, 6),
            (64, 64, 64, 0),
            (4096, 4096, 4096, 1),
        ] {
            let p = FtParams { nx, ny, nz, niter };
            assert!(FtStream::new(p, 1, &bases, 10).is_err());
        }
        let (p, _) = FtParams::class('S').unwrap();
        assert!(FtStream::new(p.clone(), 0, &bases, 10).is_err());
        assert!(FtStream::new(p, 1, &bases[..4], 10).is_err());
    }
}
