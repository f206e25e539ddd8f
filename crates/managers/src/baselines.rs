//! Baselines that place pages once, on first touch, and never migrate:
//! `all-fast`, `all-slow`, `first-touch`, `interleave` and `random`. They
//! bound what telemetry-driven managers can gain, and `all-fast` is the
//! reference of `slowdown`.

use crate::Manager;
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError, MemPolicy};
use thermocline_vocab::{CapacitySpec, TierId};

/// Sets `policy` for every address space of the backend's regions.
pub(crate) fn set_all(b: &mut dyn Backend, policy: MemPolicy) -> Result<(), BackendError> {
    let mut asids: Vec<_> = b.regions().iter().map(|r| r.asid).collect();
    asids.dedup();
    for a in asids {
        b.set_policy(a, policy)?;
    }
    Ok(())
}

/// Sets a baseline's [`Manager::launch_policy`] for every address space.
fn start_under(m: &dyn Manager, b: &mut dyn Backend) -> Result<(), BackendError> {
    match m.launch_policy(b.tiers().len()) {
        Some(p) => set_all(b, p),
        None => Ok(()),
    }
}

/// Every page in the fast tier. Unless the user says otherwise its fast tier
/// holds the whole footprint, so it is the ideal machine and its slowdown is 0.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AllFast {}

impl Manager for AllFast {
    fn name(&self) -> &'static str {
        "all-fast"
    }
    fn default_fast_capacity(&self) -> Option<CapacitySpec> {
        Some(CapacitySpec::PercentOfFootprint(100.0))
    }
    fn launch_policy(&self, _tiers: usize) -> Option<MemPolicy> {
        Some(MemPolicy::Bind { tier: TierId::FAST })
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        start_under(self, b)
    }
}

/// Every page in the slowest tier.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AllSlow {}

impl Manager for AllSlow {
    fn name(&self) -> &'static str {
        "all-slow"
    }
    fn launch_policy(&self, tiers: usize) -> Option<MemPolicy> {
        Some(MemPolicy::Bind {
            tier: TierId(tiers.saturating_sub(1) as u8),
        })
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        start_under(self, b)
    }
}

/// The fast tier until it is full, then the slow one (Linux's preferred-node
/// policy; the Ambix paper's "local first-touch").
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FirstTouch {}

impl Manager for FirstTouch {
    fn name(&self) -> &'static str {
        "first-touch"
    }
    fn launch_policy(&self, _tiers: usize) -> Option<MemPolicy> {
        Some(MemPolicy::PreferFast)
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        start_under(self, b)
    }
}

/// Pages alternate between tiers in touch order (MPOL_INTERLEAVE).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Interleave {}

impl Manager for Interleave {
    fn name(&self) -> &'static str {
        "interleave"
    }
    fn launch_policy(&self, _tiers: usize) -> Option<MemPolicy> {
        Some(MemPolicy::Interleave)
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        start_under(self, b)
    }
}

/// Each page goes to the fast tier with probability `fast_probability`
/// (while it has room), else to the slow tier.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Random {
    /// Chance that a new page is placed in the fast tier.
    pub fast_probability: f64,
}

impl Random {
    /// A probability is in [0, 1].
    pub fn check(&self) -> Result<(), String> {
        if (0.0..=1.0).contains(&self.fast_probability) {
            Ok(())
        } else {
            Err(format!(
                "fast_probability = {}: a probability, in [0, 1]",
                self.fast_probability
            ))
        }
    }
}

impl Default for Random {
    fn default() -> Self {
        Random {
            fast_probability: 0.5,
        }
    }
}

impl Manager for Random {
    fn name(&self) -> &'static str {
        "random"
    }
    fn launch_policy(&self, _tiers: usize) -> Option<MemPolicy> {
        Some(MemPolicy::Random {
            fast_probability: self.fast_probability,
        })
    }
    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        start_under(self, b)
    }
}
