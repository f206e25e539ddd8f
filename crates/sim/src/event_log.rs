//! The memory events a manager has not read yet ([`crate::Machine`]'s
//! side of `MemEvents::drain_mem_events`).

use thermocline_vocab::MemEvent;

/// Events kept for a manager between two drains: beyond this many the
/// oldest are dropped and counted (a manager that drains every 100 ms sees
/// them all unless a workload releases over 650 K ranges per second).
pub(crate) const MAX_KEPT_EVENTS: usize = 1 << 16;

/// Events kept for a manager, once one asked for them.
#[derive(Debug, Default)]
pub(crate) struct EventLog {
    kept: Option<std::collections::VecDeque<MemEvent>>,
    dropped: u64,
}

impl EventLog {
    pub(crate) fn record(&mut self, ev: MemEvent) {
        if let Some(k) = self.kept.as_mut() {
            if k.len() == MAX_KEPT_EVENTS {
                k.pop_front();
                self.dropped += 1;
            }
            k.push_back(ev);
        }
    }

    /// Moves the kept events to `out` and returns how many were dropped
    /// since the last drain; the first drain starts the keeping.
    pub(crate) fn drain(&mut self, out: &mut Vec<MemEvent>) -> u64 {
        out.extend(self.kept.get_or_insert_with(Default::default).drain(..));
        std::mem::take(&mut self.dropped)
    }
}
