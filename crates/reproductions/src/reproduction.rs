//! What a reproduction is: the runs it needs and how it turns their reports
//! into a summary, a table and charts. Each paper's reproductions
//! (`thermostat.rs`, `ambix.rs`, `telescope.rs`) are values of these types;
//! `reproduce.rs` runs them.

use crate::claims::Claim;
use std::collections::BTreeMap;
use thermocline_engine::report::Report;

/// One run a reproduction needs: a workload, a manager and `--set` overrides.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunSpec {
    /// Workload name.
    pub workload: String,
    /// Manager name.
    pub manager: String,
    /// `KEY=VALUE` overrides, applied in order.
    pub sets: Vec<String>,
}

impl RunSpec {
    /// A run of `manager` on `workload` with `sets`.
    pub fn new(workload: &str, manager: &str, sets: &[&str]) -> Self {
        RunSpec {
            workload: workload.into(),
            manager: manager.into(),
            sets: sets.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// Options shared by every reproduction.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Caps every run's simulated length (s); `None` runs workloads in full.
    pub duration_s: Option<f64>,
    /// The seed of every run.
    pub seed: u64,
}

/// The reports of the runs, by spec.
pub type Results = BTreeMap<RunSpec, Report>;

/// What a reproduction produces.
#[derive(Clone, Debug)]
pub struct Output {
    /// Machine-readable summary.
    pub json: serde_json::Value,
    /// A table for the terminal.
    pub text: String,
    /// Charts as SVG documents, by file name (without directory).
    pub charts: Vec<(String, String)>,
}

/// A registered reproduction.
pub struct Reproduction {
    /// Name, as given to `reproduce`.
    pub name: &'static str,
    /// What it reproduces.
    pub description: &'static str,
    /// The runs it needs.
    pub runs: fn(&Options) -> Vec<RunSpec>,
    /// Turns the runs' reports into the output.
    pub summarize: fn(&Options, &Results) -> Output,
    /// The paper's claims it checks, measured from the summary's JSON.
    pub claims: fn() -> Vec<Claim>,
}
