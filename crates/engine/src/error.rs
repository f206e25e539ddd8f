//! Why a run could not be set up or finished, split by whose fault it is:
//! the user's input (exit code 2, one line naming the file and line where
//! there is one), thermocline itself (exit code 1, "internal error" with
//! what reproduces it), or the live host (a permission, a kernel feature,
//! the target or memory it lacks: [`RunError::Host`], each kind with its
//! own exit code in the CLI).

/// A configuration the user gave that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A problem at a line of a configuration file.
    #[error("{file}:{line}: {msg}")]
    AtLine {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// A problem with a file as a whole (unreadable, or no line to name).
    #[error("{file}: {msg}")]
    InFile {
        /// The file.
        file: String,
        /// What is wrong.
        msg: String,
    },
    /// A `--set KEY=VALUE` that cannot be applied.
    #[error("--set {set}: {msg}")]
    Set {
        /// The whole `KEY=VALUE`.
        set: String,
        /// What is wrong.
        msg: String,
    },
    /// A command-line flag's value that cannot be used (`--duration -1`).
    #[error("{flag}: {msg}")]
    Flag {
        /// The flag and its value, as given.
        flag: String,
        /// What is wrong.
        msg: String,
    },
    /// A name that no catalogue knows.
    #[error(
        "unknown {kind} {name:?} (see `thermocline {listing}`){}",
        name_hint(kind, name)
    )]
    UnknownName {
        /// What kind of thing (machine, backend, reproduction...).
        kind: &'static str,
        /// The name given.
        name: String,
        /// The command that lists the known names.
        listing: &'static str,
    },
    /// A value that parses but is out of range, or a combination of values
    /// that cannot run together.
    #[error("{what}: {msg}")]
    Invalid {
        /// The setting (`fast capacity`, `metrics.window_s`...).
        what: String,
        /// What is wrong.
        msg: String,
    },
}

/// `" (did you mean X?)"` for a mistyped manager or machine name.
fn name_hint(kind: &str, name: &str) -> String {
    match kind {
        "manager" => thermocline_managers::registry::hint(name),
        "machine" => thermocline_vocab::hint(
            name,
            thermocline_model::presets::MACHINE_PRESETS
                .iter()
                .map(|p| p.name),
        ),
        _ => String::new(),
    }
}

impl ConfigError {
    /// An out-of-range value or impossible combination.
    pub fn invalid(what: impl Into<String>, msg: impl Into<String>) -> Self {
        ConfigError::Invalid {
            what: what.into(),
            msg: msg.into(),
        }
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The configuration is wrong (the user's input).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A workload could not be loaded (names the file and line).
    #[error(transparent)]
    Workload(#[from] thermocline_workloads::WorkloadError),
    /// A manager's parameters are wrong (the user's input).
    #[error(transparent)]
    Manager(#[from] thermocline_managers::ManagerError),
    /// Writing an output failed.
    #[error("{path}: {msg}")]
    Output {
        /// The file.
        path: String,
        /// What failed.
        msg: String,
    },
    /// The manager needs a primitive this backend does not have: the user
    /// picked a combination that cannot run.
    #[error("manager {manager} needs {capability:?}, which the {backend} backend does not have; pick another --backend or manager")]
    Unsupported {
        /// The manager.
        manager: String,
        /// The backend kind.
        backend: &'static str,
        /// The missing primitive.
        capability: thermocline_backend::Capability,
    },
    /// The manager declined the run (a workload beyond what it is built
    /// for): the user picked a combination that cannot run.
    #[error("manager {manager} cannot run here: {why}; pick another workload or manager")]
    Unfit {
        /// The manager.
        manager: String,
        /// Its reason.
        why: String,
    },
    /// The live host refused or lacks something: a permission, a kernel
    /// feature, the target process (it exited) or memory. Neither the
    /// input's fault nor thermocline's: the message says what to do.
    #[error("{what}: {message}; {}", kind.advice())]
    Host {
        /// What kind of host failure.
        kind: thermocline_backend::HostKind,
        /// The setting or step that met it (`[target]`, `[tiers]`...).
        what: String,
        /// What the live backend said.
        message: String,
    },
    /// The caller asked the run to stop (a Ctrl-C in a notebook).
    #[error("the run was stopped at {at_s:.3} s of simulated time, as asked")]
    Stopped {
        /// Simulated time when it stopped, in seconds.
        at_s: f64,
    },
    /// A manager's request failed on a backend that was set up correctly:
    /// a bug in the manager or the backend, not in the input.
    #[error("internal error: manager {manager} failed at {at_s:.6} s on the {backend} backend: {error} (reproduce with --workload {workload} --manager {manager} --seed {seed}; please report it)")]
    Internal {
        /// The manager.
        manager: String,
        /// The workload.
        workload: String,
        /// The seed of the run.
        seed: u64,
        /// The backend kind.
        backend: &'static str,
        /// Simulated (or real) time of the failure, in seconds.
        at_s: f64,
        /// What the backend said (in the message, not as a chained source,
        /// so the one line does not repeat it).
        error: thermocline_backend::BackendError,
    },
}

impl RunError {
    /// The kind of host failure this is, if it is one.
    pub fn host_kind(&self) -> Option<thermocline_backend::HostKind> {
        match self {
            RunError::Host { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// The process exit code this error calls for: 2 for the user's input,
    /// 1 for an internal failure, 130 for a stop. A host failure is
    /// neither: the CLI gives each [`host_kind`](Self::host_kind) its own
    /// code and asks that first; here it is 1 (not the input's fault).
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Internal { .. } | RunError::Host { .. } => 1,
            // as a shell reports a process ended by SIGINT
            RunError::Stopped { .. } => 130,
            _ => 2,
        }
    }
}
