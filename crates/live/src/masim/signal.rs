//! SIGUSR1 as a request to verify, SIGTERM and SIGINT as a request to stop
//! early (verify, report and exit cleanly): the handlers only set flags,
//! which the access loop reads between bursts.

use super::MasimError;
use crate::LiveError;
use signal_hook::consts::{SIGINT, SIGTERM, SIGUSR1};
use signal_hook::SigId;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// SIGUSR1's and SIGTERM's flags while they are installed.
pub(super) struct VerifyRequests {
    flag: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    ids: Vec<SigId>,
}

impl VerifyRequests {
    /// Installs the handler (SIGUSR1's default action would end the process).
    pub(super) fn install() -> Result<VerifyRequests, MasimError> {
        let flag = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let mut ids = Vec::new();
        for (sig, f) in [(SIGUSR1, &flag), (SIGTERM, &stop), (SIGINT, &stop)] {
            ids.push(
                signal_hook::flag::register(sig, Arc::clone(f))
                    .map_err(|e| LiveError::io("installing the signal handlers", e, None))?,
            );
        }
        Ok(VerifyRequests { flag, stop, ids })
    }

    /// The flag SIGUSR1 sets.
    pub(super) fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// The flag SIGTERM and SIGINT set.
    pub(super) fn stop(&self) -> &AtomicBool {
        &self.stop
    }
}

impl Drop for VerifyRequests {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// Whether a verification was asked for since the last call.
pub(super) fn take(flag: &AtomicBool) -> bool {
    flag.swap(false, Ordering::Relaxed)
}
