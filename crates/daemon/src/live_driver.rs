//! The run loop's driver on a live Linux host: time is the wall clock, the
//! workload is a real process that runs by itself, and the loop sleeps
//! until its next deadline instead of simulating up to it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use thermocline_backend::{Backend, TierCounters};
use thermocline_engine::driver::{Counters, Driver};
use thermocline_engine::groundtruth::UnitSpan;
use thermocline_live::backend::LinuxBackend;
use thermocline_live::sys::PAGE;
use thermocline_live::LiveError;
use thermocline_managers::Manager;
use thermocline_model::MachineStats;

/// Why a live run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveEnd {
    /// It has not ended.
    Running,
    /// Its duration was reached.
    Duration,
    /// Every target process exited.
    TargetExited,
    /// A stop was asked (SIGTERM, SIGINT).
    Stopped,
    /// A reload was asked (SIGHUP).
    Reload,
    /// Reading the targets failed.
    Failed(String),
}

/// Bytes the manager may move per second and per tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quota {
    /// MB (10^6 bytes) moved per second at most.
    pub max_mb_per_s: Option<f64>,
    /// Share of the targets' resident bytes moved per tick at most.
    pub max_share_per_tick: Option<f64>,
}

/// What the driver hands to whoever publishes metrics, after each look at
/// the clock.
pub type Publisher = Box<dyn FnMut(&LinuxBackend, &dyn Manager)>;

/// The driver over a [`LinuxBackend`].
pub struct LiveDriver {
    b: LinuxBackend,
    duration_ns: Option<f64>,
    stop: Arc<AtomicBool>,
    reload: Arc<AtomicBool>,
    quota: Quota,
    sample_interval_ns: f64,
    next_sample_ns: f64,
    last_budget_ns: f64,
    ended: LiveEnd,
    publish: Option<Publisher>,
}

impl LiveDriver {
    /// Drives `b` until `duration_s` (forever if `None`), a stop or a
    /// reload flag, or the targets' exit; poisoned pages are re-armed every
    /// `sample_interval_s` (see `LinuxBackend::resample`).
    pub fn new(
        b: LinuxBackend,
        duration_s: Option<f64>,
        flags: (Arc<AtomicBool>, Arc<AtomicBool>),
        quota: Quota,
        sample_interval_s: f64,
    ) -> Self {
        let (stop, reload) = flags;
        LiveDriver {
            b,
            duration_ns: duration_s.map(|s| s * 1e9),
            stop,
            reload,
            quota,
            sample_interval_ns: sample_interval_s * 1e9,
            next_sample_ns: sample_interval_s * 1e9,
            last_budget_ns: 0.0,
            ended: LiveEnd::Running,
            publish: None,
        }
    }

    /// Calls `p` after each look at the clock.
    pub fn publish_with(&mut self, p: Publisher) {
        self.publish = Some(p);
    }

    /// Why the run ended.
    pub fn ended(&self) -> &LiveEnd {
        &self.ended
    }

    /// The backend.
    pub fn live(&self) -> &LinuxBackend {
        &self.b
    }

    fn set_budget(&mut self) {
        let now = self.now_ns();
        let mut budget: Option<f64> = None;
        if let Some(mb) = self.quota.max_mb_per_s {
            budget = Some(mb * 1e6 * (now - self.last_budget_ns).max(0.0) / 1e9);
        }
        if let Some(share) = self.quota.max_share_per_tick {
            let resident: u64 = self.b.resident_bytes().iter().sum();
            let b = share * resident as f64;
            budget = Some(budget.map_or(b, |x| x.min(b)));
        }
        self.last_budget_ns = now;
        self.b.set_budget(budget.map(|b| (b as u64) / PAGE * PAGE));
    }

    fn end(&mut self, why: LiveEnd) -> bool {
        self.ended = why;
        false
    }
}

impl Driver for LiveDriver {
    fn backend(&mut self) -> &mut dyn Backend {
        &mut self.b
    }

    fn kind(&self) -> &'static str {
        "linux"
    }

    fn now_ns(&self) -> f64 {
        self.b.elapsed_ns() as f64
    }

    fn advance(&mut self, until_ns: f64) -> Result<bool, thermocline_workloads::WorkloadError> {
        let until = match self.duration_ns {
            Some(d) => until_ns.min(d),
            None => until_ns,
        };
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(self.end(LiveEnd::Stopped));
            }
            if self.reload.load(Ordering::Relaxed) {
                return Ok(self.end(LiveEnd::Reload));
            }
            let mut now = self.now_ns();
            if now >= self.next_sample_ns {
                if let Err(e) = self.b.resample() {
                    return Ok(self.end(LiveEnd::Failed(e.to_string())));
                }
                now = self.now_ns();
                self.next_sample_ns = now + self.sample_interval_ns;
            }
            if now >= until {
                break;
            }
            // short naps, so that a signal or the target's exit is seen soon
            let nap = ((until.min(self.next_sample_ns) - now) / 1e9).min(0.05);
            std::thread::sleep(Duration::from_secs_f64(nap.max(1e-4)));
        }
        match self.b.refresh() {
            Ok(()) => {}
            Err(LiveError::Exited { .. }) => return Ok(self.end(LiveEnd::TargetExited)),
            Err(e) => return Ok(self.end(LiveEnd::Failed(e.to_string()))),
        }
        if !self.b.any_alive() {
            return Ok(self.end(LiveEnd::TargetExited));
        }
        // the bytes per tier, read in full only as often as their cost
        // allows (LinuxBackend::refresh_resident)
        self.b.refresh_resident(false);
        if self.duration_ns.is_some_and(|d| self.now_ns() >= d) {
            return Ok(self.end(LiveEnd::Duration));
        }
        self.set_budget();
        Ok(true)
    }

    fn wall_clock(&self) -> bool {
        true
    }

    fn after_tick(&mut self) {
        // a Dirty bit cleared by the tick is cleared now, not after the
        // sleep to the next tick (which would hide that interval's writes)
        self.b.clear_soft_dirty();
    }

    fn progress(&self) -> (u64, u64) {
        let now = (self.now_ns() / 1e6) as u64;
        (now, self.duration_ns.map_or(0, |d| (d / 1e6) as u64))
    }

    fn phase_starts_s(&self) -> &[f64] {
        &[]
    }

    fn hot_units(&mut self, _threshold: u64) -> Option<Vec<UnitSpan>> {
        None
    }

    fn hot_rule(&self, _threshold: u64) -> String {
        "none: a live host has no ground truth of which pages are hot".into()
    }

    fn counters(&self) -> Counters {
        // a live host counts no application access
        Counters {
            accesses: 0,
            slow_accesses: 0,
            tier_faults: 0,
        }
    }

    fn resident_bytes(&self) -> Vec<u64> {
        self.b.resident_bytes()
    }

    fn ideal_ns(&self) -> f64 {
        // no model of the time the process would take: no slowdown claimed
        self.now_ns()
    }

    fn app_counters(&self) -> Vec<TierCounters> {
        vec![TierCounters::default(); self.b.live_tiers().len()]
    }

    fn stats(&self) -> MachineStats {
        let c = self.b.counters();
        let promoted = c.moved_pages.first().copied().unwrap_or(0);
        let demoted = c.moved_pages.iter().skip(1).sum();
        MachineStats {
            promoted_pages: promoted,
            demoted_pages: demoted,
            migrated_bytes: c.moved_bytes,
            ..MachineStats::default()
        }
    }

    fn observe(&mut self, manager: &dyn Manager) {
        if let Some(p) = self.publish.as_mut() {
            p(&self.b, manager);
        }
    }
}
