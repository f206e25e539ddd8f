//! The machine's clock: workload progress (accesses issued), simulated time,
//! the time the same accesses would take with every page fast, and the phase
//! being run.

use crate::profile::Profile;

/// Progress, time and phase.
pub(crate) struct Clock {
    /// Workload accesses issued.
    progress: f64,
    /// Simulated time (ns).
    now_ns: f64,
    /// Time (ns) with every page in the fast tier.
    ideal_ns: f64,
    /// Phase being run.
    phase: usize,
    /// Simulated time (ns) at which each phase reached so far began.
    phase_started_ns: Vec<f64>,
    /// Steps taken: the key of each step's draws.
    steps: u64,
}

impl Clock {
    /// At the start of the first phase.
    pub fn new() -> Self {
        Clock {
            progress: 0.0,
            now_ns: 0.0,
            ideal_ns: 0.0,
            phase: 0,
            phase_started_ns: vec![0.0],
            steps: 0,
        }
    }

    /// Workload accesses issued.
    pub fn progress(&self) -> f64 {
        self.progress
    }

    /// Simulated time (ns).
    pub fn now_ns(&self) -> f64 {
        self.now_ns
    }

    /// Time (ns) the same accesses take with every page in the fast tier.
    pub fn ideal_ns(&self) -> f64 {
        self.ideal_ns
    }

    /// Phase being run.
    pub fn phase(&self) -> usize {
        self.phase
    }

    /// Simulated time (ns) at which phase `k` began (0 if not reached).
    pub fn phase_start_ns(&self, k: usize) -> f64 {
        self.phase_started_ns.get(k).copied().unwrap_or(0.0)
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Enters every phase of `profile` whose start progress has been
    /// reached; returns whether the phase changed.
    pub fn enter_reached_phases(&mut self, profile: &Profile) -> bool {
        let mut changed = false;
        while self.phase + 1 < profile.boundaries()
            && self.progress >= profile.start(self.phase + 1)
        {
            self.phase += 1;
            self.phase_started_ns.push(self.now_ns);
            changed = true;
        }
        changed
    }

    /// One step: `accesses` issued in `ns`, each taking `ideal_ns` with every
    /// page fast.
    pub fn step(&mut self, accesses: f64, ns: f64, ideal_ns: f64) {
        self.progress += accesses;
        self.now_ns += ns;
        self.ideal_ns += accesses * ideal_ns;
        self.steps += 1;
    }

    /// Sets the progress to `at`, a boundary reached by the last step (so
    /// that rounding does not leave it just short).
    pub fn reach(&mut self, at: f64) {
        self.progress = at;
    }

    /// Stalls the application for `ns` (a TLB shootdown).
    pub fn stall(&mut self, ns: f64) {
        self.now_ns += ns;
    }
}
