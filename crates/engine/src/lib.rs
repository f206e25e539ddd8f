//! The engine: a run's configuration, its setup, the one run loop over a
//! [`driver::Driver`], the tally and the report, ground truth and metrics,
//! and `compare`'s several runs of one configuration.
//!
//! The loop ([`runner::run`]) is the access -> telemetry -> decision ->
//! migration cycle of ARCHITECTURE.md, written once over a driver: the exact
//! machine's driver feeds it batches of accesses ([`drivers::exact`]), the
//! rate-driven machine's advances a clock ([`drivers::rate`]), and a live
//! host's (in `thermocline-daemon`, beside the live backend it drives) lets
//! the wall clock run. Either way the loop gives the manager its ticks,
//! scores every hot set the manager reports against the driver's ground
//! truth, samples a time series per window, and builds the report once at
//! the end ([`tally`]).
//!
//! Which backend a configuration runs on is decided in one place,
//! [`setup::placement_of`]: the exact or the rate machine here, or a
//! backend that runs a whole configuration elsewhere (a QEMU guest) and
//! registers itself from the crate above that owns it
//! ([`runner::install_remote`]).
#![deny(missing_docs)]

pub mod compare;
pub mod config;
pub mod driver;
pub mod drivers;
pub mod error;
pub mod groundtruth;
pub mod parallel;
pub mod report;
pub mod runner;
pub mod setup;
pub mod show;
pub mod tally;
pub mod validate;

pub use driver::{NoObserver, Observer};
pub use error::{ConfigError, RunError};
pub use setup::{BackendKind, DEFAULT_MACHINE, RATE_THRESHOLD_BYTES};

/// Traces on disk: the lackey first pass (checked once per process) and
/// `thermocline convert`.
pub mod traces {
    pub use thermocline_workloads::convert::convert;
    pub use thermocline_workloads::lackey::scanned_with_progress as scan_lackey;
}
