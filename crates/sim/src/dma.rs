//! The DMA engine of Memos' lockless migration (paper 003, section 5.2):
//! pages queued for a copy, one at a time, each finishing at a simulated
//! time; the machine checks the page's Dirty bit when its copy finishes.

use std::collections::VecDeque;
use thermocline_vocab::{Asid, TierId};

/// One page being copied.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Copy {
    pub asid: Asid,
    pub va: u64,
    pub to: TierId,
    /// The (bank, slab) its frame should have (`None` in either: any),
    /// when it was placed (`dma_start_placed`).
    pub place: Option<(Option<u16>, Option<u16>)>,
    /// Simulated time at which the engine has copied it (ns).
    pub done_ns: f64,
}

/// Queued copies, in the order the engine does them.
#[derive(Clone, Debug, Default)]
pub(crate) struct DmaEngine {
    queue: VecDeque<Copy>,
    /// When the engine finishes the last queued copy (ns).
    busy_until_ns: f64,
}

impl DmaEngine {
    /// Queues a copy that takes `copy_ns` of engine time, from `now_ns` or
    /// when the engine is free, whichever is later.
    pub(crate) fn queue(
        &mut self,
        asid: Asid,
        va: u64,
        to: TierId,
        place: Option<(Option<u16>, Option<u16>)>,
        now_ns: f64,
        copy_ns: f64,
    ) {
        let done_ns = self.busy_until_ns.max(now_ns) + copy_ns;
        self.busy_until_ns = done_ns;
        self.queue.push_back(Copy {
            asid,
            va,
            to,
            place,
            done_ns,
        });
    }

    /// The next copy finished by `now_ns`, if any.
    pub(crate) fn finished(&mut self, now_ns: f64) -> Option<Copy> {
        if self.queue.front().is_some_and(|c| c.done_ns <= now_ns) {
            self.queue.pop_front()
        } else {
            None
        }
    }

    /// Drops the copies of pages of `asid` in `[start, end)` (released:
    /// nothing is left to copy); the engine's time they took stays spent.
    pub(crate) fn cancel(&mut self, asid: Asid, start: u64, end: u64) {
        self.queue
            .retain(|c| c.asid != asid || c.va < start || c.va >= end);
    }

    /// Copies not finished.
    pub(crate) fn pending(&self) -> u64 {
        self.queue.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_finish_one_after_another() {
        let mut e = DmaEngine::default();
        e.queue(Asid(0), 0x1000, TierId::SLOW, None, 100.0, 10.0);
        e.queue(Asid(0), 0x2000, TierId::SLOW, None, 100.0, 10.0);
        assert!(e.finished(109.0).is_none());
        assert_eq!(e.finished(110.0).unwrap().va, 0x1000);
        assert!(
            e.finished(119.0).is_none(),
            "the second starts after the first"
        );
        assert_eq!(e.finished(120.0).unwrap().va, 0x2000);
        // An idle engine starts at once.
        e.queue(Asid(0), 0x3000, TierId::SLOW, None, 500.0, 10.0);
        assert_eq!(e.finished(510.0).unwrap().done_ns, 510.0);
        assert_eq!(e.pending(), 0);
    }
}
