//! `thermocline masim CONFIG`: a MASIM config executed for real, on real
//! memory that checks itself.
//!
//! The live tests need a program whose pages a daemon moves between NUMA
//! nodes and pages out to zram, with an access pattern known in advance and a
//! way to tell whether any byte or any write was lost on the way. This is
//! that program: it runs a config as sjp38/masim's `exec_config` does, on
//! heap memory filled with content it can verify.
//!
//! # Execution (as masim's `exec_phase` and `do_access`)
//! For each phase, for the phase's wall-clock duration: draw one pattern by
//! its relative probability, make [`DEFAULT_BURST`] accesses on that pattern's
//! region, check the clock, repeat. A phase is therefore a whole number of
//! bursts, at least one, and ends with the first burst that ends past its
//! duration. Random accesses touch any byte of the region (the stride
//! unused); sequential ones keep the pattern's `last_offset` (0 when the
//! phase starts) and advance it by the stride before each access, going back
//! to 0 at or past the region's end (a stride as large as the region, 0, or
//! negative, so huge, touches offset 0 every time).
//!
//! # Where this differs from masim, and why
//! - **Values stored.** masim's `wo` stores 1 and its `rw` stores the byte
//!   read plus one; either would destroy the content that verification
//!   checks. Here every write (`wo` and `rw` alike) loads the 8-byte word
//!   holding the accessed byte and stores it back unchanged, and increments
//!   the page's write counter (its first word) and that page's shadow counter
//!   (a separate array). Storing back what was read never repairs a corrupted
//!   word, so corruption stays until it is counted. A write thus touches up
//!   to three lines (the word, the page's first line, the shadow array's
//!   line) where masim touches one; the shadow array (one word per 4 KiB
//!   page) is hot heap memory of its own.
//! - **Reads** load the whole aligned word holding the byte (through
//!   [`std::hint::black_box`], as masim's `ACCESS_ONCE`): the same line.
//! - **Region sizes** are whole 4 KiB pages: `size × --size-scale` rounded up,
//!   at least one page, because the write counters are per page. Accesses
//!   span the rounded size.
//! - **Random numbers** come fresh from one seeded generator (`--seed`), for
//!   both the pattern draws and the random offsets; masim recycles a pool of
//!   10^6 pre-drawn `rand()` values, which caps the distinct offsets of a
//!   region at 10^6 and makes its runs differ with libc. Given the seed, the
//!   content and the sequence of draws are the same on every run; how many
//!   bursts a phase makes depends on the wall clock, which is the point.
//! - **`--loops N`** runs the phase list N times over the same memory (masim's
//!   `--repeat` re-reads the config and allocates fresh regions each time):
//!   the daemon sees one steady set of pages, and integrity is checked across
//!   the loops. Sequential cursors restart at 0 at every phase, as masim's do.
//! - **Initial data files** (a region's third field) are not loaded: the
//!   region's content is this module's own, so that it can be verified.
//! - **No idling.** masim idles through a phase whose probabilities are all
//!   0; the parser ([`parse`]) rejects such a config, so it never runs here.
//! - **Verification** (at the end, and on SIGUSR1 between bursts) runs
//!   inside the current phase's wall time: the schedule stays on time and the
//!   phase makes fewer accesses.
//!
//! # Memory content and verification
//! A region is an array of 4 KiB blocks aligned as the kernel's pages, so
//! each block is one kernel page and its counter travels with it (a page lost
//! or brought back stale takes its count along). Every page is written while
//! the region is filled, so all of it is resident before the ready line.
//! Every 8-byte word `i` of region `r` holds `hash(seed, r, i)`, except the
//! first word of each page, which holds `hash(seed, r, i) + writes to that
//! page`; the page's shadow counter holds the same count. Verification
//! compares every word with its expected value and counts the differing
//! bytes; a page whose counter differs from its shadow by no more than the
//! writes made to the region has lost that many writes (a write that never
//! reached memory, or a page brought back older than it left), a larger
//! difference is corruption of the counter word, counted byte-wise. A bit
//! flip in a counter's low bits reads as lost writes: the two cannot be told
//! apart, and either is a failure.
//!
//! # Output
//! stdout: `masim: pid N, regions ready` once the memory is filled (after
//! SIGUSR1 is handled, so a daemon may signal as soon as it reads it), then
//! one `masim: verified …` line per verification. stderr: a line per phase
//! start with its wall time since the start, and a closing line with the
//! access rate. The exit status of `thermocline masim` is 0 when every
//! verification was clean, 3 when any found a corrupted byte or a lost write
//! (2 for a bad config or option, as every user mistake).
#![forbid(unsafe_code)]

mod budget;
mod content;
mod pattern;
mod region;
mod report;
mod run;
mod signal;
mod verify;

pub use report::{PhaseReport, RegionReport, Report};
pub use run::run;
pub use thermocline_masim::{parse, MasimConfig, Pattern, Phase, RwMode, DEFAULT_BURST};
pub use verify::{Trigger, Verification};

use crate::LiveError;
use std::path::PathBuf;

/// How to run a config.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Seed of the content and of every draw.
    pub seed: u64,
    /// Times the phase list runs (at least 1).
    pub loops: u32,
    /// Factor on every region's size (rounded up to whole pages, at least
    /// one): to fit a config into a small guest.
    pub size_scale: f64,
    /// Factor on every phase's duration (0 makes every phase one burst).
    pub time_scale: f64,
    /// Accesses per drawn pattern (masim's `nr_accesses_per_region`).
    pub burst: u64,
    /// Write the pid here once the regions are ready.
    pub ready: Option<PathBuf>,
    /// Write the JSON report here at the end.
    pub report: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 1,
            loops: 1,
            size_scale: 1.0,
            time_scale: 1.0,
            burst: DEFAULT_BURST,
            ready: None,
            report: None,
        }
    }
}

/// Why a config could not run.
#[derive(Debug, thiserror::Error)]
pub enum MasimError {
    /// An option out of its range.
    #[error("{0}")]
    Invalid(String),
    /// The regions do not fit.
    #[error("region {region}: cannot allocate {bytes} bytes: {why}")]
    Memory {
        /// The region's name.
        region: String,
        /// What it needed (content and shadow counters).
        bytes: u64,
        /// Why not.
        why: String,
    },
    /// A system error (a file, stdout, the signal handler).
    #[error(transparent)]
    Live(#[from] LiveError),
}
