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
//! nominal access rate (`thermocline_workloads::DEFAULT_ACCESS_RATE` unless configured),
//! issued in bursts as above. masim draws random numbers from a pool of
//! pre-drawn ones (`init_rndints`); this model draws fresh ones from its seed.
//!
//! This crate holds the format alone (types and parser), so that both the
//! simulated workloads (`thermocline-workloads`, which generate the accesses)
//! and the live backend (`thermocline-live`, which runs masim for real) read
//! configs the same way without one depending on the other.
#![deny(missing_docs)]

/// A syntax or semantic error at a line of a config.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MasimError {
    /// What is wrong, and where.
    #[error("{file}:{line}: {msg}")]
    AtLine {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
}

/// masim's `nr_accesses_per_region`: accesses made on one drawn pattern
/// before the next draw.
pub const DEFAULT_BURST: u64 = 128 * 1024;

/// Read/write mode of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwMode {
    /// Loads only.
    ReadOnly,
    /// Stores only (MASIM's default).
    WriteOnly,
    /// A load then a store of the same byte (modelled as one store).
    ReadWrite,
}

/// One access-pattern line.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// Index into the regions.
    pub region: usize,
    /// Random (true) or sequential.
    pub random: bool,
    /// Stride in bytes as masim's `size_t` holds it (a negative `int`
    /// stride wraps to a huge value); unused by random patterns.
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

/// An integer as `atoi`/`atoll` read a well-formed one: optional sign, then
/// digits, within `lo..=hi`.
fn integer(s: &str, lo: i64, hi: i64) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok().filter(|v| (lo..=hi).contains(v))
}

const INT_MIN: i64 = i32::MIN as i64;
const INT_MAX: i64 = i32::MAX as i64;

/// Parses a config; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<MasimConfig, MasimError> {
    let err = |line: usize, msg: String| MasimError::AtLine {
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
        let size = integer(f[1], i64::MIN, i64::MAX).ok_or_else(|| {
            let digits = f[1].strip_prefix('+').unwrap_or(f[1]);
            let what = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                "is more than the 47-bit (128 TiB) address space holds"
            } else {
                "is not a whole number of bytes"
            };
            err(ln, format!("region size {:?} {what}", f[1]))
        })?;
        if size <= 0 {
            return Err(err(
                ln,
                format!("region size is {size} (masim's accesses to it would fault)"),
            ));
        }
        let size = size as u64;
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
        let mut total_probability = 0i64;
        for &(ln, line) in &par[2..] {
            let f = fields(line);
            if !(4..=5).contains(&f.len()) {
                return Err(err(
                    ln,
                    format!("expected `region, randomness, stride, probability[, ro|wo|rw]`, got {line:?}"),
                ));
            }
            // The first region of that name, as masim's lookup finds it.
            let region = regions
                .iter()
                .position(|r| r.0 == f[0])
                .ok_or_else(|| err(ln, format!("unknown region {:?}", f[0])))?;
            let random = integer(f[1], INT_MIN, INT_MAX).ok_or_else(|| {
                err(
                    ln,
                    format!(
                        "randomness {:?} is not an integer (0: sequential, else random)",
                        f[1]
                    ),
                )
            })? != 0;
            let stride = integer(f[2], INT_MIN, INT_MAX).ok_or_else(|| {
                err(
                    ln,
                    format!("stride {:?} is not an integer within a C int", f[2]),
                )
            })?;
            let probability = integer(f[3], INT_MIN, INT_MAX).ok_or_else(|| {
                err(
                    ln,
                    format!("probability {:?} is not an integer within a C int", f[3]),
                )
            })?;
            if probability < 0 {
                return Err(err(ln, format!("probability {probability} is negative")));
            }
            total_probability += probability;
            if total_probability > INT_MAX {
                return Err(err(
                    ln,
                    "the phase's probabilities add up to more than a C int (2^31 - 1)".into(),
                ));
            }
            let mode = match f.get(4) {
                None => RwMode::WriteOnly,
                Some(m) => {
                    let word = m.split_whitespace().next().unwrap_or("");
                    match word.get(..2) {
                        Some("ro") => RwMode::ReadOnly,
                        Some("wo") => RwMode::WriteOnly,
                        Some("rw") => RwMode::ReadWrite,
                        _ => {
                            return Err(err(
                                ln,
                                format!("access mode must be ro, wo or rw, got {m:?}"),
                            ))
                        }
                    }
                }
            };
            patterns.push(Pattern {
                region,
                random,
                // C's int-to-size_t conversion.
                stride: stride as u64,
                probability: probability as u64,
                mode,
            });
        }
        if total_probability == 0 {
            return Err(err(
                par[2].0,
                "every pattern of the phase has probability 0 (masim would idle; this model counts work in accesses)".into(),
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
