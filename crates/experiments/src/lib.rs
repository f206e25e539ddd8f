//! Experiments: configuration, the run loop that ties a workload, a backend
//! and a manager together, ground truth and metrics, reports and heatmaps.
//!
//! The loop ([`runner::run`]) is the access -> telemetry -> decision ->
//! migration cycle of ARCHITECTURE.md: on the exact machine it feeds batches
//! of accesses to the machine; on the rate-driven machine it advances the
//! clock from one tick to the next (`rate_runner.rs`). Either way it gives
//! the manager its ticks, scores every hot set the manager reports against
//! the machine's ground truth, and samples a time series per window.
#![deny(missing_docs)]

pub mod config;
pub mod groundtruth;
pub mod heatmap;
pub mod plot;
mod rate_runner;
pub mod report;
mod repro_ambix;
mod repro_telescope;
mod repro_thermostat;
pub mod reproduce;
pub mod runner;

/// Why a run could not be set up or finished: always the user's input, so the
/// CLI exits with code 2.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A configuration problem.
    #[error("{0}")]
    Config(String),
    /// A workload problem (names the file and line).
    #[error(transparent)]
    Workload(#[from] thermocline_workloads::WorkloadError),
    /// A manager problem.
    #[error(transparent)]
    Manager(#[from] thermocline_managers::ManagerError),
    /// The manager asked the backend for something it cannot do.
    #[error("manager failed: {0}")]
    Backend(#[from] thermocline_backend::BackendError),
    /// Writing an output failed.
    #[error("{path}: {msg}")]
    Output {
        /// The file.
        path: String,
        /// What failed.
        msg: String,
    },
}
