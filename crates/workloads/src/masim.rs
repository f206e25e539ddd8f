//! MASIM access-pattern configs (sjp38/masim), read unchanged and run as
//! masim runs them.
//!
//! Format (../shared/masim-configs/README.md): comment lines start with `#`;
//! after removing them, paragraphs are separated by an empty line. The first
//! paragraph lists regions, `name, size_in_bytes[, init_file|none]`; every
//! later one is a phase: a name line, a duration line (ms), then lines
//! `region, randomness, stride_bytes, relative_probability[, ro|wo|rw]`.
//! Without a mode, MASIM's default `wo` applies (older configs).
//!
//! What masim accepts and does with it (read in sjp38/masim's `masim.c`:
//! `read_config`, `parse_regions`, `parse_phase`, `parse_rwmode`,
//! `exec_phase`, `do_access` and the `do_{rnd,seq}_{ro,wo,rw}` loops):
//! - **Numbers** are read with `atoi`/`atoll`, so masim never rejects one.
//!   We take what `atoi` reads from a well-formed integer (optional sign,
//!   digits) within masim's types: strides, probabilities and randomness are
//!   C `int`s. Text that `atoi` would silently read as 0 (`true`, `4k`) or
//!   truncate (beyond `int`) is an error here, naming the file and line: a
//!   deliberate difference, as such a line is a typo, not a pattern.
//! - **Randomness** is `atoi(...)` tested for non-zero: any non-zero integer
//!   is random, 0 sequential.
//! - **Random** accesses touch `rndint() % size`: any byte of the region,
//!   the stride unused (masim's README: "the third field means nothing").
//! - **Sequential** accesses keep `last_offset` (0 when the phase starts) and
//!   do `offset += stride; if (offset >= size) offset = 0;` before each
//!   access: the first access is at `stride`, and a stride of 0, or one as
//!   large as the region or larger (`default`'s 4096-byte stride over a
//!   64-byte region), touches offset 0 every time. A negative stride is an
//!   `int` converted to `size_t`: huge, so offset 0 as well.
//! - **Modes**: `parse_rwmode` reads the first word and compares its first
//!   two letters with `ro`, `wo`, `rw`; anything else makes masim exit
//!   ("wrong rw mode"), an error here. `rw` reads a byte and writes it back
//!   (`do_rnd_rw`, `do_seq_rw`): one store here (the load and the store hit
//!   the same line; the store sets Accessed and Dirty).
//! - **Bursts.** `exec_phase` draws a pattern by probability, then
//!   `do_access` makes `nr_accesses_per_region` accesses (131 072, masim's
//!   `--nr_accesses_per_region`; [`DEFAULT_BURST`]) on that one pattern before
//!   it draws again, and it checks the phase's time only between bursts, so
//!   a phase is a whole number of bursts, at least one (even a 0 ms phase).
//!   Here a phase issues `ceil(d/1000 * rate / burst)` bursts (at least one)
//!   of `burst` accesses: masim stops at the first burst that *ends* past the
//!   phase's time, this model at the first that reaches its access budget.
//! - **Duplicate region names** are accepted; a pattern names the first
//!   region of that name (`parse_phase`'s lookup stops at the first match);
//!   every region is still allocated.
//! - An initial data file only fills the region's bytes; it is ignored here.
//!
//! Rejected, as masim rejects them (exit 1 with a message) or crashes on
//! them: a region line without 2 or 3 fields, a phase of fewer than 3
//! lines, a pattern without 4 or 5 fields, an unknown region, a bad mode, no
//! phase at all; a region of 0 bytes or of a negative size (masim's
//! `malloc` then access faults or divides by zero); a negative probability
//! or probabilities whose sum exceeds an `int` (undefined in masim). A phase
//! whose probabilities are all 0 makes masim idle for its duration; this
//! model has no idle time (work is counted in accesses), so it is an error
//! here too.
//!
//! Lenient where masim is strict about layout only: blank lines may be
//! repeated and may end the file, and the last line needs no newline
//! (masim's `rm_comments` drops an unterminated last line, and its phase
//! count is the number of empty lines).
//!
//! Execution model (an interpretation; MASIM itself runs for wall-clock time):
//! a phase of `d` ms has a budget of `d/1000 * rate` accesses, `rate` being the
//! nominal access rate ([`crate::DEFAULT_ACCESS_RATE`] unless configured),
//! issued in bursts as above. masim draws random numbers from a pool of
//! pre-drawn ones (`init_rndints`); this model draws fresh ones from its seed.

use crate::rates::{RatePhase, RateProfile, RateSegment};
use crate::{lay_out, Access, PhaseMark, WorkloadError};
pub use thermocline_masim::{MasimConfig, Pattern, Phase, RwMode, DEFAULT_BURST};
use thermocline_vocab::RegionInfo;
use thermocline_vocab::Rng;

/// Parses a config; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<MasimConfig, WorkloadError> {
    thermocline_masim::parse(text, file).map_err(|e| match e {
        thermocline_masim::MasimError::AtLine { file, line, msg } => {
            WorkloadError::AtLine { file, line, msg }
        }
    })
}

/// Accesses of a phase of `duration_ms` at `rate` in bursts of `burst`:
/// whole bursts, at least one (see the module docs).
pub fn phase_accesses(duration_ms: u64, rate: f64, burst: u64) -> u64 {
    let burst = burst.max(1);
    // Saturates: a huge rate can ask for 2^64 accesses a phase.
    let budget = (duration_ms as f64 / 1000.0 * rate).round() as u64;
    budget.div_ceil(burst).max(1).saturating_mul(burst)
}

/// Generates a config's accesses, a burst at a time.
pub struct MasimStream {
    cfg: MasimConfig,
    starts: Vec<u64>,
    /// Accesses per phase.
    budgets: Vec<u64>,
    burst: u64,
    phase: usize,
    /// Accesses left in the phase.
    left: u64,
    /// The pattern of the current burst and the accesses left in it.
    pattern: usize,
    burst_left: u64,
    /// Each pattern's `last_offset`.
    cursors: Vec<u64>,
    cumulative: Vec<u64>,
    rng: Rng,
}

impl MasimStream {
    /// A stream of `cfg` at `rate` accesses/s over `regions` (from
    /// [`lay_out`]), `burst` accesses per drawn pattern ([`DEFAULT_BURST`]
    /// as masim; 0 is taken as 1).
    pub fn new(cfg: MasimConfig, regions: &[RegionInfo], rate: f64, burst: u64, seed: u64) -> Self {
        let burst = burst.max(1);
        let budgets: Vec<u64> = cfg
            .phases
            .iter()
            .map(|p| phase_accesses(p.duration_ms, rate, burst))
            .collect();
        let mut s = MasimStream {
            starts: regions.iter().map(|r| r.start).collect(),
            left: budgets.first().copied().unwrap_or(0),
            budgets,
            burst,
            phase: 0,
            pattern: 0,
            burst_left: 0,
            cursors: Vec::new(),
            cumulative: Vec::new(),
            rng: Rng::derive(seed, "masim"),
            cfg,
        };
        s.enter_phase(0);
        s
    }

    fn enter_phase(&mut self, i: usize) {
        self.phase = i;
        self.left = self.budgets.get(i).copied().unwrap_or(0);
        self.burst_left = 0;
        let Some(p) = self.cfg.phases.get(i) else {
            return;
        };
        self.cursors = vec![0; p.patterns.len()];
        let mut acc = 0;
        self.cumulative = p
            .patterns
            .iter()
            .map(|x| {
                acc += x.probability;
                acc
            })
            .collect();
    }

    /// Total accesses and phase marks.
    pub fn plan(&self) -> (u64, Vec<PhaseMark>) {
        let mut first = 0;
        let marks = self
            .cfg
            .phases
            .iter()
            .zip(&self.budgets)
            .map(|(p, b)| {
                let m = PhaseMark {
                    name: p.name.clone(),
                    first_access: first,
                };
                first = first.saturating_add(*b);
                m
            })
            .collect();
        (first, marks)
    }

    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> usize {
        let mut n = 0;
        while n < buf.len() {
            while self.left == 0 {
                if self.phase + 1 >= self.cfg.phases.len() {
                    return n;
                }
                self.enter_phase(self.phase + 1);
            }
            if self.burst_left == 0 {
                // exec_phase: one draw, then a burst on the drawn pattern.
                let total = *self.cumulative.last().expect("phase has patterns");
                let pick = self.rng.below(total);
                self.pattern = self.cumulative.partition_point(|&c| c <= pick);
                self.burst_left = self.burst.min(self.left);
            }
            let k = self.pattern;
            let p = &self.cfg.phases[self.phase].patterns[k];
            let size = self.cfg.regions[p.region].1;
            let base = self.starts[p.region];
            let write = p.mode != RwMode::ReadOnly;
            let m = (buf.len() - n).min(usize::try_from(self.burst_left).unwrap_or(usize::MAX));
            for slot in &mut buf[n..n + m] {
                let offset = if p.random {
                    self.rng.below(size)
                } else {
                    // do_seq_*: advance, wrap to 0 at or past the end, access.
                    let o = self.cursors[k].wrapping_add(p.stride);
                    let o = if o >= size { 0 } else { o };
                    self.cursors[k] = o;
                    o
                };
                *slot = Access {
                    va: base + offset,
                    asid: 0,
                    core: 0,
                    write,
                };
            }
            n += m;
            self.burst_left -= m as u64;
            self.left -= m as u64;
        }
        n
    }
}

/// The config as access rates ([`crate::rates`]): each pattern becomes a
/// uniform segment over its region with its share of the phase's accesses;
/// a sequential pattern is one operation sweeping its region at its stride
/// (so only the first access to each page can miss the TLB), or one line
/// when its stride never moves it off offset 0; phases issue as many
/// accesses as [`MasimStream`] does at `rate` in bursts of `burst`. Rates
/// are averages: the bursts themselves (which pattern runs when) are not
/// in a rate description.
pub fn rate_profile(
    cfg: &MasimConfig,
    regions: &[RegionInfo],
    rate: f64,
    burst: u64,
) -> RateProfile {
    let phases = cfg
        .phases
        .iter()
        .map(|p| {
            let total: u64 = p.patterns.iter().map(|x| x.probability).sum();
            RatePhase {
                name: p.name.clone(),
                accesses: phase_accesses(p.duration_ms, rate, burst),
                segments: p
                    .patterns
                    .iter()
                    .filter(|x| x.probability > 0)
                    .map(|x| {
                        let r = &regions[x.region];
                        let size = cfg.regions[x.region].1;
                        let still = !x.random && (x.stride == 0 || x.stride >= size);
                        RateSegment {
                            asid: r.asid,
                            start: r.start,
                            len: if still { 64.min(r.len) } else { r.len },
                            share: x.probability as f64 / total as f64,
                            write_fraction: match x.mode {
                                RwMode::ReadOnly => 0.0,
                                RwMode::WriteOnly | RwMode::ReadWrite => 1.0,
                            },
                            // A sweep is one long operation at its stride.
                            burst_bytes: if x.random || still { 64 } else { r.len },
                            stride_bytes: if x.random || still { 64 } else { x.stride },
                            sweep: !x.random && !still,
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    RateProfile { phases }
}

/// Loads a config file into a workload.
pub fn load(path: &str, thp: bool) -> Result<(MasimConfig, Vec<RegionInfo>), WorkloadError> {
    let text = std::fs::read_to_string(path).map_err(|e| WorkloadError::File {
        file: path.to_string(),
        msg: format!("cannot read: {e}"),
    })?;
    let cfg = parse(&text, path)?;
    let regions = lay_out(&cfg.regions, thp);
    Ok((cfg, regions))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = "#regions\na, 100000000\nb, 100000000\n\n#phases\ninitial phase\n10000\na, 0, 4096, 1\nb, 0, 4096, 1\n\nlow phase 0\n5000\na, 0, 4096, 50\n";

    #[test]
    fn parses_both_formats() {
        let c = parse(DEMO, "demo.cfg").unwrap();
        assert_eq!(c.regions.len(), 2);
        assert_eq!(c.phases.len(), 2);
        assert_eq!(c.phases[0].patterns[0].mode, RwMode::WriteOnly);
        let new = "a, 256, none\nb, 64, none\n\np1\n1000\na, 1, 64, 80, wo\n\np2\n1000\nb, 0, 64, 50, ro\na, 1, 64, 50, rw\n";
        let c = parse(new, "x").unwrap();
        assert_eq!(c.phases[1].patterns[0].mode, RwMode::ReadOnly);
        assert_eq!(c.phases[1].patterns[1].mode, RwMode::ReadWrite);
    }

    #[test]
    fn errors_name_the_line() {
        let bad = "a, 4096\n\np\n1000\na, true, 64, 1\n";
        let e = parse(bad, "bad.cfg").unwrap_err().to_string();
        assert!(e.starts_with("bad.cfg:5:"), "{e}");
        let bad = "a, 4096\n\np\nsoon\na, 1, 64, 1\n";
        assert!(parse(bad, "f").unwrap_err().to_string().starts_with("f:4:"));
        let bad = "a, 4096\n\np\n100\nzz, 1, 64, 1\n";
        assert!(parse(bad, "f")
            .unwrap_err()
            .to_string()
            .contains("unknown region"));
        assert!(parse("", "f").is_err());
        assert!(parse("a, 10\n", "f").is_err());
        // masim exits on a mode that is not ro, wo or rw ("wrong rw mode").
        let e = parse("a, 4096\n\np\n1\na, 1, 64, 1, xx\n", "m.cfg")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("m.cfg:5:") && e.contains("access mode"),
            "{e}"
        );
        // ... and on a pattern line of 3 fields ("Wrong number of fields!").
        let e = parse("a, 4096\n\np\n1\na, 1, 64\n", "m.cfg")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.cfg:5:"), "{e}");
    }

    /// What masim accepts: any non-zero randomness is random, a stride of 0,
    /// negative or beyond the region, duplicate names (the first wins), mode
    /// words matched on their first two letters.
    #[test]
    fn accepts_what_masim_accepts() {
        let c = parse(
            "a, 64\nb, 8192\na, 128\n\np\n1\na, 0, 4096, 1, rw\nb, 2, -8, 1, rox\nb, -1, 0, 0, wo\nb, 0, -4096, 1\n",
            "f",
        )
        .unwrap();
        assert_eq!(c.regions.len(), 3);
        let p = &c.phases[0].patterns;
        assert_eq!(p[0].region, 0);
        assert_eq!(p[0].mode, RwMode::ReadWrite);
        assert!(p[1].random && p[2].random && !p[0].random);
        assert_eq!(p[1].mode, RwMode::ReadOnly);
        assert_eq!(p[3].stride, (-4096i64) as u64);
    }

    fn offsets(text: &str, rate: f64, burst: u64, n: usize) -> (Vec<u64>, Vec<bool>) {
        let c = parse(text, "f").unwrap();
        let regions = lay_out(&c.regions, false);
        let base = regions[0].start;
        let mut s = MasimStream::new(c, &regions, rate, burst, 1);
        let mut buf = vec![Access::default(); n];
        let got = s.fill(&mut buf);
        (
            buf[..got].iter().map(|a| a.va - base).collect(),
            buf[..got].iter().map(|a| a.write).collect(),
        )
    }

    #[test]
    fn sequential_pattern_sweeps_and_wraps_as_masim() {
        // do_seq_ro: advance first, wrap to 0 at the end: 4096, 8192, 12288, 0.
        let (offs, writes) = offsets("a, 16384\n\np\n1\na, 0, 4096, 1, ro\n", 6000.0, 1, 10);
        assert_eq!(offs, vec![4096, 8192, 12288, 0, 4096, 8192]);
        assert!(writes.iter().all(|w| !w));
        // A partial last stride is still touched (offset < size).
        let (offs, _) = offsets("a, 10000\n\np\n1\na, 0, 4096, 1\n", 5000.0, 1, 10);
        assert_eq!(offs, vec![4096, 8192, 0, 4096, 8192]);
    }

    /// `default`'s `b, 0, 4096, 50, rw` over a 64-byte region: masim's
    /// cursor passes the end at every step and goes back to 0.
    #[test]
    fn stride_beyond_the_region_touches_offset_zero() {
        for stride in ["4096", "64", "0", "-4096"] {
            let text = format!("b, 64\n\np\n1\nb, 0, {stride}, 50, rw\n");
            let (offs, writes) = offsets(&text, 1e6, DEFAULT_BURST, 300);
            assert_eq!(offs.len(), 300);
            assert!(offs.iter().all(|&o| o == 0), "{stride}: {offs:?}");
            assert!(writes.iter().all(|&w| w), "rw stores");
        }
    }

    #[test]
    fn random_accesses_cover_any_byte_ignoring_the_stride() {
        let (offs, _) = offsets("a, 1000\n\np\n1\na, 1, 4096, 1\n", 5e6, 1, 5000);
        assert_eq!(offs.len(), 5000);
        assert!(offs.iter().all(|&o| o < 1000));
        assert!(offs.iter().any(|o| o % 64 != 0), "byte-granular");
        let distinct: std::collections::BTreeSet<_> = offs.iter().collect();
        assert!(distinct.len() > 900, "{}", distinct.len());
    }

    #[test]
    fn rate_profile_matches_the_stream_plan() {
        let c = parse(DEMO, "demo.cfg").unwrap();
        let regions = lay_out(&c.regions, false);
        let p = rate_profile(&c, &regions, 1000.0, 64);
        p.validate(&regions).unwrap();
        let s = MasimStream::new(c, &regions, 1000.0, 64, 1);
        assert_eq!(p.total_accesses(), s.plan().0);
        assert_eq!(p.marks(), s.plan().1);
        assert_eq!(p.phases[0].segments.len(), 2);
        assert!((p.phases[0].segments[0].share - 0.5).abs() < 1e-12);
        assert_eq!(p.phases[1].segments[0].write_fraction, 1.0);
        // A stride past the region: one line, not a sweep.
        let c = parse("b, 64\n\np\n1\nb, 0, 4096, 50, rw\n", "default").unwrap();
        let regions = lay_out(&c.regions, false);
        let p = rate_profile(&c, &regions, 1000.0, 64);
        p.validate(&regions).unwrap();
        let seg = &p.phases[0].segments[0];
        assert!(!seg.sweep && seg.len == 64 && seg.write_fraction == 1.0);
    }

    #[test]
    fn phases_are_whole_bursts() {
        assert_eq!(
            phase_accesses(5000, 10e6, DEFAULT_BURST),
            382 * DEFAULT_BURST
        );
        assert_eq!(phase_accesses(0, 10e6, DEFAULT_BURST), DEFAULT_BURST);
        assert_eq!(phase_accesses(1, 6000.0, 1), 6);
        assert_eq!(phase_accesses(1, 6000.0, 4), 8);
        assert_eq!(phase_accesses(1, 1e300, 7), u64::MAX);
    }

    proptest::proptest! {
        /// masim's exec_phase: every burst of `burst` accesses stays on one
        /// pattern (one region here), bursts are drawn by probability, and a
        /// phase is a whole number of them.
        #[test]
        fn accesses_come_in_bursts_on_one_pattern(
            burst in 1u64..300,
            probs in proptest::collection::vec(0u64..5, 2..5),
            seed in 0u64..1000,
        ) {
            proptest::prop_assume!(probs.iter().any(|&p| p > 0));
            let mut text = String::new();
            for i in 0..probs.len() {
                text.push_str(&format!("r{i}, 65536\n"));
            }
            text.push_str("\np\n3\n");
            for (i, p) in probs.iter().enumerate() {
                text.push_str(&format!("r{i}, {}, 64, {p}\n", i % 2));
            }
            let c = parse(&text, "f").unwrap();
            let regions = lay_out(&c.regions, false);
            let mut s = MasimStream::new(c, &regions, 30_000.0, burst, seed);
            let (total, _) = s.plan();
            proptest::prop_assert_eq!(total % burst, 0);
            proptest::prop_assert!(total >= 90 && total < 90 + burst);
            let mut all = Vec::new();
            let mut buf = vec![Access::default(); 97];
            loop {
                let n = s.fill(&mut buf);
                if n == 0 { break; }
                all.extend_from_slice(&buf[..n]);
            }
            proptest::prop_assert_eq!(all.len() as u64, total);
            let region_of = |va: u64| regions.iter().position(|r| r.start <= va && va < r.end()).unwrap();
            for chunk in all.chunks(burst as usize) {
                let r = region_of(chunk[0].va);
                proptest::prop_assert!(probs[r] > 0, "a zero-probability pattern ran");
                proptest::prop_assert!(chunk.iter().all(|a| region_of(a.va) == r));
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn parser_never_panics(text in "[a-c0-9, #\n]{0,80}") {
            let _ = parse(&text, "fuzz");
        }
    }
}
