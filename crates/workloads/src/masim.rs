//! MASIM access-pattern configs (sjp38/masim), read unchanged.
//!
//! Format (../shared/masim-configs/README.md): comment lines start with `#`;
//! after removing them, paragraphs are separated by an empty line. The first
//! paragraph lists regions, `name, size_in_bytes[, init_file|none]`; every
//! later one is a phase: a name line, a duration line (ms), then lines
//! `region, randomness (1|0), stride_bytes, relative_probability[, ro|wo|rw]`.
//! Without a mode, MASIM's default `wo` applies (older configs).
//!
//! Execution model (an interpretation; MASIM itself runs for wall-clock time):
//! a phase of `d` ms issues `d/1000 * rate` accesses, `rate` being the nominal
//! access rate ([`crate::DEFAULT_ACCESS_RATE`] unless configured). Each access
//! picks a pattern with its relative probability; a random pattern touches a
//! uniformly chosen stride-aligned offset of its region, a sequential one
//! advances its own cursor by the stride and wraps. `rw` makes each access a
//! load or a store with equal chance.

use crate::rates::{RatePhase, RateProfile, RateSegment};
use crate::{lay_out, Access, PhaseMark, WorkloadError};
use thermocline_vocab::RegionInfo;
use thermocline_vocab::Rng;

/// Read/write mode of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwMode {
    /// Loads only.
    ReadOnly,
    /// Stores only (MASIM's default).
    WriteOnly,
    /// Loads and stores, half each.
    ReadWrite,
}

/// One access-pattern line.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// Index into the regions.
    pub region: usize,
    /// Random (true) or sequential.
    pub random: bool,
    /// Stride in bytes.
    pub stride: u64,
    /// Relative probability.
    pub probability: u64,
    /// Loads, stores or both.
    pub mode: RwMode,
}

/// One phase.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    /// Name line.
    pub name: String,
    /// Duration in ms.
    pub duration_ms: u64,
    /// Patterns.
    pub patterns: Vec<Pattern>,
}

/// A parsed config.
#[derive(Clone, Debug, PartialEq)]
pub struct MasimConfig {
    /// (name, size in bytes).
    pub regions: Vec<(String, u64)>,
    /// Phases in order.
    pub phases: Vec<Phase>,
}

fn fields(s: &str) -> Vec<&str> {
    s.split(',').map(str::trim).collect()
}

/// Parses a config; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<MasimConfig, WorkloadError> {
    let err = |line: usize, msg: String| WorkloadError::AtLine {
        file: file.to_string(),
        line,
        msg,
    };
    // Paragraphs of (line number, text), comments removed first as MASIM does.
    let mut paragraphs: Vec<Vec<(usize, &str)>> = vec![Vec::new()];
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        if line.starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            if !paragraphs.last().is_some_and(Vec::is_empty) {
                paragraphs.push(Vec::new());
            }
            continue;
        }
        paragraphs
            .last_mut()
            .expect("non-empty")
            .push((i + 1, line));
    }
    paragraphs.retain(|p| !p.is_empty());
    let Some((region_par, phase_pars)) = paragraphs.split_first() else {
        return Err(err(1, "no regions paragraph".into()));
    };
    let mut regions: Vec<(String, u64)> = Vec::new();
    // Bytes the regions take when laid out (2 MiB-rounded, 2 MiB gaps).
    let mut laid_out = 0u64;
    for &(ln, line) in region_par {
        let f = fields(line);
        if !(2..=3).contains(&f.len()) {
            return Err(err(
                ln,
                format!("expected `name, size[, init_file]`, got {line:?}"),
            ));
        }
        if f[0].is_empty() {
            return Err(err(ln, "empty region name".into()));
        }
        let size: u64 = f[1].parse().map_err(|_| {
            err(
                ln,
                format!("region size {:?} is not a whole number of bytes", f[1]),
            )
        })?;
        if size == 0 {
            return Err(err(ln, "region size is 0".into()));
        }
        const HUGE: u64 = 2 << 20;
        laid_out = size
            .div_ceil(HUGE)
            .checked_mul(HUGE)
            .and_then(|b| b.checked_add(HUGE + laid_out))
            .filter(|&b| b <= 1 << 47)
            .ok_or_else(|| {
                err(
                    ln,
                    "regions add up to more than the 47-bit (128 TiB) address space".into(),
                )
            })?;
        if regions.iter().any(|r| r.0 == f[0]) {
            return Err(err(ln, format!("region {:?} defined twice", f[0])));
        }
        regions.push((f[0].to_string(), size));
    }
    if phase_pars.is_empty() {
        let ln = region_par.last().map_or(1, |l| l.0);
        return Err(err(ln, "no phase after the regions paragraph".into()));
    }
    let mut phases = Vec::new();
    for par in phase_pars {
        if par.len() < 3 {
            return Err(err(
                par[0].0,
                "a phase needs a name line, a duration line (ms) and at least one pattern".into(),
            ));
        }
        let name = par[0].1.trim().to_string();
        let (dl, dtext) = par[1];
        let duration_ms: u64 = dtext.trim().parse().map_err(|_| {
            err(
                dl,
                format!(
                    "phase duration {:?} is not a whole number of ms",
                    dtext.trim()
                ),
            )
        })?;
        let mut patterns = Vec::new();
        let mut total_probability = 0u64;
        for &(ln, line) in &par[2..] {
            let f = fields(line);
            if !(4..=5).contains(&f.len()) {
                return Err(err(
                    ln,
                    format!("expected `region, randomness, stride, probability[, ro|wo|rw]`, got {line:?}"),
                ));
            }
            let region = regions
                .iter()
                .position(|r| r.0 == f[0])
                .ok_or_else(|| err(ln, format!("unknown region {:?}", f[0])))?;
            let random = match f[1] {
                "1" => true,
                "0" => false,
                other => return Err(err(ln, format!("randomness must be 0 or 1, got {other:?}"))),
            };
            let stride: u64 = f[2]
                .parse()
                .map_err(|_| err(ln, format!("stride {:?} is not a whole number", f[2])))?;
            if stride == 0 || stride > regions[region].1 {
                return Err(err(
                    ln,
                    format!("stride {stride} must be in 1..=region size"),
                ));
            }
            let probability: u64 = f[3]
                .parse()
                .map_err(|_| err(ln, format!("probability {:?} is not a whole number", f[3])))?;
            total_probability = total_probability.checked_add(probability).ok_or_else(|| {
                err(
                    ln,
                    "the phase's probabilities add up to more than 2^64 - 1".into(),
                )
            })?;
            let mode = match f.get(4).copied() {
                None | Some("wo") => RwMode::WriteOnly,
                Some("ro") => RwMode::ReadOnly,
                Some("rw") => RwMode::ReadWrite,
                Some(other) => {
                    return Err(err(
                        ln,
                        format!("access mode must be ro, wo or rw, got {other:?}"),
                    ))
                }
            };
            patterns.push(Pattern {
                region,
                random,
                stride,
                probability,
                mode,
            });
        }
        if patterns.iter().all(|p| p.probability == 0) {
            return Err(err(
                par[2].0,
                "every pattern of the phase has probability 0".into(),
            ));
        }
        phases.push(Phase {
            name,
            duration_ms,
            patterns,
        });
    }
    Ok(MasimConfig { regions, phases })
}

/// Generates a config's accesses.
pub struct MasimStream {
    cfg: MasimConfig,
    starts: Vec<u64>,
    /// Accesses per phase.
    budgets: Vec<u64>,
    phase: usize,
    left: u64,
    cursors: Vec<u64>,
    cumulative: Vec<u64>,
    rng: Rng,
}

impl MasimStream {
    /// A stream of `cfg` at `rate` accesses/s over `regions` (from [`lay_out`]).
    pub fn new(cfg: MasimConfig, regions: &[RegionInfo], rate: f64, seed: u64) -> Self {
        let budgets: Vec<u64> = cfg
            .phases
            .iter()
            .map(|p| (p.duration_ms as f64 / 1000.0 * rate).round() as u64)
            .collect();
        let mut s = MasimStream {
            starts: regions.iter().map(|r| r.start).collect(),
            left: budgets.first().copied().unwrap_or(0),
            budgets,
            phase: 0,
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
                // Saturates: a huge rate can ask for 2^64 accesses a phase.
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
            let phase = &self.cfg.phases[self.phase];
            let total = *self.cumulative.last().expect("phase has patterns");
            let pick = self.rng.below(total);
            let k = self.cumulative.partition_point(|&c| c <= pick);
            let p = &phase.patterns[k];
            let size = self.cfg.regions[p.region].1;
            let offset = if p.random {
                self.rng.below(size / p.stride) * p.stride
            } else {
                let o = self.cursors[k];
                let next = o + p.stride;
                self.cursors[k] = if next + p.stride > size { 0 } else { next };
                o
            };
            let write = match p.mode {
                RwMode::ReadOnly => false,
                RwMode::WriteOnly => true,
                RwMode::ReadWrite => self.rng.below(2) == 1,
            };
            buf[n] = Access {
                va: self.starts[p.region] + offset,
                asid: 0,
                core: 0,
                write,
            };
            n += 1;
            self.left -= 1;
        }
        n
    }
}

/// The config as access rates ([`crate::rates`]): each pattern becomes a
/// uniform segment over its region with its share of the phase's accesses;
/// a sequential pattern is one operation sweeping its region at its stride
/// (so only the first access to each page can miss the TLB); phases issue as
/// many accesses as [`MasimStream`] does at `rate`.
pub fn rate_profile(cfg: &MasimConfig, regions: &[RegionInfo], rate: f64) -> RateProfile {
    let phases = cfg
        .phases
        .iter()
        .map(|p| {
            let total: u64 = p.patterns.iter().map(|x| x.probability).sum();
            RatePhase {
                name: p.name.clone(),
                accesses: (p.duration_ms as f64 / 1000.0 * rate).round() as u64,
                segments: p
                    .patterns
                    .iter()
                    .filter(|x| x.probability > 0)
                    .map(|x| {
                        let r = &regions[x.region];
                        RateSegment {
                            asid: r.asid,
                            start: r.start,
                            len: r.len,
                            share: x.probability as f64 / total as f64,
                            write_fraction: match x.mode {
                                RwMode::ReadOnly => 0.0,
                                RwMode::WriteOnly => 1.0,
                                RwMode::ReadWrite => 0.5,
                            },
                            // A sweep is one long operation at its stride.
                            burst_bytes: if x.random { 64 } else { r.len },
                            stride_bytes: if x.random { 64 } else { x.stride },
                            sweep: !x.random,
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
        let bad = "a, 4096\n\np\n1000\na, 2, 64, 1\n";
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
    }

    #[test]
    fn sequential_pattern_sweeps_and_wraps() {
        let c = parse("a, 16384\n\np\n1\na, 0, 4096, 1, ro\n", "f").unwrap();
        let regions = lay_out(&c.regions, false);
        let mut s = MasimStream::new(c, &regions, 6000.0, 1);
        let mut buf = [Access::default(); 10];
        let n = s.fill(&mut buf);
        assert_eq!(n, 6);
        let offs: Vec<u64> = buf[..n].iter().map(|a| a.va - regions[0].start).collect();
        assert_eq!(offs, vec![0, 4096, 8192, 12288, 0, 4096]);
        assert!(buf[..n].iter().all(|a| !a.write));
    }

    #[test]
    fn rate_profile_matches_the_stream_plan() {
        let c = parse(DEMO, "demo.cfg").unwrap();
        let regions = lay_out(&c.regions, false);
        let p = rate_profile(&c, &regions, 1000.0);
        p.validate(&regions).unwrap();
        let s = MasimStream::new(c, &regions, 1000.0, 1);
        assert_eq!(p.total_accesses(), s.plan().0);
        assert_eq!(p.marks(), s.plan().1);
        assert_eq!(p.phases[0].segments.len(), 2);
        assert!((p.phases[0].segments[0].share - 0.5).abs() < 1e-12);
        assert_eq!(p.phases[1].segments[0].write_fraction, 1.0);
    }

    proptest::proptest! {
        #[test]
        fn parser_never_panics(text in "[a-c0-9, #\n]{0,80}") {
            let _ = parse(&text, "fuzz");
        }
    }
}
