//! Experiments: configuration, the one run loop that ties a workload, a
//! backend and a manager together, ground truth and metrics, reports,
//! heatmaps, the paper reproductions, and the catalogue of everything a user
//! can name.
//!
//! The loop ([`runner::run`]) is the access -> telemetry -> decision ->
//! migration cycle of ARCHITECTURE.md, written once over a driver: the exact
//! machine's driver feeds it batches of accesses (`exact_driver.rs`), the
//! rate-driven machine's advances a clock (`rate_driver.rs`). Either way the
//! loop gives the manager its ticks, scores every hot set the manager reports
//! against the driver's ground truth, samples a time series per window, and
//! builds the report once at the end (`tally.rs`).
#![deny(missing_docs)]

mod ambix;
mod ambix_claims;
pub mod catalogue;
pub mod claims;
pub mod compare;
pub mod config;
pub mod daemon;
mod driver;
mod error;
mod exact_driver;
pub mod groundtruth;
mod guest;
mod guest_damon;
mod guest_run;
pub mod heatmap;
mod heteroos;
mod heteroos_claims;
mod heteroos_drf;
mod heteroos_drf_claims;
mod heteroos_drf_setup;
mod heteroos_sensitivity;
mod heteroos_sensitivity_claims;
mod heteroos_sensitivity_setup;
mod heteroos_vmm;
mod heteroos_vmm_claims;
mod heteroos_vmm_setup;
pub mod host_memory;
mod live_agreement;
mod live_damon;
pub mod live_driver;
mod memos;
mod memos_breakdown;
mod memos_claims;
mod memos_eval;
mod memos_eval_claims;
mod memos_setup;
mod memos_steps;
pub mod parallel;
pub mod plot;
mod rate_driver;
pub mod recording;
pub mod report;
pub mod reproduce;
mod reproduction;
pub mod results_md;
pub mod runner;
mod schemes_tiering;
mod setup;
pub mod show;
pub mod sweep;
mod tally;
mod telescope;
mod telescope_claims;
mod thermostat;
mod thermostat_claims;
mod validate;

pub use driver::{NoObserver, Observer};
pub use error::{ConfigError, RunError};
pub use setup::{BackendKind, DEFAULT_MACHINE, RATE_THRESHOLD_BYTES};

/// Traces on disk: the lackey first pass (checked once per process) and
/// `thermocline convert`.
pub mod traces {
    pub use thermocline_workloads::convert::convert;
    pub use thermocline_workloads::lackey::scanned_with_progress as scan_lackey;
}
