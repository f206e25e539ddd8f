//! The host's region monitor behind [`thermocline_backend::Backend::monitor_regions`]:
//! a [`DamonSession`] of our own (vaddr) over the target processes, started
//! at the first call with the attributes the manager asks for, started again
//! when those or the set of live targets change, and removed when the
//! backend is dropped (the session's own `Drop`).
//!
//! DAMON's regions are listed target by target, in the order of the pids
//! given; each becomes the address space of its process. A kdamond that
//! stopped by itself (every target exited) answers no regions: the driver
//! sees the exit at its next look at the targets.

use super::Process;
use crate::damon::{DamonAttrs, DamonOps, DamonSession};
use crate::LiveError;
use thermocline_backend::{BackendError, MonitorAttrs, MonitorRegion};
use thermocline_vocab::Asid;

/// The kdamond the backend runs, if any.
#[derive(Default)]
pub(super) struct Monitor {
    session: Option<Running>,
}

struct Running {
    session: DamonSession,
    attrs: MonitorAttrs,
    /// The processes it watches, in DAMON's target order.
    targets: Vec<(i32, Asid)>,
}

impl Monitor {
    /// DAMON's regions over the live processes of `procs` (see the module
    /// docs).
    pub(super) fn regions(
        &mut self,
        attrs: MonitorAttrs,
        procs: &[Process],
    ) -> Result<Vec<MonitorRegion>, BackendError> {
        let targets: Vec<(i32, Asid)> = procs
            .iter()
            .filter(|p| p.alive)
            .map(|p| (p.pid, p.asid))
            .collect();
        if targets.is_empty() {
            self.session = None;
            return Ok(Vec::new());
        }
        let stale = self
            .session
            .as_ref()
            .is_none_or(|r| r.attrs != attrs || r.targets != targets);
        if stale {
            // ours first: a new session refuses while any kdamond exists
            self.session = None;
            let session = DamonSession::start(
                DamonOps::Vaddr(targets.iter().map(|t| t.0).collect()),
                damon_attrs(attrs),
                &[],
            )
            .map_err(refused)?;
            self.session = Some(Running {
                session,
                attrs,
                targets,
            });
        }
        let run = self.session.as_mut().expect("started above");
        let max = attrs.max_nr_accesses();
        match run.session.regions() {
            Ok(rs) => Ok(rs
                .into_iter()
                .filter_map(|r| {
                    let (_, asid) = *run.targets.get(r.target)?;
                    Some(MonitorRegion {
                        asid,
                        start: r.start,
                        len: r.len(),
                        nr_accesses: r.nr_accesses,
                        max_nr_accesses: max,
                        age: r.age,
                    })
                })
                .collect()),
            // the kdamond stopped: its targets exited
            Err(LiveError::Exited { .. }) => Ok(Vec::new()),
            Err(e) => Err(BackendError::Host(format!("DAMON: {e}"))),
        }
    }
}

/// DAMON's attributes for what a manager asked: its intervals and region
/// bounds, and the session's default for how often vaddr re-reads the
/// targets' mappings (1 s).
fn damon_attrs(a: MonitorAttrs) -> DamonAttrs {
    DamonAttrs {
        sample_us: a.sample_us,
        aggr_us: a.aggr_us,
        min_regions: a.min_regions,
        max_regions: a.max_regions,
        ..DamonAttrs::default()
    }
}

/// Why a session could not start: the host's (another user's kdamond, no
/// DAMON, no privilege) is the user's to fix, so it is `Unfit` and names
/// the reason; anything else is the host failing.
fn refused(e: LiveError) -> BackendError {
    match e {
        LiveError::Unsupported { .. } => BackendError::Unfit(format!(
            "{e} (the kernel's DAMON regions need CONFIG_DAMON_VADDR and DAMON_SYSFS)"
        )),
        LiveError::Busy(_) | LiveError::Permission { .. } | LiveError::Invalid(_) => {
            BackendError::Unfit(e.to_string())
        }
        _ => BackendError::Host(format!("DAMON: {e}")),
    }
}
