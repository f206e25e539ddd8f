//! NPB CG, executed: `CG/cg.c` of NPB 3.0 (OpenMP C), ported loop for loop.
//!
//! `makea` builds the sparse matrix from NPB's random generator (`sprnvc`,
//! `vecset`, the outer products scaled by `rcond^(i/n)`, the diagonal shifted
//! by `rcond - shift`), `sparse` assembles it in compressed rows (bucket sort
//! of the triples by row, duplicates summed in generation order, exact zeros
//! dropped), and the inverse power method runs `conj_grad` (25 CG iterations,
//! then the explicit residual) and the zeta estimate, one untimed iteration and
//! then `niter` timed ones, exactly as `main` does. Class S gives NPB's zeta
//! (8.5971775078648) to 1e-10 (a unit test), by the same code that emits the
//! accesses.
//!
//! What differs from the C program, and why:
//! - The triples are not stored (`arow`, `acol`, `aelt` in 3.0: 16 bytes per
//!   generated element). The sparse vectors of each outer product are kept
//!   instead and expanded twice, once to count the rows and once to place the
//!   elements, in the same order, so the matrix is bit for bit the same. NPB
//!   3.3 and later (the paper ran 3.4.1) also keep only those vectors, so the
//!   workspace is not mapped as a region: it is about 1/16 of the matrix and
//!   dead after setup.
//! - Vectors have `na` elements (C: `na + 2`, the extra ones unused).
//! - The matrix is assembled when the load phase ends (the first time the
//!   stream needs it), not when the workload is built, so that listing or
//!   checking a large preset costs no more than its load phase.
//! - Run length: see [`super`] (a budget of accesses; the timed section
//!   repeats from `x = 1` when `niter` iterations are done).
//!
//! Simulated arrays and their first touch, in program order: `rowstr` and `a`
//! (`sparse`'s count and "preload data pages"), `colidx` (the bucket sort), then
//! `x`, `q`, `z`, `r`, `p` (`main`'s initialisation). `a` and `colidx` are
//! mapped at the generated size (`nnza`, before duplicates are merged), as
//! `sparse` touches them.

use super::{randlc, share, Array, Lines};
use super::{Feed, Kernel};
use crate::{Access, LoadPhase, WorkloadError};

/// CG's parameters (`npbparams.h`: NA, NONZER, NITER, SHIFT, RCOND).
#[derive(Clone, Debug, PartialEq)]
pub struct CgParams {
    /// Matrix order.
    pub na: usize,
    /// Nonzeros per generated sparse vector.
    pub nonzer: usize,
    /// Timed iterations of the inverse power method.
    pub niter: usize,
    /// Diagonal shift.
    pub shift: f64,
    /// Condition number bound.
    pub rcond: f64,
}

/// CG iterations per `conj_grad` call (`cgitmax`).
const CGITMAX: usize = 25;

/// Bytes of simulated memory per matrix row at class C's `nonzer` (15): about
/// `(nonzer + 1)^2 + 1` generated elements of 12 bytes (`a`, `colidx`) and
/// 44 bytes of `rowstr` and the five vectors.
const BYTES_PER_ROW_C: f64 = 257.0 * 12.0 + 44.0;

impl CgParams {
    /// NPB's class `c` (S, W, A, B or C) and its published zeta
    /// (`cg.c`, `main`).
    pub fn class(c: char) -> Option<(CgParams, f64)> {
        let (na, nonzer, niter, shift, zeta) = match c {
            'S' => (1400, 7, 15, 10.0, 8.597_177_507_864_8),
            'W' => (7000, 8, 15, 12.0, 10.362_595_087_124),
            'A' => (14000, 11, 15, 20.0, 17.130_235_054_029),
            'B' => (75000, 13, 75, 60.0, 22.712_745_482_631),
            'C' => (150_000, 15, 75, 110.0, 28.973_605_592_845),
            _ => return None,
        };
        Some((
            CgParams {
                na,
                nonzer,
                niter,
                shift,
                rcond: 0.1,
            },
            zeta,
        ))
    }

    /// Class C's structure (`nonzer` 15, `shift` 110, 75 iterations) with the
    /// order chosen so that the mapped arrays take about `bytes`.
    pub fn for_footprint(bytes: u64) -> CgParams {
        let (mut p, _) = CgParams::class('C').unwrap_or((
            CgParams {
                na: 150_000,
                nonzer: 15,
                niter: 75,
                shift: 110.0,
                rcond: 0.1,
            },
            0.0,
        ));
        p.na = ((bytes as f64 / BYTES_PER_ROW_C) as usize).max(64);
        p
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let bad = |m: &str| Err(WorkloadError::Invalid(format!("npb cg: {m}")));
        if self.na < 2 || self.na > 50_000_000 {
            return bad("na must be in 2..=50000000");
        }
        if self.nonzer == 0 || self.nonzer >= self.na || self.nonzer > 100 {
            return bad("nonzer must be in 1..=100 and below na");
        }
        if self.niter == 0 {
            return bad("niter must be at least 1");
        }
        if !(self.rcond > 0.0 && self.rcond < 1.0 && self.shift.is_finite()) {
            return bad("rcond must be in (0, 1) and shift finite");
        }
        let elements = self.generated_bound();
        if elements > u64::from(u32::MAX) / 2 {
            return bad("the matrix would have more than 2^31 elements");
        }
        Ok(())
    }

    /// An upper bound of the generated elements: `na ((nonzer+1)^2 + 1)`.
    fn generated_bound(&self) -> u64 {
        let v = self.nonzer as u64 + 1;
        self.na as u64 * (v * v + 1)
    }
}

/// The sparse vectors of `makea`'s outer products, in generation order.
struct Outer {
    /// Entries of vector `i` are `ptr[i]..ptr[i+1]`.
    ptr: Vec<usize>,
    /// 1-based positions (`iv`).
    idx: Vec<u32>,
    /// Values (`v`).
    val: Vec<f64>,
    /// `size` of each outer product (`rcond^(i/n)`).
    size: Vec<f64>,
}

impl Outer {
    /// `makea`'s random part: `sprnvc` and `vecset` for every row, after the
    /// one `randlc` call `main` makes first.
    fn generate(p: &CgParams) -> Outer {
        let n = p.na;
        let mut tran = 314_159_265.0;
        let amult = 1_220_703_125.0;
        randlc(&mut tran, amult);
        let mut nn1 = 1usize;
        loop {
            nn1 *= 2;
            if nn1 >= n {
                break;
            }
        }
        let mut mark = vec![false; n + 1];
        let cap = n * (p.nonzer + 1);
        let mut o = Outer {
            ptr: Vec::with_capacity(n + 1),
            idx: Vec::with_capacity(cap),
            val: Vec::with_capacity(cap),
            size: Vec::with_capacity(n),
        };
        o.ptr.push(0);
        let ratio = p.rcond.powf(1.0 / n as f64);
        let mut size = 1.0;
        for iouter in 1..=n {
            let start = o.idx.len();
            // sprnvc
            let mut nzv = 0;
            while nzv < p.nonzer {
                let vecelt = randlc(&mut tran, amult);
                let vecloc = randlc(&mut tran, amult);
                let i = (nn1 as f64 * vecloc) as usize + 1;
                if i > n || mark[i] {
                    continue;
                }
                mark[i] = true;
                nzv += 1;
                o.val.push(vecelt);
                o.idx.push(i as u32);
            }
            for &i in &o.idx[start..] {
                mark[i as usize] = false;
            }
            // vecset(iouter, 0.5)
            let mut set = false;
            for k in start..o.idx.len() {
                if o.idx[k] as usize == iouter {
                    o.val[k] = 0.5;
                    set = true;
                }
            }
            if !set {
                o.idx.push(iouter as u32);
                o.val.push(0.5);
            }
            o.ptr.push(o.idx.len());
            o.size.push(size);
            size *= ratio;
        }
        o
    }

    /// Calls `f(row, col, value)` (0-based) for every triple `makea` makes, in
    /// its order: each outer product column by column, then the diagonal.
    fn triples(&self, p: &CgParams, mut f: impl FnMut(usize, u32, f64)) {
        for i in 0..p.na {
            let (lo, hi) = (self.ptr[i], self.ptr[i + 1]);
            for ivelt in lo..hi {
                let jcol = self.idx[ivelt] - 1;
                let scale = self.size[i] * self.val[ivelt];
                for ivelt1 in lo..hi {
                    f(
                        self.idx[ivelt1] as usize - 1,
                        jcol,
                        self.val[ivelt1] * scale,
                    );
                }
            }
        }
        for i in 0..p.na {
            f(i, i as u32, p.rcond - p.shift);
        }
    }

    fn generated(&self, p: &CgParams) -> usize {
        let mut n = p.na;
        for i in 0..p.na {
            let v = self.ptr[i + 1] - self.ptr[i];
            n += v * v;
        }
        n
    }
}

/// The matrix in compressed rows (0-based).
struct Matrix {
    rowstr: Vec<usize>,
    colidx: Vec<u32>,
    a: Vec<f64>,
}

/// `sparse`: bucket sort by row, then per row sum duplicates in order and
/// drop exact zeros.
fn sparse(p: &CgParams, outer: &Outer, nnza: usize) -> Matrix {
    let n = p.na;
    let mut rowstr = vec![0usize; n + 1];
    outer.triples(p, |r, _, _| rowstr[r + 1] += 1);
    for j in 1..=n {
        rowstr[j] += rowstr[j - 1];
    }
    let mut a = vec![0.0f64; nnza];
    let mut colidx = vec![0u32; nnza];
    let mut next = rowstr.clone();
    outer.triples(p, |r, c, v| {
        let k = next[r];
        a[k] = v;
        colidx[k] = c;
        next[r] += 1;
    });
    drop(next);
    let mut x = vec![0.0f64; n];
    let mut mark = vec![false; n];
    let mut nzloc: Vec<u32> = Vec::with_capacity(64);
    let mut nza = 0;
    let mut start = rowstr[0];
    for j in 0..n {
        nzloc.clear();
        for k in start..rowstr[j + 1] {
            let i = colidx[k] as usize;
            x[i] += a[k];
            if !mark[i] && x[i] != 0.0 {
                mark[i] = true;
                nzloc.push(i as u32);
            }
        }
        for &i in &nzloc {
            let i = i as usize;
            mark[i] = false;
            let xi = x[i];
            x[i] = 0.0;
            if xi != 0.0 {
                a[nza] = xi;
                colidx[nza] = i as u32;
                nza += 1;
            }
        }
        start = rowstr[j + 1];
        rowstr[j + 1] = nza;
    }
    a.truncate(nza);
    colidx.truncate(nza);
    Matrix { rowstr, colidx, a }
}

// Simulated arrays.
const A: usize = 0;
const COLIDX: usize = 1;
const ROWSTR: usize = 2;
const X: usize = 3;
const Z: usize = 4;
const P: usize = 5;
const Q: usize = 6;
const R: usize = 7;
/// (name, element bytes) of the simulated arrays, in address order.
const ARRAYS: [(&str, u64); 8] = [
    ("a", 8),
    ("colidx", 4),
    ("rowstr", 4),
    ("x", 8),
    ("z", 8),
    ("p", 8),
    ("q", 8),
    ("r", 8),
];
/// First-touch order (see the module doc).
const INIT_ORDER: [usize; 8] = [ROWSTR, A, COLIDX, X, Q, Z, R, P];

/// The parallel loops of `conj_grad` and `main`'s iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// q = z = 0, r = p = x.
    Init,
    /// rho = r.r
    RhoInit,
    /// q = A p
    Matvec,
    /// d = p.q
    PdotQ,
    /// z += alpha p, r -= alpha q, rho = r.r
    Update,
    /// p = r + beta p
    Pupdate,
    /// r = A z
    ResidMatvec,
    /// ||x - r||^2
    Resid,
    /// x.z and z.z
    Norms,
    /// x = z / ||z||
    Normalize,
    /// x = 1
    ResetX,
}

/// A CG run: the kernel's state and the stream of its accesses.
pub struct CgStream {
    params: CgParams,
    threads: usize,
    nnza: usize,
    outer: Option<Outer>,
    m: Option<Matrix>,
    x: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    q: Vec<f64>,
    r: Vec<f64>,
    lines: Lines,
    feed: Feed,
    phase: Phase,
    /// Per thread: next index, end of its share, partial sums.
    cursor: Vec<usize>,
    end: Vec<usize>,
    partial: Vec<[f64; 2]>,
    next_thread: usize,
    cgit: usize,
    /// 0: the untimed iteration; then 1..=niter.
    it: usize,
    rho: f64,
    rho0: f64,
    alpha: f64,
    beta: f64,
    rnorm: f64,
    zeta: f64,
    /// Zeta at the end of the first whole benchmark (untimed + niter).
    verified: Option<f64>,
}

impl CgStream {
    /// A CG run of `accesses` kernel accesses (after the load phase) by
    /// `threads` threads, its arrays at `bases` (in [`CgStream::arrays`] order).
    pub fn new(
        params: CgParams,
        threads: usize,
        bases: &[u64],
        accesses: u64,
    ) -> Result<CgStream, WorkloadError> {
        params.validate()?;
        if threads == 0 || threads > 1024 {
            return Err(WorkloadError::Invalid(
                "npb cg: threads must be in 1..=1024".into(),
            ));
        }
        if bases.len() != ARRAYS.len() {
            return Err(WorkloadError::Invalid(format!(
                "npb cg: {} bases given for {} arrays",
                bases.len(),
                ARRAYS.len()
            )));
        }
        let outer = Outer::generate(&params);
        Ok(Self::with_outer(params, outer, threads, bases, accesses))
    }

    /// Builds a run and lays its arrays out as [`crate::lay_out`] does.
    pub fn build(
        params: CgParams,
        threads: usize,
        accesses: u64,
        thp: bool,
    ) -> Result<(Vec<thermocline_vocab::RegionInfo>, CgStream), WorkloadError> {
        params.validate()?;
        if threads == 0 || threads > 1024 {
            return Err(WorkloadError::Invalid(
                "npb cg: threads must be in 1..=1024".into(),
            ));
        }
        let outer = Outer::generate(&params);
        let nnza = outer.generated(&params);
        let named: Vec<(String, u64)> = ARRAYS
            .iter()
            .zip(Self::sizes(&params, nnza))
            .map(|(&(name, _), b)| (name.to_string(), b))
            .collect();
        let regions = crate::lay_out(&named, thp);
        let bases: Vec<u64> = regions.iter().map(|r| r.start).collect();
        let s = Self::with_outer(params, outer, threads, &bases, accesses);
        Ok((regions, s))
    }

    fn with_outer(
        params: CgParams,
        outer: Outer,
        threads: usize,
        bases: &[u64],
        accesses: u64,
    ) -> CgStream {
        let nnza = outer.generated(&params);
        let sizes = Self::sizes(&params, nnza);
        let arrays = ARRAYS
            .iter()
            .zip(bases)
            .map(|(&(_, elem), &base)| Array { base, elem })
            .collect();
        let load = LoadPhase::new(INIT_ORDER.iter().map(|&i| (bases[i], sizes[i])).collect());
        let n = params.na;
        let (cursor, end): (Vec<usize>, Vec<usize>) =
            (0..threads).map(|t| share(n, threads, t)).unzip();
        CgStream {
            threads,
            nnza,
            outer: Some(outer),
            m: None,
            x: vec![1.0; n],
            z: vec![0.0; n],
            p: vec![0.0; n],
            q: vec![0.0; n],
            r: vec![0.0; n],
            lines: Lines::new(arrays, threads),
            feed: Feed::new(load, accesses),
            phase: Phase::Init,
            cursor,
            end,
            partial: vec![[0.0; 2]; threads],
            next_thread: 0,
            cgit: 0,
            it: 0,
            rho: 0.0,
            rho0: 0.0,
            alpha: 0.0,
            beta: 0.0,
            rnorm: 0.0,
            zeta: 0.0,
            verified: None,
            params,
        }
    }

    /// Bytes of each simulated array, in address order.
    fn sizes(p: &CgParams, nnza: usize) -> Vec<u64> {
        ARRAYS
            .iter()
            .enumerate()
            .map(|(i, &(_, elem))| {
                let n = match i {
                    A | COLIDX => nnza,
                    ROWSTR => p.na + 1,
                    _ => p.na,
                } as u64;
                (n * elem).div_ceil(4096) * 4096
            })
            .collect()
    }

    /// (name, bytes) of the simulated arrays, in address order.
    pub fn arrays(&self) -> Vec<(String, u64)> {
        ARRAYS
            .iter()
            .zip(Self::sizes(&self.params, self.nnza))
            .map(|(&(name, _), b)| (name.to_string(), b))
            .collect()
    }

    /// (name, bytes) of the arrays a run with `params` maps, without
    /// building it twice: generates the outer products to count elements.
    pub fn plan(params: &CgParams) -> Result<Vec<(String, u64)>, WorkloadError> {
        params.validate()?;
        let nnza = Outer::generate(params).generated(params);
        Ok(ARRAYS
            .iter()
            .zip(Self::sizes(params, nnza))
            .map(|(&(name, _), b)| (name.to_string(), b))
            .collect())
    }

    /// Accesses of the load phase.
    pub fn load_accesses(&self) -> u64 {
        let s = Self::sizes(&self.params, self.nnza);
        LoadPhase::accesses(&INIT_ORDER.iter().map(|&i| (0, s[i])).collect::<Vec<_>>())
    }

    /// Zeta when the first whole benchmark run (the untimed iteration and
    /// `niter` timed ones) has finished.
    pub fn verified_zeta(&self) -> Option<f64> {
        self.verified
    }

    /// The latest zeta and residual norm.
    pub fn zeta(&self) -> (f64, f64) {
        (self.zeta, self.rnorm)
    }

    /// Nonzeros of the assembled matrix (0 until it is assembled).
    pub fn nonzeros(&self) -> usize {
        self.m.as_ref().map_or(0, |m| m.a.len())
    }

    fn matrix(&mut self) {
        if self.m.is_none() {
            if let Some(o) = self.outer.take() {
                self.m = Some(sparse(&self.params, &o, self.nnza));
            }
        }
    }

    /// One unit of work of thread `t` in the current loop.
    fn unit(&mut self, t: usize, out: &mut Vec<Access>) {
        let lo = self.cursor[t];
        let hi = if matches!(self.phase, Phase::Matvec | Phase::ResidMatvec) {
            lo + 1
        } else {
            (lo + 8).min(self.end[t])
        };
        self.cursor[t] = hi;
        let l = &mut self.lines;
        let part = &mut self.partial[t];
        match self.phase {
            Phase::Init => {
                for j in lo..hi {
                    l.read(out, t, X, j);
                    self.q[j] = 0.0;
                    self.z[j] = 0.0;
                    self.r[j] = self.x[j];
                    self.p[j] = self.r[j];
                    for a in [Q, Z, R, P] {
                        l.write(out, t, a, j);
                    }
                }
            }
            Phase::RhoInit => {
                for j in lo..hi {
                    l.read(out, t, R, j);
                    part[0] += self.r[j] * self.r[j];
                }
            }
            Phase::Matvec | Phase::ResidMatvec => {
                let Some(m) = &self.m else { return };
                let (src, dst, v) = if self.phase == Phase::Matvec {
                    (P, Q, &self.p)
                } else {
                    (Z, R, &self.z)
                };
                let j = lo;
                l.read(out, t, ROWSTR, j);
                l.read(out, t, ROWSTR, j + 1);
                let mut sum = 0.0;
                for k in m.rowstr[j]..m.rowstr[j + 1] {
                    l.read(out, t, A, k);
                    l.read(out, t, COLIDX, k);
                    let c = m.colidx[k] as usize;
                    l.gather(out, t, src, c);
                    sum += m.a[k] * v[c];
                }
                l.write(out, t, dst, j);
                if dst == Q {
                    self.q[j] = sum;
                } else {
                    self.r[j] = sum;
                }
            }
            Phase::PdotQ => {
                for j in lo..hi {
                    l.read(out, t, P, j);
                    l.read(out, t, Q, j);
                    part[0] += self.p[j] * self.q[j];
                }
            }
            Phase::Update => {
                let alpha = self.alpha;
                for j in lo..hi {
                    for a in [Z, P, R, Q] {
                        l.read(out, t, a, j);
                    }
                    self.z[j] += alpha * self.p[j];
                    self.r[j] -= alpha * self.q[j];
                    l.write(out, t, Z, j);
                    l.write(out, t, R, j);
                    part[0] += self.r[j] * self.r[j];
                }
            }
            Phase::Pupdate => {
                let beta = self.beta;
                for j in lo..hi {
                    l.read(out, t, R, j);
                    l.read(out, t, P, j);
                    self.p[j] = self.r[j] + beta * self.p[j];
                    l.write(out, t, P, j);
                }
            }
            Phase::Resid => {
                for j in lo..hi {
                    l.read(out, t, X, j);
                    l.read(out, t, R, j);
                    let d = self.x[j] - self.r[j];
                    part[0] += d * d;
                }
            }
            Phase::Norms => {
                for j in lo..hi {
                    l.read(out, t, X, j);
                    l.read(out, t, Z, j);
                    part[0] += self.x[j] * self.z[j];
                    part[1] += self.z[j] * self.z[j];
                }
            }
            Phase::Normalize => {
                // norm_temp12 is kept in beta's place between loops.
                let s = self.beta;
                for j in lo..hi {
                    l.read(out, t, Z, j);
                    self.x[j] = s * self.z[j];
                    l.write(out, t, X, j);
                }
            }
            Phase::ResetX => {
                for j in lo..hi {
                    self.x[j] = 1.0;
                    l.write(out, t, X, j);
                }
            }
        }
    }

    /// The barrier at the end of a loop: the serial code, then the next loop.
    fn finish_loop(&mut self) {
        let mut s = [0.0f64; 2];
        for p in &mut self.partial {
            s[0] += p[0];
            s[1] += p[1];
            *p = [0.0; 2];
        }
        self.phase = match self.phase {
            Phase::Init => Phase::RhoInit,
            Phase::RhoInit => {
                self.rho = s[0];
                self.cgit = 1;
                self.rho0 = self.rho;
                Phase::Matvec
            }
            Phase::Matvec => Phase::PdotQ,
            Phase::PdotQ => {
                self.alpha = self.rho0 / s[0];
                Phase::Update
            }
            Phase::Update => {
                self.rho = s[0];
                self.beta = self.rho / self.rho0;
                Phase::Pupdate
            }
            Phase::Pupdate => {
                self.cgit += 1;
                if self.cgit <= CGITMAX {
                    self.rho0 = self.rho;
                    Phase::Matvec
                } else {
                    Phase::ResidMatvec
                }
            }
            Phase::ResidMatvec => Phase::Resid,
            Phase::Resid => {
                self.rnorm = s[0].sqrt();
                Phase::Norms
            }
            Phase::Norms => {
                if self.it >= 1 {
                    self.zeta = self.params.shift + 1.0 / s[0];
                }
                self.beta = 1.0 / s[1].sqrt();
                Phase::Normalize
            }
            Phase::Normalize => {
                if self.it == self.params.niter && self.verified.is_none() {
                    self.verified = Some(self.zeta);
                }
                if self.it == 0 || self.it == self.params.niter {
                    self.it = 1;
                    Phase::ResetX
                } else {
                    self.it += 1;
                    Phase::Init
                }
            }
            Phase::ResetX => Phase::Init,
        };
        self.lines.barrier();
        for t in 0..self.threads {
            self.cursor[t] = share(self.params.na, self.threads, t).0;
        }
        self.next_thread = 0;
    }
}

impl Kernel for CgStream {
    fn threads(&self) -> usize {
        self.threads
    }

    fn next_thread(&mut self) -> &mut usize {
        &mut self.next_thread
    }

    fn has_work(&self, t: usize) -> bool {
        self.cursor[t] < self.end[t]
    }

    fn unit(&mut self, t: usize, out: &mut Vec<Access>) {
        CgStream::unit(self, t, out)
    }

    fn barrier(&mut self) {
        self.finish_loop()
    }

    fn feed(&mut self) -> &mut Feed {
        &mut self.feed
    }

    fn prepare(&mut self) {
        self.matrix()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bases() -> Vec<u64> {
        (0..ARRAYS.len() as u64).map(|i| (i + 1) << 32).collect()
    }

    /// Runs the stream until the first whole benchmark is done.
    fn run(p: CgParams, threads: usize) -> (f64, CgStream, u64, u64) {
        let mut s = CgStream::new(p, threads, &bases(), u64::MAX).unwrap();
        let mut buf = vec![Access::default(); 1 << 16];
        let (mut reads, mut writes) = (0u64, 0u64);
        while s.verified_zeta().is_none() {
            let n = s.fill(&mut buf);
            assert!(n > 0);
            for a in &buf[..n] {
                if a.write {
                    writes += 1;
                } else {
                    reads += 1;
                }
            }
        }
        (s.verified_zeta().unwrap_or(f64::NAN), s, reads, writes)
    }

    #[test]
    fn class_s_verifies_with_one_thread_and_with_many() {
        let (p, want) = CgParams::class('S').unwrap();
        for threads in [1, 4, 32] {
            let (zeta, s, reads, writes) = run(p.clone(), threads);
            assert!(
                (zeta - want).abs() <= 1e-10,
                "{threads} threads: zeta {zeta:.13}, NPB {want:.13}"
            );
            assert!(s.nonzeros() > 0 && s.nonzeros() <= s.nnza);
            // CG is read-dominated (the paper: more than 60 reads per write).
            assert!(reads > 20 * writes, "{reads} reads, {writes} writes");
        }
    }

    #[test]
    fn class_w_verifies() {
        let (p, want) = CgParams::class('W').unwrap();
        let (zeta, ..) = run(p, 8);
        assert!(
            (zeta - want).abs() <= 1e-10,
            "zeta {zeta:.13}, NPB {want:.13}"
        );
    }

    #[test]
    fn accesses_stay_in_the_arrays_and_are_deterministic() {
        let (mut p, _) = CgParams::class('S').unwrap();
        p.na = 500;
        let plan = CgStream::plan(&p).unwrap();
        let b = bases();
        let mut s1 = CgStream::new(p.clone(), 4, &b, 300_000).unwrap();
        let mut s2 = CgStream::new(p, 4, &b, 300_000).unwrap();
        let load = s1.load_accesses();
        let mut b1 = vec![Access::default(); 1 << 20];
        let mut b2 = vec![Access::default(); 1 << 20];
        let n1 = s1.fill(&mut b1);
        let n2 = s2.fill(&mut b2);
        assert_eq!(n1 as u64, load + 300_000);
        assert_eq!(b1[..n1], b2[..n2]);
        for a in &b1[..n1] {
            let i = b.iter().rposition(|&base| base <= a.va).unwrap();
            assert!(a.va < b[i] + plan[i].1, "{a:?} outside {}", plan[i].0);
            assert!(usize::from(a.core) < 4);
        }
        // The load phase writes `rowstr` first, then `a`.
        assert!(b1[0].write && b1[0].va == b[ROWSTR]);
        assert_eq!(s1.fill(&mut b1), 0);
    }

    #[test]
    fn footprint_follows_the_size_asked_for() {
        for mib in [16u64, 64] {
            let want = mib << 20;
            let p = CgParams::for_footprint(want);
            let got: u64 = CgStream::plan(&p).unwrap().iter().map(|a| a.1).sum();
            let ratio = got as f64 / want as f64;
            assert!((0.9..1.1).contains(&ratio), "{mib} MiB: {ratio}");
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        let (p, _) = CgParams::class('S').unwrap();
        for bad in [
            CgParams { na: 1, ..p.clone() },
            CgParams {
                nonzer: 0,
                ..p.clone()
            },
            CgParams {
                rcond: 1.5,
                ..p.clone()
            },
            CgParams {
                niter: 0,
                ..p.clone()
            },
        ] {
            assert!(CgStream::new(bad, 1, &bases(), 10).is_err());
        }
        assert!(CgStream::new(p.clone(), 0, &bases(), 10).is_err());
        assert!(CgStream::new(p, 1, &bases()[..3], 10).is_err());
    }
}
