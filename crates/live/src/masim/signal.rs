//! SIGUSR1 as a request to verify: the handler only sets a flag, which the
//! access loop reads between bursts.

use super::MasimError;
use crate::LiveError;
use signal_hook::consts::SIGUSR1;
use signal_hook::SigId;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// SIGUSR1's flag while it is installed.
pub(super) struct VerifyRequests {
    flag: Arc<AtomicBool>,
    id: SigId,
}

impl VerifyRequests {
    /// Installs the handler (SIGUSR1's default action would end the process).
    pub(super) fn install() -> Result<VerifyRequests, MasimError> {
        let flag = Arc::new(AtomicBool::new(false));
        let id = signal_hook::flag::register(SIGUSR1, Arc::clone(&flag))
            .map_err(|e| LiveError::io("installing the SIGUSR1 handler", e, None))?;
        Ok(VerifyRequests { flag, id })
    }

    /// The flag the handler sets.
    pub(super) fn flag(&self) -> &AtomicBool {
        &self.flag
    }
}

impl Drop for VerifyRequests {
    fn drop(&mut self) {
        signal_hook::low_level::unregister(self.id);
    }
}

/// Whether a verification was asked for since the last call.
pub(super) fn take(flag: &AtomicBool) -> bool {
    flag.swap(false, Ordering::Relaxed)
}
